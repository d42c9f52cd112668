/**
 * One server per data directory (spec/registry.md "Storage"): `server.lock` holds the pid of the
 * serving process. A lock whose process is gone (a crash, SIGKILL) is taken over. The admin
 * functions do not take it — they are safe alongside a running server.
 */
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
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

/**
 * Take the server lock of `dataDir`. Throws `E_LOCKED` when a live process holds it. The returned
 * `release` removes the lock file (only if it still names this process).
 */
export async function acquireServerLock(dataDir: string): Promise<{ release(): Promise<void> }> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const mine = String(process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fh = await open(path, 'wx', 0o644);
      await fh.writeFile(mine);
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
    const holder = Number((await readFile(path, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
      throw new CtxpkgError('E_LOCKED', `another registry server (pid ${holder}) is serving ${dataDir}`, {
        hint: 'stop it first; the admin commands work while it runs',
      });
    }
    if (holder === process.pid) {
      throw new CtxpkgError('E_LOCKED', `this process already serves ${dataDir}`);
    }
    // Stale lock from a process that is gone: remove it and retry.
    await rm(path, { force: true });
  }
  throw new CtxpkgError('E_LOCKED', `could not take the server lock ${path}`, { hint: 'another server may be starting on this directory' });
}
