/**
 * Resolver parts of ADVERSARIAL HB-01, HB-02, HB-05, HB-26 and HB-28, run through the public
 * `@ctxpkg/format` API with in-memory version sources.
 */
import { describe, expect, it } from 'vitest';
import { createLockfile, isCtxpkgError, parseLockfile, resolve, serializeLockfile, type CtxpkgError, type ResolveRoot } from '@ctxpkg/format';
import { HB02_PICKS, HB02_VERSIONS } from '../packages/format/src/__tests__/hb02.js';
import { lockOf, memorySource, rootDeps, type MemRegistry } from '../packages/format/src/resolve/__tests__/memory-source.js';

async function fails(p: Promise<unknown>): Promise<CtxpkgError> {
  try {
    await p;
  } catch (e) {
    if (isCtxpkgError(e)) return e;
    throw e;
  }
  throw new Error('expected a CtxpkgError');
}

const one = async (range: string, versions: string[]) => {
  const reg: MemRegistry = { '@acme/kb': Object.fromEntries(versions.map((v) => [v, {}])) };
  const r = await resolve({ dependencies: rootDeps({ '@acme/kb': range }) }, memorySource(reg));
  return r.packages[0]!.version;
};

describe('HB-01 prereleases are opt-in (resolver)', () => {
  const versions = ['1.0.0', '1.2.0', '1.3.0-rc.1', '1.3.0-rc.2', '1.3.0-rc.10', '2.0.0-alpha.1'];
  it.each(['^1.0.0', '*', '', '1.x', '^1', '>=1.0.0 <2.0.0', '<2.0.0'])('%j resolves to 1.2.0', async (r) => {
    expect(await one(r, versions)).toBe('1.2.0');
  });
  it.each(['>=1.3.0-rc.0', '^1.3.0-rc.0', '~1.3.0-rc.2'])('%j resolves to 1.3.0-rc.10', async (r) => {
    expect(await one(r, versions)).toBe('1.3.0-rc.10');
  });
});

describe('HB-02 caret and tilde below 1.0.0 (resolver)', () => {
  const versions = [...HB02_VERSIONS];
  it.each(HB02_PICKS)('%j resolves to %s', async (r, v) => {
    expect(await one(r, versions)).toBe(v);
  });
  it('^0.0.0 is E_NO_MATCH listing the available versions', async () => {
    const reg: MemRegistry = { '@acme/kb': Object.fromEntries(versions.map((v) => [v, {}])) };
    const e = await fails(resolve({ dependencies: rootDeps({ '@acme/kb': '^0.0.0' }) }, memorySource(reg)));
    expect(e.code).toBe('E_NO_MATCH');
    expect(e.message).toBe(
      'Because your project needs @acme/kb ^0.0.0, which matches no version (available: 0.0.3, 0.0.4, 0.2.3, 0.2.9, 0.3.0, 1.0.0), version solving failed.',
    );
  });
});

describe('HB-05 range grammar at the resolver', () => {
  const reg: MemRegistry = { '@acme/kb': { '1.2.3': {}, '1.5.0': {}, '2.0.0': {} }, '@acme/sib': { '1.0.0': {} } };
  it.each(['latest', '1.2.3' + ' '.repeat(290) + '<2'])('%j → E_INVALID_RANGE naming the dependency; nothing resolved, not even siblings', async (r) => {
    const calls: string[] = [];
    const e = await fails(resolve({ dependencies: rootDeps({ '@acme/sib': '*', '@acme/kb': r }) }, memorySource(reg, { calls })));
    expect(e.code).toBe('E_INVALID_RANGE');
    expect(e.message).toContain('dependency @acme/kb');
    expect(calls).toEqual([]);
  });
  it('">=1.0, <2.0" is the reference dialect: 1.5.0 (intentional difference from the npm-based HB-05 row)', async () => {
    expect(await one('>=1.0, <2.0', ['1.2.3', '1.5.0', '2.0.0'])).toBe('1.5.0');
  });
  it.each([
    ['^1.2.3 || ^2', '2.0.0'],
    ['', '2.0.0'],
    ['*', '2.0.0'],
    ['1.2.3', '1.5.0'],
  ])('%j → %s', async (r, v) => {
    expect(await one(r, ['1.2.3', '1.5.0', '2.0.0'])).toBe(v);
  });
});

describe('HB-28 a source bound to one registry never falls back', () => {
  it('resolves @acme/internal-kb from P; @acme/ghost is E_NOT_FOUND naming P; Q gets zero requests', async () => {
    const qCalls: string[] = [];
    const q = memorySource({ '@acme/internal-kb': { '99.0.0': {} }, '@acme/ghost': { '1.0.0': {} } }, { registry: 'https://q.test', calls: qCalls });
    const p = memorySource({ '@acme/internal-kb': { '1.0.0': {} } }, { registry: 'https://p.test/api' });
    void q;
    const ok = await resolve({ dependencies: rootDeps({ '@acme/internal-kb': '*' }) }, p);
    expect(ok.packages).toEqual([{ name: '@acme/internal-kb', version: '1.0.0', dependencies: {}, optional: false }]);
    const e = await fails(resolve({ dependencies: rootDeps({ '@acme/internal-kb': '*', '@acme/ghost': '^1' }) }, p));
    expect(e.code).toBe('E_NOT_FOUND');
    expect(e.message).toContain('https://p.test/api');
    expect(qCalls).toEqual([]);
  });
});

describe('HB-26 lockfile drift (resolver part)', () => {
  const reg: MemRegistry = {
    '@acme/auth-context': { '1.2.0': {}, '1.3.0': {}, '2.0.0': {}, '2.1.0': {} },
    '@acme/other': { '1.0.0': {}, '1.1.0': {} },
  };
  const lockfile = lockOf({ '@acme/auth-context': '^1.0.0', '@acme/other': '^1' }, { '@acme/auth-context': ['1.2.0', {}], '@acme/other': ['1.0.0', {}] });
  const project = (range: string): ResolveRoot => ({ dependencies: rootDeps({ '@acme/auth-context': range, '@acme/other': '^1' }) });

  it('a satisfied lock changes nothing although newer versions exist', async () => {
    const r = await resolve(project('^1.0.0'), memorySource(reg), { lockfile });
    expect(r.packages.map((p) => p.version)).toEqual(['1.2.0', '1.0.0']);
    expect(r.changes).toEqual([]);
    const frozen = await resolve(project('^1.0.0'), memorySource(reg), { lockfile, frozen: true });
    expect(frozen.changes).toEqual([]);
  });
  it('(c) range changed to ^2.0.0: frozen → E_LOCKFILE_OUT_OF_SYNC before any source call', async () => {
    const calls: string[] = [];
    const e = await fails(resolve(project('^2.0.0'), memorySource(reg, { calls }), { lockfile, frozen: true }));
    expect(e.code).toBe('E_LOCKFILE_OUT_OF_SYNC');
    expect(e.message).toContain('@acme/auth-context: declared "^2.0.0" but the lockfile records "^1.0.0"');
    expect(calls).toEqual([]);
  });
  it('(c) non-frozen → the highest 2.x, and only that entry changes', async () => {
    const r = await resolve(project('^2.0.0'), memorySource(reg), { lockfile });
    expect(r.packages.map((p) => `${p.name}@${p.version}`)).toEqual(['@acme/auth-context@2.1.0', '@acme/other@1.0.0']);
    expect(r.changes).toEqual([{ name: '@acme/auth-context', from: '1.2.0', to: '2.1.0', kind: 'upgraded' }]);
  });
  it('(d) the entry of a declared dependency deleted: frozen → E_LOCKFILE_OUT_OF_SYNC', async () => {
    const copy = structuredClone(lockfile);
    delete copy.packages['@acme/auth-context'];
    const damaged = parseLockfile(serializeLockfile(copy)); // not a parse error: drift
    expect(Object.keys(damaged.packages)).toEqual(['@acme/other']);
    const e = await fails(resolve(project('^1.0.0'), memorySource(reg), { lockfile: damaged, frozen: true }));
    expect(e.code).toBe('E_LOCKFILE_OUT_OF_SYNC');
    expect(e.message).toContain('@acme/auth-context: the lockfile has no entry for it');
  });
  it('update re-resolves only the named package', async () => {
    const r = await resolve(project('^1.0.0'), memorySource(reg), { lockfile, update: ['@acme/other'] });
    expect(r.changes).toEqual([{ name: '@acme/other', from: '1.0.0', to: '1.1.0', kind: 'upgraded' }]);
  });
  it('a yanked version stays usable while the lockfile pins it, and only then', async () => {
    const yanked: MemRegistry = { ...reg, '@acme/auth-context': { '1.2.0': { yanked: true }, '1.3.0': {} } };
    const kept = await resolve(project('^1.0.0'), memorySource(yanked), { lockfile });
    expect(kept.packages[0]!.version).toBe('1.2.0');
    const fresh = await resolve(project('^1.0.0'), memorySource(yanked));
    expect(fresh.packages[0]!.version).toBe('1.3.0');
  });
  it('two clean resolutions give byte-identical lockfiles, sorted by name', async () => {
    const art = { registry: 'https://registry.test/api', artifact_sha256: 'a'.repeat(64), integrity_sha256: 'b'.repeat(64), signer_public_key: 'c'.repeat(64) };
    const texts = await Promise.all(
      [false, true].map(async (reverse) => {
        const root = project('^1.0.0');
        const r = await resolve(root, memorySource(reg, { reverse }));
        return serializeLockfile(createLockfile(root, r, { '@acme/auth-context': art, '@acme/other': art }));
      }),
    );
    expect(texts[0]).toBe(texts[1]);
    expect(texts[0]!.indexOf('"@acme/auth-context": {')).toBeLessThan(texts[0]!.indexOf('"@acme/other": {'));
  });
});
