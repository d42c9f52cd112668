/**
 * Content-addressed files without the format core: SHA-256 of bytes, the artifact store's layout
 * and the one hash-checked read. The no-op install path (install/noop.ts) needs nothing more and
 * must load nothing from `@ctxpkg/format` (test/startup-graph.test.ts); store.ts and blob-store.ts
 * turn the outcomes of `readHashed` into `E_IO` / `E_INTEGRITY` errors.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_FILES } from './paths.js';

/** Lowercase hex SHA-256 of bytes. */
export function sha256Bytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Directory holding the store's artifacts (`.ctxpkg/store/sha256`). */
export function storeDir(root: string): string {
  return join(root, PROJECT_FILES.store, 'sha256');
}

/** Path of the artifact whose SHA-256 is `sha`, which the caller has checked is 64 lowercase hex. */
export function storeFileOf(root: string, sha: string): string {
  return join(storeDir(root), `${sha}.ctxpkg`);
}

/**
 * Read `path` and check that its bytes hash to `hex`: `{ bytes }` when they do, `{ found }` (the
 * hash they have) when they do not, undefined when the file is absent. Other read errors are
 * thrown as Node gives them (callers wrap them, or treat any throw as "not intact").
 */
export function readHashed(path: string, hex: string): { bytes: Uint8Array } | { found: string } | undefined {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(path));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const found = sha256Bytes(bytes);
  return found === hex ? { bytes } : { found };
}
