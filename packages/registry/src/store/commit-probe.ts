/**
 * "Has another connection committed since I last looked?" for a WAL-mode SQLite database, cheap
 * enough to ask on every request (spec/registry.md §13 "Caching").
 *
 * The exact answer is `PRAGMA data_version` (it changes when another connection — this process or
 * another one — has committed). Running it costs a statement and three system calls (lock, stat,
 * unlock), several microseconds, which is a large part of serving a cached `index.json`. SQLite
 * itself decides "the database changed" at the start of every read transaction by comparing the
 * wal-index header with the copy it saw last (walIndexTryHdr: a `memcmp` of the 48-byte
 * `WalIndexHdr`); every commit rewrites that header (new `mxFrame`, frame checksum, and after a
 * WAL reset new salts), and `data_version` is derived from exactly that comparison. The header is
 * the first 48 bytes of `<db>-shm` (https://sqlite.org/walformat.html §2.1, a stable, documented
 * format shared by every process using the database). So this probe reads those 48 bytes (one
 * `pread`) and runs `PRAGMA data_version` only when they differ from the bytes read before the
 * previous `PRAGMA`: unchanged bytes prove that nobody committed since.
 *
 * A writer updates the header's second copy, then the first (the one read here). A read racing
 * with that update either still sees the old first copy — the commit has not completed, and a
 * SQLite reader would not see it either — or sees changed bytes and falls through to the exact
 * `PRAGMA`. The bytes are read *before* the `PRAGMA`, so a commit between the two only causes one
 * more `PRAGMA` on the next call, never a missed change. When the file is missing, unreadable or
 * does not look like a wal-index (version 3007000, initialised), every call runs the `PRAGMA`.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import type Database from 'better-sqlite3';
import { prepared } from './statements.js';

/** `WalIndexHdr` size in bytes and the version SQLite writes into its `iVersion` field. */
const HEADER_BYTES = 48;
const WALINDEX_VERSION = 3007000;

export class CommitProbe {
  private fd: number | null = null;
  private readonly seen = Buffer.alloc(HEADER_BYTES);
  private readonly now = Buffer.alloc(HEADER_BYTES);
  /** `seen` holds the header as read before the last `PRAGMA data_version`. */
  private seenValid = false;
  private dataVersion = -1;

  /**
   * `db` must be open in WAL mode; `shmPath` is its `-shm` file (`<database file>-shm`). Never
   * throws: without a usable wal-index file the probe falls back to `PRAGMA data_version` alone.
   */
  constructor(private readonly db: Database.Database, shmPath: string) {
    try {
      const fd = openSync(shmPath, 'r');
      this.fd = fd;
      if (!this.readHeader(this.now) || !looksLikeWalIndex(this.now)) this.close();
    } catch {
      this.close();
    }
  }

  /** True when the fast path is in use (a readable wal-index header); for tests and diagnostics. */
  get usesWalIndex(): boolean {
    return this.fd !== null;
  }

  /**
   * True when another connection committed since the previous call (the first call answers true).
   * Exact: after such a commit has completed, the next call answers true.
   */
  changed(): boolean {
    const readable = this.fd !== null && this.readHeader(this.now);
    if (readable && this.seenValid && this.now.equals(this.seen)) return false;
    const dv = Number(prepared(this.db, 'PRAGMA data_version').pluck().get());
    if (readable) this.now.copy(this.seen);
    this.seenValid = readable;
    const changed = dv !== this.dataVersion;
    this.dataVersion = dv;
    return changed;
  }

  /** Release the file descriptor (idempotent); later calls use `PRAGMA data_version` alone. */
  close(): void {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      // Already closed: nothing to release.
    }
    this.fd = null;
  }

  private readHeader(into: Buffer): boolean {
    try {
      return readSync(this.fd as number, into, 0, HEADER_BYTES, 0) === HEADER_BYTES;
    } catch {
      return false;
    }
  }
}

/** `iVersion` (u32, native byte order) is 3007000 and `isInit` (byte 12) is 1. */
function looksLikeWalIndex(h: Buffer): boolean {
  const version = endianness() === 'LE' ? h.readUInt32LE(0) : h.readUInt32BE(0);
  return version === WALINDEX_VERSION && h[12] === 1;
}
