/**
 * Local package files (`ctxpkg install ./x.ctxpkg`, or a `file:` dependency of ctxpkg.json): read,
 * fully verified with the signature policy, pinned by the SHA-256 of their bytes, and recorded
 * with the origin `file:<path relative to the project root>` (POSIX separators). Their required
 * dependencies become roots of the resolution.
 */
import { relative, resolve as resolvePath } from 'node:path';
import { CtxpkgError, parsePackageName, readPackage } from '@ctxpkg/format';
import { sha256Bytes } from '../store.js';
import type { Dep } from './source.js';
import type { LockState, VerifiedEntry } from './types.js';
import { readLocalFile } from './local-file.js';
import { verifyArtifact } from './verify.js';

export interface LocalPackage {
  entry: VerifiedEntry;
  /** The package's required (non-optional) dependencies. */
  required: Dep[];
}

/**
 * Read and verify the package file `rel` (relative to `root`) through `readLocalFile` (regular
 * files only, inside the project unless `allowOutside`, size-capped; `label` names it). With
 * `name`, the file must contain that package (ctxpkg.json declares it so). Throws `E_NOT_FOUND`,
 * `E_UNSAFE_PATH`, `E_TOO_LARGE`, `E_IO` (local-file.ts), `E_NAME_MISMATCH`,
 * `E_INVALID_NAME`, and every verification code of `verifyArtifact` (incl. `E_SIGNER_CHANGED`
 * against the signer `before` pins for the name).
 */
export async function readLocalPackage(
  root: string,
  rel: string,
  opts: { name?: string; before: LockState; requireSignature: boolean; acceptNewKey: boolean; allowOutside: boolean; label?: string },
): Promise<LocalPackage> {
  const abs = resolvePath(root, rel);
  const bytes = readLocalFile(root, rel, { allowOutside: opts.allowOutside, label: opts.label ?? rel });
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
