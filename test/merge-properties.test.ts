/**
 * Property tests of the merge (spec/merge.md §8): the result is a function of the input SET —
 * any order and any duplication give byte-identical JSON — activations stay in [0, 1], and a
 * merge compared with itself reports no change.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeGraphs, type ContextEdge, type ContextNode, type MergeInput } from '@ctxpkg/format';

const PACKAGES = ['@pa/one', '@pb/two', '@pc/three', 'legacy-local'];
const LOCAL = ['N1', 'N2', 'N3'];
const REFS = [...LOCAL, 'missing', '@pa/one#N1', '@pb/two#N2', '@pc/three#N3', 'legacy-local#N1'];
const TYPES = ['supports', 'contradicts', 'supersedes', 'has_gotcha'];

const arbNode: fc.Arbitrary<ContextNode> = fc.record(
  {
    id: fc.constantFrom(...LOCAL),
    type: fc.constantFrom('fact', 'gotcha'),
    content: fc.constantFrom('a', 'b'),
    activation: fc.double({ min: -0.5, max: 1.5, noNaN: true }),
    confidence: fc.constantFrom(0.25, 0.5, 0.9),
    category: fc.constantFrom('x', 'y'),
    created_at: fc.constantFrom('2026-01-01T00:00:00Z', '2025-06-30T12:00:00.5Z'),
    decay_half_life_days: fc.constantFrom(0, 30, 90),
    supersedes: fc.constantFrom(...REFS),
  },
  { requiredKeys: ['id', 'type', 'content', 'activation'] },
);

const arbEdge: fc.Arbitrary<ContextEdge> = fc.record(
  {
    from: fc.constantFrom(...REFS),
    to: fc.constantFrom(...REFS),
    type: fc.constantFrom(...TYPES),
    weight: fc.double({ min: -1, max: 2, noNaN: true }),
    coactivations: fc.constantFrom(0, 1, 7, 4_294_967_290),
    metadata: fc.constantFrom('m1', 'm2'),
  },
  { requiredKeys: ['from', 'to', 'type', 'weight'] },
);

const arbInputs: fc.Arbitrary<MergeInput[]> = fc
  .dictionary(fc.constantFrom(...PACKAGES), fc.record({ nodes: fc.array(arbNode, { maxLength: 5 }), edges: fc.array(arbEdge, { maxLength: 6 }) }), { maxKeys: 4 })
  .map((d) =>
    Object.entries(d).map(([pkg, g], i) => ({
      package: pkg,
      version: '1.0.0',
      content_hash: String(i).repeat(64),
      graph: { format: 'ctxpkg-graph-v2', nodes: g.nodes, edges: g.edges },
    })),
  );

const arbNow = fc.option(fc.constantFrom('2026-03-01T00:00:00Z', '2024-01-01T00:00:00Z'), { nil: undefined });

describe('merge properties', () => {
  it('any order and any duplication of the inputs give byte-identical output', () => {
    fc.assert(
      fc.property(arbInputs, arbNow, (inputs, now) => {
        const opts = now === undefined ? {} : { now };
        const a = mergeGraphs(inputs, opts);
        const shuffled = [...inputs].reverse();
        const duplicated = [...shuffled, ...inputs.map((x) => ({ ...x, graph: structuredClone(x.graph) }))];
        const b = mergeGraphs(duplicated, opts);
        expect(JSON.stringify(b.graph)).toBe(JSON.stringify(a.graph));
        expect(JSON.stringify(b.report)).toBe(JSON.stringify(a.report));
        // Even the order of nodes and edges inside a graph does not matter.
        const inner = shuffled.map((x) => ({ ...x, graph: { ...x.graph, nodes: [...x.graph.nodes].reverse(), edges: [...x.graph.edges].reverse() } }));
        expect(JSON.stringify(mergeGraphs(inner, opts).graph)).toBe(JSON.stringify(a.graph));
      }),
      { numRuns: 300, seed: 42 },
    );
  });

  it('activations stay in [0, 1]; superseded nodes are at 0 and kept', () => {
    fc.assert(
      fc.property(arbInputs, arbNow, (inputs, now) => {
        const { graph } = mergeGraphs(inputs, now === undefined ? {} : { now });
        const total = new Set(inputs.flatMap((i) => i.graph.nodes.map((n) => `${i.package}#${n.id}`))).size;
        expect(graph.nodes).toHaveLength(total);
        for (const n of graph.nodes) {
          expect(n.activation).toBeGreaterThanOrEqual(0);
          expect(n.activation).toBeLessThanOrEqual(1);
          if (n.superseded_by) expect(n.activation).toBe(0);
        }
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it('merging again against the previous result reports no change (idempotence)', () => {
    fc.assert(
      fc.property(arbInputs, (inputs) => {
        const first = mergeGraphs(inputs);
        const again = mergeGraphs([...inputs, ...inputs], { previous: first.graph });
        expect(JSON.stringify(again.graph)).toBe(JSON.stringify(first.graph));
        expect(again.report.nodes_added).toEqual([]);
        expect(again.report.nodes_updated).toEqual([]);
        expect(again.report.nodes_removed).toEqual([]);
        expect(again.report.edges_added).toEqual([]);
        expect(again.report.edges_removed).toEqual([]);
      }),
      { numRuns: 200, seed: 11 },
    );
  });
});
