/**
 * Step 2 of reading a package: verify decoded parts (spec/format.md §3). The same for both
 * container forms. Every check runs and every problem is reported, like the reference's
 * `verify_package_text` (FORMAT-FACTS §3.2), but with the typed model check always on.
 *
 * Checks: `structure` (model, names, kind, conformance, documents, blobs), `content_hash`,
 * `sha256`, `byte_size` (recomputed from the compacted content text, compared as exact strings),
 * `signature` (strict Ed25519 over name/version/integrity.sha256; `skipped` when unsigned unless
 * a signature is required).
 */
import { checkBlobRefs } from './archive/blobs.js';
import { explicitValueIssues } from './conformance.js';
import { contentRuleIssues, decodeContent, type PackageContent } from './content.js';
import type { ErrorCode, Issue } from './errors.js';
import { compareIntegrity, computeIntegrity, computeIntegrityOfContentBytes } from './integrity.js';
import { RawNumber } from './json/parse.js';
import { utf8 } from './hash.js';
import { compactJsonBytes } from './json/text.js';

const UTF8 = new TextDecoder();
import { decodeManifest, type Manifest, type ManifestRuleOptions } from './manifest.js';
import type { PackageParts } from './package-container.js';
import { verifySignatureAsync } from './signature.js';

export type CheckStatus = 'pass' | 'fail' | 'skipped';
export interface CheckResult {
  status: CheckStatus;
  /** One line for humans, e.g. the expected and found hash. */
  detail: string;
}
export type CheckName = 'structure' | 'content_hash' | 'sha256' | 'byte_size' | 'signature';
export type PackageChecks = Record<CheckName, CheckResult>;

export interface VerifyOptions extends ManifestRuleOptions {
  /** Refuse unsigned packages (`E_UNSIGNED`). Default false. */
  requireSignature?: boolean;
}

/** Everything verification learned about a package. */
export interface PartsVerdict {
  valid: boolean;
  checks: PackageChecks;
  issues: Issue[];
  manifest?: Manifest;
  content?: PackageContent;
  /** Compacted content text (what the hashes cover); computed on first access from `contentBytes`. */
  readonly contentText: string;
  /** UTF-8 bytes of the content value as stored (not compacted). */
  contentBytes: Uint8Array;
  /** Public key (hex) when the signature verified. */
  signer?: string;
}

const skipped = (detail: string): CheckResult => ({ status: 'skipped', detail });

/** A check list where everything after a container failure is skipped. */
export function failedChecks(code: ErrorCode, message: string): PackageChecks {
  return {
    structure: { status: 'fail', detail: `${code}: ${message}` },
    content_hash: skipped('the package could not be decoded'),
    sha256: skipped('the package could not be decoded'),
    byte_size: skipped('the package could not be decoded'),
    signature: skipped('the package could not be decoded'),
  };
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/**
 * Verify decoded parts (see module comment). Never rejects for bad input. Async because the
 * signature is checked with the platform's Ed25519 where it qualifies (ed25519-verify.ts).
 */
export async function verifyParts(parts: PackageParts, opts: VerifyOptions = {}): Promise<PartsVerdict> {
  const issues: Issue[] = [];
  const dm = decodeManifest(parts.manifestRaw, { ...opts, plainNumbers: parts.plainNumbers });
  issues.push(...dm.issues);
  // Level 3 requires explicit activation/weight: check the parsed text before decoding fills in
  // the defaults (decoding is in place).
  const level3 = dm.manifest?.conformance_level === 3 ? explicitValueIssues((parts.contentRaw as { context_graph?: unknown }).context_graph) : [];
  const dc = decodeContent(parts.contentRaw, false, parts.plainNumbers, true);
  issues.push(...dc.issues);
  if (dm.manifest && dc.content) issues.push(...contentRuleIssues(dc.content, dm.manifest), ...level3);
  // Blobs of either form (a JSON bundle only when it has a `blobs` member, spec/archive.md §4.4).
  if (parts.blobs && dc.content) {
    try {
      checkBlobRefs(dc.content.context_graph, parts.blobs);
    } catch (e) {
      issues.push(...(((e as { details?: { issues?: Issue[] } }).details?.issues) ?? [{ path: 'blobs', code: 'E_BLOB', message: (e as Error).message }]));
    }
  }
  const structureIssues = issues.length;
  const checks: PackageChecks = {
    structure: structureIssues === 0 ? { status: 'pass', detail: 'manifest and content are well-formed' } : { status: 'fail', detail: `${structureIssues} problem(s): ${issues[0]!.message}` },
    content_hash: skipped('manifest has no usable name/version/integrity'),
    sha256: skipped('manifest has no usable name/version/integrity'),
    byte_size: skipped('manifest has no usable name/version/integrity'),
    signature: skipped('unsigned'),
  };

  // Integrity and signature read the raw manifest, so they are reported even when the typed
  // manifest has other problems (as the reference's verify does).
  const raw = parts.manifestRaw as Record<string, unknown>;
  const name = str(raw.name);
  const version = str(raw.version);
  const integ = raw.integrity && typeof raw.integrity === 'object' ? (raw.integrity as Record<string, unknown>) : undefined;
  const contentBytes = parts.contentBytes ?? utf8(parts.contentText);
  if (name !== undefined && version !== undefined && integ) {
    const computed = parts.contentCompacted ? computeIntegrity(name, version, contentBytes) : computeIntegrityOfContentBytes(name, version, contentBytes);
    const claimed = {
      content_hash: integ.content_hash,
      sha256: integ.sha256,
      byte_size: integ.byte_size instanceof RawNumber ? integ.byte_size.value : integ.byte_size,
    };
    const mismatches = compareIntegrity(claimed, computed);
    for (const f of ['content_hash', 'sha256', 'byte_size'] as const) {
      const mm = mismatches.find((x) => x.field === f);
      checks[f] = mm
        ? { status: 'fail', detail: `expected ${String(mm.expected)}, found ${mm.found}` }
        : { status: 'pass', detail: String(computed[f]) };
      if (mm) {
        issues.push({
          path: `manifest.integrity.${f}`,
          code: 'E_INTEGRITY',
          message: `${f} mismatch: the manifest says ${String(mm.expected)}, the content gives ${mm.found}`,
          details: { field: f, expected: mm.expected, found: mm.found },
        });
      }
    }
  }

  let signer: string | undefined;
  const sha = integ ? str(integ.sha256) : undefined;
  const verdict =
    name !== undefined && version !== undefined && sha !== undefined
      ? await verifySignatureAsync({ name, version, integrity: { sha256: sha } }, raw.signature)
      : raw.signature === undefined || raw.signature === null
        ? ({ status: 'unsigned' } as const)
        : ({ status: 'invalid', code: 'E_SIGNATURE', message: 'cannot check the signature: name, version or integrity.sha256 is missing' } as const);
  if (verdict.status === 'valid') {
    signer = verdict.publicKey;
    checks.signature = { status: 'pass', detail: `signed by ${verdict.publicKey}` };
  } else if (verdict.status === 'invalid') {
    checks.signature = { status: 'fail', detail: verdict.message };
    issues.push({ path: 'manifest.signature', code: verdict.code, message: verdict.message });
  } else if (opts.requireSignature) {
    checks.signature = { status: 'fail', detail: 'unsigned, but a signature is required' };
    issues.push({ path: 'manifest.signature', code: 'E_UNSIGNED', message: 'the package is unsigned, but a signature is required' });
  }

  const valid = Object.values(checks).every((c) => c.status !== 'fail') && checks.content_hash.status === 'pass';
  const result = {
    valid,
    checks,
    issues,
    ...(dm.manifest ? { manifest: dm.manifest } : {}),
    ...(dc.content ? { content: dc.content } : {}),
    contentBytes,
    ...(signer ? { signer } : {}),
  };
  return withLazyContentText(result, contentBytes, parts.contentCompacted);
}

/**
 * Add an enumerable, memoized `contentText` getter that compacts and decodes `contentBytes` on
 * first use (a 10 MiB package would otherwise hold a second copy that most callers never need);
 * `compacted`: the bytes are compacted already (`PackageParts.contentCompacted`).
 */
export function withLazyContentText<T extends object>(target: T, contentBytes: Uint8Array, compacted = false): T & { readonly contentText: string } {
  let text: string | undefined;
  Object.defineProperty(target, 'contentText', {
    enumerable: true,
    configurable: true,
    get: () => (text ??= UTF8.decode(compacted ? contentBytes : compactJsonBytes(contentBytes))),
  });
  return target as T & { readonly contentText: string };
}
