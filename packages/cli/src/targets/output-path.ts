/**
 * Where `ctxpkg sync` may write (spec/pack.md "Sync"): an agent file (`AGENTS.md`, `CLAUDE.md`,
 * `.cursor/rules/ctxpkg-….mdc`, `.github/instructions/ctxpkg-….instructions.md`) is read, edited
 * and replaced only when it is a regular file (or absent) whose directories stay inside the
 * project. A symlinked agent file is left alone: following it would read a file from anywhere
 * (`AGENTS.md -> ~/.aws/credentials`) and write its text back into the project, or replace a
 * link the user made on purpose (`CLAUDE.md -> AGENTS.md`, which already gets the block). A
 * directory that resolves outside the project through a symlink (`.cursor -> /elsewhere`) is
 * never written into (the symlink-following class of node-tar CVE-2021-32803).
 */
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

function inside(realRoot: string, real: string): boolean {
  const rel = relative(realRoot, real);
  return rel === '' || (rel !== '..' && !rel.startsWith('..' + sep) && !isAbsolute(rel));
}

/**
 * Why sync must not touch the output `path` (POSIX, relative to `root`), or undefined when it may.
 * Reasons: the file is a symbolic link or not a regular file; a directory on the way resolves
 * outside the project, or is not a directory.
 */
export function outputPathProblem(root: string, path: string): string | undefined {
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return 'the project root cannot be resolved';
  }
  const parts = path.split('/');
  let cur = root;
  for (let i = 0; i < parts.length; i++) {
    cur = join(cur, parts[i]!);
    let st;
    try {
      st = lstatSync(cur);
    } catch {
      return undefined; // the rest does not exist yet: it is created as real directories/files
    }
    const last = i === parts.length - 1;
    if (last) {
      if (st.isSymbolicLink()) return 'is a symbolic link; left alone (sync writes only regular files of the project)';
      if (!st.isFile()) return 'is not a regular file; left alone';
      return undefined;
    }
    if (st.isSymbolicLink()) {
      let real: string;
      try {
        real = realpathSync(cur);
      } catch {
        return `${parts.slice(0, i + 1).join('/')} is a dangling symbolic link; left alone`;
      }
      if (!inside(realRoot, real)) return `${parts.slice(0, i + 1).join('/')} is a symbolic link to outside the project; left alone`;
    }
    // A file where a folder must be (`.kiro/settings` committed as a file): reading or writing
    // below it fails (ENOTDIR), which stopped the whole sync; this output alone is skipped.
    let dir = st.isDirectory();
    if (st.isSymbolicLink()) {
      try {
        dir = statSync(cur).isDirectory();
      } catch {
        dir = false;
      }
    }
    if (!dir) return `${parts.slice(0, i + 1).join('/')} is not a folder; left alone`;
  }
  return undefined;
}
