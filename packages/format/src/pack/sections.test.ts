import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MergedGraph, MergedNode } from '../graph-types.js';
import { sectionPathResolver, sequenceResolver, type SectionRef } from './sections.js';
import { computeScopes } from './scope.js';
import { graph, node } from './__tests__/graph.js';

describe('sectionPathResolver', () => {
  const g = graph(
    [
      node('@a/p', 'F', { type: 'section', content: 'Guide\nmore', file_path: 'F', line_start: 1, line_end: 20 }),
      node('@a/p', 'F:t', { type: 'section', content: 'Tests', file_path: 'F', line_start: 5, line_end: 20 }),
      node('@a/p', 'item', { content: '- parent' }),
      node('@a/p', 'nested', { content: '- child' }),
      node('@a/p', 'scope', { type: 'scope', content: 'src/**' }),
      node('@a/p', 'loop1', { type: 'section', content: 'L1' }),
      node('@a/p', 'loop2', { type: 'section', content: 'L2' }),
    ],
    [
      { from: '@a/p#F', to: '@a/p#F:t', type: 'contains' },
      { from: '@a/p#F:t', to: '@a/p#item', type: 'contains' },
      { from: '@a/p#item', to: '@a/p#nested', type: 'contains' },
      { from: '@a/p#F', to: '@a/p#scope', type: 'applies_to' },
      { from: '@a/p#loop1', to: '@a/p#loop2', type: 'contains' },
      { from: '@a/p#loop2', to: '@a/p#loop1', type: 'contains' },
    ],
  );
  const resolve = sectionPathResolver(g, computeScopes(g));

  it('gives the enclosing sections outermost first, with titles, lines and scopes', () => {
    expect(resolve('@a/p#item')).toEqual([
      { id: '@a/p#F', title: 'Guide', file_path: 'F', line_start: 1, line_end: 20, scope: ['src/**'] },
      { id: '@a/p#F:t', title: 'Tests', file_path: 'F', line_start: 5, line_end: 20, scope: ['src/**'] },
    ]);
  });

  it('passes through non-section containers (a nested item of an older package)', () => {
    expect(resolve('@a/p#nested').map((s) => s.title)).toEqual(['Guide', 'Tests']);
  });

  it('stops on cycles and is empty outside any section', () => {
    expect(resolve('@a/p#loop1').map((s) => s.title)).toEqual(['L1', 'L2']); // a cycle ends where it closes
    expect(resolve('@a/p#F')).toEqual([]);
  });
});

/** The resolver's rule as first written (before the one-`set` fast path): the reference. */
function referenceResolver(graph: Pick<MergedGraph, 'nodes' | 'edges'>, scopes: ReadonlyMap<string, readonly string[]>): (id: string) => readonly SectionRef[] {
  const byId = new Map<string, MergedNode>();
  for (const n of graph.nodes) if (n.type === 'section') byId.set(n.id, n);
  const parent = new Map<string, string>();
  for (const e of graph.edges) {
    if (e.type !== 'contains' || e.from === e.to) continue;
    const cur = parent.get(e.to);
    const isSection = byId.has(e.from);
    if (cur === undefined || (isSection && !byId.has(cur)) || (isSection === byId.has(cur) && e.from < cur)) parent.set(e.to, e.from);
  }
  const refOf = (id: string): SectionRef => {
    const n = byId.get(id) as MergedNode;
    const r: SectionRef = { id, title: (n.content.split('\n')[0] ?? '').trim(), scope: scopes.get(id) ?? [] };
    if (n.file_path !== undefined) r.file_path = n.file_path;
    if (n.line_start !== undefined) r.line_start = n.line_start;
    if (n.line_end !== undefined) r.line_end = n.line_end;
    return r;
  };
  const chains = new Map<string, readonly SectionRef[]>();
  const nearest = (id: string): string | undefined => {
    for (let p = parent.get(id), steps = 0; p !== undefined && p !== id && steps < 64; p = parent.get(p), steps++) if (byId.has(p)) return p;
    return undefined;
  };
  const chainOf = (section: string): readonly SectionRef[] => {
    const known = chains.get(section);
    if (known) return known;
    const trail: string[] = [];
    const seen = new Set<string>();
    for (let s: string | undefined = section; s !== undefined && !seen.has(s) && trail.length < 16 && !chains.has(s); s = nearest(s)) {
      seen.add(s);
      trail.push(s);
    }
    const outer = trail.length > 0 ? nearest(trail[trail.length - 1] as string) : undefined;
    let chain: readonly SectionRef[] = outer !== undefined && chains.has(outer) && trail.length < 16 ? (chains.get(outer) as readonly SectionRef[]) : [];
    for (let k = trail.length - 1; k >= 0; k--) {
      const id = trail[k] as string;
      chain = chain.length >= 16 ? chain : [...chain, refOf(id)];
      chains.set(id, chain);
    }
    return chains.get(section) ?? [];
  };
  return (id) => {
    const s = nearest(id);
    return s === undefined ? [] : chainOf(s);
  };
}

describe('sectionPathResolver against the rule as first written', () => {
  it('the same heading path for every node, in any order of asking, with several parents, cycles and dangling ends', () => {
    const ids = Array.from({ length: 14 }, (_, i) => `@a/p#n${i}`);
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }),
        fc.array(fc.record({ from: fc.nat({ max: 15 }), to: fc.nat({ max: 15 }), type: fc.constantFrom('contains', 'contains', 'contains', 'followed_by') }), { maxLength: 30 }),
        fc.array(fc.nat({ max: 15 }), { maxLength: 20 }),
        (isSection, links, asks) => {
          const name = (i: number): string => (i < 14 ? (ids[i] as string) : `@a/p#dangling${i}`);
          const nodes = ids.map((id, i) => node('@a/p', id.slice(5), { type: isSection[i] ? 'section' : 'fact', content: `T${i}\nbody`, ...(i % 3 === 0 ? { file_path: 'F', line_start: i } : {}) }));
          const g = graph(nodes, links.map((l) => ({ from: name(l.from), to: name(l.to), type: l.type })));
          const scopes = computeScopes(g);
          const fast = sectionPathResolver(g, scopes);
          const ref = referenceResolver(g, scopes);
          for (const a of [...asks, ...ids.map((_, i) => i)]) expect(fast(name(a))).toEqual(ref(name(a)));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('sequenceResolver', () => {
  it('numbers nodes along followed_by chains; cycles end', () => {
    const g = graph([node('@a/p', 'a'), node('@a/p', 'b'), node('@a/p', 'c')], [
      { from: '@a/p#a', to: '@a/p#b', type: 'followed_by' },
      { from: '@a/p#b', to: '@a/p#c', type: 'followed_by' },
      { from: '@a/p#x', to: '@a/p#y', type: 'followed_by' },
      { from: '@a/p#y', to: '@a/p#x', type: 'followed_by' },
    ]);
    const seq = sequenceResolver(g);
    expect(['@a/p#a', '@a/p#b', '@a/p#c', '@a/p#zz'].map(seq)).toEqual([0, 1, 2, 0]);
    expect(seq('@a/p#x')).toBe(1);
  });
});
