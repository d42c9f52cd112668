import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withBuiltins } from './__tests__/builtins.js';
import { buildSecretGate, GATE_ASSIGN, GATE_LITERAL, GATE_RUN, utf8Writer } from './secret-gate.js';
import { hasTokenRun } from './secret-heuristics.js';
import { scanSecrets, surelyClean } from './secrets.js';

const HINTS = ['PRIVATE KEY', 'AKIA', 'ya29.', 'AccountKey=', 'Q~', 'ghp_', 'glpat-', 'xoxb-', 'hooks.slack.com', ':_authToken=', 'sk-ant-', 'sk-', '_live_', 'SG.', 'Basic', 'eyJ', '://'];
const STEMS = ['pass', 'pwd', 'secret', 'key', 'token', 'credential'];
const HINT = /(?:pass|pwd|secret|key|token|credential)[a-z0-9_.-]*["']?\s*(?::=|=>|=|:)/i;
const gate = buildSecretGate(HINTS, 24, STEMS);

/** The gate's assignment flag and the assignment hint's expression both say `want` for each text. */
function expectAssignment(cases: ReadonlyArray<readonly [string, boolean]>): void {
  for (const [text, want] of cases) {
    expect(Boolean(gate(text) & GATE_ASSIGN), text).toBe(want);
    expect(HINT.test(text), text).toBe(want);
  }
}

/** The reference meaning of each flag, computed the slow way. */
function reference(text: string): number {
  let f = 0;
  if (HINTS.some((h) => text.includes(h))) f |= GATE_LITERAL;
  if (HINT.test(text)) f |= GATE_ASSIGN;
  if (hasTokenRun(text, 24)) f |= GATE_RUN;
  return f;
}

const pieces = fc.constantFrom(...HINTS, 'a', 'Z', '-', '.', ' ', ':', '=', '_', 'é', '\n', 'x'.repeat(23), 'ab12CD', '😀', 'k', 's', 'e', 'y', 'Password', 'pwd', 'API_KEY', 'tok', 'en', 'secret', 'CREDENTIAL', '"', "'", '\t', '\u00a0', '\u2028', ':=', '=>', '\u212a', 'ſ');

describe('secret gate', () => {
  it('equals the slow reference on texts built from hints, their fragments and separators', () => {
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        expect(gate(text)).toBe(reference(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('equals the reference on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(gate(text)).toBe(reference(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('equals the reference on arbitrary ASCII strings, short and long (read as a string or as bytes)', () => {
    const ascii = fc.string({ unit: fc.constantFrom(...'aAzZ09 _-.:="\'\n\tKQ~/+'.split(''), ...HINTS), minLength: 0, maxLength: 120 });
    fc.assert(
      fc.property(ascii, fc.constantFrom('', 'plain prose words '.repeat(4)), (text, pad) => {
        expect(gate(pad + text)).toBe(reference(pad + text));
        expect(gate(text + pad)).toBe(reference(text + pad));
      }),
      { numRuns: 3000 },
    );
    for (const text of [' '.repeat(16385) + 'AKIA', ' '.repeat(16383) + 'key=1', 'é' + ' '.repeat(100) + 'ghp_', ' '.repeat(63) + 'AKIA', ' '.repeat(64) + 'AKIA']) expect(gate(text), text.trim()).toBe(reference(text));
  });

  it('equals the reference on non-ASCII texts of 64+ code units (read as UTF-8: 2-, 3- and 4-byte characters, lone surrogates)', () => {
    const wide = fc.constantFrom('é', '—', '😀', '\ud800', '\udfff', '\u00a0', '\u2028', 'ſ', '\u212a', '中文');
    fc.assert(
      fc.property(fc.array(fc.oneof(pieces, wide), { minLength: 1, maxLength: 30 }), (parts) => {
        const text = 'plain prose words '.repeat(4) + parts.join('');
        expect(gate(text)).toBe(reference(text));
        expect(gate(parts.join('') + '—' + 'x'.repeat(70))).toBe(reference(parts.join('') + '—' + 'x'.repeat(70)));
      }),
      { numRuns: 3000 },
    );
  });

  it('finds every hint at the start, in the middle and at the end of a text', () => {
    for (const h of HINTS) {
      for (const text of [h, `prose ${h} prose`, `prose${h}`, `${h.slice(0, -1)}!${h}`]) expect(gate(text) & GATE_LITERAL, text).toBe(GATE_LITERAL);
      expect(gate(h.slice(0, -1)) & GATE_LITERAL, h).toBe(HINTS.some((x) => h.slice(0, -1).includes(x)) ? GATE_LITERAL : 0);
    }
  });

  it('counts token runs exactly (23 characters pass, 24 trigger)', () => {
    expect(gate('a'.repeat(23)) & GATE_RUN).toBe(0);
    expect(gate('a'.repeat(24)) & GATE_RUN).toBe(GATE_RUN);
    expect(gate(`${'a'.repeat(12)}é${'a'.repeat(12)}`) & GATE_RUN).toBe(0);
    expect(gate(`${'a+/_-'.repeat(5)}`) & GATE_RUN).toBe(GATE_RUN);
  });

  it('refuses an empty or non-ASCII hint and a short or upper-case stem (a bug in the rule table)', () => {
    expect(() => buildSecretGate([''], 24, STEMS)).toThrow();
    expect(() => buildSecretGate(['ké'], 24, STEMS)).toThrow();
    expect(() => buildSecretGate(['a'], 24, ['ke'])).toThrow();
    expect(() => buildSecretGate(['a'], 24, ['Key'])).toThrow();
  });

  it('lets the real rules see what they need (a finding in every gated rule group)', () => {
    expect(scanSecrets('AKIAABCDEFGHIJKLMNOP').map((f) => f.kind)).toEqual(['aws_access_key_id']);
    expect(scanSecrets('db_password = "Xk29!aPqLm"').map((f) => f.kind)).toEqual(['secret_assignment']);
    expect(scanSecrets('token q8Zr2LmX9vTq4NcB7wYk3HsJ').map((f) => f.kind)).toEqual(['high_entropy']);
    expect(scanSecrets('plain prose about caching, with punctuation. Nothing else!')).toEqual([]);
  });

  it('assignment flag: exactly where the assignment hint matches (whitespace, quotes, case, operators)', () => {
    expectAssignment([
      ['password = x', true],
      ['API_KEY: x', true],
      ['"token" : x', true],
      ["my.pwd'\n\t:= x", true],
      ['Keyboard => x', true],
      ['AGENTS.md:12', false],
      ['note: the key is rotated', false],
      ['key"" = x', false],
      ['k\u212aey = x', false],
      ['ke-y = x', false],
      ['secret\u00a0= x', true],
    ]);
  });

  it('assignment flag: a key holding every letter of a stem but not the stem is no assignment (the letter filter only skips the search)', () => {
    expectAssignment([
      ['spa_s: x', false],
      ['ssap: x', false],
      ['yek = x', false],
      ['nekot: x', false],
      ['laitnederc: x', false],
      ['tercesp: x', false],
      ['xpassx: x', true],
      ['PWD=x', true],
      ['a.b-c_Key9: x', true],
      ['p0s: x', false],
    ]);
  });

  it('surelyClean: never true for a text with findings', () => {
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 30 }), (parts) => {
        const text = parts.join('');
        if (surelyClean(text)) expect(scanSecrets(text)).toEqual([]);
      }),
      { numRuns: 2000 },
    );
    expect(surelyClean('AGENTS.md:12 plain words')).toBe(true);
    expect(surelyClean('db_password = "Xk29!aPqLm"')).toBe(false);
  });
});

describe('utf8Writer (the gate\'s encoder without a result object)', () => {
  const bytes = new Uint8Array(300);
  const write = utf8Writer(bytes);
  const encoder = new TextEncoder();

  it('exists under Node (node:buffer), and refuses an array too small for its probe', () => {
    expect(write).toBeTypeOf('function');
    expect(utf8Writer(new Uint8Array(8))).toBeUndefined();
  });

  it('takes Buffer#write when utf8Write is absent or writes the probe wrong, and nothing when neither is right', async () => {
    const text = 'a\u00e9\u20ac\ud83d\ude00\ud800x';
    const want = [...encoder.encode(text)];
    /** A `node:buffer` whose views have the given `utf8Write` and `write` (each: the real one, a wrong one, or none). */
    const fake = (utf8: 'real' | 'wrong' | 'none', plain: 'real' | 'wrong' | 'none') => ({
      Buffer: {
        from: (b: ArrayBuffer, o: number, l: number) => {
          const real = Buffer.from(b, o, l);
          const pick = (kind: string, f: (t: string, off: number, len: number) => number) => (kind === 'real' ? f.bind(real) : kind === 'wrong' ? (t: string) => t.length : undefined);
          return { utf8Write: pick(utf8, (real as unknown as { utf8Write: (t: string, off: number, len: number) => number }).utf8Write), write: pick(plain, real.write as (t: string, off: number, len: number) => number) };
        },
      },
    });
    for (const [utf8, plain, works] of [['none', 'real', true], ['wrong', 'real', true], ['real', 'wrong', true], ['wrong', 'wrong', false], ['none', 'none', false]] as const) {
      await withBuiltins(
        (real) => (id: string) => (id === 'node:buffer' ? fake(utf8, plain) : real?.(id)),
        async () => {
          const m = await import('./secret-gate.js');
          const out = new Uint8Array(64);
          const w = m.utf8Writer(out);
          if (!works) {
            expect(w, `${utf8} ${plain}`).toBeUndefined();
            return;
          }
          expect(w, `${utf8} ${plain}`).toBeTypeOf('function');
          const n = (w as (t: string) => number)(text);
          expect([...out.subarray(0, n)], `${utf8} ${plain}`).toEqual(want);
        },
      );
    }
  });

  it('writes what TextEncoder writes, lone surrogates as U+FFFD, for every text of at most a third of the array (property)', () => {
    const unit = fc.oneof(fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '😀', 'é', '\u07ff', '\u0800', '\uffff', '\u0000', 'a'), fc.string({ unit: 'binary', maxLength: 4 }));
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 60 }), (parts) => {
        const text = parts.join('').slice(0, 100);
        bytes.fill(0xaa);
        const n = (write as (t: string) => number)(text);
        const want = encoder.encode(text);
        expect(n).toBe(want.length);
        expect([...bytes.subarray(0, n)]).toEqual([...want]);
        // Nothing is written past the text's bytes.
        expect(bytes.subarray(n).every((b) => b === 0xaa)).toBe(true);
      }),
      { numRuns: 3000, seed: 11 },
    );
  });

  it('the gate reads texts around the writer\'s limit (16384 / 3 code units) and past it as the reference does', () => {
    // At most 5461 code units: the writer; more: encodeInto (fits, or does not: read as a string).
    for (const n of [5460, 5461, 5462, 8000, 16384]) {
      for (const tail of ['AKIA', 'key=1', '😀 ghp_', '\ud800 password: x']) {
        for (const fill of ['x ', 'é', '中']) {
          const text = fill.repeat(Math.ceil(n / fill.length)).slice(0, n - tail.length) + tail;
          expect(gate(text), `${n} ${fill} ${tail}`).toBe(reference(text));
        }
      }
    }
  });
});
