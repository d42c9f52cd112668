/**
 * Freshness under `auto` with evidence recorded earlier (spec/pack.md §6 "Evidence"): a package
 * known to be built here stays checked after its files were deleted or edited everywhere; a
 * package built elsewhere with same-named files stays unchecked; the majority rule of
 * `packagesBuiltHere`; the receipt names the evidence; same inputs give the same bytes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePack } from './compile.js';
import { checkFreshness, freshnessResolver, installedBuiltHere, packagesBuiltHere } from './freshness.js';
import { buildSearchIndex } from './search.js';
import { graph, node, NOW, srcHash } from './__tests__/graph.js';

const RULES = ['# Rules', '', '- Never log tokens.', '- Use pnpm.', '', '## Tests', '- Run `pnpm test`.'].join('\n');
const FOREIGN = ['# Their rules', '', '- Deploy on Fridays.', '- Use yarn.'].join('\n');

function own(text = RULES) {
  return [
    node('@acme/own', 'l3', { type: 'gotcha', content: 'Never log tokens.', file_path: 'docs/rules.md', line_start: 3, line_end: 3, source: srcHash(text, 3, 3) }),
    node('@acme/own', 'l4', { type: 'convention', content: 'Use pnpm.', file_path: 'docs/rules.md', line_start: 4, line_end: 4, source: srcHash(text, 4, 4) }),
    node('@acme/own', 'l7', { type: 'procedure', content: 'Run `pnpm test`.', file_path: 'docs/rules.md', line_start: 7, line_end: 7, source: srcHash(text, 7, 7) }),
  ];
}

/** Built in another repository from its own docs/rules.md (same path, other text). */
function foreign() {
  return [
    node('@other/pkg', 'f3', { type: 'gotcha', content: 'Deploy on Fridays.', file_path: 'docs/rules.md', line_start: 3, line_end: 3, source: srcHash(FOREIGN, 3, 3) }),
    node('@other/pkg', 'f4', { type: 'convention', content: 'Use yarn.', file_path: 'docs/rules.md', line_start: 4, line_end: 4, source: srcHash(FOREIGN, 4, 4) }),
  ];
}

const EDITED = RULES.split('\n').map((l) => (l === '' ? l : `${l} (edited)`)).join('\n');
const reader = (files: Record<string, string>) => (p: string) => files[p] ?? null;

describe('auto with builtHere', () => {
  it('checks a known package whose file was deleted or edited on every line; plain auto does not', () => {
    const nodes = [...own(), ...foreign()];
    const gone = checkFreshness(nodes, reader({}), 'auto', ['@acme/own']);
    expect([...gone.values()]).toEqual(['absent', 'absent', 'absent']);
    expect(checkFreshness(nodes, reader({}), 'auto').size).toBe(0);
    const edited = checkFreshness(nodes, reader({ 'docs/rules.md': EDITED }), 'auto', ['@acme/own']);
    expect(Object.fromEntries(edited)).toEqual({ '@acme/own#l3': 'stale', '@acme/own#l4': 'stale', '@acme/own#l7': 'stale' });
    expect(checkFreshness(nodes, reader({ 'docs/rules.md': EDITED }), 'auto').size).toBe(0);
  });

  it('is ignored by the other scopes', () => {
    expect(checkFreshness(own(), reader({}), 'none', ['@acme/own']).size).toBe(0);
    expect(checkFreshness([...own(), ...foreign()], reader({}), ['@other/pkg'], ['@acme/own']).size).toBe(2);
  });

  it('the lazy resolver answers like checkFreshness with builtHere', () => {
    const texts = [RULES, EDITED, FOREIGN, null] as const;
    fc.assert(
      fc.property(
        fc.subarray([...own(), ...foreign()]),
        fc.constantFrom(...texts),
        fc.subarray(['@acme/own', '@other/pkg', '@not/installed']),
        fc.constantFrom<'auto' | 'all' | 'none' | string[]>('auto', 'all', 'none', ['@acme/own']),
        (nodes, text, built, scope) => {
          const read = (p: string) => (p === 'docs/rules.md' ? text : null);
          const eager = checkFreshness(nodes, read, scope, built);
          const lazy = freshnessResolver(nodes, read, scope, built);
          for (const n of nodes) expect(lazy(n)).toBe(eager.get(n.id) ?? 'unchecked');
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('packagesBuiltHere', () => {
  it('names packages with more than half of their checkable nodes fresh, sorted', () => {
    const files = { 'docs/rules.md': RULES };
    expect(packagesBuiltHere([...foreign(), ...own()], reader(files))).toEqual(['@acme/own']);
    // Two of three fresh: recorded; one of three: not (a coincidental match is not enough).
    const one = RULES.replace('Use pnpm.', 'Use npm.');
    expect(packagesBuiltHere(own(), reader({ 'docs/rules.md': one }))).toEqual(['@acme/own']);
    const two = one.replace('Never log', 'Always log');
    expect(packagesBuiltHere(own(), reader({ 'docs/rules.md': two }))).toEqual([]);
    expect(packagesBuiltHere(own(), reader({}))).toEqual([]);
    expect(packagesBuiltHere(own(), undefined)).toEqual([]);
  });

  it('skips names already recorded and never counts nodes the reader does not judge', () => {
    const asked: string[] = [];
    expect(packagesBuiltHere(own(), (p) => (asked.push(p), RULES), ['@acme/own'])).toEqual([]);
    expect(asked).toEqual([]);
    expect(packagesBuiltHere(own(), () => undefined)).toEqual([]);
  });

  it('installedBuiltHere keeps installed names only, sorted and unique', () => {
    const g = graph([...own(), ...foreign()]);
    expect(installedBuiltHere(g, ['@z/gone', '@other/pkg', '@acme/own', '@acme/own'])).toEqual(['@acme/own', '@other/pkg']);
    expect(installedBuiltHere(g, undefined)).toEqual([]);
  });
});

describe('compilePack and the search index with builtHere', () => {
  const g = graph([...own(), ...foreign()]);

  it('flags the known package ABSENT after rm, leaves the foreign one unflagged, omits under stale: omit', () => {
    const flag = compilePack({ graph: g, maxBytes: 64 * 1024, now: NOW, read: reader({}), builtHere: ['@acme/own'] });
    expect(flag.receipt.delivered.filter((d) => d.flags.length > 0).map((d) => [d.id, d.flags])).toEqual([
      ['@acme/own#l3', ['absent']],
      ['@acme/own#l4', ['absent']],
      ['@acme/own#l7', ['absent']],
    ]);
    expect(flag.receipt.policy.built_here).toEqual(['@acme/own']);
    const omit = compilePack({ graph: g, maxBytes: 64 * 1024, now: NOW, read: reader({}), builtHere: ['@acme/own'], policy: { stale: 'omit' } });
    expect(omit.receipt.omissions.map((o) => [o.id, o.reason])).toEqual([
      ['@acme/own#l3', 'absent'],
      ['@acme/own#l4', 'absent'],
      ['@acme/own#l7', 'absent'],
    ]);
    expect(omit.receipt.delivered.map((d) => d.id).sort()).toEqual(['@other/pkg#f3', '@other/pkg#f4']);
    const idx = buildSearchIndex(g, { nowMs: Date.parse(NOW), read: reader({}), builtHere: ['@acme/own'], policy: { stale: 'omit' } });
    expect([...idx.withheld].map(([id, w]) => [id, w.reason]).sort()).toEqual(omit.receipt.omissions.map((o) => [o.id, o.reason]));
  });

  it('without evidence the receipt has no built_here and nothing is flagged', () => {
    const p = compilePack({ graph: g, maxBytes: 64 * 1024, now: NOW, read: reader({}) });
    expect(p.receipt.policy).not.toHaveProperty('built_here');
    expect(p.receipt.counts.flagged).toBe(0);
    // Names not installed, or another scope, leave the receipt as before.
    expect(compilePack({ graph: g, maxBytes: 64 * 1024, now: NOW, read: reader({}), builtHere: ['@z/gone'] }).text).toBe(p.text);
    expect(compilePack({ graph: g, maxBytes: 64 * 1024, now: NOW, read: reader({}), builtHere: ['@acme/own'], policy: { freshness: 'none' } }).receipt.policy).not.toHaveProperty('built_here');
  });

  it('same inputs give the same bytes, whatever the order of builtHere', () => {
    const a = compilePack({ graph: g, maxBytes: 64 * 1024, now: NOW, read: reader({ 'docs/rules.md': EDITED }), builtHere: ['@other/pkg', '@acme/own'] });
    const b = compilePack({ graph: g, maxBytes: 64 * 1024, now: NOW, read: reader({ 'docs/rules.md': EDITED }), builtHere: ['@acme/own', '@other/pkg', '@acme/own'] });
    expect(b.text).toBe(a.text);
    expect(JSON.stringify(b.receipt)).toBe(JSON.stringify(a.receipt));
    expect(a.text.match(/\(ctxpkg: STALE — /g)).toHaveLength(5);
  });
});

describe('packagesBuiltHere against the rule', () => {
  /** The majority rule as first written: every checkable node of every package judged and tallied. */
  function byRule(nodes: ReturnType<typeof node>[], read: (p: string) => string | null | undefined, skip: string[]): string[] {
    const tally = new Map<string, { fresh: number; checkable: number }>();
    const lines = (p: string): string[] | null | undefined => {
      const t = read(p);
      return typeof t === 'string' ? t.split('\n') : t;
    };
    for (const n of nodes) {
      if (skip.includes(n.package)) continue;
      const ok = typeof n.file_path === 'string' && !n.file_path.startsWith('..') && Number.isSafeInteger(n.line_start) && Number.isSafeInteger(n.line_end) && (n.line_start as number) >= 1 && (n.line_end as number) >= (n.line_start as number) && typeof n.source === 'string' && /^sha256:[0-9a-f]{64}$/.test(n.source);
      if (!ok) continue;
      const ls = lines(n.file_path as string);
      if (ls === undefined) continue;
      const t = tally.get(n.package) ?? { fresh: 0, checkable: 0 };
      t.checkable++;
      if (ls !== null && (n.line_end as number) <= ls.length && srcHash(ls.join('\n'), n.line_start as number, n.line_end as number) === n.source) t.fresh++;
      tally.set(n.package, t);
    }
    return [...tally].filter(([, t]) => t.fresh > 0 && t.fresh * 2 > t.checkable).map(([p]) => p).sort();
  }

  it('records the packages the rule records: files present, absent, unread or unsafe, in runs or interleaved (property)', () => {
    const files: Record<string, string | null | undefined> = { 'a.md': RULES, 'b.md': FOREIGN, 'gone.md': null, 'unread.md': undefined };
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            pkg: fc.constantFrom('@p/one', '@p/two', '@p/three'),
            file: fc.constantFrom('a.md', 'b.md', 'gone.md', 'unread.md', '../a.md'),
            line: fc.integer({ min: 1, max: 8 }),
            text: fc.constantFrom(RULES, FOREIGN),
            source: fc.constantFrom('good', 'bad', 'none'),
          }),
          { maxLength: 25 },
        ),
        fc.boolean(),
        fc.subarray(['@p/one', '@p/two', '@p/three']),
        (rows, sorted, skip) => {
          const list = sorted ? [...rows].sort((x, y) => (x.pkg < y.pkg ? -1 : x.pkg > y.pkg ? 1 : 0)) : rows;
          const nodes = list.map((r, i) =>
            node(r.pkg, `n${i}`, { file_path: r.file, line_start: r.line, line_end: r.line, ...(r.source === 'none' ? {} : { source: r.source === 'good' ? srcHash(r.text, r.line, r.line) : 'sha256:nothex' }) }),
          );
          const read = (p: string): string | null | undefined => {
            if (p.startsWith('..')) throw new Error(`read ${p}`);
            return files[p];
          };
          expect(packagesBuiltHere(nodes, read, skip)).toEqual(byRule(nodes, read, skip));
        },
      ),
      { numRuns: 1500 },
    );
  });
});
