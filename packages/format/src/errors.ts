/**
 * The one error class of ctxpkg and the table of stable error codes.
 *
 * Every failure that a user (or a client of the registry) can cause is a `CtxpkgError` with a
 * stable `code`. The code list below is the contract: the registry maps `family` to an HTTP
 * status and the CLI maps it to an exit code, each in one table (`httpStatusFor`, `exitCodeFor`).
 * Codes are never renamed; new codes may be added.
 */

/** What kind of problem a code describes. Drives HTTP status and CLI exit code. */
export type ErrorFamily =
  | 'usage' // the caller used the tool wrongly (bad flags, missing args)
  | 'input' // the bytes/values given are malformed or violate a rule
  | 'integrity' // hashes do not match
  | 'signature' // signature missing, malformed or invalid
  | 'auth' // missing or bad credentials
  | 'forbidden' // credentials valid but not allowed
  | 'not_found'
  | 'conflict' // already exists / out of sync / incompatible state
  | 'too_large'
  | 'resolve' // dependency resolution failed
  | 'network' // a remote could not be reached or answered garbage
  | 'environment' // this machine's setup stops the command: a busy port, an unreachable database, a path of the wrong kind
  | 'config' // the user's or project's ctxpkg settings are missing or wrong (no registry for a scope, a bad URL in ctxpkg.json)
  | 'internal';

/**
 * The stable code table: code → family. Source of the names: ../shared/ARCHITECTURE.md
 * ("Errors") and ../shared/ADVERSARIAL.md (the suggested codes per case).
 */
export const ERROR_CODES = {
  // generic
  E_USAGE: 'usage',
  E_INTERNAL: 'internal',
  E_IO: 'internal',
  // JSON text layer
  E_INVALID_JSON: 'input',
  E_DUPLICATE_KEY: 'input',
  E_FORBIDDEN_KEY: 'input',
  E_JSON_DEPTH: 'input',
  E_UNSAFE_INTEGER: 'input',
  // manifest / content model
  E_MANIFEST: 'input',
  E_CONTENT: 'input',
  E_STRUCTURE: 'input',
  E_KIND_UNSUPPORTED: 'input',
  E_CONFORMANCE: 'input',
  E_NAME: 'input',
  E_INVALID_NAME: 'input',
  E_RESERVED_NAMESPACE: 'input',
  E_NAME_MISMATCH: 'input',
  E_VERSION: 'input',
  E_INVALID_VERSION: 'input',
  E_RANGE: 'input',
  E_INVALID_RANGE: 'input',
  E_UNSAFE_DOCUMENT_PATH: 'input',
  E_DUPLICATE_DOCUMENT: 'input',
  E_SECRET: 'input',
  E_SOURCE: 'input',
  E_UNSAFE_PATH: 'input',
  E_GLOB: 'input',
  // integrity & signatures
  E_INTEGRITY: 'integrity',
  E_ARTIFACT_CHECKSUM: 'integrity',
  E_SIGNATURE: 'signature',
  E_SIGNATURE_ENCODING: 'signature',
  E_SIGNATURE_INVALID: 'signature',
  E_UNSUPPORTED_ALGORITHM: 'signature',
  E_UNSIGNED: 'signature',
  E_SIGNER_CHANGED: 'signature',
  E_KEY: 'input',
  // archives
  E_ARCHIVE: 'input',
  E_ARCHIVE_UNSAFE_PATH: 'input',
  E_ARCHIVE_ENTRY_TYPE: 'input',
  E_ARCHIVE_DUPLICATE_ENTRY: 'input',
  E_ARCHIVE_SIZE_MISMATCH: 'input',
  E_BLOB: 'integrity',
  // derived project state (.ctxpkg/) that this user's ctxpkg did not seal (README "A committed `.ctxpkg/` is never trusted")
  E_UNSEALED: 'integrity',
  E_TOO_LARGE: 'too_large',
  // versions / resolution / lockfile
  E_NO_MATCH: 'resolve',
  E_RESOLVE: 'resolve',
  E_CONFLICT: 'resolve',
  E_CYCLE: 'resolve',
  E_LOCKFILE: 'input',
  E_LOCK_MISMATCH: 'conflict',
  E_LOCK_REGISTRY_MISMATCH: 'conflict',
  E_LOCKFILE_OUT_OF_SYNC: 'conflict',
  E_LOCKED: 'conflict',
  // registry
  E_NOT_FOUND: 'not_found',
  E_AUTH: 'auth',
  E_FORBIDDEN: 'forbidden',
  E_EXISTS: 'conflict',
  E_VERSION_EXISTS: 'conflict',
  E_YANKED: 'conflict',
  // A publish asks for the visibility the existing package does not have (spec/registry.md §6).
  E_VISIBILITY: 'conflict',
  E_NETWORK: 'network',
  E_REGISTRY: 'network',
  // the environment (not a bug, not the user's input): busy port, unreachable database, unusable path
  E_ENVIRONMENT: 'environment',
  // settings (ctxpkg.json, the user config, CTXPKG_REGISTRY): nothing configured where something must be, or a bad value there
  E_CONFIG: 'config',
  // context packs
  E_BUDGET: 'input',
  // transparency log (spec/transparency.md)
  E_NOTE: 'input',
  E_LOG_PROOF: 'integrity',
  E_LOG_INCONSISTENT: 'integrity',
  E_LOG_KEY: 'signature',
  E_LOG_STALE: 'conflict',
  E_WITNESS: 'signature',
  E_SIGNER_UNLOGGED: 'signature',
  E_SIGNER_REVOKED: 'signature',
} as const satisfies Record<string, ErrorFamily>;

/** A stable error code, e.g. `E_SIGNATURE_INVALID`. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** One problem found by a validation that reports everything it finds. */
export interface Issue {
  /** Where: a JSON pointer-like path (`manifest.integrity.sha256`), a file:line, or a name. */
  path: string;
  code: ErrorCode;
  message: string;
  /** Structured detail, e.g. `{ expected, found }` for hash mismatches. */
  details?: Record<string, unknown>;
}

/** Result of a validation that collects all problems instead of stopping at the first. */
export type Validation<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

export interface CtxpkgErrorOptions {
  /** One line telling the user what to do about it. */
  hint?: string;
  cause?: unknown;
  /** Structured detail (expected/found hashes, the key path, the list of issues, …). */
  details?: Record<string, unknown>;
}

/**
 * The single error class. `code` is stable (see `ERROR_CODES`), `message` is for humans,
 * `hint` says what to do, `details` carries structured data (never secrets or tokens).
 */
export class CtxpkgError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: CtxpkgErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CtxpkgError';
    this.code = code;
    if (options.hint !== undefined) this.hint = options.hint;
    if (options.details !== undefined) this.details = options.details;
  }

  /** The family of this error's code. */
  get family(): ErrorFamily {
    return familyOf(this.code);
  }

  /** Plain JSON form used by the CLI's `--json` output and the registry's error bodies. */
  toJSON(): { code: ErrorCode; message: string; hint?: string; details?: Record<string, unknown> } {
    const out: { code: ErrorCode; message: string; hint?: string; details?: Record<string, unknown> } = {
      code: this.code,
      message: this.message,
    };
    if (this.hint !== undefined) out.hint = this.hint;
    if (this.details !== undefined) out.details = this.details;
    return out;
  }
}

/** True when `e` is a `CtxpkgError` (also across duplicated module instances). */
export function isCtxpkgError(e: unknown): e is CtxpkgError {
  return (
    e instanceof CtxpkgError ||
    (typeof e === 'object' &&
      e !== null &&
      (e as { name?: unknown }).name === 'CtxpkgError' &&
      typeof (e as { code?: unknown }).code === 'string')
  );
}

/** The family for a code; unknown codes count as `internal`. */
export function familyOf(code: string): ErrorFamily {
  return (ERROR_CODES as Record<string, ErrorFamily>)[code] ?? 'internal';
}

/** HTTP status per family — the registry's one mapping table. */
const HTTP_STATUS: Record<ErrorFamily, number> = {
  usage: 400,
  input: 400,
  integrity: 400,
  signature: 400,
  auth: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  resolve: 400,
  network: 502,
  environment: 503,
  config: 500, // the registry's own settings; the registry itself reports these at start-up, not per request
  internal: 500,
};

/** HTTP status for an error code (registry). */
export function httpStatusFor(code: string): number {
  return HTTP_STATUS[familyOf(code)];
}

/**
 * CLI exit codes per family — the CLI's one mapping table. 0 = success, 1 = the checked thing
 * is invalid / the operation failed, 2 = usage error, 78 = configuration error (sysexits.h
 * EX_CONFIG), others as listed. Documented in README.
 */
const EXIT_CODE: Record<ErrorFamily, number> = {
  usage: 2,
  input: 1,
  integrity: 1,
  signature: 1,
  auth: 3,
  forbidden: 3,
  not_found: 4,
  conflict: 5,
  too_large: 1,
  resolve: 6,
  network: 7,
  environment: 9,
  config: 78, // EX_CONFIG of sysexits.h: a configuration error
  internal: 70,
};

/** Process exit code for an error code (CLI). */
export function exitCodeFor(code: string): number {
  return EXIT_CODE[familyOf(code)];
}

/** Throw a `CtxpkgError` built from a list of issues (first issue's code, all issues in details). */
export function errorFromIssues(issues: Issue[], summary?: string): CtxpkgError {
  const first = issues[0];
  const code: ErrorCode = first ? first.code : 'E_INTERNAL';
  const message =
    summary ??
    (issues.length === 1 && first
      ? `${first.path ? first.path + ': ' : ''}${first.message}`
      : `${issues.length} problems: ` +
        issues
          .slice(0, 5)
          .map((i) => `${i.path ? i.path + ': ' : ''}${i.message}`)
          .join('; ') +
        (issues.length > 5 ? '; …' : ''));
  return new CtxpkgError(code, message, { details: { issues } });
}
