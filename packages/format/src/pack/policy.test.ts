import { describe, expect, it } from 'vitest';
import { defaultPackPolicy, defaultSyncPolicy, parseContextConfig } from './policy.js';

describe('parseContextConfig', () => {
  it('gives defaults for a missing member', () => {
    expect(parseContextConfig(undefined)).toEqual({ pack: defaultPackPolicy(), sync: defaultSyncPolicy() });
    expect(defaultSyncPolicy().targets).toEqual(['agents-md']);
  });

  it('reads every member', () => {
    const c = parseContextConfig({
      pins: ['@b/x#n', '@a/y', '@a/y'],
      priorities: { '@a/y': 3 },
      max_bytes: 1000,
      stale: 'omit',
      disputed: 'omit',
      freshness: ['@z/z', '@a/a'],
      min_activation: 0.2,
      section_weights: { facts: 5 },
      sync: { targets: ['cursor', 'agents-md'], auto: false, max_bytes: 2048, file_max_bytes: 100 },
    });
    expect(c.pack).toMatchObject({ pins: ['@a/y', '@b/x#n'], priorities: { '@a/y': 3 }, max_bytes: 1000, stale: 'omit', disputed: 'omit', freshness: ['@a/a', '@z/z'], min_activation: 0.2 });
    expect(c.pack.section_weights.facts).toBe(5);
    expect(c.pack.section_weights.gotchas).toBe(3);
    expect(c.sync).toEqual({ targets: ['agents-md', 'cursor'], auto: false, max_bytes: 2048, file_max_bytes: 100 });
  });

  it('reports every problem at once, unknown members included', () => {
    let err: unknown;
    try {
      parseContextConfig({ pins: 'x', stale: 'drop', max_bytes: 0, typo: 1, section_weights: { pinned: 1 }, sync: { targets: ['vim'] } });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'E_INVALID_JSON' });
    const paths = (err as { details: { issues: Array<{ path: string }> } }).details.issues.map((i) => i.path);
    expect(paths).toEqual([
      'ctxpkg.json: context.pins',
      'ctxpkg.json: context.stale',
      'ctxpkg.json: context.max_bytes',
      'ctxpkg.json: context.typo',
      'ctxpkg.json: context.section_weights.pinned',
      'ctxpkg.json: context.sync.targets',
    ]);
  });

  it('refuses a non-object', () => {
    expect(() => parseContextConfig([])).toThrow(expect.objectContaining({ code: 'E_INVALID_JSON' }));
  });
});
