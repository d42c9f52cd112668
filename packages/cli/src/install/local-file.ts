/**
 * Reading a local package file for `ctxpkg install <file>` and `file:` dependencies (issue 11
 * item 7). ctxpkg.json and ctxpkg.lock come from the repository, so a hostile one can name
 * `/dev/zero` (gigabytes), a FIFO (blocks forever on open), `/proc/…`, or a file outside the
 * project. Rules:
 *
 * 1. The path is resolved (`realpath`, every symlink followed) and must lie inside the project's
 *    real root — unless `allowOutside` (a path the user typed on the command line, or
 *    `CTXPKG_ALLOW_OUTSIDE_FILES=1`): else `E_UNSAFE_PATH`.
 * 2. The resolved path is opened with `O_NOFOLLOW | O_NONBLOCK` (a symlink swapped in after the
 *    check fails to open; a FIFO opens without waiting for a writer), and the open descriptor is
 *    `fstat`ed: only a regular file is read (else `E_UNSAFE_PATH` naming what it is), of at most
 *    `MAX_DOWNLOAD_BYTES` (else `E_TOO_LARGE`, before reading anything).
 * 3. On Linux the descriptor's own path (`/proc/self/fd/N`) is checked against the root again, so a
 *    directory swapped for a symlink between the check and the open is caught too.
 * 4. At most the size `fstat` reported (+1 byte, to notice growth: `E_IO`) is read.
 */
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, realpathSync, type Stats } from 'node:fs';
import { isAbsolute, relative, resolve as resolvePath, sep } from 'node:path';
import { CtxpkgError } from '@ctxpkg/format';
import { MAX_DOWNLOAD_BYTES } from '../client.js';

/** The environment variable that allows `file:` dependencies outside the project. */
export const ALLOW_OUTSIDE_ENV = 'CTXPKG_ALLOW_OUTSIDE_FILES';

/** True when `CTXPKG_ALLOW_OUTSIDE_FILES` is `1` (or `true`). */
export function allowOutsideFiles(env: Record<string, string | undefined>): boolean {
  const v = env[ALLOW_OUTSIDE_ENV];
  return v === '1' || v === 'true';
}

const inside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel));
};

function kind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}

/**
 * The bytes of the package file `rel` (relative to `root`, or absolute), by the rules of the
 * module docstring. `label` names it in errors (`file:vendor/kb.ctxpkg`). Throws `E_NOT_FOUND`
 * (missing), `E_UNSAFE_PATH` (outside the project, a symlink swapped in, not a regular file),
 * `E_TOO_LARGE`, `E_IO`.
 */
export function readLocalFile(root: string, rel: string, opts: { allowOutside: boolean; label: string }): Uint8Array {
  const { label } = opts;
  let real: string;
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
    real = realpathSync(resolvePath(root, rel));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new CtxpkgError('E_NOT_FOUND', `cannot read ${label}: no such file`);
    throw new CtxpkgError('E_IO', `cannot read ${label}: ${(err as Error).message}`);
  }
  const outsideHint = `copy the package into the project, or set ${ALLOW_OUTSIDE_ENV}=1 if you trust this ctxpkg.json`;
  if (!opts.allowOutside && !inside(realRoot, real)) {
    throw new CtxpkgError('E_UNSAFE_PATH', `${label} resolves outside the project (to ${real}); refusing to read it`, { hint: outsideHint, details: { path: real } });
  }
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new CtxpkgError('E_UNSAFE_PATH', `${label} was replaced by a symbolic link while it was read; refusing it`);
    if (code === 'ENOENT') throw new CtxpkgError('E_NOT_FOUND', `cannot read ${label}: no such file`);
    throw new CtxpkgError('E_IO', `cannot read ${label}: ${(err as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) {
      throw new CtxpkgError('E_UNSAFE_PATH', `${label} is not a regular file (${kind(st)}); a package dependency must be a .ctxpkg file`, { hint: 'point the dependency at a .ctxpkg file' });
    }
    if (st.size > MAX_DOWNLOAD_BYTES) {
      throw new CtxpkgError('E_TOO_LARGE', `${label} is ${st.size} bytes; the limit is ${MAX_DOWNLOAD_BYTES}`);
    }
    if (!opts.allowOutside && process.platform === 'linux') {
      let opened: string | undefined;
      try {
        opened = readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        opened = undefined; // no /proc: the realpath check above stands
      }
      if (opened !== undefined && !inside(realRoot, opened)) {
        throw new CtxpkgError('E_UNSAFE_PATH', `${label} resolves outside the project (to ${opened}); refusing to read it`, { hint: outsideHint });
      }
    }
    // One byte more than fstat said, to notice a file that grows while it is read.
    const buf = Buffer.alloc(st.size + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
      if (n === buf.length) throw new CtxpkgError('E_IO', `${label} changed while it was read; try again`);
    }
    return new Uint8Array(buf.buffer, buf.byteOffset, n);
  } finally {
    closeSync(fd);
  }
}
