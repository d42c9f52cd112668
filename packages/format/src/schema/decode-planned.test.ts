/**
 * The planned in-place decoding of scalar-only tables (decode.ts `decodePlanned`, used when a
 * package is read through the fast parser) must make exactly what the generic path makes: the
 * same model objects (values and key order) and the same problems, for any mix of key orders,
 * missing, extra, null and mistyped fields — including more key sequences than the plans kept.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeContent } from '../content.js';
import { setPlannedDecoding } from './decode.js';

const NODE_KEYS = ['id', 'type', 'content', 'activation', 'category', 'source', 'created_at', 'decay_half_life_days', 'blob_ref', 'file_path', 'line_start', 'line_end', 'confidence', 'supersedes', 'extra'];
const EDGE_KEYS = ['from', 'to', 'type', 'weight', 'coactivations', 'metadata', 'extra'];

const value = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 4 }) },
  { weight: 2, arbitrary: fc.constantFrom('2026-01-01T00:00:00Z', '2026-02-30T00:00:00Z', '2026-01-01T00:00:00.5+01:00', 'not a date') },
  { weight: 4, arbitrary: fc.constantFrom(0, 1, 0.5, -1, -0, 2 ** 32 - 1, 2 ** 32, 2 ** 53, 1e300, 3.4e39, Number.MAX_SAFE_INTEGER) },
  { weight: 4, arbitrary: fc.double({ noNaN: true }) },
  { weight: 2, arbitrary: fc.constantFrom(null, true, false) },
  { weight: 1, arbitrary: fc.constantFrom([], {}) },
);

/** An object of `keys`: the usual fields most of the time, in a random order. */
const object = (keys: string[], usual: string[]) =>
  fc
    .tuple(fc.subarray(keys), fc.boolean(), fc.array(value, { minLength: keys.length, maxLength: keys.length }), fc.boolean())
    .map(([picked, useUsual, vals, typed]) => {
      const ks = useUsual ? usual : picked;
      const o: Record<string, unknown> = {};
      ks.forEach((k, i) => {
        // mostly values of a plausible type, so most objects decode
        o[k] = typed ? plausible(k, i) : vals[i];
      });
      return o;
    });

function plausible(k: string, i: number): unknown {
  if (['activation', 'weight', 'confidence'].includes(k)) return (i % 10) / 10;
  if (['decay_half_life_days', 'line_start', 'line_end', 'coactivations'].includes(k)) return i;
  if (k === 'created_at') return '2026-01-01T00:00:00Z';
  return `v${i}`;
}

const graph = fc.record({
  nodes: fc.array(object(NODE_KEYS, ['id', 'type', 'content', 'activation', 'created_at']), { maxLength: 30 }),
  edges: fc.array(object(EDGE_KEYS, ['from', 'to', 'type', 'weight']), { maxLength: 30 }),
});

describe('planned in-place decoding (fast-parser reads)', () => {
  it('gives the generic path\'s model and problems', () => {
    fc.assert(
      fc.property(graph, (g) => {
        const text = JSON.stringify({ context_graph: { format: 'ctxpkg-graph-v2', ...g } }, (_k, v) => (Object.is(v, -0) ? '__neg0__' : v));
        const revive = () => JSON.parse(text, (_k, v) => (v === '__neg0__' ? -0 : v)) as unknown;
        // planned: in place with plain numbers; generic: the copy-on-write path of the same reading
        const planned = decodeContent(revive(), false, true, true);
        const generic = decodeContent(revive(), false, true, false);
        expect(planned.issues).toStrictEqual(generic.issues);
        expect(planned.content === undefined).toBe(generic.content === undefined);
        if (planned.content) {
          const p = planned.content.context_graph!;
          const q = generic.content!.context_graph!;
          expect(p).toStrictEqual(q);
          for (const [a, b] of [...p.nodes.map((n, i) => [n, q.nodes[i]]), ...p.edges.map((e, i) => [e, q.edges[i]])]) expect(Object.keys(a!)).toStrictEqual(Object.keys(b!));
        }
      }),
      { numRuns: 400 },
    );
  });

  it('gives the generic path\'s answer for every field set to every edge value, after a valid object of the same keys', () => {
    const edgeValues: unknown[] = [-0, 0, 1, -1, 1.5, 2 ** 32 - 1, 2 ** 32, 2 ** 53, Number.MAX_SAFE_INTEGER, 3.4e39, 1e300, null, true, '', 'x', '2026-01-01T00:00:00Z', '2026-13-01T00:00:00Z', '9999-12-31T23:59:59-01:00', [], {}];
    const base = { node: { id: 'a', type: 't', content: 'x', activation: 0.5, category: 'c', source: 's', created_at: '2026-01-01T00:00:00Z', decay_half_life_days: 3, blob_ref: 'b', file_path: 'f', line_start: 1, line_end: 2, confidence: 0.5, supersedes: 's' }, edge: { from: 'a', to: 'a', type: 't', weight: 0.5, coactivations: 1, metadata: 'm' } };
    let differ = 0;
    for (const which of ['node', 'edge'] as const) {
      for (const key of Object.keys(base[which])) {
        for (const v of edgeValues) {
          const make = () => {
            const bad = { ...base[which], [key]: v };
            const list = [{ ...base[which] }, bad];
            return { context_graph: { format: 'ctxpkg-graph-v2', nodes: which === 'node' ? list : [], edges: which === 'edge' ? list : [] } };
          };
          const planned = decodeContent(make(), false, true, true);
          const generic = decodeContent(make(), false, true, false);
          expect(planned.issues, `${which}.${key} = ${String(v)}`).toStrictEqual(generic.issues);
          if (generic.issues.length > 0) differ++;
          else expect(planned.content).toStrictEqual(generic.content);
        }
      }
    }
    // the table holds values each field refuses
    expect(differ).toBeGreaterThan(100);
  });

  it('keeps deciding by each object, not by the plan of its neighbours', () => {
    // same key sequence, the second object's value of the wrong type: the plan must not carry it
    const raw = { context_graph: { format: 'ctxpkg-graph-v2', nodes: [{ id: 'a', type: 't', content: 'x', activation: 0.5 }, { id: 'b', type: 't', content: 7, activation: 0.5 }], edges: [] } };
    const d = decodeContent(raw, false, true, true);
    expect(d.content).toBeUndefined();
    expect(d.issues.map((i) => i.path)).toEqual(['content.context_graph.nodes[1].content']);
  });
});

describe('planned copy-on-write decoding (the writer\'s models)', () => {
  const writerValue = fc.oneof(
    { weight: 4, arbitrary: value },
    { weight: 2, arbitrary: fc.constantFrom('2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.100000Z', '2026-01-01t00:00:00z', '2026-01-01T01:00:00+01:00') },
    { weight: 1, arbitrary: fc.constantFrom(new Date(Date.UTC(2026, 0, 2)), new Date(Number.NaN), new Date(Date.UTC(10000, 0, 1))) },
    { weight: 1, arbitrary: fc.constantFrom('\ud800', 'a\udc00b', undefined) },
  );
  const writerObject = (keys: string[], usual: string[]) =>
    fc
      .tuple(fc.subarray(keys), fc.boolean(), fc.array(writerValue, { minLength: keys.length, maxLength: keys.length }), fc.boolean(), fc.constantFrom('plain', 'plain', 'plain', 'hidden:source', 'hidden:activation', 'hidden:created_at', 'hidden:weight', 'inherited'))
      .map(([picked, useUsual, vals, typed, shape]) => {
        const ks = useUsual ? usual : picked;
        const o: Record<string, unknown> = shape === 'inherited' ? Object.create({ category: 'inherited' }) : {};
        ks.forEach((k, i) => (o[k] = typed ? plausible(k, i) : vals[i]));
        // a known field held as a non-enumerable own property
        if (shape.startsWith('hidden:')) {
          const key = shape.slice(7);
          Object.defineProperty(o, key, { value: key === 'activation' || key === 'weight' ? 0.25 : key === 'created_at' ? '2026-03-01T00:00:00.000Z' : 'hidden', enumerable: false });
        }
        return o;
      });
  const model = fc.record({
    nodes: fc.array(writerObject(NODE_KEYS, ['id', 'type', 'content', 'activation', 'created_at']), { maxLength: 20 }),
    edges: fc.array(writerObject(EDGE_KEYS, ['from', 'to', 'type', 'weight']), { maxLength: 20 }),
  });

  it('gives the generic path\'s model, problems and object identity', () => {
    fc.assert(
      fc.property(model, (g) => {
        const raw = { context_graph: { format: 'ctxpkg-graph-v2', nodes: g.nodes, edges: g.edges } };
        const planned = decodeContent(raw, true);
        setPlannedDecoding(false);
        let generic;
        try {
          generic = decodeContent(raw, true);
        } finally {
          setPlannedDecoding(true);
        }
        expect(planned.issues).toStrictEqual(generic.issues);
        expect(planned.content === undefined).toBe(generic.content === undefined);
        if (!planned.content) return;
        const p = planned.content.context_graph!;
        const q = generic.content!.context_graph!;
        expect(p).toStrictEqual(q);
        const pairs = [...p.nodes.map((n, i) => [n, q.nodes[i], g.nodes[i]]), ...p.edges.map((e, i) => [e, q.edges[i], g.edges[i]])];
        for (const [a, b, src] of pairs) {
          expect(Object.keys(a!)).toStrictEqual(Object.keys(b!));
          // shared with the model exactly when the generic path shares it
          expect(a === src).toBe(b === src);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('normalizes timestamps and fills defaults on a copy, leaving the model as it was', () => {
    const node = { id: 'a', type: 't', content: 'x', created_at: '2026-01-01T00:00:00.000Z' };
    const edge = { from: 'a', to: 'a', type: 't', weight: 0.5, coactivations: 1 };
    const d = decodeContent({ context_graph: { format: 'ctxpkg-graph-v2', nodes: [node], edges: [edge] } }, true);
    expect(d.issues).toEqual([]);
    expect(d.content!.context_graph!.nodes[0]).toStrictEqual({ id: 'a', type: 't', content: 'x', created_at: '2026-01-01T00:00:00Z', activation: 1 });
    expect(node).toStrictEqual({ id: 'a', type: 't', content: 'x', created_at: '2026-01-01T00:00:00.000Z' });
    expect(d.content!.context_graph!.edges[0]).toBe(edge);
  });
});
