import { describe, expect, it } from 'vitest';
import { CtxpkgError } from './errors.js';
import {
  isReservedNamespace, isValidVersion, parsePackageName, RESERVED_NAMESPACES, validateNamespaceClaim, validatePackageName, validateVersion,
} from './names.js';

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return (e as CtxpkgError).code;
  }
  return undefined;
}

describe('parsePackageName', () => {
  it('parses scoped names', () => {
    expect(parsePackageName('@acme/auth-context')).toEqual({ namespace: 'acme', name: 'auth-context', full: '@acme/auth-context' });
    expect(parsePackageName('@a1/x').name).toBe('x');
    expect(parsePackageName(`@${'a'.repeat(32)}/${'b'.repeat(64)}`).namespace).toHaveLength(32);
  });

  it('refuses HB-22 names and path tricks with E_INVALID_NAME', () => {
    for (const bad of [
      '@acme/аuth-context', '@acme/Auth-Context', '@acme/auth_context', `@acme/${'a'.repeat(65)}`, '@ACME/x', '@-acme/x', '@acme-/x',
      '@a/x', `@${'a'.repeat(33)}/x`, 'acme/x', '@acme', '@acme/', '@acme/x/y', '@org/team/service', '@acme/../x', '@acme/.x',
      '@acme/x\u0000', '@acme/-x', '@acme/x-', '/tmp/x', '../../x', '', '@acme/x ', ' @acme/x', '@acme/ｘ',
    ]) {
      expect(code(() => parsePackageName(bad)), bad).toBe('E_INVALID_NAME');
    }
  });
});

describe('validatePackageName', () => {
  it('accepts legacy unscoped names only when allowed', () => {
    expect(validatePackageName('vt-pkg', { allowUnscoped: true })).toEqual({ namespace: null, name: 'vt-pkg', full: 'vt-pkg' });
    expect(validatePackageName('My_Pkg.v2', { allowUnscoped: true }).namespace).toBeNull();
    expect(code(() => validatePackageName('vt-pkg'))).toBe('E_INVALID_NAME');
  });

  it('never accepts traversal, absolute, control or non-ASCII names', () => {
    for (const bad of ['..', 'a..b', '/tmp/x', 'a/b', '.hidden', '-x', 'a\u0007', 'аuth', 'my package!', 'c:\\x', 'x'.repeat(129)]) {
      expect(code(() => validatePackageName(bad, { allowUnscoped: true })), bad).toBe('E_INVALID_NAME');
    }
  });
});

describe('reserved namespaces (HB-22)', () => {
  it('lists the trust-signalling names', () => {
    for (const ns of ['official', 'verified', 'ctxpkg', 'admin']) expect(RESERVED_NAMESPACES).toContain(ns);
  });

  it('refuses claims of reserved or malformed namespaces', () => {
    for (const ns of ['official', 'verified', 'ctxpkg', 'admin', 'OFFICIAL']) expect(isReservedNamespace(ns)).toBe(true);
    expect(code(() => validateNamespaceClaim('official'))).toBe('E_RESERVED_NAMESPACE');
    for (const bad of ['-acme', 'acme-', 'a', 'a'.repeat(33), 'ACME', 'ac me']) expect(code(() => validateNamespaceClaim(bad)), bad).toBe('E_INVALID_NAME');
    expect(validateNamespaceClaim('acme')).toBe('acme');
  });
});

describe('validateVersion (HB-03)', () => {
  it('accepts strict SemVer 2.0.0', () => {
    expect(validateVersion('1.2.3-rc.10+build.7')).toEqual({ version: '1.2.3-rc.10+build.7', major: 1, minor: 2, patch: 3, prerelease: ['rc', 10], build: ['build', '7'] });
    for (const v of ['0.0.0', '1.0.0+build.7', '1.0.1+build.1', '9007199254740991.0.0', '1.0.0-alpha-1', '1.0.0-0a']) expect(isValidVersion(v), v).toBe(true);
  });

  it('refuses the HB-03 inputs with E_INVALID_VERSION', () => {
    for (const bad of ['v1.0.1', '1.0.1 ', ' 1.0.1', '1.0.1\n', '=1.0.1', '01.0.1', '1.0.1-01', '1.0', '9007199254740992.0.0', `1.0.0-${'a'.repeat(59)}`, '1.0.0-', '1.0.0+', '']) {
      expect(code(() => validateVersion(bad)), JSON.stringify(bad)).toBe('E_INVALID_VERSION');
    }
    expect(`1.0.0-${'a'.repeat(58)}`).toHaveLength(64);
    expect(isValidVersion(`1.0.0-${'a'.repeat(58)}`)).toBe(true);
  });
});
