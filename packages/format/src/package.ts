/**
 * Reading and verifying `.ctxpkg` packages (spec/format.md §3): `readPackage` (full
 * verification, throws) and `verifyPackage` (report, never throws for bad input). Both run
 * the same two steps: decode the container (`package-container.ts`, JSON bundle or ZIP form),
 * then verify the parts (`package-verify.ts`).
 */
import type { ArchiveLimits } from './archive/limits.js';
import type { PackageContent } from './content.js';
import { CtxpkgError, isCtxpkgError, type ErrorCode, type Issue } from './errors.js';
import type { ContextGraph } from './graph-types.js';
import type { Manifest } from './manifest.js';
import { decodePackageParts, MAX_PACKAGE_BYTES } from './package-container.js';
import { failedChecks, verifyParts, withLazyContentText, type PackageChecks, type VerifyOptions } from './package-verify.js';
import { toGraphView } from './v1view.js';

export { MAX_PACKAGE_BYTES } from './package-container.js';
export type { CheckName, CheckResult, CheckStatus, PackageChecks } from './package-verify.js';

export interface ReadPackageOptions extends VerifyOptions {
  /** Size cap in bytes, checked before parsing (default `MAX_PACKAGE_BYTES`, 10 MiB). */
  maxBytes?: number;
  /** Caps for the ZIP form (spec/archive.md §6). */
  archiveLimits?: Partial<ArchiveLimits>;
}

/** A package that passed every check. */
export interface VerifiedPackage {
  form: 'json' | 'zip';
  /** The original bytes (keep and store these; never re-serialize a package). */
  bytes: Uint8Array;
  manifest: Manifest;
  content: PackageContent;
  /** The compacted content text: what `content_hash` and `byte_size` cover (decoded on first access). */
  readonly contentText: string;
  /** The v1 → v2 graph view of the content (`toGraphView`). */
  graph: ContextGraph;
  /** Public key (64 lowercase hex), set only when a signature verified. */
  signer?: string;
  checks: PackageChecks;
  /** Blob bytes by blob_ref: the ZIP form's, or a JSON bundle's `blobs` member (spec/archive.md §4.4). */
  blobs?: Map<string, Uint8Array>;
}

/** The report of `verifyPackage`. */
export interface VerifyReport {
  valid: boolean;
  form?: 'json' | 'zip';
  checks: PackageChecks;
  /** Every problem found, in check order (structure, integrity, signature). */
  errors: Array<{ code: ErrorCode; message: string; path?: string; details?: Record<string, unknown> }>;
  /** Name and version as read (when the manifest had them). */
  name?: string;
  version?: string;
  signer?: string;
}

function toError(i: Issue): VerifyReport['errors'][number] {
  return { code: i.code, message: i.path ? `${i.path}: ${i.message}` : i.message, ...(i.path ? { path: i.path } : {}), ...(i.details ? { details: i.details } : {}) };
}

async function run(bytes: Uint8Array, opts: ReadPackageOptions) {
  try {
    const parts = await decodePackageParts(bytes, opts);
    return { parts, verdict: await verifyParts(parts, opts) };
  } catch (e) {
    if (!isCtxpkgError(e)) throw e;
    const issue: Issue = { path: '', code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) };
    return { failure: { checks: failedChecks(e.code, e.message), issue } };
  }
}

/**
 * Verify a package and report every check; never throws for bad input (only for bugs).
 * `checks.*.status` is `pass`, `fail` or `skipped`; `valid` is true when nothing failed.
 * Error codes in `errors`: `E_TOO_LARGE`, JSON codes (`E_INVALID_JSON`, `E_DUPLICATE_KEY`,
 * `E_FORBIDDEN_KEY`, `E_JSON_DEPTH`, `E_UNSAFE_INTEGER`), `E_STRUCTURE`, `E_MANIFEST`,
 * `E_CONTENT`, `E_KIND_UNSUPPORTED`, `E_CONFORMANCE`, `E_INVALID_NAME`, `E_INVALID_VERSION`,
 * `E_UNSAFE_DOCUMENT_PATH`, `E_DUPLICATE_DOCUMENT`, archive codes, `E_BLOB`, `E_INTEGRITY`
 * (details `{ field, expected: manifest value, found: recomputed }`), `E_UNSUPPORTED_ALGORITHM`,
 * `E_SIGNATURE_ENCODING`, `E_SIGNATURE_INVALID`, `E_UNSIGNED` (with `requireSignature`).
 */
export async function verifyPackage(bytes: Uint8Array, opts: ReadPackageOptions = {}): Promise<VerifyReport> {
  const r = await run(bytes, opts);
  if ('failure' in r && r.failure) return { valid: false, checks: r.failure.checks, errors: [toError(r.failure.issue)] };
  const { parts, verdict } = r as Exclude<typeof r, { failure: unknown }>;
  const raw = parts.manifestRaw as Record<string, unknown>;
  return {
    valid: verdict.valid,
    form: parts.form,
    checks: verdict.checks,
    errors: verdict.issues.map(toError),
    ...(typeof raw.name === 'string' ? { name: raw.name } : {}),
    ...(typeof raw.version === 'string' ? { version: raw.version } : {}),
    ...(verdict.signer ? { signer: verdict.signer } : {}),
  };
}

/**
 * Read and fully verify a package (JSON bundle or ZIP form). Returns the model, the compacted
 * content text, the graph view and, when signed, the verified signer key. Throws a
 * `CtxpkgError` whose code is the first problem's and whose `details.issues` lists every problem
 * (codes as in `verifyPackage`) and `details.checks` the check table. `E_TOO_LARGE` is decided
 * before parsing; with `requireSignature` an unsigned package is `E_UNSIGNED`.
 */
export async function readPackage(bytes: Uint8Array, opts: ReadPackageOptions = {}): Promise<VerifiedPackage> {
  const r = await run(bytes, opts);
  if ('failure' in r && r.failure) {
    const { issue, checks } = r.failure;
    throw new CtxpkgError(issue.code, issue.message, { details: { ...(issue.details ?? {}), issues: [issue], checks } });
  }
  const { parts, verdict } = r as Exclude<typeof r, { failure: unknown }>;
  if (!verdict.valid || !verdict.manifest || !verdict.content) {
    const issues = verdict.issues;
    const first = issues[0];
    const code: ErrorCode = first ? first.code : 'E_STRUCTURE';
    const head = first ? `${first.path ? first.path + ': ' : ''}${first.message}` : 'the package is invalid';
    const message = issues.length > 1 ? `${head} (and ${issues.length - 1} more problem(s))` : head;
    throw new CtxpkgError(code, message, { details: { issues, checks: verdict.checks } });
  }
  const pkg = {
    form: parts.form,
    bytes,
    manifest: verdict.manifest,
    content: verdict.content,
    graph: toGraphView(verdict.content),
    ...(verdict.signer ? { signer: verdict.signer } : {}),
    checks: verdict.checks,
    ...(parts.blobs ? { blobs: parts.blobs } : {}),
  };
  return withLazyContentText(pkg, verdict.contentBytes, parts.contentCompacted);
}
