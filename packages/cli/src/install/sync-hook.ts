/**
 * After install/update/uninstall has committed and rebuilt the merged graph: deliver it to the
 * agent files (`sync`, spec/pack.md) when `context.sync.auto` is on, and after an uninstall that
 * leaves nothing installed remove what earlier syncs wrote.
 *
 * A sync failure does not undo the change (ctxpkg.json, ctxpkg.lock and `.ctxpkg/` are
 * committed), but agents did not get it, so the user and CI must see it: the failure is returned
 * (`error`) and the command exits with `SYNC_FAILED_EXIT` (8, README "Exit codes") after printing
 * its report and a warning naming the command to re-run.
 */
import { isCtxpkgError, type CtxpkgError } from '@ctxpkg/format';
import type { CliDeps } from '../deps.js';

/** Exit code of install/update/uninstall when the project changed but syncing agent files failed. */
export const SYNC_FAILED_EXIT = 8;

export interface SyncOutcome {
  text: string[];
  warnings: string[];
  /** The sync failure, when there was one (the change itself is committed). */
  error?: CtxpkgError;
}

/** `verb` is what the command did (`installed`, `updated`, `uninstalled`), for the warning. */
export async function syncAfterInstall(root: string, deps: CliDeps, nothingLeft = false, verb = 'installed'): Promise<SyncOutcome> {
  const { syncAfterChange, removeSyncOutputs, describeSync } = await import('../targets/index.js');
  const at = { cwd: root, clock: deps.clock, env: deps.env, homeDir: deps.homeDir };
  try {
    let report = syncAfterChange(at);
    if (!report && nothingLeft) report = removeSyncOutputs(at);
    if (!report) return { text: [], warnings: [] };
    const d = describeSync(report);
    return { text: d.text.map((l) => `sync: ${l}`), warnings: d.warnings };
  } catch (err) {
    if (!isCtxpkgError(err)) throw err;
    return {
      text: [],
      warnings: [`${verb}, but syncing agent files failed, so agents did not get this change: ${err.code}: ${err.message}${err.hint ? ` (${err.hint})` : ''}; fix it and run \`ctxpkg sync\``],
      error: err,
    };
  }
}
