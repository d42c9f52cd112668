/**
 * Writing under `.ctxpkg/` through a directory handle, never through a path an attacker can
 * re-point (issue 11 item 10: a local user with write access to `.ctxpkg/` swapped `graph/` or
 * `store/` for a symlink between ctxpkg's check and its write, and the write landed outside the
 * project in 3 of 40 runs).
 *
 * Node has no `openat`, so the race is closed the way `openat` would: on Linux every directory
 * from `.ctxpkg` down to the file's parent is opened component by component with
 * `O_DIRECTORY | O_NOFOLLOW`, each one relative to the previous handle through its
 * `/proc/self/fd/<n>` magic link (the kernel resolves that link to the opened directory itself,
 * not to the name it had), creating missing components the same way. The operation then uses
 * `/proc/self/fd/<dir>/<name>`: the temp file, the rename and the unlink all happen in the
 * directory that was checked, whatever the names point to by then. A component that is a symlink
 * fails to open (`ELOOP`) → `E_UNSAFE_PATH`, nothing written.
 *
 * Without `/proc` (macOS, BSD) the same components are `lstat`ed before and after the operation;
 * a symlink seen before refuses, one seen after is reported (`E_UNSAFE_PATH`) — a narrower window,
 * not a closed one; documented in AGENTS.md.
 */
import { closeSync, constants, existsSync, lstatSync, mkdirSync, openSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { CtxpkgError } from '@ctxpkg/format/errors';

const MARK = `${sep}.ctxpkg${sep}`;
const HAS_PROC = process.platform === 'linux' && existsSync('/proc/self/fd');

function unsafe(rel: string): CtxpkgError {
  return new CtxpkgError('E_UNSAFE_PATH', `${rel} is a symbolic link (or was replaced by one); ctxpkg never writes through links under .ctxpkg/`, {
    hint: '.ctxpkg/ is derived data: delete it and run the command again',
  });
}

/**
 * Run `fn` with `path` re-expressed through pinned directory handles when `path` lies under a
 * `.ctxpkg/` directory (module docstring); other paths are passed through unchanged. `fn` gets
 * the path to use and the directory path to fsync. Throws `E_UNSAFE_PATH` for a symlinked
 * component, and whatever `fn` throws.
 */
export function withPinnedPath<T>(path: string, fn: (file: string, dir: string) => T): T {
  const at = path.lastIndexOf(MARK);
  if (at < 0) return fn(path, dirname(path));
  const root = path.slice(0, at);
  const comps = dirname(path).slice(at + 1).split(sep); // ['.ctxpkg', 'graph', …]
  if (!HAS_PROC) {
    const check = (): void => {
      let cur = root;
      for (const c of comps) {
        cur = join(cur, c);
        try {
          if (lstatSync(cur).isSymbolicLink()) throw unsafe(cur.slice(root.length + 1));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
          return;
        }
      }
    };
    check();
    mkdirSync(dirname(path), { recursive: true });
    const out = fn(path, dirname(path));
    check();
    return out;
  }
  const fds: number[] = [];
  try {
    let parent = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
    fds.push(parent);
    let rel = '';
    for (const c of comps) {
      rel = rel ? `${rel}/${c}` : c;
      const through = `/proc/self/fd/${parent}/${c}`;
      let opened: number | undefined;
      // A component removed between mkdir and open (someone else is changing .ctxpkg/) is made
      // again, a few times; then the write is refused rather than retried forever.
      for (let attempt = 0; opened === undefined; attempt++) {
        try {
          mkdirSync(through);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        }
        try {
          opened = openSync(through, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'ELOOP' || code === 'ENOTDIR') throw unsafe(rel);
          if (code !== 'ENOENT') throw err;
          if (attempt >= 3) throw new CtxpkgError('E_UNSAFE_PATH', `${rel} keeps disappearing while ctxpkg writes to it; is another process changing .ctxpkg/?`, { hint: 'stop the other process, delete .ctxpkg/ and run the command again' });
        }
      }
      parent = opened;
      fds.push(parent);
    }
    const dir = `/proc/self/fd/${parent}`;
    return fn(`${dir}/${basename(path)}`, dir);
  } finally {
    for (const fd of fds.reverse()) closeSync(fd);
  }
}
