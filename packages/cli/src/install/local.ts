/**
 * Local package files (`ctxpkg install ./x.ctxpkg`, or a `file:` dependency of ctxpkg.json): read,
 * fully verified with the signature policy, pinned by the SHA-256 of their bytes, and recorded
 * with the origin `file:<path relative to the project root>` (POSIX separators). Their required
 * dependencies become roots of the resolution.
 */
import { readFileSync } from 'node:fs';
import { relative, resolve as resolvePath } from 'node:path';
import { CtxpkgError, parsePackageName, readPackage } from '@ctxpkg/format';
import { sha256Bytes } from '../store.js';
import type { Dep } from './source.js';
import type { LockState, VerifiedEntry } from './types.js';
import { verifyArtifact } from './verify.js';

export interface LocalPackage {
  entry: VerifiedEntry;
  /** The package's required (non-optional) dependencies. */
  required: Dep[];
}

/**
 * Read and verify the package file `rel` (relative to `root`). With `name`, the file must contain
 * that package (ctxpkg.json declares it so). Throws `E_NOT_FOUND` (unreadable), `E_NAME_MISMATCH`,
 * `E_INVALID_NAME`, and every verification code of `verifyArtifact` (incl. `E_SIGNER_CHANGED`
 * against the signer `before` pins for the name).
 */
export async function readLocalPackage(
  root: string,
  rel: string,
  opts: { name?: string; before: LockState; requireSignature: boolean; acceptNewKey: boolean },
): Promise<LocalPackage> {
  const abs = resolvePath(root, rel);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(abs));
  } catch (err) {
    throw new CtxpkgError('E_NOT_FOUND', `cannot read ${rel}: ${(err as Error).message}`);
  }
  const pkg = await readPackage(bytes, { requireSignature: opts.requireSignature });
  const m = pkg.manifest as { name: string; version: string; dependencies?: Array<{ name: string; version_req: string; optional?: boolean }> };
  parsePackageName(m.name);
  if (opts.name !== undefined && m.name !== opts.name) {
    throw new CtxpkgError('E_NAME_MISMATCH', `${rel} contains ${m.name}, but ctxpkg.json expects ${opts.name}`);
  }
  const registry = `file:${relative(root, abs).split('\\').join('/')}`;
  const entry = await verifyArtifact(bytes, {
    requireSignature: opts.requireSignature,
    acceptNewKey: opts.acceptNewKey,
    name: m.name,
    version: m.version,
    registry,
    expectedSha: sha256Bytes(bytes),
    pinnedSigner: opts.before.packages.get(m.name)?.signer_public_key,
    fromStore: false,
  });
  const required = (m.dependencies ?? []).filter((d) => !d.optional).map((d) => ({ name: d.name, version_req: d.version_req, optional: false }));
  return { entry, required };
}
