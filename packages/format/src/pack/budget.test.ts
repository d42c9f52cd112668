import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withBuiltins } from '../__tests__/builtins.js';
import { bytesForTokens, checkByteBudget, estimateTokens, splitBudget, utf8Length } from './budget.js';

describe('splitBudget (seed 004 split_budget)', () => {
  it('splits by weight: the seed example', () => {
    expect(Object.fromEntries(splitBudget(1000, [['objective', 3], ['context', 1]]))).toEqual({ objective: 750, context: 250 });
  });

  it('hands leftover bytes to the largest remainders, ties in insertion order', () => {
    // 10 over weights 1,1,1: floors 3,3,3, remainders all equal → the first bucket gets the byte.
    expect([...splitBudget(10, [['a', 1], ['b', 1], ['c', 1]]).values()]).toEqual([4, 3, 3]);
    // 11 over 1,1,1: two leftover bytes → a and b.
    expect([...splitBudget(11, [['a', 1], ['b', 1], ['c', 1]]).values()]).toEqual([4, 4, 3]);
    // 7 over 3,2,2 → exact 3, 2, 2.
    expect([...splitBudget(7, [['a', 3], ['b', 2], ['c', 2]]).values()]).toEqual([3, 2, 2]);
    // 10 over 2,3 (fractions 4.0, 6.0) and 9 over 2,3 → 3.6, 5.4 → floors 3,5, leftover to a.
    expect([...splitBudget(9, [['a', 2], ['b', 3]]).values()]).toEqual([4, 5]);
  });

  it('treats all-zero weights as equal weights', () => {
    expect([...splitBudget(5, [['a', 0], ['b', 0]]).values()]).toEqual([3, 2]);
  });

  it('always sums to the total and never gives a zero-weight bucket more than its floor', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1 << 26 }), fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 8 }), (total, ws) => {
        const shares = [...splitBudget(total, ws.map((w, i) => [`s${i}`, w] as const)).values()];
        expect(shares.reduce((a, b) => a + b, 0)).toBe(total);
        const W = ws.reduce((a, b) => a + b, 0);
        shares.forEach((s, i) => {
          const exact = W === 0 ? total / ws.length : (total * (ws[i] as number)) / W;
          expect(s).toBeGreaterThanOrEqual(Math.floor(exact));
          expect(s).toBeLessThanOrEqual(Math.floor(exact) + 1);
        });
      }),
    );
  });

  it('refuses negative totals, negative weights and no buckets', () => {
    expect(() => splitBudget(-1, [['a', 1]])).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    expect(() => splitBudget(1, [['a', -1]])).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    expect(() => splitBudget(1, [])).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });
});

describe('byte and token arithmetic', () => {
  it('utf8Length equals the encoder on any string, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length);
      }),
    );
    expect(utf8Length('\ud800x')).toBe(4);
  });

  // Texts of 16 code units and more are measured natively under Node (budget.ts), shorter ones and
  // every text elsewhere by the loop: both must be the encoder's count.
  const mixed = fc.string({ unit: fc.constantFrom('a', '~', '\u00e9', '\u07ff', '\u0800', '\u20ac', '\uffff', '\ud83d\ude00', '\ud800', '\udbff', '\udc00', '\udfff'), minLength: 0, maxLength: 300 });

  it('utf8Length equals the encoder on long texts too (the native path), lone surrogates at any place', () => {
    fc.assert(
      fc.property(mixed, (s) => {
        expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length);
      }),
      { numRuns: 1000 },
    );
    for (const s of ['x'.repeat(15) + '\ud800', 'x'.repeat(16) + '\ud800', '\ud800'.repeat(40), '\udc00\ud800'.repeat(20), '\ud83d\ude00'.repeat(50)]) {
      expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length);
    }
  });

  it('utf8Length without Node built-ins (the loop for every length) gives the same counts', async () => {
    await withBuiltins(undefined, async () => {
      const m = await import('./budget.js');
      fc.assert(
        fc.property(mixed, (s) => {
          expect(m.utf8Length(s)).toBe(new TextEncoder().encode(s).length);
        }),
        { numRuns: 500 },
      );
    });
  });

  it('utf8Length keeps the loop when the runtime counts a probe text differently', async () => {
    const wrong = { Buffer: { byteLength: (s: string) => s.length } };
    await withBuiltins(
      (real) => (id: string) => (id === 'node:buffer' ? wrong : real?.(id)),
      async () => {
        const m = await import('./budget.js');
        const s = '\u00e9'.repeat(20);
        expect(m.utf8Length(s)).toBe(40);
      },
    );
  });

  it('converts tokens with 4 bytes per token and estimates by ceiling', () => {
    expect(bytesForTokens(1000)).toBe(4000);
    expect(estimateTokens(0)).toBe(0);
    expect(estimateTokens(1)).toBe(1);
    expect(estimateTokens(8)).toBe(2);
    expect(estimateTokens(9)).toBe(3);
    expect(() => bytesForTokens(0)).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    expect(() => bytesForTokens(1.5)).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    expect(() => bytesForTokens(1 << 30)).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });

  it('checks byte budgets', () => {
    expect(checkByteBudget(1)).toBe(1);
    for (const bad of [0, -5, 2.5, Number.NaN, 64 * 1024 * 1024 + 1]) {
      expect(() => checkByteBudget(bad)).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    }
  });
});
