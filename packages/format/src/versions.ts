/**
 * Version ranges and version ordering (spec/format.md §17; FORMAT-FACTS §7.2; ADVERSARIAL HB-01,
 * HB-02, HB-03, HB-05).
 *
 * The `version_req` dialect is the reference's (Rust `semver` crate): comparators separated by
 * commas, a bare version means caret (`1.2.3` = `^1.2.3`), empty / `*` means any version.
 * npm-only syntax (`||`, hyphen ranges, space-separated comparators, `~>`) is accepted when
 * reading and refused when writing (`E_RANGE`), because the reference cannot parse it.
 * Matching is node-semver's with `includePrerelease` off: a pre-release version matches only a
 * range that names a pre-release of the same major.minor.patch. Build metadata never affects
 * precedence. Versions themselves are strict SemVer 2.0.0 (`validateVersion` in names.ts).
 */
import semver from 'semver';
import { CtxpkgError } from './errors.js';
import { isValidVersion, validateVersion } from './names.js';
import { lowerToNpm, parseRangeGrammar, type NpmFeature } from './versions/grammar.js';

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
  /** The node-semver range string used for matching (e.g. `^1.2` for `1.2`). */
  readonly npm: string;
  /** npm-only features the text uses (sorted); empty when the reference can parse it. */
  readonly npmOnly: readonly NpmFeature[];
  /** The compiled node-semver range (default options: no loose parsing, no prereleases). */
  readonly compiled: semver.Range;
}

const FEATURE_TEXT: Record<NpmFeature, string> = {
  or: '"||" alternatives',
  hyphen: 'a hyphen range "a - b"',
  'space-separated': 'comparators separated by spaces instead of commas',
  'tilde-greater': 'the "~>" operator',
  'wildcard-comparator': 'a wildcard combined with other comparators or an operator',
  whitespace: 'tabs inside the range',
  'too-many-comparators': 'more than 32 comparators',
};

/**
 * Parse a `version_req` text.
 *
 * - Length > `MAX_RANGE_LENGTH` (256 characters) → `E_INVALID_RANGE`, checked first (HB-05).
 * - Surrounding whitespace is trimmed; empty, `*`, `x`, `X` mean any version.
 * - Garbage (`latest`, `>>nope<<`, leading zeros, numbers > 2^53−1) → `E_INVALID_RANGE`.
 * - In `write` mode, npm-only syntax → `E_RANGE` with a hint naming the reference form.
 *
 * Source of the rules: spec/format.md §17; FORMAT-FACTS §7.2 (semver crate grammar, bare = caret).
 */
export function parseRange(text: string, opts: { mode: RangeMode } = { mode: 'read' }): VersionRange {
  if (typeof text !== 'string') throw new CtxpkgError('E_INVALID_RANGE', 'a version range must be a string');
  if (text.length > MAX_RANGE_LENGTH) {
    throw new CtxpkgError('E_INVALID_RANGE', `version range is ${text.length} characters long; the limit is ${MAX_RANGE_LENGTH}`, {
      hint: 'write a short range such as ^1.2.3',
    });
  }
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === '*' || trimmed === 'x' || trimmed === 'X') {
    return Object.freeze({ text, any: true, npm: '*', npmOnly: [], compiled: new semver.Range('*') });
  }
  const syntax = parseRangeGrammar(trimmed, text);
  const npmOnly = [...syntax.features].sort();
  if (opts.mode === 'write' && npmOnly.length > 0) {
    throw new CtxpkgError(
      'E_RANGE',
      `version range ${JSON.stringify(text)} uses npm-only syntax (${npmOnly.map((f) => FEATURE_TEXT[f]).join(', ')}) that lean-ctx cannot parse`,
      {
        hint: 'use comma-separated comparators, e.g. ">=1.2.0, <2.0.0" or "^1.2"; split "a || b" into one range',
        details: { range: text, npm_only: npmOnly },
      },
    );
  }
  const npm = lowerToNpm(syntax);
  let compiled: semver.Range;
  try {
    compiled = new semver.Range(npm);
  } catch (e) {
    throw new CtxpkgError('E_INVALID_RANGE', `invalid version range ${JSON.stringify(text)}`, { cause: e });
  }
  return Object.freeze({ text, any: false, npm, npmOnly, compiled });
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
  if (!isValidVersion(version)) return false;
  return r.compiled.test(version);
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
  for (const v of versions) {
    if (!isValidVersion(v) || !r.compiled.test(v)) continue;
    if (best === null) best = v;
    else {
      const c = semver.compare(v, best);
      if (c > 0 || (c === 0 && v < best)) best = v;
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
  validateVersion(a);
  validateVersion(b);
  return semver.compare(a, b);
}

/** True when `a` and `b` have equal precedence (`1.0.0+x` is the same version as `1.0.0`). */
export function sameVersion(a: string, b: string): boolean {
  return compareVersions(a, b) === 0;
}

/** A range's text for messages: trimmed, `*` when empty. */
export function rangeLabel(range: VersionRange | string): string {
  const t = (typeof range === 'string' ? range : range.text).trim();
  return t === '' ? '*' : t;
}
