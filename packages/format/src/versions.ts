/**
 * Version ranges and version ordering (spec/format.md §17; FORMAT-FACTS §7.2; ADVERSARIAL HB-01,
 * HB-02, HB-03, HB-05).
 *
 * The `version_req` dialect is the reference's: the Rust `semver` crate's `VersionReq`, after the
 * reference's own step (trim Unicode white space; empty or `*` means any version). Comparators are
 * separated by commas, a bare version means caret (`1.2.3` = `^1.2.3`). npm-only syntax (`||`,
 * hyphen ranges, space-separated comparators, `~>`, …) is accepted when reading and refused when
 * writing (`E_RANGE`), because packages written with it would not install with the reference.
 * Matching follows the crate (`versions/eval.ts`), checked against the crate itself by a
 * differential table (fixtures/semver-crate/differential.json). Build metadata never affects
 * precedence. Versions themselves are strict SemVer 2.0.0 (`validateVersion` in names.ts).
 */
import { CtxpkgError } from './errors.js';
import { validateVersion, type ParsedVersion } from './names.js';
import { commaForm, parseRangeGrammar, type NpmFeature } from './versions/grammar.js';
import { compareEvalVersions, lowerSets, matchesSet, setsKey, type EvalSet, type EvalVersion } from './versions/eval.js';

export type { EvalVersion } from './versions/eval.js';

/** Longest range text accepted, in UTF-16 code units; checked before anything else (HB-05). */
export const MAX_RANGE_LENGTH = 256;

/** `read`: accept npm-only syntax too. `write`: only what the reference can parse. */
export type RangeMode = 'read' | 'write';

/** A parsed `version_req`. */
export interface VersionRange {
  /** The text as given (untrimmed). */
  readonly text: string;
  /** True for empty / `*` / `x`: every non-prerelease version. */
  readonly any: boolean;
  /** Canonical text of the requirement: two ranges with the same key match the same versions. */
  readonly key: string;
  /** npm-only features the text uses (sorted); empty when the reference can parse it. */
  readonly npmOnly: readonly NpmFeature[];
  /** Alternatives in the crate's terms (empty when `any`); a version must match one of them. */
  readonly sets: readonly EvalSet[];
}

/** What each npm-only feature is, in a user's terms (for `E_RANGE`). */
const FEATURE_TEXT: Record<NpmFeature, string> = {
  or: '"||" alternatives (a dependency has one range)',
  hyphen: 'a hyphen range "a - b"',
  'space-separated': 'comparators separated by spaces (they must be separated by commas)',
  'tilde-greater': 'the "~>" operator',
  'wildcard-comparator': 'a wildcard after an operator or next to other comparators ("*" must stand alone)',
  'wildcard-version': 'more version parts after a leading wildcard',
  whitespace: 'tabs inside the range (use spaces)',
  'too-many-comparators': 'more than 32 comparators',
};

/**
 * Unicode White_Space (what Rust's `str::trim` removes, as the reference does before parsing).
 * Not U+FEFF, which JavaScript's `trim` also removes: the reference refuses a range carrying it.
 */
function isRustWhiteSpace(c: number): boolean {
  return (c >= 0x09 && c <= 0x0d) || c === 0x20 || c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/** Trim like Rust's `str::trim` (linear, no regex). */
function trimRange(text: string): string {
  let a = 0;
  let b = text.length;
  while (a < b && isRustWhiteSpace(text.charCodeAt(a))) a++;
  while (b > a && isRustWhiteSpace(text.charCodeAt(b - 1))) b--;
  return text.slice(a, b);
}

const ANY: readonly EvalSet[] = Object.freeze([]);

/**
 * Parse a `version_req` text.
 *
 * - Length > `MAX_RANGE_LENGTH` (256 characters) → `E_INVALID_RANGE`, checked first (HB-05).
 * - Surrounding Unicode white space is trimmed as the reference trims it (not U+FEFF); empty,
 *   `*`, `x`, `X` mean any version.
 * - Garbage (`latest`, `>>nope<<`, leading zeros, numbers > 2^53−1, any other character than
 *   printable ASCII and tabs) → `E_INVALID_RANGE`.
 * - In `write` mode, npm-only syntax → `E_RANGE`, saying what is wrong and, when there is one,
 *   the same range in the dialect. `savedIn` names where the range is going, for the message
 *   (default `a package`, as `ctxpkg create` writes it; `ctxpkg install` passes `ctxpkg.json`).
 *
 * Source of the rules: spec/format.md §17; FORMAT-FACTS §7.2; semver crate 1.0 `parse.rs`.
 */
export function parseRange(text: string, opts: { mode: RangeMode; savedIn?: string } = { mode: 'read' }): VersionRange {
  if (typeof text !== 'string') throw new CtxpkgError('E_INVALID_RANGE', 'a version range must be a string');
  if (text.length > MAX_RANGE_LENGTH) {
    throw new CtxpkgError('E_INVALID_RANGE', `version range is ${text.length} characters long; the limit is ${MAX_RANGE_LENGTH}`, {
      hint: 'write a short range such as ^1.2.3',
    });
  }
  const trimmed = trimRange(text);
  if (trimmed === '' || trimmed === '*' || trimmed === 'x' || trimmed === 'X') {
    return Object.freeze({ text, any: true, key: '*', npmOnly: [], sets: ANY });
  }
  const syntax = parseRangeGrammar(trimmed, text);
  const npmOnly = [...syntax.features].sort();
  if (opts.mode === 'write' && npmOnly.length > 0) {
    const form = commaForm(syntax);
    throw new CtxpkgError(
      'E_RANGE',
      `version range ${JSON.stringify(text)} cannot be ${opts.savedIn === undefined ? 'written into a package' : `saved in ${opts.savedIn}`}: it uses ${npmOnly.map((f) => FEATURE_TEXT[f]).join(', ')}` +
        (form !== undefined ? `; write ${JSON.stringify(form)}` : ''),
      {
        hint: 'a version_req is one requirement: comparators joined by commas, e.g. "^1.2", ">=1.2.0, <2.0.0" or "*" (spec/format.md §17.2)',
        details: { range: text, npm_only: npmOnly, ...(form !== undefined ? { suggestion: form } : {}) },
      },
    );
  }
  const sets = Object.freeze(lowerSets(syntax.sets));
  return Object.freeze({ text, any: false, key: setsKey(sets), npmOnly, sets });
}

/**
 * A version reduced for matching, or `null` when it is not strict SemVer 2.0.0 (HB-03: at most
 * 64 characters, numbers ≤ 2^53−1). Build metadata is dropped: it never affects matching.
 */
export function evalVersion(version: string): EvalVersion | null {
  try {
    return fromParsed(validateVersion(version));
  } catch {
    return null;
  }
}

function fromParsed(p: ParsedVersion): EvalVersion {
  return { major: p.major, minor: p.minor, patch: p.patch, pre: p.prerelease.map(String) };
}

/** True when the parsed `version` is in `range` (the crate's `VersionReq::matches`, per alternative). */
export function rangeMatches(range: VersionRange, version: EvalVersion): boolean {
  if (range.any) return version.pre.length === 0;
  return range.sets.some((s) => matchesSet(s, version));
}

/** Parse with the given range or text (read mode). */
function toRange(range: VersionRange | string): VersionRange {
  return typeof range === 'string' ? parseRange(range, { mode: 'read' }) : range;
}

/**
 * True when `version` (strict SemVer 2.0.0) is in `range`. An invalid version never matches.
 * A string range is parsed in read mode (throws `E_INVALID_RANGE`/`E_RANGE` like `parseRange`).
 */
export function satisfies(version: string, range: VersionRange | string): boolean {
  const r = toRange(range);
  const v = evalVersion(version);
  return v !== null && rangeMatches(r, v);
}

/**
 * The highest version of `versions` in `range` by SemVer precedence, or `null`. Invalid version
 * strings are skipped (reference `pick_highest_match`). Among versions of equal precedence
 * (differing only in build metadata) the one whose text sorts first wins, so the answer does
 * not depend on input order.
 */
export function maxSatisfying(versions: readonly string[], range: VersionRange | string): string | null {
  const r = toRange(range);
  let best: string | null = null;
  let bestParsed: EvalVersion | null = null;
  for (const v of versions) {
    const p = evalVersion(v);
    if (p === null || !rangeMatches(r, p)) continue;
    const c = bestParsed === null ? 1 : compareEvalVersions(p, bestParsed);
    if (c > 0 || (c === 0 && v < best!)) {
      best = v;
      bestParsed = p;
    }
  }
  return best;
}

/**
 * SemVer precedence of two strict versions: negative, 0 or positive. Build metadata is
 * ignored; numeric pre-release identifiers compare numerically (`rc.2 < rc.10`). Throws
 * `E_INVALID_VERSION` for a version that is not strict SemVer 2.0.0 (HB-03).
 */
export function compareVersions(a: string, b: string): number {
  return Math.sign(compareEvalVersions(fromParsed(validateVersion(a)), fromParsed(validateVersion(b))));
}

/** True when `a` and `b` have equal precedence (`1.0.0+x` is the same version as `1.0.0`). */
export function sameVersion(a: string, b: string): boolean {
  return compareVersions(a, b) === 0;
}

/** A range's text for messages: trimmed, `*` when empty. */
export function rangeLabel(range: VersionRange | string): string {
  const t = trimRange(typeof range === 'string' ? range : range.text);
  return t === '' ? '*' : t;
}
