import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { candidateKeys, handleComparator, handleComparatorGeneric, LazyOrder, MergedOrder, packedKey } from './lazy-order.js';
import { compareKeys } from './order.js';
import { node } from './__tests__/graph.js';

const row = fc.record({
  pkg: fc.constantFrom('@a/x', '@b/y', '@a/x-y'),
  pinned: fc.boolean(),
  focus: fc.integer({ min: 0, max: 3 }),
  priority: fc.constantFrom(0, 1, -2, 0.5),
  rank: fc.constantFrom(0, 10, 20, 45, 50, 60),
  activation: fc.constantFrom(0, 0.25, 0.5, 1, 0.3333333333333333),
  big: fc.boolean(),
  pos: fc.constantFrom(0, 1, 2, 40),
});

describe('LazyOrder', () => {
  it('yields exactly the full sort by compareKeys, however far it is read', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 200 }), fc.nat({ max: 220 }), (rows, depth) => {
        const nodes = rows.map((r, i) => node(r.pkg, `n${i}`));
        const keys = candidateKeys(nodes);
        rows.forEach((r, h) => {
          keys.pinned[h] = r.pinned ? 1 : 0;
          keys.focus[h] = r.focus;
          keys.priority[h] = r.priority;
          keys.rank[h] = r.rank;
          keys.activation[h] = r.activation;
          keys.big[h] = r.big ? 1 : 0;
          keys.pos[h] = r.pos;
        });
        const ref = rows
          .map((r, h) => ({ h, pinned: r.pinned, focus: r.focus, priority: r.priority, rank: r.rank, activation: r.activation, big: r.big, pos: r.pos, package: r.pkg, id: (nodes[h] as { id: string }).id }))
          .sort(compareKeys)
          .map((k) => k.h);
        const order = new LazyOrder(Int32Array.from(rows, (_, h) => h), handleComparator(keys));
        expect(order.length).toBe(rows.length);
        const prefix = Array.from({ length: Math.min(depth, rows.length) }, (_, k) => order.at(k));
        expect(prefix).toEqual(ref.slice(0, prefix.length));
        expect(order.materialized).toBe(prefix.length);
        expect(order.at(rows.length)).toBe(-1);
        expect(Array.from({ length: rows.length }, (_, k) => order.at(k))).toEqual(ref);
      }),
      { numRuns: 300 },
    );
  });

  it('handleComparator with packed keys (no focus scores or priorities) gives every pair the sign of the generic comparator', () => {
    const sign = (x: number): number => (x < 0 ? -1 : x > 0 ? 1 : 0);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(row, fc.constantFrom(0, 1, 2, 255), fc.constantFrom(-2147483648, -5, 0, 10, 45, 60, 2147483647)), { maxLength: 40 }),
        fc.boolean(),
        (rows, plain) => {
          const nodes = rows.map(([r], i) => node(r.pkg, `n${i}`));
          const keys = candidateKeys(nodes);
          rows.forEach(([r, force, rank], h) => {
            keys.pinned[h] = r.pinned ? 1 : 0;
            // `plain`: no focus scores or priorities, so the packed comparator is the one used.
            keys.focus[h] = plain ? 0 : r.focus;
            keys.priority[h] = plain ? 0 : r.priority;
            keys.force[h] = force;
            keys.rank[h] = rank;
            keys.activation[h] = r.activation;
            keys.big[h] = r.big ? 1 : 0;
            keys.pos[h] = r.pos;
          });
          // The caller's promise: packed keys only when every focus score and priority is 0.
          if (plain) keys.packed = Float64Array.from(rows, (_, h) => packedKey(keys.pinned[h]!, keys.force[h]!, keys.big[h]!, keys.rank[h]!));
          const fast = handleComparator(keys);
          const generic = handleComparatorGeneric(keys);
          for (let a = 0; a < rows.length; a++) for (let b = 0; b < rows.length; b++) expect(sign(fast(a, b))).toBe(sign(generic(a, b)));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('materializes only as far as it is read', () => {
    const nodes = Array.from({ length: 10_000 }, (_, i) => node('@a/x', `n${i}`, { activation: (i * 7919) % 10_000 }));
    const keys = candidateKeys(nodes);
    nodes.forEach((n, h) => (keys.activation[h] = n.activation));
    const order = new LazyOrder(Int32Array.from(nodes, (_, h) => h), handleComparator(keys));
    expect(order.at(2)).toBeGreaterThanOrEqual(0);
    expect(order.materialized).toBe(3);
    expect(keys.activation[order.at(0)]).toBe(9999);
  });

  it('MergedOrder of disjoint parts reads as one LazyOrder over their union, however far it is read', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(row, fc.nat({ max: 11 })), { maxLength: 150 }), fc.nat({ max: 160 }), (rows, depth) => {
        const nodes = rows.map(([r], i) => node(r.pkg, `n${i}`));
        const keys = candidateKeys(nodes);
        rows.forEach(([r], h) => {
          keys.focus[h] = r.focus;
          keys.rank[h] = r.rank;
          keys.activation[h] = r.activation;
          keys.big[h] = r.big ? 1 : 0;
          keys.pos[h] = r.pos;
        });
        const cmp = handleComparator(keys);
        const parts = Array.from({ length: 12 }, (_, p) => p).map((p) => new LazyOrder(Int32Array.from(rows.flatMap(([, q], h) => (q === p ? [h] : []))), cmp));
        const merged = new MergedOrder(parts, cmp);
        const whole = new LazyOrder(Int32Array.from(rows, (_, h) => h), cmp);
        expect(merged.length).toBe(rows.length);
        const k = Math.min(depth, rows.length);
        // A part read ahead (as the section passes do) does not change the merged order.
        if (rows.length > 0) parts[rows[0]![1]]!.at(k);
        expect(Array.from({ length: k }, (_, i) => merged.at(i))).toEqual(Array.from({ length: k }, (_, i) => whole.at(i)));
        expect(Array.from({ length: rows.length + 1 }, (_, i) => merged.at(i))).toEqual([...Array.from({ length: rows.length }, (_, i) => whole.at(i)), -1]);
      }),
      { numRuns: 300 },
    );
  });
});
