/**
 * Keeping the project's blob store (`../blob-store.ts`) in step with the installed packages
 * (spec/archive.md §4.3): after every installed artifact is verified and stored, each blob of
 * each package (ZIP form, or a JSON bundle's `blobs` member) must be in `.ctxpkg/store/blobs/sha256/` and hash to its name; blobs no
 * installed package names are removed (after the merged graph is written, like the artifacts).
 *
 * Which blobs a package has is read from its archive's central directory or its bundle's `blobs`
 * keys (`listPackageBlobRefs`, no inflating or decoding): the artifact bytes were verified when they entered the store and are re-hashed
 * against the lockfile on every read. A missing or corrupt blob file is restored from the blobs
 * the verification just produced, or else by reading the archive again (every blob hash-checked).
 */
import { CtxpkgError, listPackageBlobRefs, readPackageBlobs } from '@ctxpkg/format';
import { blobHex, hasValidBlob, putBlob } from '../blob-store.js';
import type { VerifiedEntry } from './types.js';

export interface BlobStoreSync {
  /** Hex digests of every blob an installed package names (the keep set for `pruneBlobs`). */
  keep: Set<string>;
  /** Blob files written (new, missing or replaced corrupt ones). */
  written: number;
}

/**
 * Store every blob of `entries` that is not already stored intact, then drop the entries' blob
 * bytes (`blobs`) so that they are not held through the merge. Throws the archive codes
 * (`E_ARCHIVE*`, `E_BLOB`) only for artifacts that changed since they were verified (never for
 * a verified entry), and `E_IO`.
 */
export async function storeProjectBlobs(root: string, entries: VerifiedEntry[]): Promise<BlobStoreSync> {
  const keep = new Set<string>();
  let written = 0;
  for (const e of entries) {
    const refs = listPackageBlobRefs(e.bytes);
    if (refs.length === 0) continue;
    const missing = refs.filter((ref) => !hasValidBlob(root, ref));
    if (missing.length > 0) {
      const blobs = e.blobs ?? (await readPackageBlobs(e.bytes));
      for (const ref of missing) {
        const bytes = blobs.get(ref);
        if (!bytes) throw new CtxpkgError('E_BLOB', `${e.name}@${e.version}: blob ${ref} is named by the archive but was not read`);
        putBlob(root, bytes, ref);
        written++;
      }
    }
    for (const ref of refs) keep.add(blobHex(ref));
    delete e.blobs; // stored now: the merge reads them back from the store, verified
  }
  return { keep, written };
}
