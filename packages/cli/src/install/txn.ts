/**
 * Atomic commit of the project files `ctxpkg.json` + `ctxpkg.lock` (issue 5 item 5).
 *
 * Each file is written atomically on its own, but the pair must change together. The commit
 * first writes a journal `.ctxpkg/txn.json` holding the full new text of every file (atomic,
 * fsynced): that rename is the commit point. Then each file is replaced and the journal removed.
 * A crash before the commit point leaves the old pair; a crash after it is rolled forward by
 * `recoverProjectFiles`, which every mutating command runs first under the project lock.
 */
import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fsyncDir, writeFileAtomic } from '../fsutil.js';
import { PROJECT_FILES } from '../paths.js';

const FILES = new Set<string>([PROJECT_FILES.manifest, PROJECT_FILES.lockfile]);

function journalPath(root: string): string {
  return join(root, PROJECT_FILES.dir, 'txn.json');
}

function apply(root: string, files: Record<string, string | null>): void {
  for (const name of Object.keys(files).sort()) {
    if (!FILES.has(name)) continue;
    const text = files[name];
    const target = join(root, name);
    if (text === null) {
      if (existsSync(target)) unlinkSync(target);
    } else if (!existsSync(target) || readFileSync(target, 'utf8') !== text) {
      writeFileAtomic(target, text);
    }
  }
}

/**
 * Replace project files together. `files` maps a project file name (`ctxpkg.json`,
 * `ctxpkg.lock`) to its new text, or null to delete it. Call under the project lock.
 */
export function commitProjectFiles(root: string, files: Record<string, string | null>): void {
  const journal = journalPath(root);
  writeFileAtomic(journal, JSON.stringify({ files }));
  apply(root, files);
  unlinkSync(journal);
  fsyncDir(join(root, PROJECT_FILES.dir));
}

/** Roll a committed but unfinished change forward. Returns true when it did. Call under the lock. */
export function recoverProjectFiles(root: string): boolean {
  const journal = journalPath(root);
  if (!existsSync(journal)) return false;
  let files: Record<string, string | null> | undefined;
  try {
    const j = JSON.parse(readFileSync(journal, 'utf8')) as { files?: unknown };
    if (j.files && typeof j.files === 'object') files = j.files as Record<string, string | null>;
  } catch {
    files = undefined;
  }
  if (files) apply(root, files);
  unlinkSync(journal);
  return files !== undefined;
}
