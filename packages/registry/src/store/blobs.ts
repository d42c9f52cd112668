/**
 * Content-addressed blob directory: `<root>/sha256/ab/cd/<hex>` (spec/registry.md "Storage").
 *
 * Writes go to `<root>/tmp/<random>`, are fsynced, renamed into place and the parent directory is
 * fsynced, so a crash leaves either no file or a complete one at the final path. Reads verify the
 * SHA-256 of the bytes once and keep them in a bounded in-memory cache (blobs are immutable).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CtxpkgError } from '@ctxpkg/format';

const HEX64 = /^[0-9a-f]{64}$/;

/** Lowercase hex SHA-256 of bytes (node:crypto; the registry is a shell package). */
export function sha256OfBytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export interface BlobDirOptions {
  /** Total bytes of verified blobs kept in memory; default 64 MiB. */
  cacheBytes?: number;
}

/**
 * Verified blob bytes kept in memory, least recently used first out, up to a byte limit (default
 * 64 MiB); a blob larger than a quarter of the limit is not kept. Blobs are immutable, so an entry
 * is never stale.
 */
export class BlobCache {
  private readonly cache = new Map<string, Uint8Array>();
  private cachedBytes = 0;
  private readonly cacheLimit: number;

  constructor(limitBytes?: number) {
    this.cacheLimit = limitBytes ?? 64 * 1024 * 1024;
  }

  /** The bytes of `hex` if cached (and marks them recently used). */
  get(hex: string): Uint8Array | undefined {
    const hit = this.cache.get(hex);
    if (hit) {
      this.cache.delete(hex); // refresh LRU position
      this.cache.set(hex, hit);
    }
    return hit;
  }

  forget(hex: string): void {
    const b = this.cache.get(hex);
    if (b) {
      this.cache.delete(hex);
      this.cachedBytes -= b.byteLength;
    }
  }

  remember(hex: string, bytes: Uint8Array): void {
    if (bytes.byteLength > this.cacheLimit / 4 || this.cache.has(hex)) return;
    this.cache.set(hex, bytes);
    this.cachedBytes += bytes.byteLength;
    for (const [k, v] of this.cache) {
      if (this.cachedBytes <= this.cacheLimit) break;
      this.cache.delete(k);
      this.cachedBytes -= v.byteLength;
    }
  }
}

export class BlobDir {
  private readonly cache: BlobCache;

  constructor(readonly root: string, opts: BlobDirOptions = {}) {
    this.cache = new BlobCache(opts.cacheBytes);
  }

  /** Create the directory layout (idempotent). */
  async init(): Promise<void> {
    await mkdir(join(this.root, 'sha256'), { recursive: true });
    await mkdir(join(this.root, 'tmp'), { recursive: true });
  }

  /** Final path of a blob; `hex` must be 64 lowercase hex characters (checked). */
  pathOf(hex: string): string {
    if (!HEX64.test(hex)) throw new CtxpkgError('E_INTERNAL', `not a sha256 hex digest: ${JSON.stringify(hex)}`);
    return join(this.root, 'sha256', hex.slice(0, 2), hex.slice(2, 4), hex);
  }

  /**
   * Durably store `bytes`; returns `{ sha256, size }` (size in bytes). When a blob with this hash
   * already exists it is complete (renames are atomic), so nothing is rewritten. With
   * `durable: false` the file and directory fsyncs are skipped: the write is still atomic, but a
   * crash may lose it or leave a damaged file, which `read` detects by its hash (for derived
   * bytes only — package blobs re-extractable from their artifact). `replace: true` rewrites an
   * existing file (atomically, by rename) — the repair of a damaged one.
   */
  async put(bytes: Uint8Array, opts: { durable?: boolean; replace?: boolean } = {}): Promise<{ sha256: string; size: number }> {
    const durable = opts.durable ?? true;
    const sha256 = sha256OfBytes(bytes);
    const target = this.pathOf(sha256);
    if (!opts.replace && (await exists(target))) return { sha256, size: bytes.byteLength };
    if (opts.replace) this.cache.forget(sha256);
    const dir = join(this.root, 'sha256', sha256.slice(0, 2), sha256.slice(2, 4));
    const created = await mkdir(dir, { recursive: true });
    const tmp = join(this.root, 'tmp', `${sha256.slice(0, 16)}.${randomBytes(8).toString('hex')}.tmp`);
    const fh = await open(tmp, 'wx', 0o644);
    try {
      await fh.writeFile(bytes);
      if (durable) await fh.sync();
    } finally {
      await fh.close();
    }
    try {
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    if (!durable) return { sha256, size: bytes.byteLength };
    // The new entry, and any directories mkdir created on the way, must survive a crash.
    await fsyncDir(dir);
    if (created !== undefined) {
      await fsyncDir(join(this.root, 'sha256', sha256.slice(0, 2)));
      await fsyncDir(join(this.root, 'sha256'));
    }
    return { sha256, size: bytes.byteLength };
  }

  /**
   * Read a blob and check its hash. Returns null when absent; throws `E_INTEGRITY` when the file's
   * bytes do not hash to its name (disk corruption or tampering).
   */
  async read(hex: string): Promise<Uint8Array | null> {
    const hit = this.cache.get(hex);
    if (hit) return hit;
    let bytes: Buffer;
    try {
      bytes = await readFile(this.pathOf(hex));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const found = sha256OfBytes(bytes);
    if (found !== hex) {
      throw new CtxpkgError('E_INTEGRITY', `stored blob ${hex} is corrupt (its bytes hash to ${found})`, {
        details: { expected: hex, found },
      });
    }
    this.cache.remember(hex, bytes);
    return bytes;
  }

  /** Delete a blob file (used for refused publishes and garbage collection). */
  async remove(hex: string): Promise<void> {
    this.cache.forget(hex);
    await rm(this.pathOf(hex), { force: true });
  }

  /** Every stored blob with its modification time in ms since the epoch and its size in bytes, by hash. */
  async list(): Promise<Array<{ sha256: string; mtimeMs: number; size: number }>> {
    const out: Array<{ sha256: string; mtimeMs: number; size: number }> = [];
    const base = join(this.root, 'sha256');
    for (const a of await safeReaddir(base)) {
      for (const b of await safeReaddir(join(base, a))) {
        for (const name of await safeReaddir(join(base, a, b))) {
          if (!HEX64.test(name)) continue;
          const st = await stat(join(base, a, b, name)).catch(() => null);
          if (st) out.push({ sha256: name, mtimeMs: st.mtimeMs, size: st.size });
        }
      }
    }
    out.sort((x, y) => (x.sha256 < y.sha256 ? -1 : x.sha256 > y.sha256 ? 1 : 0));
    return out;
  }

  /** Remove temp files older than `graceMs` (left by a crash mid-write). Returns the count. */
  async removeStaleTemp(graceMs: number, now: number): Promise<number> {
    let removed = 0;
    const dir = join(this.root, 'tmp');
    for (const name of await safeReaddir(dir)) {
      const p = join(dir, name);
      const st = await stat(p).catch(() => null);
      if (st && now - st.mtimeMs >= graceMs) {
        await unlink(p).catch(() => undefined);
        removed++;
      }
    }
    return removed;
  }

}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

async function safeReaddir(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** fsync a directory so a rename into it survives a crash (best effort where unsupported). */
async function fsyncDir(dir: string): Promise<void> {
  let fh;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // Some platforms cannot fsync directories; the rename is still atomic.
  } finally {
    await fh?.close();
  }
}
