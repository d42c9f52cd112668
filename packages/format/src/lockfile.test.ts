import { describe, expect, it } from 'vitest';
import { isCtxpkgError, type CtxpkgError } from './errors.js';
import { createLockfile, parseLockfile, serializeLockfile, type Lockfile } from './lockfile.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const K = '197f6b23e16c8532c6abc838facd5ea789be0c76b2920334039bfa8b3d368d61';

function sample(): Lockfile {
  return {
    lockfileVersion: 1,
    dependencies: { '@zeta/pkg': '^1.1', '@acme/pkg': '^2' },
    packages: {
      '@zeta/pkg': { version: '1.1.0', registry: 'https://r.example/api', artifact_sha256: A, integrity_sha256: B, signer_public_key: K, dependencies: { '@acme/pkg': '2.0.0' } },
      '@acme/pkg': { version: '2.0.0', registry: 'https://r.example/api', artifact_sha256: B, integrity_sha256: A, signer_public_key: K, dependencies: {} },
    },
  };
}

function lockError(fn: () => unknown): CtxpkgError {
  try {
    fn();
  } catch (e) {
    if (isCtxpkgError(e)) return e;
    throw e;
  }
  throw new Error('expected an error');
}

const EXPECTED_TEXT = `{
  "dependencies": {
    "@acme/pkg": "^2",
    "@zeta/pkg": "^1.1"
  },
  "lockfileVersion": 1,
  "packages": {
    "@acme/pkg": {
      "artifact_sha256": "${B}",
      "dependencies": {},
      "integrity_sha256": "${A}",
      "registry": "https://r.example/api",
      "signer_public_key": "${K}",
      "version": "2.0.0"
    },
    "@zeta/pkg": {
      "artifact_sha256": "${A}",
      "dependencies": {
        "@acme/pkg": "2.0.0"
      },
      "integrity_sha256": "${B}",
      "registry": "https://r.example/api",
      "signer_public_key": "${K}",
      "version": "1.1.0"
    }
  }
}
`;

describe('serializeLockfile', () => {
  it('writes sorted keys, 2-space indent, LF and a trailing newline (entries sorted by name, as the reference)', () => {
    // Reference lockfile.rs test: upserting @zeta/pkg, then @acme/pkg gives [@acme/pkg, @zeta/pkg].
    expect(serializeLockfile(sample())).toBe(EXPECTED_TEXT);
  });
  it('is deterministic and round-trips through parseLockfile', () => {
    const text = serializeLockfile(sample());
    expect(serializeLockfile(parseLockfile(text))).toBe(text);
    expect(parseLockfile(text)).toEqual(sample());
  });
  it('writes optionalDependencies only when there are some', () => {
    const lock = { ...sample(), optionalDependencies: { '@opt/x': '*' } };
    expect(serializeLockfile(lock)).toContain('"optionalDependencies": {\n    "@opt/x": "*"\n  },');
    expect(parseLockfile(serializeLockfile(lock)).optionalDependencies).toEqual({ '@opt/x': '*' });
  });
  it('validates before writing', () => {
    const bad = sample();
    bad.packages['@acme/pkg']!.artifact_sha256 = 'XYZ';
    expect(lockError(() => serializeLockfile(bad)).code).toBe('E_LOCKFILE');
  });
  it('accepts file: origins for packages installed from local files', () => {
    const lock = sample();
    lock.dependencies['@acme/pkg'] = 'file:vendor/acme-pkg-2.0.0.ctxpkg';
    lock.packages['@acme/pkg']!.registry = 'file:vendor/acme-pkg-2.0.0.ctxpkg';
    expect(parseLockfile(serializeLockfile(lock))).toEqual(lock);
  });
});

describe('parseLockfile refuses tampered or inconsistent lockfiles (HB-26)', () => {
  const mutate = (f: (v: any) => void): string => {
    const v = JSON.parse(EXPECTED_TEXT);
    f(v);
    return JSON.stringify(v, null, 2);
  };
  it.each([
    ['not JSON', '{"lockfileVersion": 1,', '(document)'],
    ['a duplicate key', EXPECTED_TEXT.replace('"lockfileVersion": 1,', '"lockfileVersion": 1,\n  "lockfileVersion": 1,'), 'lockfileVersion'],
    ['a __proto__ key', EXPECTED_TEXT.replace('"lockfileVersion": 1,', '"lockfileVersion": 1,\n  "__proto__": {},'), '__proto__'],
    ['an unknown lockfile version', mutate((v) => (v.lockfileVersion = 2)), 'lockfileVersion'],
    ['a missing lockfile version', mutate((v) => delete v.lockfileVersion), 'lockfileVersion'],
    ['an unknown top-level field', mutate((v) => (v.extra = 1)), 'extra'],
    ['a missing entry field', mutate((v) => delete v.packages['@acme/pkg'].integrity_sha256), 'packages["@acme/pkg"].integrity_sha256'],
    ['an unknown entry field', mutate((v) => (v.packages['@acme/pkg'].tarball = 'x')), 'packages["@acme/pkg"].tarball'],
    ['uppercase hex', mutate((v) => (v.packages['@acme/pkg'].artifact_sha256 = B.toUpperCase())), 'packages["@acme/pkg"].artifact_sha256'],
    ['short hex', mutate((v) => (v.packages['@acme/pkg'].signer_public_key = 'ab')), 'packages["@acme/pkg"].signer_public_key'],
    ['a non-SemVer version', mutate((v) => (v.packages['@acme/pkg'].version = 'v2.0.0')), 'packages["@acme/pkg"].version'],
    ['an unscoped name', mutate((v) => (v.packages['plain'] = v.packages['@acme/pkg'])), 'packages.plain'],
    ['credentials in the registry URL', mutate((v) => (v.packages['@acme/pkg'].registry = 'https://u:p@r.example/api')), 'packages["@acme/pkg"].registry'],
    ['a trailing slash in the registry URL', mutate((v) => (v.packages['@acme/pkg'].registry = 'https://r.example/api/')), 'packages["@acme/pkg"].registry'],
    ['a non-http registry', mutate((v) => (v.packages['@acme/pkg'].registry = 'ftp://r.example')), 'packages["@acme/pkg"].registry'],
    ['a dependency on a missing entry', mutate((v) => (v.packages['@zeta/pkg'].dependencies['@ghost/pkg'] = '1.0.0')), 'packages["@zeta/pkg"].dependencies["@ghost/pkg"]'],
    ['a dependency on another version', mutate((v) => (v.packages['@zeta/pkg'].dependencies['@acme/pkg'] = '2.0.1')), 'packages["@zeta/pkg"].dependencies["@acme/pkg"]'],
    ['a self-dependency', mutate((v) => (v.packages['@acme/pkg'].dependencies['@acme/pkg'] = '2.0.0')), 'packages["@acme/pkg"].dependencies["@acme/pkg"]'],
    ['a locked version outside the declared range', mutate((v) => (v.dependencies['@acme/pkg'] = '^3')), 'dependencies["@acme/pkg"]'],
    ['an invalid declared range', mutate((v) => (v.dependencies['@acme/pkg'] = 'latest')), 'dependencies["@acme/pkg"]'],
  ])('%s → E_LOCKFILE at %s', (_what, text, path) => {
    const e = lockError(() => parseLockfile(text));
    expect(e.code).toBe('E_LOCKFILE');
    const issues = (e.details as { issues: Array<{ path: string }> }).issues;
    expect(issues.map((i) => i.path)).toContain(path);
    expect(e.message).toContain('ctxpkg.lock is invalid');
  });
  it('names the version it cannot read', () => {
    const e = lockError(() => parseLockfile(mutate((v) => (v.lockfileVersion = 2))));
    expect(e.message).toBe('ctxpkg.lock is invalid: lockfileVersion: unsupported lockfile version 2; this ctxpkg reads version 1 (upgrade ctxpkg)');
  });
  it('a declared dependency without an entry is drift, not a parse error', () => {
    const text = mutate((v) => {
      delete v.packages['@zeta/pkg'];
    });
    expect(Object.keys(parseLockfile(text).packages)).toEqual(['@acme/pkg']);
  });
});

describe('createLockfile', () => {
  const art = { registry: 'https://r.example/api', artifact_sha256: A, integrity_sha256: B, signer_public_key: K };
  const root = { dependencies: [{ name: '@acme/pkg', version_req: '^2', optional: false }, { name: '@opt/x', version_req: '*', optional: true }] };
  it('builds a valid lockfile from a resolution and artifact facts', () => {
    const lock = createLockfile(root, { packages: [{ name: '@acme/pkg', version: '2.0.0', dependencies: {} }] }, { '@acme/pkg': art });
    expect(lock.dependencies).toEqual({ '@acme/pkg': '^2' });
    expect(lock.optionalDependencies).toEqual({ '@opt/x': '*' });
    expect(parseLockfile(serializeLockfile(lock))).toEqual(lock);
  });
  it('refuses a package without artifact facts', () => {
    const e = lockError(() => createLockfile(root, { packages: [{ name: '@acme/pkg', version: '2.0.0', dependencies: {} }] }, new Map()));
    expect(e.code).toBe('E_LOCKFILE');
  });
});

describe('the log record of an entry (spec/transparency.md §5.4)', () => {
  const withLog = (log: unknown): Lockfile => {
    const l = sample();
    (l.packages['@acme/pkg'] as unknown as Record<string, unknown>).log = log;
    return l;
  };
  it('round-trips, written between integrity_sha256 and registry', () => {
    const text = serializeLockfile(withLog({ tree_size: 9, root_hash: A, origin: 'ctxpkg-registry/0011', index: 7 }));
    expect(text).toContain(`"integrity_sha256": "${A}",\n      "log": {\n        "index": 7,\n        "origin": "ctxpkg-registry/0011",\n        "root_hash": "${A}",\n        "tree_size": 9\n      },\n      "registry"`);
    expect(parseLockfile(text).packages['@acme/pkg']!.log).toEqual({ index: 7, origin: 'ctxpkg-registry/0011', root_hash: A, tree_size: 9 });
    expect(serializeLockfile(parseLockfile(text))).toBe(text);
  });
  it('refuses malformed records', () => {
    for (const [log, msg] of [
      [{ index: 7, origin: 'o', root_hash: A }, /log\.tree_size: missing field/],
      [{ index: 9, origin: 'o', root_hash: A, tree_size: 9 }, /must be below tree_size/],
      [{ index: -1, origin: 'o', root_hash: A, tree_size: 9 }, /non-negative integer/],
      [{ index: 1, origin: 'o o', root_hash: A, tree_size: 9 }, /origin/],
      [{ index: 1, origin: 'o', root_hash: 'AB', tree_size: 9 }, /64 lowercase hex/],
      [{ index: 1, origin: 'o', root_hash: A, tree_size: 9, extra: 1 }, /log\.extra: unknown field/],
      ['7', /must be an object/],
    ] as const) {
      expect(lockError(() => parseLockfile(JSON.stringify(withLog(log)))).message).toMatch(msg);
    }
  });
});
