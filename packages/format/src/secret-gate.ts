/**
 * The pre-check of secret screening (used by `secrets.ts`): one pass over a text that tells which
 * groups of rules can possibly match, so that the rules themselves (regular expressions) run only
 * on the rare texts that need them. Pure. Exact by construction — it never hides a match:
 *
 * - `GATE_LITERAL`: the text contains one of the rules' literal hints (exact case). Each hint is
 *   anchored at its rarest character; the pass visits every character, so an occurrence of a hint
 *   at offset `q` is found when the pass reaches `q + anchor` and `startsWith(hint, q)` holds.
 * - `GATE_ASSIGN`: some `:` or `=` is preceded — after optional whitespace (`\s`) and at most one
 *   quote — by a run of `[A-Za-z0-9_.-]` containing a key-name stem (`stems`, case-insensitive):
 *   exactly when the assignment hint `stem[a-z0-9_.-]*["']?\s*(?::=|=>|=|:)` (/i) matches, since
 *   every operator starts with `:` or `=` and a stem inside a maximal run is followed by run
 *   characters up to the quote.
 * - `GATE_RUN`: the text has a run of at least `runLength` characters of `[A-Za-z0-9+/_-]` (the
 *   same count as `hasTokenRun`).
 *
 * Cost: one `charCodeAt` loop per text instead of one regular-expression scan per rule group
 * (bench/render measures screening 50k nodes). The loop does a table lookup, the run count and
 * one rarely taken branch per character; the rare characters (`:`, `=`, anchors) are handled out
 * of line.
 */

export const GATE_LITERAL = 1;
export const GATE_ASSIGN = 2;
export const GATE_RUN = 4;

/** Characters ordered from rarest to most common in prose and code (a heuristic for anchors only). */
const RARITY = '~=:_QJZXKVYWUBGHMFOPIEDRLNTCSA9876543210-./ ';

interface Anchor {
  hint: string;
  /** Offset of the anchor character inside `hint`. */
  at: number;
  /** Character code before the anchor inside the hint, or -1 when the anchor is the first character. */
  prev: number;
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

/** Character classes by code (< 128): bit 1 token character `[A-Za-z0-9+/_-]`, bit 2 `:` or `=`, bit 4 anchor of a hint. */
const TOKEN = 1;
const ASSIGN_CHAR = 2;
const ANCHOR = 4;
const BASE_CLASS = new Uint8Array(128);
/** `[A-Za-z0-9_.-]`: the characters of an assigned key name. */
const KEY_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9+/_-]/.test(ch)) BASE_CLASS[c] |= TOKEN;
  if (ch === ':' || ch === '=') BASE_CLASS[c] |= ASSIGN_CHAR;
  if (/[A-Za-z0-9_.-]/.test(ch)) KEY_CHAR[c] = 1;
}

/** JavaScript `\s` by character code. */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** Whether the operator character at `i` is preceded by `stem[A-Za-z0-9_.-]*["']?\s*` (see GATE_ASSIGN). */
function keyBefore(text: string, i: number, stems: RegExp): boolean {
  let j = i - 1;
  while (j >= 0 && isSpace(text.charCodeAt(j))) j--;
  if (j >= 0) {
    const q = text.charCodeAt(j);
    if (q === 34 || q === 39) j--;
  }
  let k = j;
  while (k >= 0) {
    const c = text.charCodeAt(k);
    if (c >= 128 || KEY_CHAR[c] !== 1) break;
    k--;
  }
  return j - k >= 3 && stems.test(text.slice(k + 1, j + 1));
}

/**
 * Build the gate for a set of literal hints (printable ASCII, non-empty), a token-run length and
 * the key-name stems of assignments (an alternation of ASCII words of 3+ letters, flag `i`, no
 * `g`). Returns a function `text → flags` (bitwise OR of `GATE_*`). Throws on a non-ASCII or
 * empty hint (a programming error in the rule table).
 */
export function buildSecretGate(hints: readonly string[], runLength: number, stems: RegExp): (text: string) => number {
  if (stems.global || stems.sticky || !stems.ignoreCase) throw new Error('secret gate: stems must be /…/i');
  const table: Anchor[][] = Array.from({ length: 128 }, () => []);
  const cls = BASE_CLASS.slice();
  for (const hint of new Set(hints)) {
    if (hint.length === 0 || !/^[\x20-\x7e]+$/.test(hint)) throw new Error(`secret gate: bad hint ${JSON.stringify(hint)}`);
    const at = anchorIndex(hint);
    const code = hint.charCodeAt(at);
    (table[code] as Anchor[]).push({ hint, at, prev: at > 0 ? hint.charCodeAt(at - 1) : -1 });
    cls[code] = (cls[code] as number) | ANCHOR;
  }
  /**
   * The rare characters of a text (a `:` or `=`, a hint's anchor): the flags after character `c`
   * (class `k`) at `i`. A function of its own so that the loop below stays small enough for V8 to
   * keep its state in registers (inlined, this code doubled the loop's time on prose).
   */
  const special = (text: string, i: number, c: number, k: number, flags: number): number => {
    if ((k & ASSIGN_CHAR) !== 0 && (flags & GATE_ASSIGN) === 0 && keyBefore(text, i, stems)) flags |= GATE_ASSIGN;
    if ((k & ANCHOR) !== 0 && (flags & GATE_LITERAL) === 0) {
      for (const a of table[c] as Anchor[]) {
        const start = i - a.at;
        if (start >= 0 && (a.prev < 0 || text.charCodeAt(i - 1) === a.prev) && text.startsWith(a.hint, start)) return flags | GATE_LITERAL;
      }
    }
    return flags;
  };
  return (text: string): number => {
    const classes = cls;
    const runMin = runLength;
    let flags = 0;
    let run = 0;
    const n = text.length;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      // The class of `c`, 0 for every code from 128 up (branch-free: `(c - 128) >> 31` is -1 below 128, else 0).
      const k = (classes[c & 127] as number) & ((c - 128) >> 31);
      // Branch-free run count (a token character extends the run, any other resets it): the
      // word/space alternation of prose would mispredict a branch here at every word.
      run = (run + 1) & -(k & TOKEN);
      if (run >= runMin) flags |= GATE_RUN;
      if (k > TOKEN) {
        flags = special(text, i, c, k, flags);
        if (flags === 7) return flags;
      }
    }
    return flags;
  };
}
