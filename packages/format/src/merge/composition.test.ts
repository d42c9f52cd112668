/**
 * The reference's 16 composition tests (`cp/composition.rs`, FORMAT-FACTS §11.1 "Composition"),
 * restated for set semantics and qualified ids. Where ctxpkg's rule intentionally differs, the
 * test says why (spec/merge.md §10).
 */
import { describe, expect, it } from 'vitest';
import { mergeGraphs } from './index.js';
import { edge, input, node } from './__tests__/fixtures.js';

const byId = (g: ReturnType<typeof mergeGraphs>['graph'], id: string) => g.nodes.find((n) => n.id === id)!;

describe('reference composition cases', () => {
  it('merge_adds_new_nodes: two packages → two qualified nodes', () => {
    const { graph, report } = mergeGraphs([input('@pk/base', [node('a')]), input('@pk/inc', [node('b', 'gotcha', 0.9)])]);
    expect(graph.nodes.map((n) => n.id)).toEqual(['@pk/base#a', '@pk/inc#b']);
    expect(report.nodes_added).toEqual(['@pk/base#a', '@pk/inc#b']);
  });

  it('merge_updates_existing_activation: the same local id in two packages stays two nodes (qualified ids)', () => {
    const { graph } = mergeGraphs([input('@pk/base', [node('a', 'fact', 0.5)]), input('@pk/inc', [node('a', 'fact', 0.8)])]);
    expect(graph.nodes.map((n) => [n.id, n.activation])).toEqual([
      ['@pk/base#a', 0.5],
      ['@pk/inc#a', 0.8],
    ]);
  });

  it('merge_updates_existing_activation / lower_activation_does_not_downgrade: duplicate ids in one graph keep the max', () => {
    for (const [x, y] of [
      [0.5, 0.8],
      [0.9, 0.3],
    ]) {
      const { graph } = mergeGraphs([input('@pk/one', [node('a', 'fact', x), node('a', 'fact', y)])]);
      expect(graph.nodes).toHaveLength(1);
      expect(graph.nodes[0]!.activation).toBe(Math.max(x!, y!));
    }
  });

  it('confidence_propagation / confidence_not_downgraded / category_filled_from_incoming (duplicate ids)', () => {
    const up = mergeGraphs([input('@pk/one', [node('a', 'fact', 1, { confidence: 0.5 }), node('a', 'fact', 1, { confidence: 0.9 })])]);
    expect(up.graph.nodes[0]!.confidence).toBe(0.9);
    const keep = mergeGraphs([input('@pk/one', [node('a', 'fact', 1, { confidence: 0.8 }), node('a', 'fact', 1, { confidence: 0.3 })])]);
    expect(keep.graph.nodes[0]!.confidence).toBe(0.8);
    const cat = mergeGraphs([input('@pk/one', [node('a'), node('a', 'fact', 1, { category: 'security' })])]);
    expect(cat.graph.nodes[0]!.category).toBe('security');
  });

  it('merge_averages_shared_edge_weights: 0.6 and 1.0 → 0.8, coactivations 1 + 1 = 2', () => {
    const base = input('@pk/base', [node('a'), node('b')], [edge('a', 'b', 'supports', 0.6)]);
    const inc = input('@pk/inc', [], [edge('@pk/base#a', '@pk/base#b', 'supports', 1.0)]);
    const { graph, report } = mergeGraphs([base, inc]);
    expect(graph.edges).toHaveLength(1);
    expect(graph.edges[0]).toMatchObject({ from: '@pk/base#a', to: '@pk/base#b', type: 'supports', weight: 0.8, coactivations: 2, packages: ['@pk/base', '@pk/inc'] });
    expect(report.edges_merged).toEqual([{ from: '@pk/base#a', to: '@pk/base#b', type: 'supports' }]);
  });

  it('merge_adds_new_edges', () => {
    const { report } = mergeGraphs([input('@pk/base', [node('a'), node('b')]), input('@pk/inc', [], [edge('@pk/base#a', '@pk/base#b', 'supports', 0.9)])]);
    expect(report.edges_added).toEqual([{ from: '@pk/base#a', to: '@pk/base#b', type: 'supports' }]);
    expect(report.edges_merged).toEqual([]);
  });

  it('supersedes_deactivates_node: activation 0, marked, never deleted', () => {
    const { graph, report } = mergeGraphs([
      input('@pk/base', [node('old_fact')]),
      input('@pk/inc', [node('new_fact', 'fact', 1, { supersedes: '@pk/base#old_fact' })]),
    ]);
    expect(byId(graph, '@pk/base#old_fact')).toMatchObject({ activation: 0, superseded_by: ['@pk/inc#new_fact'] });
    expect(byId(graph, '@pk/inc#new_fact').supersedes).toBe('@pk/base#old_fact');
    expect(report.nodes_superseded).toEqual(['@pk/base#old_fact']);
  });

  it('detects_contradictions: one sorted conflict, both nodes kept and disputed', () => {
    const { graph } = mergeGraphs([
      input('@pk/base', [node('existing')]),
      input('@pk/inc', [node('new')], [edge('new', '@pk/base#existing', 'contradicts', 1.0, 0)]),
    ]);
    expect(graph.conflicts).toEqual([{ from: '@pk/inc#new', to: '@pk/base#existing', package: '@pk/inc' }]);
    expect(graph.nodes.every((n) => n.disputed === true)).toBe(true);
  });

  it('a contradiction inside one package is knowledge, not a conflict (intentional: the reference flags it)', () => {
    const { graph } = mergeGraphs([input('@pk/one', [node('new'), node('existing')], [edge('new', 'existing', 'contradicts')])]);
    expect(graph.conflicts).toEqual([]);
    expect(graph.edges).toHaveLength(1);
    expect(graph.nodes.some((n) => n.disputed)).toBe(false);
  });

  it('edges_to_missing_nodes_skipped: dropped and reported', () => {
    const { graph, report } = mergeGraphs([input('@pk/base', [node('a')]), input('@pk/inc', [], [edge('@pk/base#a', 'missing', 'supports')])]);
    expect(graph.edges).toEqual([]);
    expect(report.edges_dropped).toEqual([{ package: '@pk/inc', from: '@pk/base#a', to: '@pk/inc#missing', type: 'supports' }]);
  });

  it('merge_is_idempotent: the same input twice changes nothing, coactivations included (the reference doubles them)', () => {
    const g = input('@pk/base', [node('a', 'fact', 0.8), node('b', 'gotcha', 0.9)], [edge('a', 'b', 'has_gotcha', 0.7, 3)]);
    const once = mergeGraphs([g]);
    const twice = mergeGraphs([g, { ...g, graph: structuredClone(g.graph) }]);
    expect(JSON.stringify(twice.graph)).toBe(JSON.stringify(once.graph));
    expect(twice.graph.edges[0]!.coactivations).toBe(3);
    expect(twice.report.edges_merged).toEqual([]);
  });

  it('multi_merge_three_packages', () => {
    const { graph } = mergeGraphs([
      input('@pk/base', [node('shared', 'fact', 0.5)]),
      input('@pk/pkg-a', [node('from_a', 'pattern', 0.9)], [edge('@pk/base#shared', 'from_a', 'supports', 0.8)]),
      input('@pk/pkg-b', [node('from_b', 'gotcha', 1.0)], [edge('@pk/base#shared', 'from_b', 'has_gotcha', 0.9)]),
    ]);
    expect(graph.nodes.map((n) => n.id)).toEqual(['@pk/base#shared', '@pk/pkg-a#from_a', '@pk/pkg-b#from_b']);
    expect(graph.edges).toHaveLength(2);
  });

  it('superseded_edges_are_dropped: kept here, with the superseded node at 0 (intentional: never delete)', () => {
    const { graph, report } = mergeGraphs([
      input('@pk/base', [node('old'), node('other')], [edge('old', 'other', 'supports', 0.5)]),
      input('@pk/inc', [node('replacement', 'fact', 1, { supersedes: '@pk/base#old' })], [edge('@pk/base#old', '@pk/base#other', 'supports', 0.9)]),
    ]);
    expect(report.nodes_superseded).toEqual(['@pk/base#old']);
    expect(graph.edges).toHaveLength(1);
    expect(graph.edges[0]!.weight).toBe(0.7);
  });

  it('different_edge_types_not_merged', () => {
    const { graph, report } = mergeGraphs([
      input('@pk/base', [node('a'), node('b')], [edge('a', 'b', 'supports', 0.6)]),
      input('@pk/inc', [], [edge('@pk/base#a', '@pk/base#b', 'contradicts', 0.9)]),
    ]);
    expect(graph.edges.map((e) => e.type)).toEqual(['contradicts', 'supports']);
    expect(report.edges_merged).toEqual([]);
  });

  it('empty_graph_merge_is_noop and merge_into_empty_base', () => {
    const a = mergeGraphs([input('@pk/base', [node('a')])]);
    const b = mergeGraphs([input('@pk/base', [node('a')]), input('@pk/empty', [])]);
    expect(b.graph.nodes).toEqual(a.graph.nodes);
    const c = mergeGraphs([input('@pk/inc', [node('x', 'fact', 0.5), node('y', 'gotcha', 0.8)], [edge('x', 'y', 'has_gotcha', 0.7)])]);
    expect(c.report.nodes_added).toHaveLength(2);
    expect(c.report.edges_added).toHaveLength(1);
    expect(mergeGraphs([]).graph).toEqual({ format: 'ctxpkg-merged-v1', inputs: [], nodes: [], edges: [], conflicts: [] });
  });
});
