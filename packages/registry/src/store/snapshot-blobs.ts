/**
 * The blob half of a snapshot, shared by both backends: the referenced blobs sorted by hash, each
 * read (hash-checked by the store's reader), a package blob that is missing or damaged
 * re-extracted from its artifact (spec/registry.md §5.1), a bad artifact refused.
 */
import { CtxpkgError, isCtxpkgError, readPackageBlobs } from '@ctxpkg/format';
import type { SnapshotItem } from './snapshot.js';

/**
 * Yield `{ kind: 'blob' }` items for `refs` (blob hash → the artifact it can be re-extracted from,
 * or null for an artifact itself). `read` returns verified bytes or null, and throws `E_INTEGRITY`
 * on corruption. Throws `E_INTEGRITY` for a missing or corrupt artifact.
 */
export async function* snapshotBlobs(
  refs: ReadonlyMap<string, string | null>,
  read: (sha256: string) => Promise<Uint8Array | null>,
): AsyncGenerator<SnapshotItem> {
  const safeRead = async (sha: string): Promise<Uint8Array | null> => {
    try {
      return await read(sha);
    } catch (err) {
      if (isCtxpkgError(err) && err.code === 'E_INTEGRITY') return null;
      throw err;
    }
  };
  for (const sha of [...refs.keys()].sort()) {
    let bytes = await safeRead(sha);
    const artifact = refs.get(sha) ?? null;
    if (!bytes && artifact !== null) {
      const whole = await safeRead(artifact);
      bytes = whole ? ((await readPackageBlobs(whole)).get(`sha256-${sha}`) ?? null) : null;
    }
    if (!bytes) {
      throw new CtxpkgError('E_INTEGRITY', `stored blob ${sha} is missing or corrupt; the snapshot stops rather than carry bad bytes`, {
        hint: 'run `ctxpkg registry verify` to list every damaged blob, and restore those versions from an earlier backup',
        details: { sha256: sha },
      });
    }
    yield { kind: 'blob', sha256: sha, bytes };
  }
}
