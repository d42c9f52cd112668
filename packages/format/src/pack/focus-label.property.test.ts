/**
 * `HeadingIndex.label` (focus.ts) numbers the ends of heading paths by interning instead of
 * counting joined strings per length: the same labels as the plain definition — the shortest end
 * of a section's heading path (its keys) that no other section's path ends with, the whole path
 * when none is unique — on random outlines with many repeated titles, empty titles (no words),
 * duplicate headings across packages and deep nesting.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MergedNode } from '../graph-types.js';
import { HeadingIndex, headingKey, MAX_LABEL } from './focus.js';
import { hasInvisible, looksLikeMarker } from './escape.js';
import { computeScopes } from './scope.js';
import { sectionPathResolver } from './sections.js';
import { graph, node } from './__tests__/graph.js';

/** Titles drawn from a small set so that ends repeat; '!!' and '' have no words. */
const TITLES = ['Tests', 'Setup', 'Tests', 'Build', 'setup', 'TESTS!', '!!', '', 'Use `npm`', 'Snapshot tests', 'Zero\u200bwidth'];

/** The labels by the plain definition (the implementation before interning). */
function referenceLabels(hi: HeadingIndex, ids: readonly string[]): Map<string, string | undefined> {
  const entries = (hi as unknown as { entries: Array<{ id: string; keys: string[]; words: string[] }> }).entries;
  const count = (k: number, end: string): number => entries.filter((e) => e.keys.length >= k && e.keys.slice(e.keys.length - k).join('\u0000') === end).length;
  const out = new Map<string, string | undefined>();
  for (const id of ids) {
    const e = [...entries].reverse().find((x) => x.id === id);
    let label: string | undefined;
    if (e && e.keys.length > 0) {
      let k = 1;
      while (k < e.keys.length && count(k, e.keys.slice(e.keys.length - k).join('\u0000')) > 1) k++;
      const text = e.words.slice(e.words.length - k).join(' > ');
      if (text.length <= MAX_LABEL && !looksLikeMarker(text) && !hasInvisible(text)) label = text;
    }
    out.set(id, label);
  }
  return out;
}

/** A random outline: each section's parent is an earlier section of its package or none. */
const outline = fc.array(fc.record({ pkg: fc.constantFrom('@a/p', '@b/q'), title: fc.constantFrom(...TITLES), parent: fc.nat(40), root: fc.boolean() }), { minLength: 1, maxLength: 40 });

describe('HeadingIndex.label: interned path ends', () => {
  it('gives the plain definition’s label for every section', () => {
    fc.assert(
      fc.property(outline, (secs) => {
        const nodes: MergedNode[] = [];
        const edges: Array<{ from: string; to: string; type: string }> = [];
        secs.forEach((s, i) => {
          nodes.push(node(s.pkg, `s${i}`, { type: 'section', content: `${s.title}\nbody`, file_path: 'AGENTS.md', line_start: i + 1, line_end: i + 1 }));
          const earlier = secs.slice(0, i).map((x, j) => ({ x, j })).filter(({ x }) => x.pkg === s.pkg);
          if (!s.root && earlier.length > 0) {
            const p = earlier[s.parent % earlier.length] as { j: number };
            edges.push({ from: `${s.pkg}#s${p.j}`, to: `${s.pkg}#s${i}`, type: 'contains' });
          }
        });
        const g = graph(nodes, edges);
        const hi = new HeadingIndex(g, sectionPathResolver(g, computeScopes(g)));
        const ids = nodes.map((n) => n.id);
        const want = referenceLabels(hi, ids);
        for (const id of ids) expect(hi.label(id), id).toBe(want.get(id));
      }),
      { numRuns: 300 },
    );
  });

  it('tells apart ends whose keys join to the same text', () => {
    // "a b" + "c" and "a" + "b c" join alike with a space: the ends are different keys.
    const g = graph(
      [
        node('@a/p', 'r1', { type: 'section', content: 'A B' }),
        node('@a/p', 'c1', { type: 'section', content: 'C' }),
        node('@a/p', 'r2', { type: 'section', content: 'A' }),
        node('@a/p', 'c2', { type: 'section', content: 'B C' }),
      ],
      [
        { from: '@a/p#r1', to: '@a/p#c1', type: 'contains' },
        { from: '@a/p#r2', to: '@a/p#c2', type: 'contains' },
      ],
    );
    const hi = new HeadingIndex(g, sectionPathResolver(g, computeScopes(g)));
    expect(headingKey('B C')).toBe('b c');
    expect(hi.label('@a/p#c1')).toBe('C');
    expect(hi.label('@a/p#c2')).toBe('B C');
  });
});
