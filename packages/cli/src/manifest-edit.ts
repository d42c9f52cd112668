/**
 * Editing ctxpkg.json from commands that change only it (`sync --target/--remove`, `pin`,
 * `unpin`, `trust add|rm`): read, edit, validate the result with the same parser every command
 * uses (nothing invalid is ever written), and commit it under the project lock through the
 * project-file journal (install/txn.ts), so a concurrent install never loses the edit.
 */
import { CtxpkgError } from '@ctxpkg/format/errors';
import { commitProjectFiles, recoverProjectFiles } from './install/txn.js';
import { withProjectLock } from './lock.js';
import { PROJECT_FILES } from './paths.js';
import { findProjectRoot, parseManifest, readManifest, serializeManifest, type ProjectManifest } from './project.js';

/**
 * Apply `edit` to the manifest of the project around `cwd` and write it when it changed.
 * `edit` returns what the command reports. Throws `E_NOT_FOUND` without a ctxpkg.json, and the
 * parser's errors when the edited manifest is invalid (then nothing is written).
 */
export async function editManifest<T>(cwd: string, edit: (m: ProjectManifest) => T, dryRun = false): Promise<{ root: string; result: T; changed: boolean }> {
  const { root, exists } = findProjectRoot(cwd);
  if (!exists) throw new CtxpkgError('E_NOT_FOUND', `no ${PROJECT_FILES.manifest} in ${cwd} or any parent directory`, { hint: 'run `ctxpkg init` first' });
  const run = async () => {
    if (!dryRun) recoverProjectFiles(root);
    const m = readManifest(root);
    const before = serializeManifest(m);
    const result = edit(m);
    const after = serializeManifest(m);
    parseManifest(after);
    const changed = after !== before;
    if (changed && !dryRun) commitProjectFiles(root, { [PROJECT_FILES.manifest]: after });
    return { root, result, changed };
  };
  return dryRun ? run() : withProjectLock(root, run);
}

/** The `context` member of `m` as a plain object (created when absent). */
export function contextOf(m: ProjectManifest): Record<string, unknown> {
  const c = m.extra.context;
  if (typeof c === 'object' && c !== null && !Array.isArray(c)) return c as Record<string, unknown>;
  const fresh: Record<string, unknown> = {};
  m.extra.context = fresh;
  return fresh;
}

/** The `context.sync` member of `m` as a plain object (created when absent). */
export function syncOf(m: ProjectManifest): Record<string, unknown> {
  const ctx = contextOf(m);
  const s = ctx.sync;
  if (typeof s === 'object' && s !== null && !Array.isArray(s)) return s as Record<string, unknown>;
  const fresh: Record<string, unknown> = {};
  ctx.sync = fresh;
  return fresh;
}
