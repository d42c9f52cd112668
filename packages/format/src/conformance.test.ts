import { describe, expect, it } from 'vitest';
import { conformanceIssues } from './conformance.js';
import type { ContextGraph } from './graph-types.js';
import { graphIssues, graphSummary } from './graph.js';

function graph(): ContextGraph {
  return {
    format: 'ctxpkg-graph-v2',
    nodes: [
      { id: 'a', type: 'fact', content: 'x', activation: 1 },
      { id: 'b', type: 'gotcha', content: 'y', activation: 0.5, confidence: 0.9, decay_half_life_days: 30 },
    ],
    edges: [{ from: 'a', to: 'b', type: 'has_gotcha', weight: 0.9 }],
  };
}
const codes = (level: number, g: ContextGraph | undefined, raw?: unknown) => conformanceIssues(level, g, raw).map((i) => i.path);

describe('conformance levels (spec/format.md §7)', () => {
  it('any level needs a context_graph', () => {
    expect(conformanceIssues(2, undefined)[0]!.message).toMatch(/requires content.context_graph/);
  });

  it('level 1: nodes only', () => {
    expect(codes(1, { ...graph(), edges: [] })).toEqual([]);
    expect(codes(1, graph())).toEqual(['content.context_graph.edges']);
  });

  it('level 2: edge ends exist, no duplicate edges; supersedes may point outside', () => {
    expect(codes(2, graph())).toEqual([]);
    const g = graph();
    g.nodes[0]!.supersedes = 'elsewhere';
    g.edges.push({ from: 'a', to: 'zz', type: 't', weight: 1 }, { from: 'a', to: 'b', type: 'has_gotcha', weight: 1 });
    expect(codes(2, g)).toEqual(['content.context_graph.edges[1].to', 'content.context_graph.edges[2]']);
  });

  it('level 2: an end may be another package\'s node by qualified id (checked at merge time)', () => {
    const g = graph();
    g.edges.push(
      { from: 'a', to: '@acme/m1#n1', type: 'contradicts', weight: 1 }, // qualified to: fine
      { from: '@acme/m1#n1', to: 'b', type: 'supports', weight: 1 }, // qualified from: fine
      { from: 'a', to: '@acme/m1#n1', type: 'contradicts', weight: 1 }, // duplicate of [1]
      { from: 'a', to: 'Acme/m1#n1', type: 't', weight: 1 }, // malformed package name
      { from: 'a', to: '@acme/m1#', type: 't', weight: 1 }, // empty local id
      { from: '@acme/x#1', to: '@acme/y#2', type: 't', weight: 1 }, // no end in this graph
    );
    expect(codes(2, g)).toEqual([
      'content.context_graph.edges[3]',
      'content.context_graph.edges[4].to',
      'content.context_graph.edges[5].to',
      'content.context_graph.edges[6]',
    ]);
    // A local node whose id contains '#' is that node (merge.md §2 rule 1), not a reference.
    const h = graph();
    h.nodes.push({ id: 'x#y', type: 'fact', content: 'z', activation: 1 });
    h.edges.push({ from: 'x#y', to: '@acme/m1#n1', type: 't', weight: 1 });
    expect(codes(2, h)).toEqual([]);
  });

  it('level 2 duplicates: the same (from, to, type) only, also with missing ends', () => {
    const g = graph();
    g.nodes.push({ id: 'c', type: 'fact', content: 'z', activation: 1 });
    g.edges.push(
      { from: 'a', to: 'b', type: 'other', weight: 1 }, // same ends, another type: fine
      { from: 'b', to: 'a', type: 'has_gotcha', weight: 1 }, // reversed: fine
      { from: 'c', to: 'b', type: 'has_gotcha', weight: 1 },
      { from: 'b', to: 'c', type: 'has_gotcha', weight: 1 },
      { from: 'a', to: 'b', type: 'other', weight: 0.5 }, // duplicate of [1]
      { from: 'a', to: 'nowhere', type: 't', weight: 1 },
      { from: 'a', to: 'nowhere', type: 't', weight: 1 }, // duplicate of [6], with a missing end
    );
    expect(codes(2, g)).toEqual([
      'content.context_graph.edges[5]',
      'content.context_graph.edges[6].to',
      'content.context_graph.edges[7].to',
      'content.context_graph.edges[7]',
    ]);
    // Many nodes and edges: each pair once, then every edge again.
    const big: ContextGraph = { format: 'ctxpkg-graph-v2', nodes: [], edges: [] };
    for (let i = 0; i < 300; i++) big.nodes.push({ id: `n${i}`, type: 'fact', content: 'x', activation: 1 });
    for (let i = 1; i < 300; i++) big.edges.push({ from: `n${i}`, to: `n${i - 1}`, type: i % 2 ? 'a' : 'b', weight: 1 });
    expect(codes(2, big)).toEqual([]);
    big.edges.push(...big.edges.map((e) => ({ ...e })));
    expect(codes(2, big)).toHaveLength(100); // capped report
  });

  it('level 3: explicit activation and weight, values in [0,1], half-life ≥ 1', () => {
    const raw = { nodes: [{ activation: 1 }, { activation: 0.5 }], edges: [{ weight: 0.9 }] };
    expect(codes(3, graph(), raw)).toEqual([]);
    expect(codes(3, graph(), { nodes: [{}, { activation: 0.5 }], edges: [{}] })).toEqual(['content.context_graph.nodes[0].activation', 'content.context_graph.edges[0].weight']);
    const g = graph();
    g.nodes[0]!.activation = 1.5;
    g.nodes[1]!.confidence = -0.1;
    g.nodes[1]!.decay_half_life_days = 0;
    g.edges[0]!.weight = 2;
    expect(codes(3, g)).toEqual([
      'content.context_graph.nodes[0].activation',
      'content.context_graph.nodes[1].confidence',
      'content.context_graph.nodes[1].decay_half_life_days',
      'content.context_graph.edges[0].weight',
    ]);
    expect(codes(2, g)).toEqual([]);
  });

  it('issues carry E_CONFORMANCE and name the level', () => {
    const [i] = conformanceIssues(1, graph());
    expect(i).toMatchObject({ code: 'E_CONFORMANCE', message: expect.stringMatching(/^level 1:/) });
  });
});

describe('graph rules and summary', () => {
  it('format, unique ids, non-empty types and ends', () => {
    expect(graphIssues(graph())).toEqual([]);
    const g = graph();
    g.format = 'ctxpkg-graph-v3';
    g.nodes.push({ id: 'a', type: '', content: '', activation: 1 });
    g.edges.push({ from: '', to: 'a', type: '', weight: 1 });
    expect(graphIssues(g).map((i) => i.message)).toEqual([
      'graph format must be "ctxpkg-graph-v2", got "ctxpkg-graph-v3"',
      'duplicate node id "a"',
      'node type must not be empty',
      'edge ends must not be empty',
      'edge type must not be empty',
    ]);
  });

  it('summary like the reference: sorted types, mean activation, latest created_at', () => {
    const g = graph();
    g.nodes[0]!.created_at = '2026-01-02T04:00:00+01:00';
    g.nodes[1]!.created_at = '2026-01-02T03:30:00Z';
    expect(graphSummary(g)).toEqual({ node_count: 2, edge_count: 1, node_types: ['fact', 'gotcha'], activation_mean: 0.75, freshness: '2026-01-02T03:30:00Z' });
    expect(graphSummary({ format: 'ctxpkg-graph-v2', nodes: [], edges: [] })).toEqual({ node_count: 0, edge_count: 0, node_types: [], activation_mean: 0 });
  });
});

describe('duplicate edges and edge ends (level 2) against a direct reading of the rule', () => {
  /** The rule as written: every edge after the first of its (from, to, type), ends by node or qualified id. */
  function direct(g: ContextGraph): string[] {
    const ids = new Set(g.nodes.map((n) => n.id));
    const seen = new Set<string>();
    const out: string[] = [];
    const q = (s: string) => /^@[a-z0-9-]+\/[a-z0-9-]+#./.test(s);
    g.edges.forEach((e, i) => {
      const f = ids.has(e.from);
      const t = ids.has(e.to);
      if (!f && !q(e.from)) out.push(`content.context_graph.edges[${i}].from`);
      if (!t && !q(e.to)) out.push(`content.context_graph.edges[${i}].to`);
      if (!f && !t && q(e.from) && q(e.to)) out.push(`content.context_graph.edges[${i}]`);
      const k = JSON.stringify([e.from, e.to, e.type]);
      if (seen.has(k)) out.push(`content.context_graph.edges[${i}]`);
      seen.add(k);
    });
    return out;
  }

  it('agrees on random graphs, small groups and large ones', () => {
    let seed = 11;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
    for (let round = 0; round < 300; round++) {
      const n = 1 + rnd(12);
      const nodes = Array.from({ length: n }, (_, i) => ({ id: `n${i % (1 + rnd(n))}`, type: 't', content: 'c', activation: 1 }));
      const ends = [...nodes.map((x) => x.id), '@acme/m#x', '@acme/m#y', 'missing'];
      // a hub node with many edges exercises the large-group path (more than 16 edges from one node)
      const m = rnd(3) === 0 ? 40 + rnd(40) : rnd(25);
      const edges = Array.from({ length: m }, () => ({ from: rnd(4) === 0 ? ends[0]! : ends[rnd(ends.length)]!, to: ends[rnd(ends.length)]!, type: ['a', 'b'][rnd(2)]!, weight: 1 }));
      const g: ContextGraph = { format: 'ctxpkg-graph-v2', nodes, edges };
      expect(codes(2, g).slice(0, 100)).toEqual(direct(g).slice(0, 100));
    }
  });
});
