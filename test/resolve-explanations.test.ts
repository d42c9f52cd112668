/**
 * Conflict explanations checked as exact text (issue 3 item 5), in the style of Dart pub's
 * PubGrub reports, plus the structured details (`requirements`, `chains`) that carry the same
 * facts for programs.
 */
import { describe, expect, it } from 'vitest';
import { isCtxpkgError, resolve, type CtxpkgError, type ResolveRoot } from '@ctxpkg/format';
import { memorySource, rootDeps, type MemRegistry } from '../packages/format/src/resolve/__tests__/memory-source.js';

async function failure(root: ResolveRoot, reg: MemRegistry, reverse = false): Promise<CtxpkgError> {
  try {
    await resolve(root, memorySource(reg, { reverse }));
  } catch (e) {
    if (isCtxpkgError(e)) return e;
    throw e;
  }
  throw new Error('expected resolution to fail');
}

const diamond: MemRegistry = {
  '@aa/x': { '1.2.0': { deps: { '@cc/z': '^2' } } },
  '@bb/y': { '3.0.0': { deps: { '@cc/z': '^1' } } },
  '@cc/z': { '1.0.0': {}, '2.0.0': {} },
};

describe('conflict explanations', () => {
  it('two packages needing disjoint ranges of a third (the issue example)', async () => {
    const e = await failure({ dependencies: rootDeps({ '@aa/x': '^1', '@bb/y': '^3' }) }, diamond);
    expect(e.code).toBe('E_CONFLICT');
    expect(e.message).toBe(
      [
        'Because @aa/x@1.2.0 needs @cc/z ^2 but @bb/y@3.0.0 needs @cc/z ^1, @aa/x@1.2.0 is incompatible with @bb/y@3.0.0.',
        'So, because your project needs both @aa/x ^1 and @bb/y ^3, version solving failed.',
      ].join('\n'),
    );
    expect(e.details!.chains).toEqual([
      [
        { from: 'your project', from_version: null, package: '@aa/x', range: '^1' },
        { from: '@aa/x', from_version: '1.2.0', package: '@cc/z', range: '^2' },
      ],
      [
        { from: 'your project', from_version: null, package: '@bb/y', range: '^3' },
        { from: '@bb/y', from_version: '3.0.0', package: '@cc/z', range: '^1' },
      ],
    ]);
    const requirements = e.details!.requirements as Array<{ kind: string; problem?: string; package: string }>;
    expect(requirements.filter((r) => r.problem === 'conflict').map((r) => r.package)).toEqual(['@cc/z', '@cc/z']);
  });

  it('is the same text whatever order the source answers in', async () => {
    const a = await failure({ dependencies: rootDeps({ '@aa/x': '^1', '@bb/y': '^3' }) }, diamond);
    const b = await failure({ dependencies: rootDeps({ '@bb/y': '^3', '@aa/x': '^1' }) }, diamond, true);
    expect(b.message).toBe(a.message);
    expect(b.details).toEqual(a.details);
  });

  it('every version of a package, summarised as one fact', async () => {
    const reg: MemRegistry = {
      '@aa/x': { '1.0.0': { deps: { '@cc/z': '^1' } }, '2.0.0': { deps: { '@cc/z': '^2' } } },
      '@bb/y': { '1.0.0': { deps: { '@cc/z': '^3' } }, '2.0.0': { deps: { '@cc/z': '^4' } } },
      '@cc/z': { '1.0.0': {}, '2.0.0': {}, '3.0.0': {}, '4.0.0': {} },
    };
    const e = await failure({ name: '@acme/app', dependencies: rootDeps({ '@aa/x': '*', '@bb/y': '*' }) }, reg);
    expect(e.message).toBe(
      [
        'Because @aa/x@1.0.0 needs @cc/z ^1 but @aa/x@2.0.0 needs @cc/z ^2, every version of @aa/x needs @cc/z <=2.0.0.',
        'Because @bb/y@1.0.0 needs @cc/z ^3 but @bb/y@2.0.0 needs @cc/z ^4, every version of @bb/y needs @cc/z >=3.0.0.',
        'Thus, every version of @aa/x is incompatible with every version of @bb/y.',
        'So, because @acme/app needs both @aa/x * and @bb/y *, version solving failed.',
      ].join('\n'),
    );
  });

  it('branching derivations get numbered lines (Dart pub solver.md "branching error reporting")', async () => {
    const reg: MemRegistry = {
      '@ex/foo': { '1.0.0': { deps: { '@ex/a': '^1.0.0', '@ex/b': '^1.0.0' } }, '1.1.0': { deps: { '@ex/x': '^1.0.0', '@ex/y': '^1.0.0' } } },
      '@ex/a': { '1.0.0': { deps: { '@ex/b': '^2.0.0' } } },
      '@ex/b': { '1.0.0': {}, '2.0.0': {} },
      '@ex/x': { '1.0.0': { deps: { '@ex/y': '^2.0.0' } } },
      '@ex/y': { '1.0.0': {}, '2.0.0': {} },
    };
    const e = await failure({ dependencies: rootDeps({ '@ex/foo': '^1.0.0' }) }, reg);
    expect(e.message).toBe(
      [
        '    Because @ex/foo@1.0.0 needs @ex/a ^1.0.0 which needs @ex/b ^2.0.0, @ex/foo@1.0.0 needs @ex/b@2.0.0.',
        '(1) So, because @ex/foo@1.0.0 needs @ex/b ^1.0.0, @ex/foo@1.0.0 cannot be installed.',
        '',
        '    Because @ex/foo@1.1.0 needs @ex/x ^1.0.0 which needs @ex/y ^2.0.0, @ex/foo@1.1.0 needs @ex/y@2.0.0.',
        '    And because @ex/foo@1.1.0 needs @ex/y ^1.0.0, @ex/foo@1.1.0 cannot be installed.',
        '    And because @ex/foo@1.0.0 cannot be installed (1), no version of @ex/foo can be installed.',
        '    So, because your project needs @ex/foo ^1.0.0, version solving failed.',
      ].join('\n'),
    );
  });

  it('a transitive chain ("which needs") against a root requirement', async () => {
    const reg: MemRegistry = {
      '@ex/foo': { '1.0.0': { deps: { '@ex/bar': '^2.0.0' } } },
      '@ex/bar': { '2.0.0': { deps: { '@ex/baz': '^3.0.0' } } },
      '@ex/baz': { '1.0.0': {}, '3.0.0': {} },
    };
    const e = await failure({ dependencies: rootDeps({ '@ex/foo': '^1.0.0', '@ex/baz': '^1.0.0' }) }, reg);
    expect(e.message).toBe(
      [
        'Because @ex/foo@1.0.0 needs @ex/bar ^2.0.0 which needs @ex/baz ^3.0.0, @ex/foo@1.0.0 needs @ex/baz@3.0.0.',
        'So, because your project needs both @ex/baz ^1.0.0 and @ex/foo ^1.0.0, version solving failed.',
      ].join('\n'),
    );
    expect(e.details!.chains).toEqual([
      [
        { from: 'your project', from_version: null, package: '@ex/foo', range: '^1.0.0' },
        { from: '@ex/foo', from_version: '1.0.0', package: '@ex/bar', range: '^2.0.0' },
        { from: '@ex/bar', from_version: '2.0.0', package: '@ex/baz', range: '^3.0.0' },
      ],
      [{ from: 'your project', from_version: null, package: '@ex/baz', range: '^1.0.0' }],
    ]);
  });

  it('a transitive range that matches nothing lists the available versions (E_NO_MATCH)', async () => {
    const reg: MemRegistry = {
      '@ex/foo': { '1.0.0': { deps: { '@ex/bar': '^9' } }, '1.1.0': { deps: { '@ex/bar': '^9' } } },
      '@ex/bar': { '1.0.0': {}, '2.0.0': { yanked: true } },
    };
    const e = await failure({ name: '@acme/app', dependencies: rootDeps({ '@ex/foo': '^1' }) }, reg);
    expect(e.code).toBe('E_NO_MATCH');
    expect(e.message).toBe(
      [
        'Because @ex/foo@1.0.0 needs @ex/bar ^9, which matches no version (available: 1.0.0, 2.0.0 (yanked)) and @ex/foo@1.1.0 needs @ex/bar ^9, which matches no version (available: 1.0.0, 2.0.0 (yanked)), no version of @ex/foo can be installed.',
        'So, because @acme/app needs @ex/foo ^1, version solving failed.',
      ].join('\n'),
    );
  });
});
