import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdTable, idHash } from './id-table.js';

/** The table's contract written with a `Map`: numbers in order of first insertion. */
function reference(strings: readonly string[]): { numbers: number[]; ids: string[] } {
  const m = new Map<string, number>();
  const ids: string[] = [];
  const numbers = strings.map((s) => {
    let k = m.get(s);
    if (k === undefined) {
      m.set(s, (k = ids.length));
      ids.push(s);
    }
    return k;
  });
  return { numbers, ids };
}

describe('IdTable', () => {
  // Few distinct characters and lengths: many strings share prefixes, suffixes and hash slots.
  const str = fc.string({ unit: fc.constantFrom('a', 'b', '#', '/', 'é', '\u{1F600}'), maxLength: 6 });

  for (const [name, maxProbes] of [
    ['with its own slots', 64],
    ['when it falls back to a Map (one probe allowed)', 1],
    ['when it falls back to a Map (three probes allowed)', 3],
  ] as const) {
    it(`numbers strings as a Map numbers them, ${name}`, () => {
      fc.assert(
        fc.property(fc.array(str, { maxLength: 200 }), fc.array(str, { maxLength: 50 }), fc.nat({ max: 40 }), (adds, asks, expected) => {
          const t = new IdTable(expected, maxProbes);
          const ref = reference(adds);
          expect(adds.map((s) => t.add(s))).toEqual(ref.numbers);
          expect(t.ids).toEqual(ref.ids);
          for (const s of [...asks, ...adds]) expect(t.get(s)).toBe(ref.ids.indexOf(s));
        }),
        { numRuns: 500 },
      );
    });
  }

  it('touch reads slots only: the numbers given after it are those given without it', () => {
    const words = Array.from({ length: 300 }, (_, i) => `@a/p#AGENTS.md:${i % 211}`);
    const plain = new IdTable(8);
    const touched = new IdTable(8);
    const hashes = Int32Array.from(words, idHash);
    for (let i = 0; i < words.length; i++) {
      if (i % 64 === 0) touched.touch(hashes.subarray(i), Math.min(64, words.length - i));
      expect(touched.addHashed(words[i] as string, hashes[i] as number)).toBe(plain.add(words[i] as string));
    }
    expect(touched.ids).toEqual(plain.ids);
  });

  it('keeps count, idAt and ids in step when ids is read while strings are still added (sized for more, fewer or none)', () => {
    fc.assert(
      fc.property(fc.array(str, { maxLength: 120 }), fc.nat({ max: 120 }), fc.nat({ max: 150 }), (adds, cut, expected) => {
        const t = new IdTable(expected);
        const ref = reference(adds);
        const at = Math.min(cut, adds.length);
        adds.slice(0, at).forEach((s) => t.add(s));
        const early = reference(adds.slice(0, at)).ids;
        expect(t.ids).toEqual(early);
        expect(t.count).toBe(early.length);
        adds.slice(at).forEach((s) => t.add(s));
        expect(t.count).toBe(ref.ids.length);
        ref.ids.forEach((s, k) => expect(t.idAt(k)).toBe(s));
        expect(t.ids).toEqual(ref.ids);
        for (const s of adds) expect(t.get(s)).toBe(ref.ids.indexOf(s));
      }),
      { numRuns: 500 },
    );
  });

  it('grows past the size it was given', () => {
    const t = new IdTable(0);
    const ids = Array.from({ length: 5000 }, (_, i) => `@a/p#item-${i}`);
    ids.forEach((id, i) => expect(t.add(id)).toBe(i));
    ids.forEach((id, i) => expect(t.get(String(id))).toBe(i));
    expect(t.get('@a/p#item-5000')).toBe(-1);
  });

  it('tells apart strings whose whole hashes are equal (found by a birthday search), in any order and with repeats', () => {
    // Distinct ids with equal `idHash`: a slot's hash matches, so only the string comparison
    // tells them apart (a table trusting the hash would give two ids one number).
    const seen = new Map<number, string>();
    const pairs: Array<[string, string]> = [];
    for (let i = 0; pairs.length < 3 && i < 2_000_000; i++) {
      const id = `@a/p#item-${i}`;
      const h = idHash(id);
      const other = seen.get(h);
      if (other !== undefined) pairs.push([other, id]);
      else seen.set(h, id);
    }
    expect(pairs.length).toBe(3);
    const colliding = pairs.flat();
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...colliding, '@a/p#x', '@a/p#y'), { maxLength: 40 }), fc.nat({ max: 8 }), (adds, expected) => {
        const t = new IdTable(expected);
        const ref = reference(adds);
        expect(adds.map((s) => t.add(s))).toEqual(ref.numbers);
        expect(t.ids).toEqual(ref.ids);
        for (const s of colliding) expect(t.get(s)).toBe(ref.ids.indexOf(s));
      }),
      { numRuns: 300 },
    );
  });
});
