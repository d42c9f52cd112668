/**
 * The two secret rules that are hand-written scanners instead of regular expressions (issue 11
 * item 2): `secret_assignment` and `high_entropy`. As regular expressions they were the
 * super-linear ones — a lazy key-name prefix `[A-Za-z0-9_.-]*?` is re-scanned from every start
 * inside a long run of `_`, `.` or `-` (160k characters took 37 s). Here every character is
 * visited a bounded number of times: O(n) per text, counted in `work.steps` so tests can assert
 * the count (bench/secrets measures time). Pure. Semantics: exactly the former expressions,
 * documented on each function.
 */
import { DOC_EXAMPLES, isHighEntropyToken, looksLikeCredential } from './secret-heuristics.js';

/** A candidate finding (`secrets.ts` resolves overlaps by rank). */
export interface Candidate {
  kind: string;
  start: number;
  end: number;
  rank: number;
}

/** Operation count of one scan: characters visited by the hand-written scanners and gates. */
export interface Work {
  steps: number;
}

/** Key names of `secret_assignment` (case-insensitive); the key run must end with one. */
export const SECRET_KEY_NAMES =
  'password|passwd|passphrase|pwd|secret|secret[_-]?key|api[_-]?key|apikey|access[_-]?key|private[_-]?key|' +
  'auth[_-]?token|access[_-]?token|refresh[_-]?token|bearer[_-]?token|token|client[_-]?secret|credentials?';
/** Longest key name above (`refresh_token`, `client_secret`: 13) with room to spare. */
const KEY_NAME_TAIL = 16;
const KEY_NAME_END = new RegExp(`(?:${SECRET_KEY_NAMES})$`, 'i');
const MAX_VALUE = 512;

const code = (t: string, i: number): number => t.charCodeAt(i);
const isAlnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/** `[A-Za-z0-9_.-]` */
const isKeyChar = (c: number): boolean => isAlnum(c) || c === 95 || c === 46 || c === 45;
/** `[ \t]` */
const isBlank = (c: number): boolean => c === 32 || c === 9;
/** `["'`]` */
const isQuote = (c: number): boolean => c === 34 || c === 39 || c === 96;
/** JavaScript `\s`. */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}
/** Characters that end an unquoted value: `\s " ' ` , ; ) } ]`. */
const endsBareValue = (c: number): boolean => isSpace(c) || isQuote(c) || c === 44 || c === 59 || c === 41 || c === 125 || c === 93;

/**
 * The value after an operator ending at `j` (exclusive): `[ \t]*` then a quoted value
 * (`"…"`, `'…'` or `` `…` ``: 1–512 characters without quotes or line breaks, closed by the same
 * quote) or a bare one (1–512 characters up to `\s " ' ` , ; ) } ]`). Undefined when neither.
 */
function valueAt(text: string, j: number, work: Work): { start: number; end: number; matchEnd: number } | undefined {
  const n = text.length;
  while (j < n && isBlank(code(text, j))) {
    j++;
    work.steps++;
  }
  if (j >= n) return undefined;
  const q = code(text, j);
  if (isQuote(q)) {
    let k = j + 1;
    while (k < n && k - j - 1 <= MAX_VALUE) {
      const c = code(text, k);
      work.steps++;
      if (isQuote(c) || c === 10 || c === 13) break;
      k++;
    }
    const len = k - j - 1;
    return len >= 1 && len <= MAX_VALUE && k < n && code(text, k) === q ? { start: j + 1, end: k, matchEnd: k + 1 } : undefined;
  }
  let k = j;
  while (k < n && k - j < MAX_VALUE && !endsBareValue(code(text, k))) {
    k++;
    work.steps++;
  }
  return k > j ? { start: j, end: k, matchEnd: k } : undefined;
}

/**
 * `secret_assignment`: the former expression
 * `(?<![A-Za-z0-9])[A-Za-z0-9_.-]*?(?:KEY NAMES)["']?[ \t]*(?::=|=>|=|:)[ \t]*(?:(["'`])([^"'`\r\n]{1,512}?)\1|([^\s"'`,;)}\]]{1,512}))`
 * (flags `dgi`), scanned from each operator backwards: the key run `[A-Za-z0-9_.-]+` before an
 * optional quote and `[ \t]*` must end with a key name, and the match (from the run's first
 * character after the previous match) must not start inside the previous match; then the value.
 * Operators are tried as the expression's alternation is: `:=` before `:`, `=>` before `=`.
 * The value is a candidate when it is not a documentation example and `looksLikeCredential`.
 * Each character is visited at most three times (once by the loop, once backwards as part of the
 * key run or blanks before its operator, once forwards as part of a value).
 */
export function scanAssignments(text: string, rank: number, out: Candidate[], work: Work): void {
  const n = text.length;
  let lastEnd = 0;
  for (let i = 0; i < n; i++) {
    work.steps++;
    const c = code(text, i);
    if ((c !== 58 && c !== 61) || i < lastEnd) continue;
    // Backwards: [ \t]* then an optional quote then the key run.
    let j = i - 1;
    while (j >= lastEnd && isBlank(code(text, j))) {
      j--;
      work.steps++;
    }
    if (j >= lastEnd && (code(text, j) === 34 || code(text, j) === 39)) j--;
    const keyEnd = j + 1;
    let k = j;
    while (k >= 0 && isKeyChar(code(text, k))) {
      k--;
      work.steps++;
    }
    let start = k + 1;
    if (start >= keyEnd) continue;
    if (start < lastEnd) {
      // The expression resumes at lastEnd: its start must follow a non-alphanumeric character.
      start = lastEnd;
      while (start < keyEnd && isAlnum(code(text, start - 1))) {
        start++;
        work.steps++;
      }
      if (start >= keyEnd) continue;
    }
    if (!KEY_NAME_END.test(text.slice(Math.max(start, keyEnd - KEY_NAME_TAIL), keyEnd))) continue;
    // Forwards: the operator alternatives in the expression's order, then the value.
    const ops = c === 58 ? (code(text, i + 1) === 61 ? [2, 1] : [1]) : code(text, i + 1) === 62 ? [2, 1] : [1];
    let found: ReturnType<typeof valueAt>;
    for (const len of ops) if ((found = valueAt(text, i + len, work))) break;
    if (!found) continue;
    lastEnd = found.matchEnd;
    i = found.matchEnd - 1;
    const value = text.slice(found.start, found.end);
    if (DOC_EXAMPLES.has(value) || !looksLikeCredential(value)) continue;
    out.push({ kind: 'secret_assignment', start: found.start, end: found.end, rank });
  }
}

/** `[A-Za-z0-9+/_-]` */
const isTokenChar = (c: number): boolean => isAlnum(c) || c === 43 || c === 47 || c === 95 || c === 45;

/**
 * `high_entropy`: the former expression
 * `(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/=_-])`: a maximal run of token
 * characters of at least 24, followed by at most two `=` and then neither a token character nor
 * another `=`; the candidate is the run with its padding when `isHighEntropyToken` accepts it.
 * One pass.
 */
export function scanTokenRuns(text: string, rank: number, out: Candidate[], work: Work): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    work.steps++;
    if (!isTokenChar(code(text, i))) {
      i++;
      continue;
    }
    const a = i;
    // Which of digit (1), upper-case (2) and lower-case (4) letters the run has: a run without all
    // three is no candidate (`isHighEntropyToken` asks `mixedToken` of the run, its padding
    // stripped), so it is passed over without slicing it (paths and identifiers: most long runs).
    let kinds = 0;
    for (let c = code(text, i); i < n && isTokenChar(c); c = code(text, ++i)) {
      kinds |= c >= 97 && c <= 122 ? 4 : c >= 65 && c <= 90 ? 2 : c >= 48 && c <= 57 ? 1 : 0;
      work.steps++;
    }
    if (i - a < 24) continue;
    let e = 0;
    while (i + e < n && e < 3 && code(text, i + e) === 61) e++;
    const after = i + e;
    if (e > 2 || (after < n && isTokenChar(code(text, after)))) continue;
    if (kinds !== 7) continue;
    const value = text.slice(a, after);
    if (DOC_EXAMPLES.has(value) || !isHighEntropyToken(value)) continue;
    out.push({ kind: 'high_entropy', start: a, end: after, rank });
  }
}
