/**
 * The derived directories below a project root that ctxpkg writes into — `.ctxpkg/`, its
 * `store/`, `store/sha256/`, `store/blobs/`, `store/blobs/sha256/`, `graph/` and `receipts/`
 * (`ctxpkg render` to stdout writes its receipt there) — must be real
 * directories of the project, never symbolic links. A repository can carry a symlink named
 * `.ctxpkg` (it is only gitignored, not forbidden); following it, an install would create,
 * overwrite and prune files wherever the link points, outside the project (the symlink-following
 * class of node-tar CVE-2021-32803; the "symlinked store dirs" variant of ADVERSARIAL
 * HB-13/HB-26). Checked before the project lock is taken, so a refused command writes nothing.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { CtxpkgError } from '@ctxpkg/format/errors';
import { PROJECT_FILES } from './paths.js';

/** Derived directories, outermost first (POSIX spelling, relative to the project root). */
export const DERIVED_DIRS: readonly string[] = [
  PROJECT_FILES.dir,
  PROJECT_FILES.store,
  join(PROJECT_FILES.store, 'sha256'),
  join(PROJECT_FILES.store, 'blobs'),
  join(PROJECT_FILES.store, 'blobs', 'sha256'),
  join(PROJECT_FILES.dir, 'graph'),
  join(PROJECT_FILES.dir, 'receipts'),
];

/**
 * Throw `E_UNSAFE_PATH` when any existing derived directory of the project at `root` is a
 * symbolic link or not a directory. Missing directories are fine (they are created later as
 * real directories).
 */
export function checkDerivedDirs(root: string): void {
  for (const rel of DERIVED_DIRS) {
    let st;
    try {
      st = lstatSync(join(root, rel));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new CtxpkgError('E_IO', `cannot inspect ${rel}: ${(err as Error).message}`);
    }
    if (st.isSymbolicLink() || !st.isDirectory()) {
      throw new CtxpkgError('E_UNSAFE_PATH', `${rel} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}; ctxpkg writes only into real directories of the project`, {
        hint: `${PROJECT_FILES.dir}/ is derived data: delete ${rel} and run the command again`,
        details: { path: rel },
      });
    }
  }
}
