/**
 * One server per data directory (spec/registry.md "Storage"): `server.lock` holds the pid of the
 * serving process and the directory it was taken for — its path and its identity (device and
 * inode), one JSON object: `{"pid":123,"dir":"/srv/data","dev":"2049","ino":"131074"}`.
 *
 * A lock is stale, and is taken over, when its process is gone (a crash, SIGKILL), or when it was
 * taken for another directory: a data directory copied with `cp -a` (a staging clone, a cold copy,
 * a filesystem snapshot) carries the original's lock, whose pid serves the original, not the copy.
 * A lock of the older format (the pid alone) cannot say which directory it was for, so a live pid
 * refuses with a hint that tells the operator how to check and when deleting it is safe.
 * The admin functions do not take the lock — they are safe alongside a running server.
 */
import { mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CtxpkgError } from '@ctxpkg/format';

export const LOCK_FILE = 'server.lock';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What a lock file says: the pid, and (current format) the directory it was taken for. */
interface LockHolder {
  pid: number;
  dir?: string;
  dev?: string;
  ino?: string;
}

/** Parse a lock file's text: the JSON object, or the older bare pid. `undefined` when neither. */
function parseLock(text: string): LockHolder | undefined {
  const t = text.trim();
  if (/^[0-9]{1,10}$/.test(t)) return { pid: Number(t) };
  try {
    const o = JSON.parse(t) as Record<string, unknown>;
    if (typeof o !== 'object' || o === null || !Number.isSafeInteger(o.pid)) return undefined;
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    return { pid: o.pid as number, dir: str(o.dir), dev: str(o.dev), ino: str(o.ino) };
  } catch {
    return undefined;
  }
}

/**
 * Take the server lock of `dataDir`. Throws `E_LOCKED` when a live process holds it for this
 * directory (or, older lock format, may hold it). `note` receives one sentence when a lock taken
 * for another directory (a copy's) is taken over. The returned `release` removes the lock file
 * (only if it still names this process).
 */
export async function acquireServerLock(dataDir: string, note: (text: string) => void = () => undefined): Promise<{ release(): Promise<void> }> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const id = await stat(dataDir, { bigint: true });
  const here = { dev: String(id.dev), ino: String(id.ino) };
  const mine = JSON.stringify({ pid: process.pid, dir: resolve(dataDir), ...here });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fh = await open(path, 'wx', 0o644);
      await fh.writeFile(mine + '\n');
      await fh.close();
      return {
        async release() {
          const cur = await readFile(path, 'utf8').catch(() => '');
          if (cur.trim() === mine) await rm(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new CtxpkgError('E_IO', `cannot create ${path}: ${(err as Error).message}`, { cause: err });
      }
    }
    const holder = parseLock(await readFile(path, 'utf8').catch(() => ''));
    const pid = holder?.pid ?? 0;
    const live = pid > 0 && (pid === process.pid || alive(pid));
    const foreign = holder?.dev !== undefined && holder.ino !== undefined && (holder.dev !== here.dev || holder.ino !== here.ino);
    if (live && foreign) {
      // Copied with the directory: that pid serves the original, not this directory.
      note(`${path} was copied from ${holder?.dir ?? 'another data directory'} (pid ${pid} serves that directory, not this one): taken over`);
    } else if (pid === process.pid) {
      throw new CtxpkgError('E_LOCKED', `this process already serves ${dataDir}`);
    } else if (live) {
      const legacy = holder?.dev === undefined;
      throw new CtxpkgError('E_LOCKED', `another registry server (pid ${pid}) is serving ${dataDir}`, {
        hint: legacy
          ? `stop it first (the admin commands work while it runs). If pid ${pid} serves another directory (this one is a copy of it), check with \`ps -p ${pid} -o args\`; then deleting ${path} is safe`
          : 'stop it first; the admin commands work while it runs',
        details: { pid, lock: path, ...(holder?.dir ? { dir: holder.dir } : {}) },
      });
    }
    // Stale lock (its process is gone, or it was taken for another directory): remove it and retry.
    await rm(path, { force: true });
  }
  throw new CtxpkgError('E_LOCKED', `could not take the server lock ${path}`, { hint: 'another server may be starting on this directory' });
}
