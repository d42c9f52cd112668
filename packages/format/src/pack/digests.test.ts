import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withBuiltins } from '../__tests__/builtins.js';
import { DigestArena, HEX_RUN } from './digests.js';

const hexOf = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');

describe('DigestArena', () => {
  it('keeps the SHA-256 of each text by slot and gives it back as lowercase hex; copies and hex input give the same bytes', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', 'é日本😀', '\ud800')), { minLength: 1, maxLength: 20 }), (texts) => {
        const a = new DigestArena(1);
        texts.forEach((t, i) => {
          a.reserve(i);
          a.hash(i, t);
        });
        expect(a.slots).toBeGreaterThanOrEqual(texts.length);
        // Growing kept every slot written before.
        texts.forEach((t, i) => expect(a.hex(i)).toBe(hexOf(t)));
        const b = new DigestArena(texts.length);
        texts.forEach((_, i) => b.copy(texts.length - 1 - i, a, i));
        texts.forEach((t, i) => expect(b.hex(texts.length - 1 - i)).toBe(hexOf(t)));
        const c = new DigestArena(texts.length);
        texts.forEach((t, i) => c.setHex(i, i % 2 ? hexOf(t).toUpperCase() : hexOf(t)));
        texts.forEach((t, i) => expect(c.hex(i)).toBe(hexOf(t)));
      }),
      { numRuns: 200 },
    );
  });

  it('every byte value is written as its two hex digits; slots never written are zeros', () => {
    const a = new DigestArena(9);
    const all = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0')).join('');
    for (let s = 0; s < 8; s++) a.setHex(s, all.slice(64 * s, 64 * s + 64));
    expect(Array.from({ length: 8 }, (_, s) => a.hex(s)).join('')).toBe(all);
    expect(a.hex(8)).toBe('0'.repeat(64));
  });

  it('hexOfSlots gives the hex of the slots asked, in their order, as hex gives each (runs longer than HEX_RUN too)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(fc.nat(39), { maxLength: 60 }), fc.nat(60), (n, picks, cut) => {
        const a = new DigestArena(n);
        for (let s = 0; s < n; s++) a.hash(s, `text ${s}`);
        const slots = Int32Array.from(picks.map((p) => p % n));
        const from = Math.min(cut, slots.length);
        expect(a.hexOfSlots(slots, from, slots.length)).toBe(Array.from(slots.subarray(from), (s) => a.hex(s)).join(''));
      }),
      { numRuns: 200 },
    );
    // Consecutive slots (one run of bytes: Node's Buffer writes their hex), whole and cut at both ends.
    const run = new DigestArena(50);
    for (let s = 0; s < 50; s++) run.hash(s, `run ${s}`);
    for (const [a0, b0] of [[0, 50], [3, 17], [49, 50], [0, 1]] as const) {
      const slots = Array.from({ length: b0 - a0 }, (_, k) => a0 + k);
      expect(run.hexOfSlots(slots, 0, slots.length)).toBe(slots.map((s) => hexOf(`run ${s}`)).join(''));
      expect(run.hexOfSlots([99, ...slots], 1, slots.length + 1)).toBe(slots.map((s) => hexOf(`run ${s}`)).join(''));
    }
    expect(() => run.hexOfSlots([48, 49, 50], 0, 3)).toThrow(RangeError);
    const big = new DigestArena(HEX_RUN + 3);
    for (let s = 0; s < big.slots; s++) big.hash(s, String(s));
    const all = Array.from({ length: 2 * HEX_RUN + 5 }, (_, k) => (7 * k) % big.slots);
    expect(big.hexOfSlots(all, 0, all.length)).toBe(all.map((s) => hexOf(String(s))).join(''));
    expect(big.hexOfSlots(all, 3, 3)).toBe('');
    expect(() => big.hexOfSlots([0, big.slots], 0, 2)).toThrow(RangeError);
    expect(() => big.hexOfSlots([-1], 0, 1)).toThrow(RangeError);
  });

  it('without Node\'s Buffer (no process.getBuiltinModule), hexOfSlots writes the same digits itself', async () => {
    await withBuiltins(undefined, async () => {
      const m = await import('./digests.js');
      const a = new m.DigestArena(m.HEX_RUN + 2);
      for (let s = 0; s < a.slots; s++) a.setHex(s, hexOf(`p ${s}`));
      const slots = Array.from({ length: a.slots }, (_, s) => s);
      expect(a.hexOfSlots(slots, 1, slots.length)).toBe(slots.slice(1).map((s) => hexOf(`p ${s}`)).join(''));
      expect(() => a.hexOfSlots([a.slots], 0, 1)).toThrow(RangeError);
    });
  });

  it('refuses slots past its end and text that is not 64 hex digits', () => {
    const a = new DigestArena(2);
    expect(() => a.hash(2, 'x')).toThrow(RangeError);
    expect(() => a.hex(2)).toThrow(RangeError);
    expect(() => a.copy(2, a, 0)).toThrow(RangeError);
    expect(() => a.copy(0, a, 2)).toThrow(RangeError);
    expect(() => a.setHex(2, 'a'.repeat(64))).toThrow(RangeError);
    for (const bad of ['a'.repeat(63), 'a'.repeat(65), 'g' + 'a'.repeat(63), 'a'.repeat(62) + ' a', '']) expect(() => a.setHex(0, bad)).toThrow(RangeError);
    expect(a.hex(0)).toBe('0'.repeat(64));
  });
});
