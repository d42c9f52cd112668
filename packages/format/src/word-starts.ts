/**
 * Finding words at word starts in one character pass (pure): lets the secret gate
 * (secret-gate.ts) compute `forceOf` (pack/order.ts `FORCE_WORDS`, order key 3b) in its own pass
 * over a node's content, instead of a regular-expression scan of its own.
 *
 * A set of words is given by the first three characters of each (`starts`) and a verifier
 * (`at(text, p, end)`: the exact verdict for a word start `p` of `text` cut at `end`). The pass
 * keeps the codes of the last four characters (`WORD_CODE`: 0 for a character that is not a word
 * character `[A-Za-z0-9_]` — every code from 128 up included —, 1–26 for a letter in either case,
 * 27 for a digit or `_`) and calls the verifier at `p = i − 2` when character `i − 3` is not a word
 * character (or `p` is 0) and the codes of `p, p + 1, p + 2` are those of a start. That is every
 * `p` where a regular expression `\b(?:word|…)` (flag `i`, no `u`: ASCII word characters, and an
 * ASCII letter matches only its two cases) can match a word of three or more characters, so the
 * pass is exact when the verifier is. A start's non-letter character (`"do "`) stands for every
 * non-word character: the verifier checks the real one.
 *
 * The test is one table load per character: the four codes (20 bits) are hashed into
 * `WordStarts.trig` (8,192 entries), so a few other four-character windows reach the verifier
 * too (it rejects them; the rate is about 1 in 300 characters). Linear: the verifier reads a
 * bounded number of characters.
 */

/** Word-character code by character code (< 128; every code from 128 up is 0): see the module docstring. */
export const WORD_CODE = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) WORD_CODE[c] = (c | 0x20) - 96;
  else if ((c >= 48 && c <= 57) || c === 95) WORD_CODE[c] = 27;
}

/**
 * The window of the last characters: `window = (window << 5) | code` (5 bits a code, the newest
 * lowest; 0 before the text); only its low 20 bits — the last four codes, the oldest in bits
 * 15–19 — are read. A hot loop writes these numbers as literals: V8 does not fold module
 * constants there (a third slower). The loop leaves the older bits in place (shifted out by
 * `windowSlot`), so the window's chain of dependences from one character to the next is two
 * operations.
 */
const CODE_BITS = 5;
/** The bits of the oldest of the four codes. */
const OLDEST = 0x1f << (3 * CODE_BITS);

/** Index of a window (its low 20 bits) in `WordStarts.trig` (multiplicative hash to 13 bits; literals, see above). */
export function windowSlot(window: number): number {
  return Math.imul(window << 12, 0x9e3779b1) >>> 19;
}

/** A set of words to find at word starts (see the module docstring). */
export interface WordStarts {
  /** 1 at the slot of every start's window (`windowSlot`), else 0. */
  readonly trig: Uint8Array;
  /** Only the first `limit` UTF-16 code units are read. */
  readonly limit: number;
  /** The verdict at word start `p` of `text` cut at `end` (`end ≤ text.length`); 0 when no word is there. */
  readonly at: (text: string, p: number, end: number) => number;
  /** The largest verdict: the pass stops looking once it has it. Verdicts are OR-ed, so they are bit sets or 0, 1, 3 …. */
  readonly final: number;
}

/** The code of a character (see `WORD_CODE`). */
function codeOf(c: number): number {
  return c < 128 ? (WORD_CODE[c] as number) : 0;
}

/**
 * Build a word set: `starts` are the first three characters of every word (ASCII; a letter stands
 * for both its cases, any other character for every non-word character), `limit` the number of
 * UTF-16 code units read, `at` the exact verifier, `final` the largest verdict. Throws on a start
 * that is not three ASCII characters beginning with a letter (a programming error).
 */
export function wordStarts(starts: readonly string[], limit: number, at: WordStarts['at'], final: number): WordStarts {
  const trig = new Uint8Array(8192);
  for (const s of starts) {
    if (!/^[A-Za-z][\x00-\x7f]{2}$/.test(s)) throw new Error(`word starts: bad start ${JSON.stringify(s)}`);
    const window = (codeOf(s.charCodeAt(0)) << (2 * CODE_BITS)) | (codeOf(s.charCodeAt(1)) << CODE_BITS) | codeOf(s.charCodeAt(2));
    trig[windowSlot(window)] = 1;
  }
  return { trig, limit, at, final };
}

/**
 * The verdict for character `i` whose window (the codes of `i − 3 … i` in its low 20 bits) hit the trigger table:
 * `verdict` OR-ed with `words.at(text, i − 2, end)` when the window starts with a non-word
 * character. Out of line, so that the loops that call it stay small.
 */
export function wordHit(words: WordStarts, text: string, i: number, window: number, end: number, verdict: number): number {
  if ((window & OLDEST) !== 0) return verdict;
  return verdict | words.at(text, i - 2, end);
}
