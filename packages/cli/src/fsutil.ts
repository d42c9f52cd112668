/**
 * File-system helpers of the CLI shell: atomic writes (temp file + fsync + rename) and small
 * readers that turn "missing" into `undefined` instead of an exception.
 *
 * Rule source: ARCHITECTURE.md "Errors" — bad input never writes anything; every write is atomic.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CtxpkgError } from '@ctxpkg/format/errors';
import { withPinnedPath } from './pinned.js';

/**
 * The error for a failed read or write of `path` (`verb`: "read" or "write"). A failure this
 * machine's state explains — the path is a directory or crosses a file (EISDIR, ENOTDIR), no
 * permission (EACCES, EPERM), a read-only file system (EROFS), a full disk (ENOSPC, EDQUOT) — is
 * `E_ENVIRONMENT` (exit 9) with a hint saying what to change; anything else stays `E_IO` (exit 70).
 */
export function fsError(verb: 'read' | 'write', path: string, err: unknown): CtxpkgError {
  const code = (err as NodeJS.ErrnoException).code;
  const hints: Record<string, string> = {
    EISDIR: `${path} is a directory, but ctxpkg needs a file there: move or remove the directory`,
    ENOTDIR: `a part of ${path} is a file where a directory must be: move or remove that file`,
    EACCES: `you may not ${verb} ${path}: check its owner and mode (ls -l), or run as the user who owns it`,
    EPERM: `the system does not allow you to ${verb} ${path}: check its owner, mode and attributes (ls -l)`,
    EROFS: `${path} is on a read-only file system: run where you can write`,
    ENOSPC: 'the disk is full: free some space and run again',
    EDQUOT: 'your disk quota is used up: free some space and run again',
  };
  const hint = code === undefined ? undefined : hints[code];
  if (hint !== undefined) {
    return new CtxpkgError('E_ENVIRONMENT', `cannot ${verb} ${path}: ${(err as Error).message}`, { hint, details: { path, errno: code }, cause: err });
  }
  return new CtxpkgError('E_IO', `cannot ${verb} ${path}: ${(err as Error).message}`, { cause: err });
}

export interface AtomicWriteOptions {
  /** File mode of the new file (default 0o644). The mode is set at creation, before any byte. */
  mode?: number;
}

/** fsync a directory so a rename inside it is durable (best effort where unsupported). */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on directories; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Write `data` (bytes, or a string written as UTF-8) to `path` atomically: a uniquely named
 * temp file in the same directory is written, fsynced and renamed over `path`; a crash leaves
 * either the old file or the new one, never a torn one. Creates parent directories.
 * Throws `E_ENVIRONMENT` or `E_IO` on failure (`fsError`; the temp file is removed).
 */
export function writeFileAtomic(path: string, data: Uint8Array | string, options: AtomicWriteOptions = {}): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  // Under .ctxpkg/ the temp file, the rename and the fsync go through pinned directory handles
  // (pinned.ts, issue 11 item 10); elsewhere `file` is `path`.
  withPinnedPath(path, (file, dir) => {
    if (file === path) mkdirSync(dir, { recursive: true });
    const tmp = join(dir, `.${randomBytes(6).toString('hex')}.tmp`);
    let fd: number | undefined;
    try {
      fd = openSync(tmp, 'wx', options.mode ?? 0o644);
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
      fsyncSync(fd);
      closeSync(fd);
      fd = undefined;
      renameSync(tmp, file);
      fsyncDir(dir);
    } catch (err) {
      if (fd !== undefined) closeSync(fd);
      try {
        unlinkSync(tmp);
      } catch {
        /* already gone */
      }
      throw fsError('write', path, err);
    }
  });
}

/** `unlinkSync(path)`, through pinned directory handles under `.ctxpkg/` (pinned.ts). */
export function unlinkPinned(path: string): void {
  withPinnedPath(path, (file) => unlinkSync(file));
}

/**
 * Write several files atomically, each as `writeFileAtomic` does (temp file, fsync, rename), but
 * fsync each directory once after all its renames instead of once per file (`ctxpkg sync` writes
 * hundreds of agent files). Each file is replaced atomically on its own; a crash can leave some
 * files new and others old, never a torn one. Creates parent directories. Throws `E_ENVIRONMENT`/`E_IO` (`fsError`).
 */
export function writeFilesAtomic(files: ReadonlyArray<{ path: string; data: string }>): void {
  const dirs = new Set<string>();
  for (const f of files) {
    const dir = dirname(f.path);
    mkdirSync(dir, { recursive: true });
    const tmp = join(dir, `.${randomBytes(6).toString('hex')}.tmp`);
    const bytes = Buffer.from(f.data, 'utf8');
    let fd: number | undefined;
    try {
      fd = openSync(tmp, 'wx', 0o644);
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
      fsyncSync(fd);
      closeSync(fd);
      fd = undefined;
      renameSync(tmp, f.path);
      dirs.add(dir);
    } catch (err) {
      if (fd !== undefined) closeSync(fd);
      try {
        unlinkSync(tmp);
      } catch {
        /* already gone */
      }
      throw fsError('write', f.path, err);
    }
  }
  for (const d of dirs) fsyncDir(d);
}

/** Read a file as bytes, or `undefined` when it does not exist. Other errors throw `fsError`'s (`E_ENVIRONMENT`, `E_IO`). */
export function readIfExists(path: string): Uint8Array | undefined {
  try {
    return new Uint8Array(readFileSync(path));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fsError('read', path, err);
  }
}

/**
 * Read a file as the runtime's `Buffer` (no copy into a plain `Uint8Array`), or `undefined` when
 * it does not exist. Other errors throw `fsError`'s. For large files read once and used as bytes and
 * as text (merged.json: hashed as bytes, then decoded).
 */
export function readBufferIfExists(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fsError('read', path, err);
  }
}

/**
 * Read a UTF-8 text file, or `undefined` when it does not exist (invalid UTF-8 decodes to
 * U+FFFD, a BOM is kept). Other errors throw `fsError`'s. One read, one decode: no copy of the bytes.
 */
export function readTextIfExists(path: string): string | undefined {
  return readBufferIfExists(path)?.toString('utf8');
}
