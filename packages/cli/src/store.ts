/**
 * The project's package store `.ctxpkg/store/`: the original verified bytes of every installed
 * package, content-addressed by the SHA-256 of the whole file (the registry's `artifact_sha256`,
 * FORMAT-FACTS §3.5), read-only (mode 0444). Package names never become paths, so hostile names
 * cannot escape the store (FORMAT-FACTS §12.3). The store is derived: it can be deleted and
 * rebuilt from ctxpkg.lock.
 *
 * Layout: `.ctxpkg/store/sha256/<64 lowercase hex>.ctxpkg`.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CtxpkgError } from '@ctxpkg/format/errors';
import { unlinkPinned, writeFileAtomic } from './fsutil.js';
import { readHashed, sha256Bytes, storeDir, storeFileOf } from './hashed-file.js';

export { sha256Bytes, storeDir } from './hashed-file.js';

const HEX64 = /^[0-9a-f]{64}$/;

/** Throws `E_LOCKFILE` unless `sha` is 64 lowercase hex characters (it comes from files). */
export function checkSha(sha: string): string {
  if (!HEX64.test(sha)) {
    throw new CtxpkgError('E_LOCKFILE', `not a SHA-256 hex digest: ${JSON.stringify(sha).slice(0, 80)}`);
  }
  return sha;
}

/** Path of the artifact with hash `sha` (validated first). */
export function artifactPath(root: string, sha: string): string {
  return storeFileOf(root, checkSha(sha));
}

/** True when the artifact file exists (not re-hashed; `readArtifact` re-hashes). */
export function hasArtifact(root: string, sha: string): boolean {
  return existsSync(artifactPath(root, sha));
}

/**
 * Read a content-addressed file and re-check that its bytes hash to `hex` (64 lowercase hex).
 * Returns undefined when the file is absent; throws `E_IO` when it cannot be read and
 * `E_INTEGRITY` (message `<label> <path> is corrupt`, with `hint`) when the bytes hash differently.
 * Shared by the artifact store and the blob store (`blob-store.ts`).
 */
export function readHashedFile(path: string, hex: string, label: string, hint: string): Uint8Array | undefined {
  let read: ReturnType<typeof readHashed>;
  try {
    read = readHashed(path, hex);
  } catch (err) {
    throw new CtxpkgError('E_IO', `cannot read ${path}: ${(err as Error).message}`);
  }
  if (read === undefined || 'bytes' in read) return read?.bytes;
  throw new CtxpkgError('E_INTEGRITY', `${label} ${path} is corrupt (hashes to ${read.found})`, { details: { expected: hex, found: read.found }, hint });
}

/**
 * Write `bytes` (whose SHA-256 is `hex`) at the content-addressed `path`, atomically and
 * read-only (mode 0444), unless an intact copy is already there; a corrupt copy is replaced.
 * Idempotent. Throws `E_IO` from the atomic write.
 */
export function writeHashedFile(path: string, hex: string, bytes: Uint8Array): void {
  if (existsSync(path)) {
    try {
      if (readHashedFile(path, hex, 'file', '')) return;
    } catch {
      /* corrupt or unreadable: replaced below */
    }
    unlinkPinned(path);
  }
  writeFileAtomic(path, bytes, { mode: 0o444 });
}

/**
 * Read an artifact and re-check its hash. Returns undefined when absent; throws `E_INTEGRITY`
 * when the stored bytes no longer hash to their name (the caller re-downloads).
 */
export function readArtifact(root: string, sha: string): Uint8Array | undefined {
  return readHashedFile(artifactPath(root, sha), sha, 'store file', 'delete .ctxpkg/ and run `ctxpkg install` to rebuild it from the lockfile');
}

/** Store bytes (atomic, read-only) under their hash and return the hash. Idempotent. */
export function putArtifact(root: string, bytes: Uint8Array): string {
  const sha = sha256Bytes(bytes);
  writeHashedFile(artifactPath(root, sha), sha, bytes);
  return sha;
}

/** Remove artifacts not in `keep`; returns the removed hashes (sorted). */
export function pruneStore(root: string, keep: Set<string>): string[] {
  const dir = storeDir(root);
  if (!existsSync(dir)) return [];
  const removed: string[] = [];
  for (const f of readdirSync(dir).sort()) {
    const m = /^([0-9a-f]{64})\.ctxpkg$/.exec(f);
    if (!m) continue;
    if (!keep.has(m[1])) {
      unlinkPinned(join(dir, f));
      removed.push(m[1]);
    }
  }
  return removed;
}
