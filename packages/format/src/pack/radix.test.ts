import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRadixKey, RadixScratch, stableOrder } from './radix.js';

/** The reference: positions sorted by key with a comparator, ties by position (a stable sort). */
const reference = (keys: readonly number[]): number[] => keys.map((_, i) => i).sort((a, b) => (keys[a] as number) - (keys[b] as number) || a - b);

describe('stableOrder (radix.ts)', () => {
  // Keys from every byte range (one to four radix passes), with many ties, and lengths on both
  // sides of the insertion-sort cut-off.
  // One key range per array (so the largest key, and the number of passes, varies), or all mixed.
  const ranges = [3, 255, 65_535, 70_000, 0x00ffffff, 0x7fffffff].map((max) => fc.integer({ min: 0, max }));
  const keysArb = fc.oneof(...ranges.map((r) => fc.array(r, { maxLength: 300, size: 'max' })), fc.array(fc.oneof(...ranges, fc.constantFrom(0, 255, 256, 65535, 65536, 0x7fffffff)), { maxLength: 300, size: 'max' }));
  it('gives the positions of a stable comparator sort', () => {
    fc.assert(
      fc.property(keysArb, fc.boolean(), (keys, typed) => {
        const n = keys.length;
        const scratch = new RadixScratch();
        const [out, tmp] = scratch.pair(n);
        stableOrder(typed ? Float64Array.from(keys) : keys, n, out, tmp);
        expect(Array.from(out.subarray(0, n))).toEqual(reference(keys));
      }),
      { numRuns: 2000 },
    );
  });

  it('sorts only the first n keys and reuses its scratch', () => {
    const scratch = new RadixScratch();
    for (const n of [0, 1, 23, 24, 25, 1000]) {
      const keys = Array.from({ length: n + 5 }, (_, i) => (i * 7919) % 1013);
      const [out, tmp] = scratch.pair(n);
      stableOrder(keys, n, out, tmp);
      expect(Array.from(out.subarray(0, n))).toEqual(reference(keys.slice(0, n)));
    }
  });

  it('isRadixKey: integers 0 … 2^31 − 1 only', () => {
    for (const v of [0, 1, 255, 0x7fffffff]) expect(isRadixKey(v)).toBe(true);
    for (const v of [-1, 0.5, 0x80000000, Number.NaN, Number.POSITIVE_INFINITY, -0.0001]) expect(isRadixKey(v)).toBe(false);
  });
});
