/**
 * The judgement calls of secret screening (used by `secrets.ts`): documentation examples and
 * placeholders, whether an assigned value looks like a credential, and the entropy rule for
 * standalone tokens. Pure. The rules are documented in `secrets.ts` and spec/pack.md §9.
 */

/** Values from public documentation that are not secrets. */
export const DOC_EXAMPLES = new Set(['AKIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY']);

export const PLACEHOLDER =
  /^(?:<[^>]*>|\[REDACTED:[a-z0-9_]+\]?|\*+|[xX.•…_-]+|changeme|change_me|password|passwd|secret|example|placeholder|dummy|redacted|null|nil|none|undefined|true|false|todo|tbd|your[-_].*|my[-_].*)$/i;

/** Mixed-case, digit-bearing opaque token (used by prefix rules whose bodies are loose). */
export function mixedToken(value: string): boolean {
  return /[0-9]/.test(value) && /[A-Z]/.test(value) && /[a-z]/.test(value);
}

/** Shannon entropy of `s` in bits per character (over UTF-16 code units). */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<string, number>();
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** Average length of camelCase/digit segments (`getElementsBy2` → get|Elements|By|2). */
function averageSegmentLength(s: string): number {
  const segs = s.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+/g);
  if (!segs || segs.length === 0) return s.length;
  let total = 0;
  for (const g of segs) total += g.length;
  return total / segs.length;
}

/** The standalone entropy rule (module docstring, rule 4). `token` may end in `=` padding. */
export function isHighEntropyToken(token: string): boolean {
  const t = token.replace(/=+$/, '');
  if (t.length < 24) return false;
  if (!mixedToken(t)) return false;
  if (/^[0-9a-fA-F-]+$/.test(t)) return false;
  if (DOC_EXAMPLES.has(token) || /EXAMPLE/.test(t)) return false;
  if (/^sha(?:1|224|256|384|512)-/.test(t)) return false;
  if (shannonEntropy(t) < 0.8 * Math.log2(Math.min(t.length, 64))) return false;
  if (averageSegmentLength(t) > 3) return false;
  return !isEncodedText(token);
}

/**
 * True when `token` is standard/url-safe base64 whose decoded bytes are mostly (≥ 70%) printable
 * ASCII: encoded text (a data blob in documentation), not random key material (random bytes are
 * ~37% printable).
 */
function isEncodedText(token: string): boolean {
  const b64 = token.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (b64.length % 4 === 1) return false;
  let bin: string;
  try {
    bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  } catch {
    return false;
  }
  let printable = 0;
  for (let i = 0; i < bin.length; i++) {
    const c = bin.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c === 0x0a || c === 0x09 || c === 0x0d) printable++;
  }
  return printable >= 0.7 * bin.length;
}

/** `atob` that returns '' on invalid input. */
export function safeAtob(v: string): string {
  try {
    return atob(v);
  } catch {
    return '';
  }
}

/** Count of character classes among lower, upper, digit, other symbol (`_` and `-` excluded). */
function classCount(v: string): number {
  let n = 0;
  if (/[a-z]/.test(v)) n++;
  if (/[A-Z]/.test(v)) n++;
  if (/[0-9]/.test(v)) n++;
  if (/[^A-Za-z0-9_\-\s]/.test(v)) n++;
  return n;
}

/**
 * Whether the value of a secret-named assignment looks like a real credential: at least 8
 * characters, no whitespace, not a placeholder/reference (`<x>`, `${X}`, `{{x}}`, `$X`,
 * `process.env…`, a dotted identifier, a call), and at least two character classes.
 */
export function looksLikeCredential(value: string): boolean {
  const v = value.trim();
  if (v.length < 8 || /\s/.test(v)) return false;
  if (PLACEHOLDER.test(v) || DOC_EXAMPLES.has(v)) return false;
  if (/^\$|\$\{|\$\(|\{\{|%\(|[()<>|]|\[\]$/.test(v)) return false;
  if (/process\.env|os\.environ|getenv|env\./i.test(v)) return false;
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(v)) return false;
  if (/example|placeholder|dummy|xxxx/i.test(v)) return false;
  return classCount(v) >= 2;
}

/** True when `text` has a run of at least `n` characters of `[A-Za-z0-9+/_-]`. */
export function hasTokenRun(text: string, n: number): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const tok = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 43 || c === 47 || c === 95 || c === 45;
    if (!tok) run = 0;
    else if (++run >= n) return true;
  }
  return false;
}
