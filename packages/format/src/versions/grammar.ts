/**
 * The `version_req` grammar (spec/format.md §17): a tokenizer/parser that accepts the union of the
 * reference dialect (Rust `semver` 1.0 `VersionReq`: comparators separated by commas, bare
 * version = caret) and npm's range syntax, and records which npm-only features a text uses so
 * that writers can refuse them (and suggest the comma form, `commaForm`). `eval.ts` lowers the
 * result to the crate's comparators and matches versions.
 *
 * Pure: no I/O. Errors are `CtxpkgError('E_INVALID_RANGE')`.
 */
import { CtxpkgError } from '../errors.js';

/** Comparator operators. `''` is a bare version (caret, or wildcard when it has a `*`/`x`). */
export type RangeOp = '' | '=' | '<' | '<=' | '>' | '>=' | '~' | '^';

/** One comparator, e.g. `>=1.2`, `^0.3.1-rc.1`, `1.*`. */
export interface Comparator {
  op: RangeOp;
  /** Numeric parts as written; `null` for a wildcard (`*`, `x`, `X`); `undefined` when absent. */
  major: number | null;
  minor?: number | null;
  patch?: number | null;
  /** Pre-release text after `-` (only with a numeric patch). */
  pre?: string;
}

/** One alternative of a range: comparators that must all match, or an npm hyphen range. */
export type ComparatorSet = { kind: 'all'; comparators: Comparator[] } | { kind: 'hyphen'; from: Comparator; to: Comparator };

/** npm-only features (the reference's parser refuses each of them). */
export type NpmFeature =
  | 'or' // `a || b`
  | 'hyphen' // `1.2.3 - 2.3.4`
  | 'space-separated' // `>=1 <2` (comparators not separated by commas)
  | 'tilde-greater' // `~>1.2`
  | 'wildcard-comparator' // `*`/`x` as one comparator among others, or with an operator
  | 'wildcard-version' // a leading wildcard followed by more parts: `*.*`, `x.x.x`
  | 'whitespace' // tabs or other whitespace inside the range
  | 'too-many-comparators'; // more than 32 comparators in one set (semver crate limit)

/** The reference's limit on comparators per requirement (semver crate `MAX_COMPARATORS`). */
export const REFERENCE_MAX_COMPARATORS = 32;

const WILDCARDS = new Set(['*', 'x', 'X']);

function fail(text: string, why: string): CtxpkgError {
  const shown = text.length > 60 ? JSON.stringify(text.slice(0, 60)) + '…' : JSON.stringify(text);
  return new CtxpkgError('E_INVALID_RANGE', `invalid version range ${shown}: ${why}`, {
    hint: 'write a range like ^1.2.3, >=1.2, <2.0 or * (spec/format.md §17)',
  });
}

/** Cursor-based scanner over one alternative. */
class Scanner {
  pos = 0;
  constructor(
    readonly src: string,
    readonly whole: string,
  ) {}
  get done(): boolean {
    return this.pos >= this.src.length;
  }
  peek(n = 0): string {
    return this.src[this.pos + n] ?? '';
  }
  /** Skips spaces and tabs; returns [spaces skipped, other whitespace seen]. */
  skipWs(): [number, boolean] {
    let n = 0;
    let other = false;
    while (this.peek() === ' ' || this.peek() === '\t') {
      if (this.peek() === '\t') other = true;
      this.pos++;
      n++;
    }
    return [n, other];
  }
  error(why: string): CtxpkgError {
    return fail(this.whole, why);
  }
}

function readNumber(s: Scanner, what: string): number | null {
  const c = s.peek();
  if (WILDCARDS.has(c)) {
    s.pos++;
    return null;
  }
  const start = s.pos;
  while (s.peek() >= '0' && s.peek() <= '9') s.pos++;
  const digits = s.src.slice(start, s.pos);
  if (digits === '') throw s.error(c === '' ? `unexpected end while parsing the ${what} number` : `unexpected character ${JSON.stringify(c)} while parsing the ${what} number`);
  if (digits.length > 1 && digits[0] === '0') throw s.error(`invalid leading zero in the ${what} number`);
  const n = Number(digits);
  if (!Number.isSafeInteger(n)) throw s.error(`the ${what} number ${digits} exceeds 2^53-1`);
  return n;
}

/** Dot-separated identifiers `[0-9A-Za-z-]+`; numeric ones without leading zeros when `pre`. */
function readIdentifiers(s: Scanner, pre: boolean): string {
  const start = s.pos;
  for (;;) {
    const segStart = s.pos;
    while (/[0-9A-Za-z-]/.test(s.peek())) s.pos++;
    const seg = s.src.slice(segStart, s.pos);
    if (seg === '') throw s.error(`empty identifier in the ${pre ? 'pre-release' : 'build metadata'}`);
    if (pre && /^\d+$/.test(seg) && seg.length > 1 && seg[0] === '0') throw s.error('invalid leading zero in the pre-release');
    if (s.peek() !== '.') break;
    s.pos++;
  }
  return s.src.slice(start, s.pos);
}

function readOp(s: Scanner, features: Set<NpmFeature>): RangeOp {
  const two = s.peek() + s.peek(1);
  if (two === '>=' || two === '<=') {
    s.pos += 2;
    return two;
  }
  if (two === '~>') {
    features.add('tilde-greater');
    s.pos += 2;
    return '~';
  }
  const c = s.peek();
  if (c === '=' || c === '<' || c === '>' || c === '~' || c === '^') {
    s.pos++;
    return c;
  }
  return '';
}

/** A partial version `M[.m[.p[-pre][+build]]]` with wildcards; `op` already consumed. */
function readPartial(s: Scanner, op: RangeOp, features: Set<NpmFeature>): Comparator {
  const cmp: Comparator = { op, major: readNumber(s, 'major') };
  let wildcard = cmp.major === null;
  if (s.peek() === '.') {
    s.pos++;
    cmp.minor = readNumber(s, 'minor');
    if (wildcard && cmp.minor !== null) throw s.error('a version number after a wildcard');
    wildcard ||= cmp.minor === null;
    if (s.peek() === '.') {
      s.pos++;
      cmp.patch = readNumber(s, 'patch');
      if (wildcard && cmp.patch !== null) throw s.error('a version number after a wildcard');
      wildcard ||= cmp.patch === null;
    }
  }
  if (typeof cmp.patch === 'number') {
    if (s.peek() === '-') {
      s.pos++;
      cmp.pre = readIdentifiers(s, true);
    }
    if (s.peek() === '+') {
      s.pos++;
      readIdentifiers(s, false); // build metadata never affects matching
    }
  }
  if (cmp.major === null && op !== '') features.add('wildcard-comparator');
  if (cmp.major === null && cmp.minor !== undefined) features.add('wildcard-version');
  return cmp;
}

function isComparatorStart(c: string): boolean {
  return /[0-9xX*=<>~^]/.test(c);
}

/** Parses one `||` alternative. */
function parseSet(alt: string, whole: string, features: Set<NpmFeature>): ComparatorSet {
  const hyphen = /^(\S+)[ \t]+-[ \t]+(\S+)$/.exec(alt);
  if (hyphen) {
    features.add('hyphen');
    const ends = [hyphen[1]!, hyphen[2]!].map((p) => {
      const s = new Scanner(p, whole);
      const c = readPartial(s, '', features);
      if (!s.done) throw s.error(`unexpected character ${JSON.stringify(s.peek())} in a hyphen range`);
      return c;
    });
    return { kind: 'hyphen', from: ends[0]!, to: ends[1]! };
  }
  const s = new Scanner(alt, whole);
  const comparators: Comparator[] = [];
  for (;;) {
    const op = readOp(s, features);
    const [, tab] = s.skipWs();
    if (tab) features.add('whitespace');
    comparators.push(readPartial(s, op, features));
    const [spaces, tab2] = s.skipWs();
    if (tab2) features.add('whitespace');
    if (s.done) break;
    if (s.peek() === ',') {
      s.pos++;
      const [, tab3] = s.skipWs();
      if (tab3) features.add('whitespace');
      if (s.done) throw s.error('a comparator must follow ","');
      continue;
    }
    if (spaces > 0 && isComparatorStart(s.peek())) {
      features.add('space-separated');
      continue;
    }
    throw s.error(`unexpected character ${JSON.stringify(s.peek())} after a comparator`);
  }
  if (comparators.length > 1 && comparators.some((c) => c.major === null)) features.add('wildcard-comparator');
  if (comparators.length > REFERENCE_MAX_COMPARATORS) features.add('too-many-comparators');
  return { kind: 'all', comparators };
}

/** Result of `parseRangeGrammar`: `sets` empty means "any version". */
export interface RangeSyntax {
  sets: ComparatorSet[];
  features: Set<NpmFeature>;
}

/**
 * Parse a trimmed, non-empty, non-`*` range text. Throws `E_INVALID_RANGE` naming the problem.
 * Source: semver crate 1.0 `parse.rs` (comparator grammar), node-semver `range.js` (npm forms).
 */
export function parseRangeGrammar(trimmed: string, whole: string): RangeSyntax {
  const features = new Set<NpmFeature>();
  const bad = /[^\x20-\x7e\t]/.exec(trimmed);
  if (bad) {
    const cp = bad[0].codePointAt(0)!;
    const name = cp === 0xfeff ? ' (a byte order mark)' : cp < 0x20 || cp === 0x7f ? ' (a control character)' : '';
    throw fail(whole, `character U+${cp.toString(16).toUpperCase().padStart(4, '0')}${name} is not allowed: a range is printable ASCII`);
  }
  const alts = trimmed.split('||');
  if (alts.length > 1) features.add('or');
  const sets = alts.map((a) => {
    const t = trimBlanks(a);
    if (t === '') throw fail(whole, 'an empty alternative around "||"');
    return parseSet(t, whole, features);
  });
  return { sets, features };
}

function partialText(c: Comparator): string {
  const parts: string[] = [];
  for (const p of [c.major, c.minor, c.patch]) {
    if (p === undefined) break;
    if (p === null) {
      parts.push('*');
      break;
    }
    parts.push(String(p));
  }
  return parts.join('.') + (c.pre !== undefined ? `-${c.pre}` : '');
}

function comparatorText(c: Comparator): string {
  if (c.major === null) return '*';
  return `${c.op}${partialText(c)}`;
}

/**
 * The same requirement spelled in the reference dialect, when there is one: comparators joined
 * by `", "`, `~>` as `~`, a hyphen range `a - b` as `>=a, <=b`, wildcard-only comparators dropped
 * (`*` when nothing is left). `undefined` for `||` alternatives, more than 32 comparators and
 * npm's `>*` / `<*` (which match nothing): those have no single reference spelling.
 * Used for the hint of `E_RANGE` in write mode.
 */
export function commaForm(syntax: RangeSyntax): string | undefined {
  if (syntax.sets.length !== 1 || syntax.features.has('too-many-comparators')) return undefined;
  const set = syntax.sets[0]!;
  const written = set.kind === 'hyphen' ? [{ ...set.from, op: '>=' as const }, { ...set.to, op: '<=' as const }] : set.comparators;
  const kept: string[] = [];
  for (const c of written) {
    if (c.major === null) {
      if (c.op === '>' || c.op === '<') return undefined;
      continue;
    }
    kept.push(comparatorText(c));
  }
  return kept.length === 0 ? '*' : kept.join(', ');
}

/**
 * `text` without the spaces and tabs at both ends. Loops, not `/^[ \t]+|[ \t]+$/g`: V8 retries
 * that RegExp at every start in an inner run of blanks, so a long run in a dependency's range
 * (package text) is quadratic. Linear in `text`.
 */
function trimBlanks(text: string): string {
  const blank = (c: number): boolean => c === 32 || c === 9;
  let a = 0;
  let b = text.length;
  while (a < b && blank(text.charCodeAt(a))) a++;
  while (b > a && blank(text.charCodeAt(b - 1))) b--;
  return text.slice(a, b);
}
