/**
 * Matching versions against parsed ranges with the Rust `semver` crate's rules (crate 1.0
 * `eval.rs`, which the reference uses; spec/format.md §17.2). Pure: no I/O.
 *
 * A range is a list of alternatives (`||`, read mode only); an alternative is a list of
 * comparators that must all match. Each comparator keeps the parts it was written with
 * (`^1.4` has no patch), because the crate's rules depend on them:
 *
 * - every comparator must match, by the rule of its operator over the written parts;
 * - a version with a pre-release then matches only when some comparator of the same alternative
 *   names a pre-release and the same `major.minor.patch` (so `^1.4, >=1.4.0-beta.1` matches
 *   1.4.0-beta.2, and `>=0.0.0` never matches 0.0.0-alpha).
 */
import type { Comparator, ComparatorSet } from './grammar.js';

/** The crate's operators; `wildcard` is a bare `1.*` / `1.2.*`. */
export type EvalOp = 'exact' | 'greater' | 'greater-eq' | 'less' | 'less-eq' | 'tilde' | 'caret' | 'wildcard';

/** One comparator in the crate's terms: `minor`/`patch` absent when not written (or a wildcard). */
export interface EvalComparator {
  readonly op: EvalOp;
  readonly major: number;
  readonly minor?: number;
  readonly patch?: number;
  /** Pre-release identifiers (empty: none). */
  readonly pre: readonly string[];
}

/** One alternative: all comparators must match; `never` is npm's `>*` / `<*` (matches nothing). */
export interface EvalSet {
  readonly comparators: readonly EvalComparator[];
  readonly never?: true;
}

/** A version reduced to what matching needs: numbers and pre-release identifiers as text. */
export interface EvalVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly pre: readonly string[];
}

const DIGITS = /^[0-9]+$/;

/**
 * Compare pre-release identifier lists by SemVer precedence (crate `Prerelease::cmp`): an empty
 * list (a release) is greater than any pre-release; digit-only identifiers compare numerically
 * (by length, then text: they have no leading zeros), and are lower than alphanumeric ones,
 * which compare in ASCII order; a longer list wins when all shared identifiers are equal.
 */
export function comparePre(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return (a.length === 0 ? 1 : 0) - (b.length === 0 ? 1 : 0);
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    const xd = DIGITS.test(x);
    const yd = DIGITS.test(y);
    if (xd && yd) return x.length !== y.length ? x.length - y.length : x < y ? -1 : 1;
    if (xd !== yd) return xd ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** SemVer precedence of two versions (build metadata is not part of `EvalVersion`). */
export function compareEvalVersions(a: EvalVersion, b: EvalVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch || comparePre(a.pre, b.pre);
}

function sameNumbers(c: EvalComparator, v: EvalVersion): boolean {
  return v.major === c.major && (c.minor === undefined || v.minor === c.minor) && (c.patch === undefined || v.patch === c.patch);
}

function preEqual(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

const exact = (c: EvalComparator, v: EvalVersion): boolean => sameNumbers(c, v) && preEqual(v.pre, c.pre);

/** `sign` 1: the crate's `matches_greater`; -1: `matches_less`. A missing part ends the test (false). */
function beyond(c: EvalComparator, v: EvalVersion, sign: 1 | -1): boolean {
  if (v.major !== c.major) return sign * (v.major - c.major) > 0;
  if (c.minor === undefined) return false;
  if (v.minor !== c.minor) return sign * (v.minor - c.minor) > 0;
  if (c.patch === undefined) return false;
  if (v.patch !== c.patch) return sign * (v.patch - c.patch) > 0;
  return sign * comparePre(v.pre, c.pre) > 0;
}

function tilde(c: EvalComparator, v: EvalVersion): boolean {
  if (v.major !== c.major) return false;
  if (c.minor !== undefined && v.minor !== c.minor) return false;
  if (c.patch !== undefined && v.patch !== c.patch) return v.patch > c.patch;
  return comparePre(v.pre, c.pre) >= 0;
}

function caret(c: EvalComparator, v: EvalVersion): boolean {
  if (v.major !== c.major) return false;
  if (c.minor === undefined) return true;
  if (c.patch === undefined) return c.major > 0 ? v.minor >= c.minor : v.minor === c.minor;
  if (c.major > 0) {
    if (v.minor !== c.minor) return v.minor > c.minor;
    if (v.patch !== c.patch) return v.patch > c.patch;
  } else if (c.minor > 0) {
    if (v.minor !== c.minor) return false;
    if (v.patch !== c.patch) return v.patch > c.patch;
  } else if (v.minor !== c.minor || v.patch !== c.patch) {
    return false;
  }
  return comparePre(v.pre, c.pre) >= 0;
}

/** The crate's `matches_impl`: one comparator's operator rule, without the pre-release rule. */
function matchesOne(c: EvalComparator, v: EvalVersion): boolean {
  switch (c.op) {
    case 'exact':
    case 'wildcard':
      return exact(c, v);
    case 'greater':
      return beyond(c, v, 1);
    case 'greater-eq':
      return exact(c, v) || beyond(c, v, 1);
    case 'less':
      return beyond(c, v, -1);
    case 'less-eq':
      return exact(c, v) || beyond(c, v, -1);
    case 'tilde':
      return tilde(c, v);
    case 'caret':
      return caret(c, v);
  }
}

/** The crate's `pre_is_compatible`: the comparator names a pre-release of the version's M.m.p. */
function preCompatible(c: EvalComparator, v: EvalVersion): boolean {
  return c.pre.length > 0 && c.major === v.major && c.minor === v.minor && c.patch === v.patch;
}

/** The crate's `matches_req` for one alternative. */
export function matchesSet(set: EvalSet, v: EvalVersion): boolean {
  if (set.never) return false;
  for (const c of set.comparators) if (!matchesOne(c, v)) return false;
  if (v.pre.length === 0) return true;
  return set.comparators.some((c) => preCompatible(c, v));
}

const OPS: Record<Exclude<Comparator['op'], ''>, EvalOp> = {
  '=': 'exact',
  '>': 'greater',
  '>=': 'greater-eq',
  '<': 'less',
  '<=': 'less-eq',
  '~': 'tilde',
  '^': 'caret',
};

/** The written parts before the first wildcard (crate: a wildcard part is "not written"). */
function parts(c: Comparator): { major: number; minor?: number; patch?: number; pre: string[] } {
  const out: { major: number; minor?: number; patch?: number; pre: string[] } = { major: c.major as number, pre: [] };
  if (typeof c.minor !== 'number') return out;
  out.minor = c.minor;
  if (typeof c.patch !== 'number') return out;
  out.patch = c.patch;
  if (c.pre !== undefined) out.pre = c.pre.split('.');
  return out;
}

function hasWildcard(c: Comparator): boolean {
  return c.major === null || c.minor === null || c.patch === null;
}

/**
 * Lower one parsed comparator (crate `parse.rs` rules): a bare version is a caret requirement,
 * a bare version with a wildcard part is a `wildcard` comparator, an operator ignores wildcard
 * parts (`>=1.*` is `>=1`). npm-only forms (read mode): a bare `*` or an operator on `*` adds
 * nothing, except `>*` / `<*`, which match nothing (node-semver).
 */
function lowerComparator(c: Comparator): EvalComparator | 'any' | 'never' {
  if (c.major === null) return c.op === '>' || c.op === '<' ? 'never' : 'any';
  const p = parts(c);
  const op: EvalOp = c.op === '' ? (hasWildcard(c) ? 'wildcard' : 'caret') : OPS[c.op];
  return { op, ...p };
}

/**
 * Lower parsed alternatives to `EvalSet`s. A hyphen range `a - b` (read mode) is `>=a, <=b` with
 * the written parts of each end (`1.2 - 2` is `>=1.2, <=2`: below 3.0.0); a `*` end is no bound.
 */
export function lowerSets(sets: readonly ComparatorSet[]): EvalSet[] {
  return sets.map((set) => {
    const written = set.kind === 'hyphen' ? [{ ...set.from, op: '>=' as const }, { ...set.to, op: '<=' as const }] : set.comparators;
    const comparators: EvalComparator[] = [];
    for (const c of written) {
      const e = lowerComparator(c);
      if (e === 'never') return { comparators: [], never: true };
      if (e !== 'any') comparators.push(e);
    }
    return { comparators };
  });
}

function comparatorKey(c: EvalComparator): string {
  const nums = [c.major, c.minor, c.patch].filter((n) => n !== undefined).join('.');
  return `${c.op}:${nums}${c.pre.length > 0 ? `-${c.pre.join('.')}` : ''}`;
}

/** A canonical text for lowered sets: equal keys match exactly the same versions (cache key). */
export function setsKey(sets: readonly EvalSet[]): string {
  if (sets.length === 0) return '*';
  return sets.map((s) => (s.never ? 'never' : s.comparators.map(comparatorKey).join(','))).join('||');
}
