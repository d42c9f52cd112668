/**
 * Package names and versions (spec/format.md "Names and versions"; registry contract naming
 * rules, FORMAT-FACTS §9; ADVERSARIAL HB-03, HB-22; reference path-traversal bug §12.3).
 *
 * Scoped names: `@ns/name`, ns = `[a-z0-9-]{2,32}` without leading/trailing dash, name =
 * `[a-z0-9-]{1,64}` without leading/trailing dash. Legacy unscoped names (readable from local
 * files only): `[A-Za-z0-9._-]{1,128}` starting with a letter or digit, never containing `..`.
 * Both forms are ASCII only: no `/` beyond the scope separator, no absolute paths, no control or
 * non-ASCII characters (homoglyphs). Versions we write are strict SemVer 2.0.0.
 */
import { CtxpkgError } from './errors.js';

/** Namespaces nobody may claim on a registry (HB-22): operator, trust-signalling and local names. */
export const RESERVED_NAMESPACES: readonly string[] = Object.freeze([
  'about', 'admin', 'administrator', 'api', 'community', 'ctxpkg', 'help', 'lean-ctx', 'leanctx', 'local',
  'mod', 'moderator', 'npm', 'null', 'official', 'registry', 'root', 'security', 'staff', 'support',
  'system', 'undefined', 'verified', 'www',
]);

const RESERVED = new Set(RESERVED_NAMESPACES);
const NAMESPACE_RE = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])$/;
const NAME_RE = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const LEGACY_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A validated package name. `namespace` is null for a legacy unscoped name. */
export interface PackageName {
  namespace: string | null;
  name: string;
  /** The name as written, e.g. `@acme/auth-context`. */
  full: string;
}

/** A validated scoped package name. */
export interface ScopedPackageName extends PackageName {
  namespace: string;
}

function describe(s: unknown): string {
  return typeof s === 'string' ? JSON.stringify(s) : String(s);
}

function invalid(s: unknown, why: string): CtxpkgError {
  return new CtxpkgError('E_INVALID_NAME', `invalid package name ${describe(s)}: ${why}`, {
    hint: 'use a scoped name like @acme/auth-context (lowercase letters, digits and dashes)',
  });
}

/** Why a namespace is invalid, or undefined when it is valid (reservation not checked). */
function namespaceProblem(ns: string): string | undefined {
  if (ns.length < 2) return 'the namespace must be at least 2 characters';
  if (ns.length > 32) return 'the namespace must be at most 32 characters';
  if (!NAMESPACE_RE.test(ns)) return 'the namespace may only contain a-z, 0-9 and inner dashes';
  return undefined;
}

/**
 * Parse a scoped name `@ns/name`. Throws `E_INVALID_NAME` with the reason for anything else
 * (unscoped, uppercase, underscores, non-ASCII, extra `/`, too long, leading/trailing dash).
 */
export function parsePackageName(s: string): ScopedPackageName {
  if (typeof s !== 'string' || !s.startsWith('@')) throw invalid(s, 'expected a scoped name @namespace/name');
  const slash = s.indexOf('/');
  if (slash < 0) throw invalid(s, 'missing "/" between namespace and name');
  const namespace = s.slice(1, slash);
  const name = s.slice(slash + 1);
  if (name.includes('/')) throw invalid(s, 'only one "/" is allowed');
  const nsProblem = namespaceProblem(namespace);
  if (nsProblem) throw invalid(s, nsProblem);
  if (name.length < 1 || name.length > 64) throw invalid(s, 'the name must be 1 to 64 characters');
  if (!NAME_RE.test(name)) throw invalid(s, 'the name may only contain a-z, 0-9 and inner dashes');
  return { namespace, name, full: s };
}

/**
 * Validate a package name. Scoped names follow `parsePackageName`; with `allowUnscoped` a legacy
 * unscoped name (local files only) is also accepted. Throws `E_INVALID_NAME`.
 */
export function validatePackageName(s: string, opts: { allowUnscoped?: boolean } = {}): PackageName {
  if (typeof s === 'string' && s.startsWith('@')) return parsePackageName(s);
  if (!opts.allowUnscoped) throw invalid(s, 'expected a scoped name @namespace/name');
  if (typeof s !== 'string' || !LEGACY_RE.test(s)) {
    throw invalid(s, 'an unscoped name may only contain A-Z, a-z, 0-9, ".", "_" and "-", start with a letter or digit, and be at most 128 characters');
  }
  if (s.includes('..')) throw invalid(s, 'the name must not contain ".."');
  return { namespace: null, name: s, full: s };
}

/** True when `ns` is on the reserved list (case-insensitive). */
export function isReservedNamespace(ns: string): boolean {
  return RESERVED.has(ns.toLowerCase());
}

/**
 * Validate a namespace someone wants to claim: syntax as in scoped names, and not reserved.
 * Throws `E_INVALID_NAME` or `E_RESERVED_NAMESPACE`.
 */
export function validateNamespaceClaim(ns: string): string {
  const problem = typeof ns === 'string' ? namespaceProblem(ns) : 'not a string';
  if (problem) throw new CtxpkgError('E_INVALID_NAME', `invalid namespace ${describe(ns)}: ${problem}`);
  if (isReservedNamespace(ns)) throw new CtxpkgError('E_RESERVED_NAMESPACE', `namespace "${ns}" is reserved`);
  return ns;
}

/** The semver.org reference regular expression (SemVer 2.0.0), used verbatim. */
export const SEMVER_RE =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** Maximum length of a version string in characters (HB-03). */
export const MAX_VERSION_LENGTH = 64;

/** A validated SemVer 2.0.0 version. */
export interface ParsedVersion {
  version: string;
  major: number;
  minor: number;
  patch: number;
  /** Pre-release identifiers; numeric ones as numbers. */
  prerelease: Array<string | number>;
  build: string[];
}

/**
 * Validate a version exactly per ADVERSARIAL HB-03: matches `SEMVER_RE` (no `v`/`=` prefix, no
 * whitespace, no leading zeros), at most 64 characters, every numeric part ≤ 2^53−1.
 * Throws `E_INVALID_VERSION`.
 */
export function validateVersion(v: string): ParsedVersion {
  const bad = (why: string) =>
    new CtxpkgError('E_INVALID_VERSION', `invalid version ${describe(v)}: ${why}`, { hint: 'use SemVer 2.0.0, e.g. 1.2.3 or 1.2.3-rc.1' });
  if (typeof v !== 'string') throw bad('not a string');
  if (v.length > MAX_VERSION_LENGTH) throw bad(`longer than ${MAX_VERSION_LENGTH} characters`);
  const m = SEMVER_RE.exec(v);
  if (!m) throw bad('not a SemVer 2.0.0 version (MAJOR.MINOR.PATCH[-pre][+build])');
  const num = (s: string) => {
    const n = Number(s);
    if (!Number.isSafeInteger(n)) throw bad(`numeric part ${s} exceeds 2^53-1`);
    return n;
  };
  const prerelease = m[4] ? m[4].split('.').map((id) => (/^\d+$/.test(id) ? num(id) : id)) : [];
  return { version: v, major: num(m[1]!), minor: num(m[2]!), patch: num(m[3]!), prerelease, build: m[5] ? m[5].split('.') : [] };
}

/** True when `validateVersion(v)` would succeed. */
export function isValidVersion(v: string): boolean {
  try {
    validateVersion(v);
    return true;
  } catch {
    return false;
  }
}

/**
 * The reference's (lenient) version rule for reading local files, tightened to ASCII:
 * 1–64 characters from `A-Za-z0-9._+-`, not starting with `.` (FORMAT-FACTS §2 field 5).
 */
export function isLegacyVersion(v: string): boolean {
  return typeof v === 'string' && /^[A-Za-z0-9_+-][A-Za-z0-9._+-]{0,63}$/.test(v);
}
