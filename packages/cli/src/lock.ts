/**
 * The project lock: one writer at a time per project (`.ctxpkg/lock`). Commands that change
 * ctxpkg.json, ctxpkg.lock or the store take it, then re-read the project files inside it, so
 * two concurrent `ctxpkg install` runs serialize and both changes survive (issue 5 item 5).
 *
 * The lock file is created with O_EXCL and holds `{ pid, host, since }`. A lock whose process is
 * gone (crash, SIGKILL) on this host is stale and is broken by the next command.
 */
import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { CtxpkgError } from '@ctxpkg/format/errors';
import { PROJECT_FILES } from './paths.js';
import { checkDerivedDirs } from './project-dirs.js';

/** A lock file that never got its content (crash right after creation) is stale after this (ms). */
const HALF_WRITTEN_STALE_MS = 5_000;

export interface ProjectLock {
  path: string;
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(path: string): boolean {
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as { pid?: unknown; host?: unknown };
    if (typeof info.pid !== 'number' || info.host !== hostname()) return false;
    return !alive(info.pid);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    // Half-written (a crash between create and write): stale once it is older than a few seconds.
    try {
      return Date.now() - statSync(path).mtimeMs > HALF_WRITTEN_STALE_MS;
    } catch {
      return true;
    }
  }
}

function tryCreate(path: string): boolean {
  try {
    const fd = openSync(path, 'wx', 0o644);
    writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }));
    closeSync(fd);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new CtxpkgError('E_IO', `cannot create the project lock ${path}: ${(err as Error).message}`);
  }
}

/**
 * Acquire the lock of the project at `root`, waiting up to `timeoutMs` (default 120 s).
 * Throws `E_LOCKED` naming the holder when it cannot be acquired in time, and `E_UNSAFE_PATH`
 * (before creating anything) when `.ctxpkg/` or one of its derived directories is a symlink.
 */
export async function acquireProjectLock(root: string, timeoutMs = 120_000): Promise<ProjectLock> {
  checkDerivedDirs(root);
  const dir = join(root, PROJECT_FILES.dir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'lock');
  const deadline = Date.now() + timeoutMs;
  let delay = 10;
  for (;;) {
    if (tryCreate(path)) break;
    if (isStale(path)) {
      try {
        unlinkSync(path);
      } catch {
        /* someone else broke it first */
      }
      continue;
    }
    if (Date.now() >= deadline) {
      let holder = 'another ctxpkg process';
      try {
        holder = `process ${JSON.parse(readFileSync(path, 'utf8')).pid}`;
      } catch {
        /* keep the generic text */
      }
      throw new CtxpkgError('E_LOCKED', `the project is locked by ${holder} (${path})`, {
        hint: 'wait for the other ctxpkg command to finish; if none is running, delete the lock file',
      });
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 200);
  }
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      try {
        unlinkSync(path);
      } catch {
        /* already removed */
      }
    },
  };
}

/** Run `fn` while holding the project lock. */
export async function withProjectLock<T>(root: string, fn: () => Promise<T>, timeoutMs?: number): Promise<T> {
  const lock = await acquireProjectLock(root, timeoutMs);
  try {
    return await fn();
  } finally {
    lock.release();
  }
}
