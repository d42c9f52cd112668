/**
 * The `ctxpkg.lock` model: deterministic JSON text, strict parsing (ADVERSARIAL HB-26; issue 3
 * item 3). The reference's lockfile is TOML with `name`, `version`, `artifact_sha256` and
 * `registry` per package (FORMAT-FACTS §7.3); ctxpkg's is JSON and also records the manifest
 * `integrity.sha256`, the signer key seen at install, the resolved dependency versions and the
 * root's declared ranges, so drift and tampering are detectable.
 *
 * Text form: keys sorted (UTF-16 code unit order) at every level, 2-space indent, LF line
 * ends, one trailing newline. Pure: callers read and write the file.
 */
import { CtxpkgError } from './errors.js';
import { parseStrictJson } from './json/parse.js';
import { checkLockfileValue } from './lockfile/check.js';

/** The lockfile format version this code reads and writes. */
export const LOCKFILE_VERSION = 1;

/** Largest lockfile text accepted, in UTF-16 code units (16 Mi). */
export const MAX_LOCKFILE_LENGTH = 16 * 1024 * 1024;

/** One locked package (key: its scoped name). */
export interface LockedPackage {
  /** Exact resolved version (strict SemVer 2.0.0). */
  version: string;
  /**
   * Where the package came from: a registry base URL (`http(s)://…`, no credentials, query,
   * fragment or trailing `/`), or `file:<path>` for a package installed from a local file.
   */
  registry: string;
  /** SHA-256 (lowercase hex) of the exact downloaded bytes (registry index `artifact_sha256`). */
  artifact_sha256: string;
  /** The package manifest's `integrity.sha256` (lowercase hex). */
  integrity_sha256: string;
  /** Ed25519 public key (64 lowercase hex) that signed the package at install; pinned. */
  signer_public_key: string;
  /** Dependency name → resolved version; each must be an entry of the same lockfile. */
  dependencies: Record<string, string>;
  /**
   * Where the registry's transparency log holds this version (spec/transparency.md §5.4): the
   * index of its publish entry and the tree head its inclusion was proven against. Absent for
   * `file:` packages and registries without a log.
   */
  log?: LockLogRecord;
}

/** A locked package's place in its registry's transparency log. */
export interface LockLogRecord {
  /** Index of the version's `publish` entry. */
  index: number;
  /** The log's origin (its checkpoint's first line). */
  origin: string;
  /** Size of the tree the inclusion was proven against. */
  tree_size: number;
  /** That tree's root hash, 64 lowercase hex. */
  root_hash: string;
}

/** The whole lockfile. */
export interface Lockfile {
  lockfileVersion: typeof LOCKFILE_VERSION;
  /**
   * The root's declared required dependencies: name → range text (or `file:<path>` for a local
   * file), exactly as in ctxpkg.json.
   */
  dependencies: Record<string, string>;
  /** The root's declared optional dependencies: name → range text. Absent = none. */
  optionalDependencies?: Record<string, string>;
  /** Locked packages by scoped name. */
  packages: Record<string, LockedPackage>;
}

function sortedRecord<T>(rec: Record<string, T>, map: (v: T) => unknown = (v) => v): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(rec)
      .sort()
      .map((k) => [k, map(rec[k]!)]),
  );
}

/** The canonical object form (keys inserted in sorted order), shared by serialize and parse. */
function canonical(lock: Lockfile): Lockfile {
  const optional = lock.optionalDependencies ?? {};
  return {
    dependencies: sortedRecord(lock.dependencies),
    lockfileVersion: lock.lockfileVersion,
    ...(Object.keys(optional).length > 0 ? { optionalDependencies: sortedRecord(optional) } : {}),
    packages: sortedRecord(lock.packages, (p) => ({
      artifact_sha256: p.artifact_sha256,
      dependencies: sortedRecord(p.dependencies),
      integrity_sha256: p.integrity_sha256,
      ...(p.log ? { log: { index: p.log.index, origin: p.log.origin, root_hash: p.log.root_hash, tree_size: p.log.tree_size } } : {}),
      registry: p.registry,
      signer_public_key: p.signer_public_key,
      version: p.version,
    })),
  } as Lockfile;
}

function fail(issues: Array<{ path: string; message: string }>): CtxpkgError {
  const first = issues[0]!;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  return new CtxpkgError('E_LOCKFILE', `ctxpkg.lock is invalid: ${first.path}: ${first.message}${more}`, {
    hint: 'restore ctxpkg.lock from version control, or delete it and run `ctxpkg install` to resolve again',
    details: { issues: issues.map((i) => ({ path: i.path, code: 'E_LOCKFILE', message: i.message })) },
  });
}

/**
 * Serialize a lockfile: validated first (throws `E_LOCKFILE` like `parseLockfile`), then keys
 * sorted at every level, 2-space indent, LF, trailing newline; `optionalDependencies` is written
 * only when non-empty. Same model → same bytes.
 */
export function serializeLockfile(lock: Lockfile): string {
  const issues = checkLockfileValue(lock);
  if (issues.length > 0) throw fail(issues);
  return JSON.stringify(canonical(lock), null, 2) + '\n';
}

/**
 * Parse `ctxpkg.lock` text strictly. Throws `E_LOCKFILE` (details: every issue with its path)
 * for: invalid JSON, duplicate or forbidden keys, unknown or missing fields, an unknown
 * `lockfileVersion`, names that are not scoped `@ns/name`, versions that are not strict SemVer,
 * hashes and keys that are not lowercase hex of the right length, registry URLs that are not
 * plain `http(s)` bases, dependency versions pointing at entries that are missing or hold another
 * version, and declared ranges the locked version does not satisfy. A declared dependency with no
 * entry is not a parse error: it is drift, reported by `resolve` (`E_LOCKFILE_OUT_OF_SYNC` when
 * frozen). Text longer than `MAX_LOCKFILE_LENGTH` → `E_TOO_LARGE`.
 */
export function parseLockfile(text: string): Lockfile {
  if (text.length > MAX_LOCKFILE_LENGTH) {
    throw new CtxpkgError('E_TOO_LARGE', `ctxpkg.lock is ${text.length} characters; the limit is ${MAX_LOCKFILE_LENGTH}`);
  }
  let value: unknown;
  try {
    value = parseStrictJson(text);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const details = e instanceof CtxpkgError ? e.details : undefined;
    const path = typeof details?.path === 'string' && details.path !== '' ? details.path : '(document)';
    throw new CtxpkgError('E_LOCKFILE', `ctxpkg.lock is invalid: ${path}: ${msg}`, {
      cause: e,
      hint: 'restore ctxpkg.lock from version control, or delete it and run `ctxpkg install` to resolve again',
      details: { issues: [{ path, code: 'E_LOCKFILE', message: msg }] },
    });
  }
  const issues = checkLockfileValue(value);
  if (issues.length > 0) throw fail(issues);
  return canonical(value as Lockfile);
}

/** Artifact facts the installer records per package (from download and verification). */
export interface LockArtifact {
  registry: string;
  artifact_sha256: string;
  integrity_sha256: string;
  signer_public_key: string;
}

/**
 * Build a lockfile from the root's declared dependencies, a resolution (`resolve`) and the
 * artifact facts of every resolved package. Throws `E_LOCKFILE` when an artifact is missing or
 * any value is invalid (the result always passes `parseLockfile(serializeLockfile(x))`).
 */
export function createLockfile(
  root: { dependencies: ReadonlyArray<{ name: string; version_req: string; optional: boolean }> },
  resolution: { packages: ReadonlyArray<{ name: string; version: string; dependencies: Record<string, string> }> },
  artifacts: ReadonlyMap<string, LockArtifact> | Record<string, LockArtifact>,
): Lockfile {
  const get = (name: string): LockArtifact | undefined =>
    artifacts instanceof Map ? artifacts.get(name) : Object.hasOwn(artifacts, name) ? (artifacts as Record<string, LockArtifact>)[name] : undefined;
  const issues: Array<{ path: string; message: string }> = [];
  const packages: Record<string, LockedPackage> = {};
  for (const p of resolution.packages) {
    const a = get(p.name);
    if (!a) {
      issues.push({ path: `packages[${JSON.stringify(p.name)}]`, message: 'no artifact facts were given for this package' });
      continue;
    }
    packages[p.name] = { version: p.version, registry: a.registry, artifact_sha256: a.artifact_sha256, integrity_sha256: a.integrity_sha256, signer_public_key: a.signer_public_key, dependencies: { ...p.dependencies } };
  }
  if (issues.length > 0) throw fail(issues);
  const lock: Lockfile = {
    lockfileVersion: LOCKFILE_VERSION,
    dependencies: Object.fromEntries(root.dependencies.filter((d) => !d.optional).map((d) => [d.name, d.version_req])),
    optionalDependencies: Object.fromEntries(root.dependencies.filter((d) => d.optional).map((d) => [d.name, d.version_req])),
    packages,
  };
  const problems = checkLockfileValue(lock);
  if (problems.length > 0) throw fail(problems);
  return canonical(lock);
}
