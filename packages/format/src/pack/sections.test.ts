import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MergedGraph, MergedNode } from '../graph-types.js';
import { graphStructure, sectionPathResolver, sequenceResolver, type SectionRef } from './sections.js';
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

/** The resolver's rule, written plainly (no memo, no fast path): the reference. */
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
  const nearest = (id: string): string | undefined => {
    for (let p = parent.get(id), steps = 0; p !== undefined && p !== id && steps < 64; p = parent.get(p), steps++) if (byId.has(p)) return p;
    return undefined;
  };
  // The rule with no memo: walk out from the section until there is no container or a section
  // repeats; a repeat closes a cycle, cut at its smallest id (that section is outermost). The
  // path is the walk outermost first, its first 16 sections.
  const chainOf = (section: string): readonly SectionRef[] => {
    const trail: string[] = [];
    let s: string | undefined = section;
    while (s !== undefined && !trail.includes(s)) {
      trail.push(s);
      s = nearest(s);
    }
    if (s !== undefined) {
      const cycle = trail.slice(trail.indexOf(s));
      const smallest = cycle.reduce((m, x) => (x < m ? x : m));
      trail.length = trail.indexOf(smallest) + 1;
    }
    return trail.reverse().slice(0, 16).map(refOf);
  };
  return (id) => {
    const s = nearest(id);
    return s === undefined ? [] : chainOf(s);
  };
}

/** The random outlines of the two resolver properties: 14 nodes (each a section or not), links among them and two dangling ends (14, 15). */
const OUTLINE_IDS = Array.from({ length: 14 }, (_, i) => `@a/p#n${i}`);
const outlineName = (i: number): string => (i < 14 ? (OUTLINE_IDS[i] as string) : `@a/p#dangling${i}`);
const outlineSections = fc.array(fc.boolean(), { minLength: 14, maxLength: 14 });
const outlineLinks = fc.array(fc.record({ from: fc.nat({ max: 15 }), to: fc.nat({ max: 15 }), type: fc.constantFrom('contains', 'contains', 'contains', 'followed_by') }), { maxLength: 30 });
function outlineGraph(isSection: readonly boolean[], links: ReadonlyArray<{ from: number; to: number; type: string }>): MergedGraph {
  const nodes = OUTLINE_IDS.map((id, i) => node('@a/p', id.slice(5), { type: isSection[i] ? 'section' : 'fact', content: `T${i}\nbody`, ...(i % 3 === 0 ? { file_path: 'F', line_start: i } : {}) }));
  return graph(nodes, links.map((l) => ({ from: outlineName(l.from), to: outlineName(l.to), type: l.type })));
}

describe('sectionPathResolver against the rule written plainly', () => {
  it('the same heading path for every node, in any order of asking, with several parents, cycles and dangling ends', () => {
    fc.assert(
      fc.property(
        outlineSections,
        outlineLinks,
        fc.array(fc.nat({ max: 15 }), { maxLength: 20 }),
        (isSection, links, asks) => {
          const g = outlineGraph(isSection, links);
          const scopes = computeScopes(g);
          const fast = sectionPathResolver(g, scopes);
          const ref = referenceResolver(g, scopes);
          for (const a of [...asks, ...OUTLINE_IDS.map((_, i) => i)]) expect(fast(outlineName(a))).toEqual(ref(outlineName(a)));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

/**
 * `graphStructure(g)` gives the plain rules' answers: `sectionsAt(i)` and `scopeAt(i)` for every
 * node, `sectionsOf(id)` for every id of `pool`, and (with `scopesMap`) its `scopes` map.
 */
function expectPlainRules(g: ReturnType<typeof graph>, pool: readonly string[], scopesMap: boolean): void {
  const scopes = computeScopes(g);
  const ref = referenceResolver(g, scopes);
  const s = graphStructure(g);
  g.nodes.forEach((n, i) => {
    expect(s.sectionsAt(i)).toEqual(ref(n.id));
    expect(s.scopeAt(i)).toEqual(scopes.get(n.id));
  });
  for (const id of pool) expect(s.sectionsOf(id)).toEqual(ref(id));
  if (scopesMap) expect(s.scopes).toEqual(scopes);
}

describe('graphStructure by node position against the rules written plainly (referenceResolver, computeScopes)', () => {
  it('sectionsAt(i), sectionsOf(id), scopeAt(i) and scopes give the plain rules\' answers, with repeated node ids and containers the graph does not hold', () => {
    // Node ids drawn from a small pool (a graph may repeat an id: the last section of that id
    // names it), edge ends from a larger one (ends 10–13 are no node: containers passed through).
    const pool = Array.from({ length: 14 }, (_, i) => `@a/p#n${i}`);
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: fc.nat({ max: 9 }), section: fc.boolean() }), { minLength: 1, maxLength: 14 }),
        fc.array(fc.record({ from: fc.nat({ max: 13 }), to: fc.nat({ max: 13 }), type: fc.constantFrom('contains', 'contains', 'contains', 'applies_to', 'followed_by') }), { maxLength: 30 }),
        fc.array(fc.record({ from: fc.nat({ max: 13 }), to: fc.integer({ min: 7, max: 9 }) }), { maxLength: 4 }),
        (spec, links, applies) => {
          // Ids 7–9 are scope nodes unless drawn as sections (7 with a blank glob).
          const globOf = (id: number, i: number): string => (id === 7 ? ' ' : ` src/${id}-${i % 2}/** `);
          const nodes = spec.map((x, i) => node('@a/p', `n${x.id}`, { type: x.section ? 'section' : x.id >= 7 ? 'scope' : 'fact', content: x.id >= 7 ? globOf(x.id, i) : `T${i}\nbody`, ...(i % 3 === 0 ? { file_path: 'F', line_start: i } : {}) }));
          const g = graph(nodes, [...links, ...applies.map((a) => ({ ...a, type: 'applies_to' }))].map((l) => ({ from: pool[l.from] as string, to: pool[l.to] as string, type: l.type })));
          expectPlainRules(g, pool, true);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('graphStructure over several numbering blocks (sections.ts BLOCK: ids and edge ends are read 64 at a time)', () => {
  it('gives the plain rules\' answers on random graphs of up to 200 nodes and 500 edges (block boundaries; unsorted edges turn the next-node guesses off after a few blocks)', () => {
    // Ids 0–269 are facts or sections, 270–299 scopes (unless drawn as sections), 300–399 no node:
    // few repeats, so an edge looked up wrongly changes some node's path.
    const pool = Array.from({ length: 400 }, (_, i) => `@a/p#n${String(i).padStart(3, '0')}`);
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: fc.nat({ max: 299 }), section: fc.boolean() }), { minLength: 60, maxLength: 200 }),
        fc.array(fc.record({ from: fc.nat({ max: 299 }), to: fc.nat({ max: 399 }), type: fc.constantFrom('contains', 'contains', 'contains', 'applies_to', 'followed_by') }), { minLength: 200, maxLength: 500 }),
        fc.boolean(),
        (spec, links, sortEdges) => {
          const nodes = spec.map((x, i) => node('@a/p', `n${String(x.id).padStart(3, '0')}`, { type: x.section ? 'section' : x.id >= 270 ? 'scope' : 'fact', content: x.id >= 270 ? ` src/${x.id}/** ` : `T${i}\nbody`, ...(i % 3 === 0 ? { file_path: 'F', line_start: i } : {}) }));
          const edges = links.map((l) => ({ from: pool[l.from] as string, to: pool[l.to] as string, type: l.type }));
          if (sortEdges) edges.sort((x, y) => (x.from < y.from ? -1 : x.from > y.from ? 1 : x.to < y.to ? -1 : x.to > y.to ? 1 : 0));
          const g = graph(nodes, edges);
          expectPlainRules(g, pool, false);
        },
      ),
      // No shrinking: a failing graph of hundreds of edges shrinks for minutes; the seed is printed.
      { numRuns: 100, endOnFailure: true },
    );
  });
});

describe('graphStructure on a merged graph\'s order (nodes by id, edges by from and to) and on shuffled edges', () => {
  it('gives the plain rule\'s paths whether the next-node guesses come true or stop being tried', () => {
    // An importer-like outline: sections `F:<a>`, subsections `F:<a>.<b>`, items `F:<a>.<b>~<c>`,
    // in 3 packages; 600 edges, so a shuffled order exhausts the guesses' budget of misses.
    const nodes: MergedNode[] = [];
    const edges: Array<{ from: string; to: string; type: string }> = [];
    for (const pkg of ['@a/p', '@a/q', '@b/r']) {
      nodes.push(node(pkg, 'F', { type: 'section', content: 'File' }));
      for (let a = 0; a < 5; a++) {
        nodes.push(node(pkg, `F:${a}`, { type: 'section', content: `S${a}` }));
        edges.push({ from: `${pkg}#F`, to: `${pkg}#F:${a}`, type: 'contains' });
        for (let b = 0; b < 4; b++) {
          nodes.push(node(pkg, `F:${a}.${b}`, { type: 'section', content: `S${a}.${b}` }));
          edges.push({ from: `${pkg}#F:${a}`, to: `${pkg}#F:${a}.${b}`, type: 'contains' });
          for (let c = 0; c < 8; c++) {
            nodes.push(node(pkg, `F:${a}.${b}~${c}`));
            edges.push({ from: `${pkg}#F:${a}.${b}`, to: `${pkg}#F:${a}.${b}~${c}`, type: 'contains' });
          }
        }
      }
    }
    const sorted = [...edges].sort((x, y) => (x.from < y.from ? -1 : x.from > y.from ? 1 : x.to < y.to ? -1 : x.to > y.to ? 1 : 0));
    let seed = 7;
    const shuffled = [...edges];
    for (let i = shuffled.length - 1; i > 0; i--) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const j = seed % (i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j] as (typeof edges)[number], shuffled[i] as (typeof edges)[number]];
    }
    for (const order of [sorted, shuffled]) {
      const g = graph(nodes, order);
      const ref = referenceResolver(g, computeScopes(g));
      const s = graphStructure(g);
      g.nodes.forEach((n, i) => expect(s.sectionsAt(i)).toEqual(ref(n.id)));
      expect(s.sectionsAt(g.nodes.findIndex((n) => n.id === '@a/q#F:4.3~7')).map((x) => x.title)).toEqual(['File', 'S4', 'S4.3']);
    }
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

describe('sectionPathResolver does not depend on the order of asking (hostile graphs)', () => {
  // A merged graph is package data: nothing stops a package from writing `contains` cycles or
  // sections nested deeper than 16. A node's heading path must still be a function of the graph
  // alone — the MCP server and sync keep one resolver per graph across compilations, so an
  // order-dependent path made one request's answer depend on the requests before it.
  const titles = (r: readonly SectionRef[]): string[] => r.map((s) => s.title);

  it('the same path for every node, in any two orders of asking (cycles, several parents, dangling ends)', () => {
    fc.assert(
      fc.property(
        outlineSections,
        outlineLinks,
        fc.array(fc.nat({ max: 15 }), { maxLength: 20 }),
        fc.array(fc.nat({ max: 15 }), { maxLength: 20 }),
        (isSection, links, asksA, asksB) => {
          const g = outlineGraph(isSection, links);
          const scopes = computeScopes(g);
          const a = sectionPathResolver(g, scopes);
          const b = sectionPathResolver(g, scopes);
          for (const x of asksA) a(outlineName(x));
          for (const x of asksB) b(outlineName(x));
          const ref = referenceResolver(g, scopes);
          for (let i = 0; i < 16; i++) {
            expect(a(outlineName(i))).toEqual(b(outlineName(i)));
            expect(a(outlineName(i))).toEqual(ref(outlineName(i)));
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a contains cycle is cut at its smallest id (that section is outermost)', () => {
    const g = graph(
      [node('@a/p', 'A', { type: 'section', content: 'Alpha' }), node('@a/p', 'B', { type: 'section', content: 'Beta' }), node('@a/p', 'x', { content: 'in B' }), node('@a/p', 'y', { content: 'in A' })],
      [
        { from: '@a/p#A', to: '@a/p#B', type: 'contains' },
        { from: '@a/p#B', to: '@a/p#A', type: 'contains' },
        { from: '@a/p#B', to: '@a/p#x', type: 'contains' },
        { from: '@a/p#A', to: '@a/p#y', type: 'contains' },
      ],
    );
    for (const first of ['@a/p#x', '@a/p#y']) {
      const r = sectionPathResolver(g, computeScopes(g));
      r(first);
      expect(titles(r('@a/p#y'))).toEqual(['Alpha']);
      expect(titles(r('@a/p#x'))).toEqual(['Alpha', 'Beta']);
    }
  });

  it('a chain deeper than 16 sections keeps its outermost 16, whichever node is asked first', () => {
    const depth = 40;
    const nodes = Array.from({ length: depth }, (_, i) => node('@a/p', `s${String(i).padStart(2, '0')}`, { type: 'section', content: `S${i}` }));
    nodes.push(node('@a/p', 'leaf', { content: 'deep' }));
    const edges = Array.from({ length: depth - 1 }, (_, i) => ({ from: `@a/p#s${String(i).padStart(2, '0')}`, to: `@a/p#s${String(i + 1).padStart(2, '0')}`, type: 'contains' }));
    edges.push({ from: `@a/p#s${depth - 1}`, to: '@a/p#leaf', type: 'contains' });
    const g = graph(nodes, edges);
    const outermost = Array.from({ length: 16 }, (_, i) => `S${i}`);
    const bottomUp = sectionPathResolver(g, computeScopes(g));
    expect(titles(bottomUp('@a/p#leaf'))).toEqual(outermost);
    const topDown = sectionPathResolver(g, computeScopes(g));
    for (let i = 0; i < depth; i++) topDown(`@a/p#s${String(i).padStart(2, '0')}`);
    expect(titles(topDown('@a/p#leaf'))).toEqual(outermost);
  });
});
