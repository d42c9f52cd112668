import { describe, expect, it } from 'vitest';
import { isCtxpkgError, type CtxpkgError } from './errors.js';
import { resolve } from './resolve.js';
import { lockOf, memorySource, rootDeps, type MemRegistry } from './resolve/__tests__/memory-source.js';
import type { ResolveRoot } from './resolve/types.js';

async function fails(p: Promise<unknown>): Promise<CtxpkgError> {
  try {
    await p;
  } catch (e) {
    if (isCtxpkgError(e)) return e;
    throw e;
  }
  throw new Error('expected a CtxpkgError');
}

const root = (deps: Record<string, string>, optional: Record<string, string> = {}): ResolveRoot => ({ dependencies: rootDeps(deps, optional) });
const versionsOf = async (r: ResolveRoot, reg: MemRegistry) =>
  Object.fromEntries((await resolve(r, memorySource(reg))).packages.map((p) => [p.name, p.version]));

describe('reference deps.rs cases (FORMAT-FACTS §11.1 "Dependencies")', () => {
  it('[1.0.0, 1.2.0, 2.0.0] with ^1.0 picks 1.2.0; a yanked 1.3.0 is skipped', async () => {
    const reg = { '@acme/kb': { '1.0.0': {}, '1.2.0': {}, '2.0.0': {}, '1.3.0': { yanked: true } } };
    expect(await versionsOf(root({ '@acme/kb': '^1.0' }), reg)).toEqual({ '@acme/kb': '1.2.0' });
  });
  it('^2.0 against [1.0.0] is E_NO_MATCH listing what is available', async () => {
    const e = await fails(resolve(root({ '@acme/kb': '^2.0' }), memorySource({ '@acme/kb': { '1.0.0': {} } })));
    expect(e.code).toBe('E_NO_MATCH');
    expect(e.message).toBe('Because your project needs @acme/kb ^2.0, which matches no version (available: 1.0.0), version solving failed.');
  });
  it.each(['', '*', '  '])('%j matches 0.3.7', async (r) => {
    expect(await versionsOf(root({ '@acme/kb': r }), { '@acme/kb': { '0.3.7': {} } })).toEqual({ '@acme/kb': '0.3.7' });
  });
  it('skips index entries that are not SemVer', async () => {
    expect(await versionsOf(root({ '@acme/kb': '^1' }), { '@acme/kb': { 'not-a-version': {}, '1.1.0': {} } })).toEqual({ '@acme/kb': '1.1.0' });
  });
  it('>>nope<< is E_INVALID_RANGE naming the dependency, before any source call', async () => {
    const calls: string[] = [];
    const e = await fails(resolve(root({ '@acme/kb': '>>nope<<', '@acme/ok': '*' }), memorySource({}, { calls })));
    expect(e.code).toBe('E_INVALID_RANGE');
    expect(e.message).toContain('@acme/kb');
    expect(calls).toEqual([]);
  });
  it('refuses a self-dependency (E_CYCLE) and an unscoped name (E_INVALID_NAME)', async () => {
    const self = await fails(resolve({ name: '@acme/root', dependencies: rootDeps({ '@acme/root': '^1' }) }, memorySource({})));
    expect(self.code).toBe('E_CYCLE');
    expect(self.message).toContain('depends on itself');
    const plain = await fails(resolve({ name: '@acme/root', dependencies: rootDeps({ 'plain-name': '^1' }) }, memorySource({})));
    expect(plain.code).toBe('E_INVALID_NAME');
    expect(plain.message).toContain('not a scoped');
  });
  it('refuses an optional self-dependency too (intentional: the reference skips optional ones unchecked)', async () => {
    const e = await fails(resolve({ name: '@acme/root', dependencies: rootDeps({}, { '@acme/root': '^1' }) }, memorySource({})));
    expect(e.code).toBe('E_CYCLE');
  });
  it('the locked 0.2.0 wins for ^0.2', async () => {
    const reg = { '@acme/kb': { '0.2.0': {}, '0.2.5': {} } };
    const lockfile = lockOf({ '@acme/kb': '^0.2' }, { '@acme/kb': ['0.2.0', {}] });
    const r = await resolve(root({ '@acme/kb': '^0.2' }), memorySource(reg), { lockfile });
    expect(r.packages.map((p) => p.version)).toEqual(['0.2.0']);
    expect(r.changes).toEqual([]);
  });
  it('remote.rs: with [2.0.0 yanked, 1.0.0] the unpinned choice is 1.0.0 and an exact =2.0.0 pin is allowed', async () => {
    const reg = { '@acme/kb': { '2.0.0': { yanked: true }, '1.0.0': {} } };
    expect(await versionsOf(root({ '@acme/kb': '*' }), reg)).toEqual({ '@acme/kb': '1.0.0' });
    expect(await versionsOf(root({ '@acme/kb': '=2.0.0' }), reg)).toEqual({ '@acme/kb': '2.0.0' });
    expect((await fails(resolve(root({ '@acme/kb': '^2' }), memorySource(reg)))).code).toBe('E_NO_MATCH');
  });
  it('resolves transitively (intentional: the reference resolves depth 1 only, §7.2)', async () => {
    const reg = { '@acme/a': { '1.0.0': { deps: { '@acme/b': '^1' } } }, '@acme/b': { '1.0.0': { deps: { '@acme/c': '^1' } } }, '@acme/c': { '1.4.0': {} } };
    expect(await versionsOf(root({ '@acme/a': '^1' }), reg)).toEqual({ '@acme/a': '1.0.0', '@acme/b': '1.0.0', '@acme/c': '1.4.0' });
  });
});

describe('version identity (HB-03)', () => {
  it('versions differing only in build metadata are one candidate; non-strict versions are skipped', async () => {
    for (const reverse of [false, true]) {
      const reg: MemRegistry = { '@acme/kb': { '1.0.0+beef': {}, '1.0.0+cafe': {}, ' 1.1.0 ': {}, 'v1.2.0': {}, '=1.3.0': {} } };
      const r = await resolve(root({ '@acme/kb': '^1' }), memorySource(reg, { reverse }));
      expect(r.packages.map((p) => p.version)).toEqual(['1.0.0+beef']);
    }
  });
  it('a non-yanked entry wins over a yanked one of equal precedence', async () => {
    const reg: MemRegistry = { '@acme/kb': { '1.0.0+a': { yanked: true }, '1.0.0+b': {} } };
    expect(await versionsOf(root({ '@acme/kb': '*' }), reg)).toEqual({ '@acme/kb': '1.0.0+b' });
  });
});

describe('search', () => {
  it('backtracks to an older version when the newest conflicts', async () => {
    const reg = {
      '@aa/x': { '1.0.0': { deps: { '@cc/z': '^1' } }, '2.0.0': { deps: { '@cc/z': '^2' } } },
      '@bb/y': { '1.0.0': { deps: { '@cc/z': '^1' } } },
      '@cc/z': { '1.0.0': {}, '1.1.0': {}, '2.0.0': {} },
    };
    expect(await versionsOf(root({ '@aa/x': '*', '@bb/y': '*' }), reg)).toEqual({ '@aa/x': '1.0.0', '@bb/y': '1.0.0', '@cc/z': '1.1.0' });
  });
  it('resolves cycles among distinct packages', async () => {
    const reg = { '@aa/x': { '1.0.0': { deps: { '@bb/y': '^1' } } }, '@bb/y': { '1.0.0': { deps: { '@aa/x': '^1' } } } };
    const r = await resolve(root({ '@aa/x': '^1' }), memorySource(reg));
    expect(r.packages).toEqual([
      { name: '@aa/x', version: '1.0.0', dependencies: { '@bb/y': '1.0.0' }, optional: false },
      { name: '@bb/y', version: '1.0.0', dependencies: { '@aa/x': '1.0.0' }, optional: false },
    ]);
  });
  it('a transitive package depending on the root is satisfied by the root itself', async () => {
    const reg = { '@aa/x': { '1.0.0': { deps: { '@acme/app': '^2' } } } };
    const r = await resolve({ name: '@acme/app', version: '2.1.0', dependencies: rootDeps({ '@aa/x': '*' }) }, memorySource(reg));
    expect(r.packages).toEqual([{ name: '@aa/x', version: '1.0.0', dependencies: {}, optional: false }]);
    const e = await fails(resolve({ name: '@acme/app', version: '3.0.0', dependencies: rootDeps({ '@aa/x': '*' }) }, memorySource(reg)));
    expect(e.code).toBe('E_NO_MATCH');
    expect(e.message).toBe(
      'Because @aa/x@1.0.0 needs @acme/app ^2, which matches no version (available: 3.0.0) and @acme/app needs @aa/x *, version solving failed.',
    );
  });
  it('a version with invalid metadata is unusable; an older one is used', async () => {
    const reg = {
      '@aa/x': { '1.0.0': {}, '1.1.0': { deps: { 'plain-name': '^1' } }, '1.2.0': { deps: { '@cc/z': 'latest' } }, '1.3.0': { deps: { '@aa/x': '*' } } },
    };
    expect(await versionsOf(root({ '@aa/x': '^1' }), reg)).toEqual({ '@aa/x': '1.0.0' });
    const e = await fails(resolve(root({ '@aa/x': '^1.3' }), memorySource(reg)));
    expect(e.code).toBe('E_RESOLVE');
    expect(e.message).toBe('Because @aa/x@1.3.0 cannot be used because it depends on itself and your project needs @aa/x ^1.3, version solving failed.');
  });
  it('a listed version whose dependencies cannot be fetched (E_NOT_FOUND) is unusable, not fatal', async () => {
    const source = memorySource({ '@aa/x': { '1.0.0': {}, '1.1.0': {} } });
    const flaky = { ...source, dependencies: async (n: string, v: string) => (v === '1.1.0' ? source.dependencies(n, '9.9.9') : source.dependencies(n, v)) };
    const r = await resolve(root({ '@aa/x': '^1' }), flaky);
    expect(r.packages.map((p) => p.version)).toEqual(['1.0.0']);
  });
  it('asks for dependencies lazily: only of versions it tries', async () => {
    const calls: string[] = [];
    const reg = { '@aa/x': { '1.0.0': {}, '1.1.0': {}, '2.0.0': {} } };
    await resolve(root({ '@aa/x': '^1' }), memorySource(reg, { calls }));
    expect(calls).toEqual(['list @aa/x', 'deps @aa/x@1.1.0']);
  });
});

describe('optional dependencies', () => {
  const reg: MemRegistry = {
    '@aa/x': { '1.0.0': {}, '1.1.0': { deps: { '@dd/d': '*' }, optional: { '@gg/ghost': '^1', '@cc/z': '^2', '@ee/e': '^1' } } },
    '@cc/z': { '1.0.0': {}, '2.0.0': {} },
    '@dd/d': { '1.0.0': { deps: { '@cc/z': '^1' } } },
    '@ee/e': { '1.0.0': {}, '1.5.0': {} },
  };
  it('are installed when possible, reported otherwise, and never change a required version', async () => {
    const r = await resolve(root({ '@aa/x': '^1' }), memorySource(reg));
    expect(r.packages.map((p) => [p.name, p.version, p.optional])).toEqual([
      ['@aa/x', '1.1.0', false],
      ['@cc/z', '1.0.0', false],
      ['@dd/d', '1.0.0', false],
      ['@ee/e', '1.5.0', true],
    ]);
    expect(r.skippedOptional.map((s) => [s.from, s.from_version, s.name, s.reason])).toEqual([
      ['@aa/x', '1.1.0', '@cc/z', 'conflict'],
      ['@aa/x', '1.1.0', '@gg/ghost', 'not_found'],
    ]);
    expect(r.packages[0]!.dependencies).toEqual({ '@dd/d': '1.0.0', '@ee/e': '1.5.0' });
  });
  it('root optional dependencies that do not exist are skipped, not fatal', async () => {
    const r = await resolve(root({ '@ee/e': '^1' }, { '@gg/ghost': '*' }), memorySource(reg));
    expect(r.packages.map((p) => p.name)).toEqual(['@ee/e']);
    expect(r.skippedOptional).toMatchObject([{ from: 'your project', from_version: null, name: '@gg/ghost', reason: 'not_found' }]);
  });
});
