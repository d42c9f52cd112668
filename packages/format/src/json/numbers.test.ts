import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatF32, formatF64, roundF64To15 } from './numbers.js';

// FORMAT-FACTS §3.4 and §11.2 (values written inline so the core is tested without ../shared).
const F64: Array<[number, string]> = [
  [0, '0.0'], [-0, '-0.0'], [1, '1.0'], [0.9, '0.9'], [0.5, '0.5'], [0.95, '0.95'],
  [0.1 + 0.2, '0.30000000000000004'], [2 / 3, '0.6666666666666666'], [10000, '10000.0'],
  [123456789, '123456789.0'], [1e15, '1000000000000000.0'], [1e16, '1e+16'], [1e17, '1e+17'],
  [1e21, '1e+21'], [0.0001, '0.0001'], [0.00001, '0.00001'], [1e-6, '1e-6'], [1e-7, '1e-7'],
  [1.5e300, '1.5e+300'], [5e-324, '5e-324'], [-2.5, '-2.5'], [-1e16, '-1e+16'], [123.456, '123.456'],
  [1.2345e16, '1.2345e+16'], [0.9666666666666667, '0.9666666666666667'],
];

const F32: Array<[number, string]> = [
  [0, '0.0'], [1, '1.0'], [0.9, '0.9'], [0.7, '0.7'], [0.8, '0.8'], [0.6, '0.6'], [0.3, '0.3'],
  [0.1, '0.1'], [0.05, '0.05'], [1e-6, '0.000001'], [1e-7, '1e-7'], [1e12, '1000000000000.0'],
  [1e13, '1e+13'], [16777216, '16777216.0'], [0.8999999761581421, '0.9'],
];

describe('formatF64', () => {
  for (const [x, text] of F64) it(`${x} → ${text}`, () => expect(formatF64(x)).toBe(text));

  it('refuses non-finite values', () => {
    expect(() => formatF64(NaN)).toThrow(/finite/);
    expect(() => formatF64(Infinity)).toThrow(/finite/);
  });

  it('round-trips every double and uses the same digits as JS', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const s = formatF64(x);
        expect(Object.is(Number(s), x)).toBe(true);
        const js = Math.abs(x).toExponential().split('e')[0]!.replace('.', '');
        const ours = s.replace('-', '').split('e')[0]!.replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
        expect(ours || '0').toBe(js.replace(/0+$/, '') || '0');
      }),
      { numRuns: 3000 },
    );
  });
});

describe('formatF32', () => {
  for (const [x, text] of F32) it(`${x} → ${text}`, () => expect(formatF32(x)).toBe(text));

  it('gives the shortest digits that round-trip as f32', () => {
    fc.assert(
      fc.property(fc.float({ noNaN: true, noDefaultInfinity: true }), (f) => {
        const s = formatF32(f);
        expect(Math.fround(Number(s))).toBe(Math.fround(f));
        // no shorter precision round-trips
        const digits = s.replace('-', '').split('e')[0]!.replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length || 1;
        if (f !== 0 && digits > 1) {
          const shorter = Math.abs(f).toPrecision(digits - 1);
          const lo = Number(shorter);
          expect(Math.fround(lo) === Math.abs(Math.fround(f))).toBe(false);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses values that overflow f32', () => {
    expect(() => formatF32(1e39)).toThrow(/overflows f32/);
  });
});

describe('roundF64To15', () => {
  it('rounds to 15 significant digits and is idempotent', () => {
    expect(roundF64To15(0.9666666666666667)).toBe(0.966666666666667);
    expect(roundF64To15(0.1 + 0.2)).toBe(0.3);
    expect(roundF64To15(1)).toBe(1);
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const r = roundF64To15(x);
        expect(roundF64To15(r)).toBe(r);
      }),
    );
  });
});

describe('memoized formatting', () => {
  it('repeat calls give the same text; 0 and -0 stay apart; rounding and plain f64 are kept apart', () => {
    for (let k = 0; k < 3; k++) {
      for (const [x, s] of F64) expect(formatF64(x)).toBe(s);
      for (const [x, s] of F32) expect(formatF32(x)).toBe(s);
      expect(formatF64(-0)).toBe('-0.0');
      expect(formatF64(0)).toBe('0.0');
      expect(formatF32(-0)).toBe('-0.0');
      expect(formatF64(0.9666666666666667)).toBe('0.9666666666666667');
      expect(formatF64(0.9666666666666667, true)).toBe('0.966666666666667');
    }
  });

  it('stays correct past the memo bound (values formatted before and after a clear)', () => {
    const fresh = (x: number) => formatF64(Number(x.toString()));
    const xs = Array.from({ length: 40_000 }, (_, i) => (i + 0.5) / 7);
    const first = xs.map((x) => formatF64(x));
    expect(xs.map(fresh)).toEqual(first);
    expect(first[0]).toBe('0.07142857142857142');
    expect(formatF32(0.9)).toBe('0.9');
  });
});
