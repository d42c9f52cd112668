/**
 * The pre-check of secret screening (used by `secrets.ts`): one pass over a text that tells which
 * groups of rules can possibly match, so that the rules themselves (regular expressions) run only
 * on the rare texts that need them. Pure. Exact by construction — it never hides a match:
 *
 * - `GATE_LITERAL`: the text contains one of the rules' literal hints (exact case). Each hint is
 *   anchored at its rarest character; the pass visits every character, so an occurrence of a hint
 *   at offset `q` is found when the pass reaches `q + anchor` and `startsWith(hint, q)` holds
 *   (the hints tried there are those with that anchor and, before it, the character before it).
 * - `GATE_ASSIGN`: some `:` or `=` is preceded — after optional whitespace (`\s`) and at most one
 *   quote — by a run of `[A-Za-z0-9_.-]` containing a key-name stem (`stems`, ASCII case-insensitive):
 *   exactly when the assignment hint `stem[a-z0-9_.-]*["']?\s*(?::=|=>|=|:)` (/i) matches, since
 *   every operator starts with `:` or `=` and a stem inside a maximal run is followed by run
 *   characters up to the quote.
 * - `GATE_RUN`: the text has a run of at least `runLength` characters of `[A-Za-z0-9+/_-]` (the
 *   same count as `hasTokenRun`).
 *
 * Cost: one loop per text instead of one regular-expression scan per rule group (bench/render
 * measures screening 50k nodes). The loop does a table lookup, the run count and one rarely taken
 * branch per character; the rare characters (`:`, `=`, anchors) are handled out of line. A text
 * of 64 to 16,384 code units is read as its UTF-8 bytes, written into one reused array (a typed
 * array reads faster than `charCodeAt`) by `utf8Writer` when it surely fits (at most 5,461 code
 * units), else by `TextEncoder.encodeInto`; for a non-ASCII text the loop
 * counts how many code units fewer than bytes precede each position, and bytes ≥ 128 have class 0
 * (every non-ASCII character is none of the classes), so each event is handled at its code unit
 * index. Other texts are read with `charCodeAt`.
 */

export const GATE_LITERAL = 1;
export const GATE_ASSIGN = 2;
export const GATE_RUN = 4;
/** All gate flags: a text is surely clean when `(gate(text) & GATE_FLAGS) === 0`. */
export const GATE_FLAGS = 7;
/** A gate built with words returns their verdict shifted left by this (`buildSecretGate`). */
export const GATE_WORDS_SHIFT = 3;

import { nodeBuiltin } from './builtin.js';
import { wordHit, WORD_CODE, type WordStarts } from './word-starts.js';

const ENCODER = new TextEncoder();

type BufferWrite = (text: string, offset: number, length: number) => number;
type NodeBufferCtor = { from(buffer: ArrayBufferLike, byteOffset: number, length: number): { write?: BufferWrite; utf8Write?: BufferWrite } };
/** Node's `Buffer` (by feature probe, builtin.ts), or undefined. */
const NODE_BUFFER: NodeBufferCtor | undefined = (() => {
  const B = nodeBuiltin<{ Buffer: NodeBufferCtor }>('node:buffer')?.Buffer;
  return B !== undefined && typeof B.from === 'function' ? B : undefined;
})();
/** Text whose UTF-8 checks a writer: 1-, 2-, 3- and 4-byte characters, and lone surrogates (high, low, high last). */
const WRITER_PROBE = 'a\u00e9\u20ac\ud83d\ude00\ud800x\udc00\u07ff\uffff\ud800';

/**
 * A UTF-8 writer into the start of `bytes` that allocates nothing: `write(text)` puts the UTF-8
 * of `text` — lone surrogates as U+FFFD, as `TextEncoder` does — at `bytes[0 …)` and returns its
 * length in bytes, for any `text` with `3 · text.length ≤ bytes.length` (every UTF-16 code unit
 * takes at most three bytes, so such a text always fits whole). Node's `Buffer#write` over the
 * same memory (by feature probe, builtin.ts; its `utf8Write` when there is one, which `write`
 * calls after checking its arguments), used only when it writes a probe text byte for byte as
 * `TextEncoder.encode` does; `undefined` elsewhere (callers use `TextEncoder.encodeInto`).
 * Why: `encodeInto` returns a fresh `{ read, written }` object per call, which V8 removes only
 * when it inlines the call — the secret gate encodes every node of a graph (50k per cold render
 * of the bench graph: ~2 MB of young garbage when it does not).
 */
export function utf8Writer(bytes: Uint8Array): ((text: string) => number) | undefined {
  try {
    if (NODE_BUFFER === undefined || bytes.length < 3 * WRITER_PROBE.length) return undefined;
    const view = NODE_BUFFER.from(bytes.buffer, bytes.byteOffset, bytes.length);
    const limit = bytes.length;
    const want = ENCODER.encode(WRITER_PROBE);
    /** `write` when it writes the probe as the encoder does. */
    const checked = (write: (text: string) => number): ((text: string) => number) | undefined => {
      bytes.fill(0, 0, want.length + 1);
      const got = write(WRITER_PROBE);
      if (got !== want.length) return undefined;
      for (let i = 0; i < got; i++) if (bytes[i] !== want[i]) return undefined;
      return write;
    };
    // `utf8Write` first: the method `write` calls after checking its arguments in JavaScript
    // (~125 ns a call in optimized code, more in a cold process; 50k calls per cold render).
    const direct = typeof view.utf8Write === 'function' ? checked((text) => (view.utf8Write as BufferWrite)(text, 0, limit)) : undefined;
    return direct ?? (typeof view.write === 'function' ? checked((text) => (view.write as BufferWrite)(text, 0, limit)) : undefined);
  } catch {
    return undefined;
  }
}
/** Where the gate puts a text as UTF-8 (see the module docstring); a text that does not fit is read as a string. */
const TEXT_BYTES = new Uint8Array(16384);
/** Shorter texts are read as a string (encoding costs more than it saves). */
const BYTES_MIN = 64;

/** Characters ordered from rarest to most common in prose and code (a heuristic for anchors only). */
const RARITY = '~=:_QJZXKVYWUBGHMFOPIEDRLNTCSA9876543210-./ ';

interface Anchor {
  hint: string;
  /** Offset of the anchor character inside `hint`. */
  at: number;
}

function anchorIndex(hint: string): number {
  let best = 0;
  let score = Number.POSITIVE_INFINITY;
  for (let j = 0; j < hint.length; j++) {
    const r = RARITY.indexOf(hint[j] as string);
    const s = r === -1 ? RARITY.length : r;
    if (s < score) {
      score = s;
      best = j;
    }
  }
  return best;
}

/**
 * Character classes by code (< 128; 256 entries, the rest 0, so that a byte indexes it without a bounds check): bit 1 token character `[A-Za-z0-9+/_-]`, bit 2 `:` or `=`,
 * bit 4 anchor of a hint; bits 3–7 the character's word code (`WORD_CODE`, word-starts.ts).
 */
const TOKEN = 1;
const ASSIGN_CHAR = 2;
const ANCHOR = 4;
/** The classes handled out of line. */
const RARE = ASSIGN_CHAR | ANCHOR;
const BASE_CLASS = new Uint8Array(256);
/** `[A-Za-z0-9_.-]`: the characters of an assigned key name. */
const KEY_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9+/_-]/.test(ch)) BASE_CLASS[c] |= TOKEN;
  if (ch === ':' || ch === '=') BASE_CLASS[c] |= ASSIGN_CHAR;
  if (/[A-Za-z0-9_.-]/.test(ch)) KEY_CHAR[c] = 1;
  BASE_CLASS[c] |= (WORD_CODE[c] as number) << 3;
}
/**
 * The UTF-8 of a non-ASCII text read as bytes (`buildSecretGate`): per byte, the class of an
 * ASCII byte; for the others class 0, and `k >> 8` is how many UTF-16 code units fewer than bytes
 * the text has up to here — +1 for a continuation byte, −1 for the lead byte of a four-byte
 * sequence (a surrogate pair: four bytes, two units).
 */
const UTF8_SKEW = new Int16Array(256);
for (let b = 0x80; b < 0xc0; b++) UTF8_SKEW[b] = 1 << 8;
for (let b = 0xf0; b < 0xf8; b++) UTF8_SKEW[b] = -1 << 8;

/** JavaScript `\s` by character code. */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * Whether `text[from, to)` contains one of `stems` (lower-case ASCII words, `byFirst[c]`: those
 * starting with letter code `c`), ASCII case-insensitive. `c | 0x20` folds exactly the two cases
 * of a letter onto the lower-case code (the range holds only key characters, all ASCII).
 */
function hasStem(text: string, from: number, to: number, byFirst: readonly (readonly string[] | undefined)[]): boolean {
  for (let p = from; p < to; p++) {
    const list = byFirst[(text.charCodeAt(p) | 0x20) & 127];
    if (list === undefined) continue;
    next: for (const stem of list) {
      if (p + stem.length > to) continue;
      for (let j = 1; j < stem.length; j++) if ((text.charCodeAt(p + j) | 0x20) !== stem.charCodeAt(j)) continue next;
      return true;
    }
  }
  return false;
}

/**
 * The letter set of a key run: bit `c & 31` for each character code `c` in it. Both cases of a
 * letter set the same bit; digits and `_.-` set bits that letters also use, so the set may say a
 * letter is there when it is not, never the other way round.
 */
function letterBits(word: string): number {
  let bits = 0;
  for (let j = 0; j < word.length; j++) bits |= 1 << (word.charCodeAt(j) & 31);
  return bits;
}

/**
 * Whether the operator character at `i` is preceded by `stem[A-Za-z0-9_.-]*["']?\s*` (see GATE_ASSIGN).
 * `stemBits[s]` is `letterBits` of stem `s`: the stems are searched (`hasStem`) only when every
 * letter of one of them is in the key run (a stem in the run puts all its letters there, so this
 * hides no match). Most keys before a `:` lack a letter of every stem (`AGENTS.md` in
 * `AGENTS.md:12` has no `p`, `k` or `c`): the search, about 600 instructions a call, is skipped
 * (callgrind, 50k bench ids gated in warm code: 181 → 159 M instructions).
 */
function keyBefore(text: string, i: number, byFirst: readonly (readonly string[] | undefined)[], stemBits: Int32Array): boolean {
  let j = i - 1;
  while (j >= 0 && isSpace(text.charCodeAt(j))) j--;
  if (j >= 0) {
    const q = text.charCodeAt(j);
    if (q === 34 || q === 39) j--;
  }
  let k = j;
  let seen = 0;
  while (k >= 0) {
    const c = text.charCodeAt(k);
    if (c >= 128 || KEY_CHAR[c] !== 1) break;
    seen |= 1 << (c & 31);
    k--;
  }
  if (j - k < 3) return false;
  for (let s = 0; s < stemBits.length; s++) {
    const bits = stemBits[s] as number;
    if ((seen & bits) === bits) return hasStem(text, k + 1, j + 1, byFirst);
  }
  return false;
}

/**
 * Build the gate for a set of literal hints (printable ASCII, non-empty), a token-run length and
 * the key-name stems of assignments (lower-case ASCII words of 3+ letters, matched in either
 * case). Returns a function `text → flags` (bitwise OR of `GATE_*`). With `words`, the same pass
 * also finds those words (word-starts.ts) in the first `words.limit` code units and the function
 * returns `flags | verdict << GATE_WORDS_SHIFT` (the OR of `words.at` at every word start, or at
 * least `words.final`). Throws on a non-ASCII or empty hint or a bad stem (a programming error in
 * the rule table).
 */
export function buildSecretGate(hints: readonly string[], runLength: number, stems: readonly string[], words?: WordStarts): (text: string) => number {
  /** Stems by the code of their first letter. */
  const byFirst: (string[] | undefined)[] = new Array(128).fill(undefined);
  for (const stem of new Set(stems)) {
    if (!/^[a-z]{3,}$/.test(stem)) throw new Error(`secret gate: bad stem ${JSON.stringify(stem)}`);
    (byFirst[stem.charCodeAt(0)] ??= []).push(stem);
  }
  /** `letterBits` of each stem (see `keyBefore`). */
  const stemBits = Int32Array.from(new Set(stems), letterBits);
  /** Hints by their anchor when it is their first character (by its code) … */
  const atStart: (Anchor[] | undefined)[] = new Array(128).fill(undefined);
  /** … else by the pair (character before the anchor, anchor): `prev << 7 | anchor`. */
  const byPair = new Map<number, Anchor[]>();
  /** 1 at every key of `byPair` (a typed-array read rules most pairs out before the map lookup). */
  const pairKeys = new Uint8Array(1 << 14);
  const cls = BASE_CLASS.slice();
  for (const hint of new Set(hints)) {
    if (hint.length === 0 || !/^[\x20-\x7e]+$/.test(hint)) throw new Error(`secret gate: bad hint ${JSON.stringify(hint)}`);
    const at = anchorIndex(hint);
    const code = hint.charCodeAt(at);
    const a: Anchor = { hint, at };
    if (at === 0) (atStart[code] ??= []).push(a);
    else {
      const key = (hint.charCodeAt(at - 1) << 7) | code;
      const list = byPair.get(key);
      if (list) list.push(a);
      else byPair.set(key, [a]);
      pairKeys[key] = 1;
    }
    cls[code] = (cls[code] as number) | ANCHOR;
  }
  /** `cls` with the UTF-8 skews (`UTF8_SKEW`), for a non-ASCII text read as bytes. */
  const cls8 = UTF8_SKEW.slice();
  for (let c = 0; c < 128; c++) cls8[c] = cls[c] as number;
  /**
   * The rare characters of a text (a `:` or `=`, a hint's anchor): the flags after character `c`
   * (class `k`) at `i`. A function of its own so that the loop below stays small enough for V8 to
   * keep its state in registers (inlined, this code doubled the loop's time on prose).
   */
  const special = (text: string, i: number, c: number, k: number, flags: number): number => {
    if ((k & ASSIGN_CHAR) !== 0 && (flags & GATE_ASSIGN) === 0 && keyBefore(text, i, byFirst, stemBits)) flags |= GATE_ASSIGN;
    if ((k & ANCHOR) !== 0 && (flags & GATE_LITERAL) === 0) {
      const first = atStart[c];
      if (first !== undefined) for (const a of first) if (text.startsWith(a.hint, i)) return flags | GATE_LITERAL;
      const prev = i > 0 ? text.charCodeAt(i - 1) : 128;
      if (prev < 128 && pairKeys[(prev << 7) | c] === 1) {
        const pair = byPair.get((prev << 7) | c);
        if (pair !== undefined) {
          for (const a of pair) {
            const start = i - a.at;
            if (start >= 0 && text.startsWith(a.hint, start)) return flags | GATE_LITERAL;
          }
        }
      }
    }
    return flags;
  };
  /** The plain pass over `text[i, n)`, from the state `flags`, `run` (stops once every flag is set). */
  const rest = (text: string, i: number, flags: number, run: number): number => {
    const classes = cls;
    const runMin = runLength;
    const n = text.length;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      // The class of `c`, 0 for every code from 128 up (branch-free: `(c - 128) >> 31` is -1 below 128, else 0).
      const k = (classes[c & 127] as number) & ((c - 128) >> 31);
      // Branch-free run count (a token character extends the run, any other resets it): the
      // word/space alternation of prose would mispredict a branch here at every word.
      run = (run + 1) & -(k & TOKEN);
      if (run >= runMin) flags |= GATE_RUN;
      if ((k & RARE) !== 0) {
        flags = special(text, i, c, k, flags);
        if (flags === GATE_FLAGS) return flags;
      }
    }
    return flags;
  };
  /** The word trigger table (`words.trig`; without words, one that never fires — unused). */
  const trig = words !== undefined ? words.trig : new Uint8Array(8192);
  /**
   * The byte loop's three tables in one array: the text's UTF-8 at `[0, 16384)` (`textBytes`, a
   * view of it, is where `encode` writes), the class table (`cls`) at 16384 and the trigger table
   * at 16640. In a cold compilation V8 checks a typed array's map at every read in the loop; with
   * one array it checks one map and keeps one base address, so the loop's other values stay in
   * registers (bench/render, one cold render: the loop took ~44 instructions a byte).
   */
  const mem = new Uint8Array(16384 + 256 + 8192);
  mem.set(cls, 16384);
  mem.set(trig, 16640);
  const textBytes = mem.subarray(0, TEXT_BYTES.length);
  /** `utf8Writer(textBytes)`: what `encode` uses for texts that surely fit (no result object per call). */
  const write = utf8Writer(textBytes);
  /**
   * The state of the fused pass over `TEXT_BYTES` between events: the position, the token run,
   * the word window (word-starts.ts: 5 bits a code, the last four read), the flags, and (UTF-8 of
   * a non-ASCII text) how many UTF-16 code units fewer than bytes precede the position.
   */
  const state = new Int32Array(5);
  /** Zero the state (five stores: `fill` is a call into the runtime, ~100 instructions a text). */
  const clearState = (): void => {
    state[0] = 0;
    state[1] = 0;
    state[2] = 0;
    state[3] = 0;
    state[4] = 0;
  };
  /**
   * Advance the state over `TEXT_BYTES[state[0], end)` (an ASCII text) to the next event — a window that hit the
   * trigger table (bit 1 of the result) or a rare character (`RARE` bits) — or to `end` (result
   * 0). It keeps its loop's values out of everything that calls (the events are handled by the
   * caller, the state goes back through `state`), so V8 keeps them in registers, reads a typed
   * array (no `charCodeAt` dispatch on the string's representation) and writes `windowSlot` out
   * as literals (an imported function is a live binding, checked at every call).
   */
  const toEvent = (end: number): number => {
    // `mem` (see above), its offsets written as literals (V8 does not fold module constants here).
    const m = mem;
    const runMin = runLength;
    let i = state[0] as number;
    let run = state[1] as number;
    let window = state[2] as number;
    let flags = state[3] as number;
    let event = 0;
    for (; i < end; i++) {
      const k = m[16384 + (m[i] as number)] as number;
      run = (run + 1) & -(k & TOKEN);
      if (run >= runMin) flags |= GATE_RUN;
      window = (window << 5) | (k >>> 3);
      event = (m[16640 + (Math.imul(window << 12, 0x9e3779b1) >>> 19)] as number) | (k & RARE);
      if (event !== 0) break;
    }
    state[0] = i;
    state[1] = run;
    state[2] = window;
    state[3] = flags;
    return event;
  };
  /**
   * `toEvent` without the word window (the gate alone: only rare characters are events). A
   * function of its own, not a flag of `toEvent`: each keeps its own type feedback, so neither is
   * compiled for a loop that never ran and then thrown away (bench/render: `toEvent` was
   * deoptimized once and compiled twice in a cold render).
   */
  const toRare = (end: number): number => {
    const m = mem;
    const runMin = runLength;
    let i = state[0] as number;
    let run = state[1] as number;
    let flags = state[3] as number;
    let event = 0;
    for (; i < end; i++) {
      const k = m[16384 + (m[i] as number)] as number;
      run = (run + 1) & -(k & TOKEN);
      if (run >= runMin) flags |= GATE_RUN;
      event = k & RARE;
      if (event !== 0) break;
    }
    state[0] = i;
    state[1] = run;
    state[3] = flags;
    return event;
  };
  /** The flags of the ASCII `text` in `TEXT_BYTES`, from the state to its end (the gate alone; stops once every flag is set). */
  const restAscii = (text: string): number => {
    const bytes = textBytes;
    const classes = cls;
    const n = text.length;
    for (;;) {
      const event = toRare(n);
      if (event === 0) return state[3] as number;
      const i = state[0] as number;
      const c = bytes[i] as number;
      const flags = special(text, i, c, classes[c] as number, state[3] as number);
      if (flags === GATE_FLAGS) return flags;
      state[3] = flags;
      state[0] = i + 1;
    }
  };
  /**
   * Put `text` into `TEXT_BYTES` as UTF-8: its byte length (= its length when it is ASCII), or -1
   * when it is not there (shorter than `BYTES_MIN`: encoding costs more than it saves; or it does
   * not fit).
   */
  const encode = (text: string): number => {
    const n = text.length;
    if (n < BYTES_MIN || n > textBytes.length) return -1;
    // A text of at most a third of the array's length always fits whole: `read` would be `n`.
    if (write !== undefined && 3 * n <= textBytes.length) return write(text);
    const r = ENCODER.encodeInto(text, textBytes);
    return r.read === n ? r.written : -1;
  };
  /** `toEvent` over the UTF-8 of a non-ASCII text: also counts the code units (`state[4]`); bytes ≥ 128 have class 0. */
  const toEventUtf8 = (end: number): number => {
    const bytes = textBytes;
    const classes = cls8;
    const triggers = trig;
    const runMin = runLength;
    let b = state[0] as number;
    let run = state[1] as number;
    let window = state[2] as number;
    let flags = state[3] as number;
    let skew = state[4] as number;
    let event = 0;
    for (; b < end; b++) {
      const k = classes[bytes[b] as number] as number;
      skew += k >> 8;
      run = (run + 1) & -(k & TOKEN);
      if (run >= runMin) flags |= GATE_RUN;
      window = (window << 5) | ((k >> 3) & 31);
      event = (triggers[Math.imul(window << 12, 0x9e3779b1) >>> 19] as number) | (k & RARE);
      if (event !== 0) break;
    }
    state[0] = b;
    state[1] = run;
    state[2] = window;
    state[3] = flags;
    state[4] = skew;
    return event;
  };
  /**
   * The flags and word verdict (`verdictOf` the word hits; 0 without words) of a non-ASCII `text`
   * whose UTF-8 (`written` bytes) is in `TEXT_BYTES`, words in all of it (the caller sends only
   * texts within the word limit). Events happen only at ASCII bytes, whose code unit index is
   * the byte position less the skew.
   */
  const fusedUtf8 = (text: string, written: number): number => {
    const bytes = textBytes;
    const classes = cls;
    const n = text.length;
    clearState();
    let verdict = 0;
    for (;;) {
      const event = toEventUtf8(written);
      if (event === 0) break;
      const b = state[0] as number;
      const i = b - (state[4] as number);
      if ((event & 1) !== 0 && words !== undefined && verdict < words.final) verdict = wordHit(words, text, i, state[2] as number, n, verdict);
      if ((event & RARE) !== 0) {
        const c = bytes[b] as number;
        state[3] = special(text, i, c, classes[c] as number, state[3] as number);
      }
      state[0] = b + 1;
    }
    return (state[3] as number) | (verdict << GATE_WORDS_SHIFT);
  };
  if (words === undefined) {
    return (text: string): number => {
      const written = encode(text);
      if (written < 0) return rest(text, 0, 0, 0);
      if (written !== text.length) return fusedUtf8(text, written);
      clearState();
      return restAscii(text);
    };
  }
  const limit = words.limit;
  const final = words.final;
  /** The fused pass over an ASCII `text` whose code units are `TEXT_BYTES[0, text.length)`: words in the first `limit` units, then the gate alone. */
  const fusedAscii = (text: string): number => {
    const bytes = textBytes;
    const classes = cls;
    const n = text.length;
    const end = n < limit ? n : limit;
    clearState();
    let verdict = 0;
    for (;;) {
      const event = toEvent(end);
      if (event === 0) break;
      const i = state[0] as number;
      if ((event & 1) !== 0 && verdict < final) verdict = wordHit(words, text, i, state[2] as number, end, verdict);
      if ((event & RARE) !== 0) {
        const c = bytes[i] as number;
        state[3] = special(text, i, c, classes[c] as number, state[3] as number);
      }
      state[0] = i + 1;
    }
    return restAscii(text) | (verdict << GATE_WORDS_SHIFT);
  };
  /** The same pass over any text, read with `charCodeAt` (a short text, a long one, or a non-ASCII one longer than `limit`). */
  const fusedString = (text: string): number => {
    const classes = cls;
    const runMin = runLength;
    const triggers = trig;
    const end = text.length < limit ? text.length : limit;
    let flags = 0;
    let run = 0;
    let window = 0;
    let verdict = 0;
    let i = 0;
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      const k = (classes[c & 127] as number) & ((c - 128) >> 31);
      run = (run + 1) & -(k & TOKEN);
      if (run >= runMin) flags |= GATE_RUN;
      window = (window << 5) | (k >>> 3);
      if (triggers[Math.imul(window << 12, 0x9e3779b1) >>> 19] !== 0 && verdict < final) verdict = wordHit(words, text, i, window, end, verdict);
      if ((k & RARE) !== 0) flags = special(text, i, c, k, flags);
    }
    return (flags === GATE_FLAGS ? flags : rest(text, i, flags, run)) | (verdict << GATE_WORDS_SHIFT);
  };
  return (text: string): number => {
    const written = encode(text);
    const n = text.length;
    if (written === n) return fusedAscii(text);
    // A non-ASCII text is read as bytes only when the word limit does not cut it (where code unit `limit` is among the bytes is not known).
    if (written > 0 && n <= limit) return fusedUtf8(text, written);
    return fusedString(text);
  };
}
