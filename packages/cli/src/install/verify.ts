/**
 * Verify one package artifact for installation (issue 5 item 5; FORMAT-FACTS §12.6 "do better"):
 * the bytes hash to the expected artifact SHA-256, the package passes the full format
 * verification with the signature policy, its manifest names exactly the requested name and
 * version, and its signer equals the key pinned for that name unless the user accepts a new key.
 */
import { CtxpkgError, isCtxpkgError, keyFingerprint, readPackage } from '@ctxpkg/format';
import { sha256Bytes } from '../store.js';
import type { VerifiedEntry } from './types.js';

export interface VerifyRequest {
  name: string;
  version: string;
  registry: string;
  /** Expected artifact hash (index or lockfile). */
  expectedSha: string;
  /**
   * Source of `expectedSha` for the mismatch message: `'ctxpkg.lock'` or `'the registry index'`
   * (default: ctxpkg.lock for store bytes, the registry index for downloaded ones).
   */
  expectedFrom?: string;
  /** What the bytes are, for the message (default `downloaded bytes` / `bytes in the store`). */
  bytesFrom?: string;
  /** Hint for a mismatch (default: the registry or the network served other bytes). */
  mismatchHint?: string;
  /** Signer pinned in the lockfile for this name ('' = none pinned / unsigned). */
  pinnedSigner?: string;
  requireSignature: boolean;
  acceptNewKey: boolean;
  fromStore: boolean;
}

function fp(key: string): string {
  try {
    return `${keyFingerprint(key)} (${key.slice(0, 16)}…)`;
  } catch {
    return key === '' ? 'none (unsigned)' : key;
  }
}

/**
 * Check `bytes` against `req`. Throws `E_ARTIFACT_CHECKSUM`, the format's verification codes
 * (prefixed with `name@version`), `E_NAME_MISMATCH`, `E_SIGNER_CHANGED`.
 */
export async function verifyArtifact(bytes: Uint8Array, req: VerifyRequest): Promise<VerifiedEntry> {
  const id = `${req.name}@${req.version}`;
  const found = sha256Bytes(bytes);
  if (found !== req.expectedSha) {
    const expectedFrom = req.expectedFrom ?? (req.fromStore ? 'ctxpkg.lock' : 'the registry index');
    const bytesFrom = req.bytesFrom ?? (req.fromStore ? 'bytes in the store' : 'downloaded bytes');
    throw new CtxpkgError('E_ARTIFACT_CHECKSUM', `${id}: the ${bytesFrom} hash to ${found}, but ${expectedFrom} records ${req.expectedSha}; refusing to install`, {
      details: { package: id, expected: req.expectedSha, expected_from: expectedFrom, found },
      hint: req.mismatchHint ?? (req.fromStore ? 'delete .ctxpkg/ and run `ctxpkg install` to rebuild the store; nothing was installed' : 'the registry (or something between you and it) served other bytes than its index lists; nothing was installed. Retry, and report it to the registry operator if it persists'),
    });
  }
  let pkg;
  try {
    pkg = await readPackage(bytes, { requireSignature: req.requireSignature });
  } catch (err) {
    if (isCtxpkgError(err)) {
      throw new CtxpkgError(err.code, `${id}: ${err.message}`, { hint: err.hint, details: err.details, cause: err });
    }
    throw err;
  }
  const m = pkg.manifest as { name: string; version: string; integrity: { sha256: string; content_hash: string }; dependencies?: Array<{ name: string; version_req: string; optional?: boolean }> };
  if (m.name !== req.name || m.version !== req.version) {
    throw new CtxpkgError('E_NAME_MISMATCH', `${id}: the registry served a package whose manifest says ${m.name}@${m.version}`, {
      details: { requested: id, found: `${m.name}@${m.version}` },
      hint: 'the registry served the wrong package; nothing was installed',
    });
  }
  const signer = pkg.signer ?? '';
  if (req.pinnedSigner !== undefined && req.pinnedSigner !== signer && !req.acceptNewKey) {
    throw new CtxpkgError('E_SIGNER_CHANGED', `${id} is signed by a different key than the one pinned in ctxpkg.lock: pinned ${fp(req.pinnedSigner)}, now ${fp(signer)}`, {
      details: { package: id, pinned: req.pinnedSigner, found: signer },
      hint: 'if the publisher rotated its key, confirm out of band and re-run with --accept-new-key',
    });
  }
  return {
    name: req.name,
    version: req.version,
    registry: req.registry,
    artifact_sha256: found,
    integrity_sha256: m.integrity.sha256,
    signer_public_key: signer,
    dependencies: {},
    bytes,
    content_hash: m.integrity.content_hash,
    manifestDependencies: (m.dependencies ?? []).map((d) => ({ name: d.name, version_req: d.version_req, optional: d.optional === true })),
    graph: pkg.graph,
    ...(pkg.blobs && pkg.blobs.size > 0 ? { blobs: pkg.blobs } : {}),
    fromStore: req.fromStore,
  };
}
