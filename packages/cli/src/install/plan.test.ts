import { describe, expect, it } from 'vitest';
import { CtxpkgError } from '@ctxpkg/format';
import type { RegistrySettings } from '../config.js';
import { checkLockRegistries, lockDrift } from './plan.js';
import type { LockedEntry, LockState } from './types.js';

const entry = (name: string, registry: string, dependencies: Record<string, string> = {}): LockedEntry => ({
  name, version: '1.2.0', registry, artifact_sha256: 'a'.repeat(64), integrity_sha256: 'b'.repeat(64), signer_public_key: 'c'.repeat(64), dependencies,
});
const lock = (declared: Record<string, string>, ...entries: LockedEntry[]): LockState => ({ declared, packages: new Map(entries.map((e) => [e.name, e])) });
const settings = (over: Partial<RegistrySettings> = {}): RegistrySettings => ({
  project: { registries: {} },
  user: { registries: {}, tokens: {} },
  env: { CTXPKG_REGISTRY: 'http://r.example/api' },
  ...over,
});
const caught = (fn: () => void): CtxpkgError => {
  try {
    fn();
  } catch (err) {
    return err as CtxpkgError;
  }
  throw new Error('expected an error');
};

describe('locked origins (HB-26)', () => {
  it('a file: entry for a name declared with a registry range is refused, with a hint that is not "install without --frozen-lockfile"', () => {
    const l = lock({ '@acme/kb': '^1.0.0' }, entry('@acme/kb', 'file:vendor.ctxpkg'));
    const e = caught(() => checkLockRegistries(l, settings(), [{ '@acme/kb': '^1.0.0' }, l.declared]));
    expect(e.code).toBe('E_LOCK_REGISTRY_MISMATCH');
    expect(e.message).toContain('declares it as "^1.0.0"');
    expect(e.hint).not.toContain('without --frozen-lockfile');
    expect(e.hint).toContain('restore it from version control');
  });
  it('a file: entry for a name nobody declares (a transitive dependency) is refused', () => {
    const l = lock({ '@acme/app': '^1.0.0' }, entry('@acme/app', 'http://r.example/api', { '@acme/kb': '1.2.0' }), entry('@acme/kb', 'file:kb.ctxpkg'));
    expect(caught(() => checkLockRegistries(l, settings(), [{ '@acme/app': '^1.0.0' }, l.declared])).code).toBe('E_LOCK_REGISTRY_MISMATCH');
  });
  it('a file: entry is accepted where ctxpkg.json (or this command, or the lock record) declares exactly that file', () => {
    const l = lock({ '@acme/kb': 'file:kb.ctxpkg' }, entry('@acme/kb', 'file:kb.ctxpkg'));
    expect(() => checkLockRegistries(l, settings(), [{ '@acme/kb': 'file:kb.ctxpkg' }])).not.toThrow();
    expect(() => checkLockRegistries(l, settings(), [{}, { '@acme/kb': 'file:kb.ctxpkg' }])).not.toThrow();
    expect(() => checkLockRegistries(l, settings(), [{ '@acme/kb': 'file:other.ctxpkg' }])).toThrow(expect.objectContaining({ code: 'E_LOCK_REGISTRY_MISMATCH' }));
  });
  it('equivalent spellings of the configured registry are the same registry', () => {
    for (const r of ['http://r.example', 'http://R.EXAMPLE:80/api', 'http://r.example/api']) {
      expect(() => checkLockRegistries(lock({}, entry('@acme/kb', r)), settings(), [{}])).not.toThrow();
    }
  });
  it('another registry: the hint names the setting to fix and the binding that would make the lock right', () => {
    const l = lock({}, entry('@acme/kb', 'http://other.example/api'));
    const env = caught(() => checkLockRegistries(l, settings(), [{}]));
    expect(env.code).toBe('E_LOCK_REGISTRY_MISMATCH');
    expect(env.message).toContain('(from CTXPKG_REGISTRY)');
    expect(env.hint).toContain('"registries": { "@acme": "http://other.example/api" }');
    expect(env.hint).not.toContain('without --frozen-lockfile');
    const bound = caught(() => checkLockRegistries(l, settings({ project: { registries: { '@acme': 'http://r.example/api' } } }), [{}]));
    expect(bound.message).toContain('"registries"["@acme"] in ctxpkg.json');
    expect(bound.hint).toContain('ctxpkg.json binds @acme to http://r.example/api');
  });
  it('no registry configured for a locked name: E_CONFIG whose hint is the binding from the lock', () => {
    const e = caught(() => checkLockRegistries(lock({}, entry('@acme/kb', 'http://r.example/api')), settings({ env: {} }), [{}]));
    expect(e.code).toBe('E_CONFIG');
    expect(e.message).toContain('ctxpkg.lock installs from http://r.example/api');
    expect(e.hint).toContain('"registries": { "@acme": "http://r.example/api" }');
  });
  it('credentials in a locked URL are never printed', () => {
    const e = caught(() => checkLockRegistries(lock({}, entry('@acme/kb', 'http://user:s3cret@other.example/api')), settings(), [{}]));
    expect(`${e.message} ${e.hint} ${JSON.stringify(e.details)}`).not.toContain('s3cret');
  });
});

describe('lockDrift', () => {
  it('a range-declared name locked from a file is drift (so no path trusts that entry)', () => {
    expect(lockDrift({ '@acme/kb': '^1.0.0' }, lock({ '@acme/kb': '^1.0.0' }, entry('@acme/kb', 'file:kb.ctxpkg')))).toContain('a registry range');
    expect(lockDrift({ '@acme/kb': '^1.0.0' }, lock({ '@acme/kb': '^1.0.0' }, entry('@acme/kb', 'http://r.example/api')))).toBeUndefined();
  });
});
