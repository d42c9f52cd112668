/** spec/merge.md rules beyond the reference cases: propagation, decay, saturation, report, validation. */
import { describe, expect, it } from 'vitest';
import { isCtxpkgError } from '../errors.js';
import { MAX_COACTIVATIONS, mergeGraphs, PROPAGATION_FACTOR } from './index.js';
import { edge, input, node } from './__tests__/fixtures.js';

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return isCtxpkgError(e) ? e.code : String(e);
  }
  return undefined;
}

describe('activation propagation (§7)', () => {
  it('one step: a1 = a0 + (1 − a0)(1 − Π(1 − β·w·a0(u)))', () => {
    const { graph } = mergeGraphs([input('@pk/one', [node('a', 'fact', 1.0), node('b', 'fact', 0.5), node('c', 'fact', 0.2)], [edge('a', 'b', 'supports', 0.8), edge('b', 'c', 'supports', 1.0), edge('a', 'c', 'supports', 2.0)])]);
    const [a, b, c] = graph.nodes;
    expect(a!.activation).toBe(1);
    expect(b!.activation).toBe(0.5 + 0.5 * (1 - (1 - PROPAGATION_FACTOR * 0.8 * 1)));
    expect(b!.activation).toBeCloseTo(0.54, 12);
    // c uses a0(b) = 0.5, not b's propagated value (one step), and weight 2.0 is clamped to 1.
    const keep = (1 - PROPAGATION_FACTOR * 1 * 1) * (1 - PROPAGATION_FACTOR * 1 * 0.5);
    expect(c!.activation).toBe(0.2 + 0.8 * (1 - keep));
  });
  it('stays in [0,1]: clamps out-of-range activations; contradicts/supersedes edges and self-loops do not propagate', () => {
    const { graph } = mergeGraphs([input('@pk/one', [node('hi', 'fact', 7), node('lo', 'fact', -3), node('x', 'fact', 0.3)], [edge('hi', 'x', 'contradicts'), edge('hi', 'x', 'supersedes'), edge('x', 'x', 'supports')])]);
    const act = Object.fromEntries(graph.nodes.map((n) => [n.local_id, n.activation]));
    expect(act).toEqual({ hi: 1, lo: 0, x: 0 });
  });
  it('a node without incoming edges keeps its activation bit for bit', () => {
    const { graph } = mergeGraphs([input('@pk/one', [node('a', 'fact', 0.1)])]);
    expect(graph.nodes[0]!.activation).toBe(0.1);
  });
});

describe('temporal decay only with now (§6)', () => {
  const n = (created: string, half?: number) => node('n', 'fact', 1.0, { created_at: created, ...(half === undefined ? {} : { decay_half_life_days: half }) });
  const act = (nodes: ReturnType<typeof node>[], now?: string) => mergeGraphs([input('@pk/one', nodes)], now === undefined ? {} : { now }).graph.nodes[0]!.activation;
  it('halves after one half-life and quarters after two (reference graph_model tests)', () => {
    expect(act([n('2026-01-01T00:00:00Z', 30)], '2026-01-31T00:00:00Z')).toBe(0.5);
    expect(act([n('2026-01-01T00:00:00Z', 30)], '2026-03-02T00:00:00Z')).toBe(0.25);
    expect(act([n('2026-01-01T00:00:00Z', 30)], '2026-01-30T23:59:59Z')).toBeCloseTo(Math.pow(0.5, 29 / 30), 15);
  });
  it('is a no-op without now, without created_at, with half-life 0, or in the future', () => {
    expect(act([n('2020-01-01T00:00:00Z', 30)])).toBe(1);
    expect(act([node('n', 'fact', 1.0, { decay_half_life_days: 30 })], '2030-01-01T00:00:00Z')).toBe(1);
    expect(act([n('2020-01-01T00:00:00Z', 0)], '2030-01-01T00:00:00Z')).toBe(1);
    expect(act([n('2031-01-01T00:00:00Z', 30)], '2030-01-01T00:00:00Z')).toBe(1);
  });
  it('refuses a now that is not RFC 3339', () => {
    expect(code(() => mergeGraphs([], { now: 'yesterday' }))).toBe('E_USAGE');
  });
});

describe('shared edges (§4)', () => {
  it('coactivations saturate at u32 max', () => {
    const base = input('@pk/a', [node('x'), node('y')], [edge('x', 'y', 'supports', 1, MAX_COACTIVATIONS)]);
    const other = input('@pk/b', [], [edge('@pk/a#x', '@pk/a#y', 'supports', 1, 5)]);
    expect(mergeGraphs([base, other]).graph.edges[0]!.coactivations).toBe(4_294_967_295);
  });
  it('three contributions: arithmetic mean of sorted weights; metadata from the smallest package', () => {
    const base = input('@pk/a', [node('x'), node('y')], [edge('x', 'y', 'supports', 1.1, 0, { metadata: 'from a' })]);
    const b = input('@pk/b', [], [edge('@pk/a#x', '@pk/a#y', 'supports', 0.2, 0, { metadata: 'from b' })]);
    const c = input('@pk/c', [], [edge('@pk/a#x', '@pk/a#y', 'supports', 0.5, 0)]);
    for (const order of [[base, b, c], [c, b, base], [b, base, c]]) {
      const e = mergeGraphs(order).graph.edges[0]!;
      expect(e.weight).toBe((0.2 + 0.5 + 1.1) / 3);
      expect(e.metadata).toBe('from a');
      expect(e.packages).toEqual(['@pk/a', '@pk/b', '@pk/c']);
      expect(e.coactivations).toBeUndefined();
    }
  });
});

describe('supersession (§5)', () => {
  it('supersedes edges count too; cycles end at 0; dangling references are reported', () => {
    const { graph, report } = mergeGraphs([
      input('@pk/a', [node('x'), node('y', 'fact', 1, { supersedes: 'x' }), node('z', 'fact', 1, { supersedes: 'nowhere' })], [edge('x', 'y', 'supersedes')]),
    ]);
    const by = Object.fromEntries(graph.nodes.map((n) => [n.local_id, [n.activation, n.superseded_by]]));
    expect(by).toEqual({ x: [0, ['@pk/a#y']], y: [0, ['@pk/a#x']], z: [1, undefined] });
    expect(report.supersedes_dropped).toEqual([{ package: '@pk/a', node: '@pk/a#z', target: '@pk/a#nowhere' }]);
  });
});

describe('output form (§8)', () => {
  it('is exactly this JSON for a small graph (field order, omitted defaults, sorting)', () => {
    const { graph } = mergeGraphs([
      input('@pk/b', [node('n1', 'gotcha', 0.5, { category: 'c', confidence: 0.75 })], [edge('n1', '@pk/a#n1', 'contradicts', 1, 0)]),
      input('@pk/a', [node('n1', 'fact', 1, { supersedes: 'n0', line_start: 3 })]),
    ]);
    expect(JSON.stringify(graph)).toBe(
      '{"format":"ctxpkg-merged-v1","inputs":[{"package":"@pk/a","version":"1.0.0","content_hash":"' +
        graph.inputs[0]!.content_hash +
        '"},{"package":"@pk/b","version":"1.0.0","content_hash":"' +
        graph.inputs[1]!.content_hash +
        '"}],"nodes":[{"id":"@pk/a#n1","package":"@pk/a","version":"1.0.0","local_id":"n1","type":"fact","content":"content of n1","activation":1,"line_start":3,"supersedes":"@pk/a#n0","disputed":true},' +
        '{"id":"@pk/b#n1","package":"@pk/b","version":"1.0.0","local_id":"n1","type":"gotcha","content":"content of n1","activation":0.5,"category":"c","confidence":0.75,"disputed":true}],' +
        '"edges":[{"from":"@pk/b#n1","to":"@pk/a#n1","type":"contradicts","weight":1,"packages":["@pk/b"]}],' +
        '"conflicts":[{"from":"@pk/b#n1","to":"@pk/a#n1","package":"@pk/b"}]}',
    );
  });
});

describe('report relative to a previous merged graph (§9)', () => {
  it('lists added, updated and removed nodes and edges', () => {
    const a1 = input('@pk/a', [node('x'), node('y', 'fact', 0.5)], [edge('x', 'y', 'supports')]);
    const b = input('@pk/b', [node('z')], [edge('z', '@pk/a#x', 'supports')]);
    const previous = mergeGraphs([a1, b]).graph;
    const a2 = input('@pk/a', [node('x'), node('y', 'fact', 0.6), node('w')], [edge('x', 'y', 'supports')], '1.1.0');
    const { report } = mergeGraphs([a2], { previous });
    expect(report.nodes_added).toEqual(['@pk/a#w']);
    expect(report.nodes_updated).toEqual(['@pk/a#x', '@pk/a#y']);
    expect(report.nodes_removed).toEqual(['@pk/b#z']);
    expect(report.edges_added).toEqual([]);
    expect(report.edges_removed).toEqual([{ from: '@pk/b#z', to: '@pk/a#x', type: 'supports' }]);
    expect(mergeGraphs([a1, b], { previous }).report).toMatchObject({ nodes_added: [], nodes_updated: [], nodes_removed: [], edges_added: [], edges_removed: [] });
  });
});

describe('validation (§1.1, §1.2): nothing merged on bad input', () => {
  const ok = input('@pk/a', [node('x')]);
  it.each([
    ['an unscoped name with a slash', () => mergeGraphs([{ ...ok, package: 'a/b' }]), 'E_INVALID_NAME'],
    ['uppercase content hash', () => mergeGraphs([{ ...ok, content_hash: 'A'.repeat(64) }]), 'E_STRUCTURE'],
    ['a node without id', () => mergeGraphs([input('@pk/a', [{ type: 'fact', content: 'x', activation: 1 } as never])]), 'E_STRUCTURE'],
    ['a NaN weight', () => mergeGraphs([input('@pk/a', [node('x')], [edge('x', 'x', 't', Number.NaN)])]), 'E_STRUCTURE'],
    ['a negative coactivation count', () => mergeGraphs([input('@pk/a', [node('x')], [edge('x', 'x', 't', 1, -1)])]), 'E_STRUCTURE'],
    ['two versions of one package', () => mergeGraphs([ok, input('@pk/a', [node('x')], [], '2.0.0')]), 'E_CONFLICT'],
    ['one identity with two graphs', () => mergeGraphs([ok, { ...ok, graph: { ...ok.graph, nodes: [node('y')] } }]), 'E_CONFLICT'],
    ['a malformed previous graph', () => mergeGraphs([ok], { previous: { nodes: [{}], edges: [] } as never }), 'E_STRUCTURE'],
  ])('%s → %s', (_what, fn, expected) => {
    expect(code(fn)).toBe(expected);
  });
  it('names the failing path', () => {
    expect(() => mergeGraphs([ok, input('@pk/b', [node('x')], [edge('x', 'x', 't', Number.POSITIVE_INFINITY)])])).toThrow(
      'inputs[1].graph.edges[0].weight: must be a finite number',
    );
  });
});
