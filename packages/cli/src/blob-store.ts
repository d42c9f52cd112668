/**
 * The project's blob store `.ctxpkg/store/blobs/sha256/<64 lowercase hex>`: every blob of every
 * installed ZIP-form package (spec/archive.md §4 "Blobs"), kept once by the SHA-256 of its bytes
 * and shared across packages and versions. Files are written atomically (temp + fsync + rename)
 * and read-only (mode 0444); reads re-hash the bytes. Like the artifact store (`store.ts`), it is
 * derived data: every blob also lives inside a stored artifact, so the directory can be deleted
 * and is rebuilt by `ctxpkg install` from the lockfile.
 *
 * Names come only from hashes (a blob_ref is validated before it becomes a path).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CtxpkgError } from '@ctxpkg/format';
import { unlinkPinned } from './fsutil.js';
import { PROJECT_FILES } from './paths.js';
import { readHashedFile, sha256Bytes, writeHashedFile } from './store.js';

const HEX64 = /^[0-9a-f]{64}$/;
const BLOB_REF = /^sha256-([0-9a-f]{64})$/;

/** Directory holding the blobs, relative to the project root (`.ctxpkg/store/blobs/sha256`). */
export const BLOB_DIR_REL = join(PROJECT_FILES.store, 'blobs', 'sha256');

/** Absolute directory holding the blobs. */
export function blobDir(root: string): string {
  return join(root, BLOB_DIR_REL);
}

/**
 * The 64-hex digest of a blob_ref `sha256-<hex>` (or of a bare digest). Throws `E_BLOB` for any
 * other spelling, so a hostile reference never becomes a path.
 */
export function blobHex(ref: string): string {
  const m = BLOB_REF.exec(ref);
  if (m) return m[1]!;
  if (HEX64.test(ref)) return ref;
  throw new CtxpkgError('E_BLOB', `not a blob reference: ${JSON.stringify(ref).slice(0, 90)}`, {
    hint: 'a blob_ref is sha256-<64 lowercase hex> (spec/archive.md §4)',
  });
}

/** Path of a blob file (the reference is validated first). */
export function blobPath(root: string, ref: string): string {
  return join(blobDir(root), blobHex(ref));
}

/** The project-relative POSIX path of a blob, as shown to agents (`.ctxpkg/store/blobs/sha256/<hex>`). */
export function blobDisplayPath(ref: string): string {
  return `.ctxpkg/store/blobs/sha256/${blobHex(ref)}`;
}

/**
 * Read a blob and re-check its hash. Returns undefined when absent; throws `E_INTEGRITY` when
 * the file no longer hashes to its name (the caller restores it from the artifact) and `E_IO`
 * when it cannot be read.
 */
export function readBlob(root: string, ref: string): Uint8Array | undefined {
  const hex = blobHex(ref);
  return readHashedFile(blobPath(root, hex), hex, 'blob file', 'run `ctxpkg install` to restore it from the stored package');
}

/** True when the blob file exists and hashes to its name. */
export function hasValidBlob(root: string, ref: string): boolean {
  try {
    return readBlob(root, ref) !== undefined;
  } catch {
    return false;
  }
}

/**
 * Store verified blob bytes under their SHA-256 (atomic, mode 0444) and return the hex digest.
 * Idempotent: an intact file is left alone, a corrupt one replaced. With `expected` (a blob_ref
 * or digest), bytes that hash differently are refused with `E_BLOB` and nothing is written.
 */
export function putBlob(root: string, bytes: Uint8Array, expected?: string): string {
  const hex = sha256Bytes(bytes);
  if (expected !== undefined && blobHex(expected) !== hex) {
    throw new CtxpkgError('E_BLOB', `blob ${expected} hashes to sha256-${hex}; not stored`, {
      details: { expected, found: `sha256-${hex}` },
    });
  }
  writeHashedFile(blobPath(root, hex), hex, bytes);
  return hex;
}

/** Every stored blob digest, sorted (files that are not 64-hex names are ignored). */
export function listBlobs(root: string): string[] {
  const dir = blobDir(root);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => HEX64.test(f))
    .sort();
}

/** Remove blobs whose digest is not in `keep` (hex digests); returns the removed digests, sorted. */
export function pruneBlobs(root: string, keep: ReadonlySet<string>): string[] {
  const removed: string[] = [];
  for (const hex of listBlobs(root)) {
    if (keep.has(hex)) continue;
    unlinkPinned(join(blobDir(root), hex));
    removed.push(hex);
  }
  return removed;
}
