import { describe, expect, it } from 'vitest';
import { defaultPackPolicy, defaultSyncPolicy, parseContextConfig } from './policy.js';

describe('parseContextConfig', () => {
  it('gives defaults for a missing member', () => {
    expect(parseContextConfig(undefined)).toEqual({ pack: defaultPackPolicy(), sync: defaultSyncPolicy() });
    // Absent targets: AGENTS.md plus the agents detected in the project (the CLI decides).
    expect(defaultSyncPolicy()).toEqual({ targets: null, auto: true, max_bytes: 8192, file_max_bytes: 8192 });
  });

  it('accepts the earlier target names as aliases and keeps the canonical order', () => {
    expect(parseContextConfig({ sync: { targets: ['cline', 'claude-md', 'agents-md', 'kiro', 'gemini', 'windsurf', 'copilot', 'cursor'] } }).sync.targets).toEqual([
      'agents-md',
      'claude',
      'cursor',
      'copilot',
      'gemini',
      'windsurf',
      'kiro',
      'cline',
    ]);
    expect(() => parseContextConfig({ sync: { targets: ['vim'] } })).toThrow(/sync\.targets must be an array of agents-md, claude/);
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
