/**
 * After install/update/uninstall has committed and rebuilt the merged graph: deliver it to the
 * agent files (`sync`, spec/pack.md) when `context.sync.auto` is on, and after an uninstall that
 * leaves nothing installed remove what earlier syncs wrote. A sync failure does not undo the
 * install (it is committed); it is reported as a warning with the command to re-run.
 */
import { isCtxpkgError } from '@ctxpkg/format';
import type { CliDeps } from '../deps.js';

export async function syncAfterInstall(root: string, deps: CliDeps, nothingLeft = false): Promise<{ text: string[]; warnings: string[] }> {
  const { syncAfterChange, removeSyncOutputs, describeSync } = await import('../targets/index.js');
  const at = { cwd: root, clock: deps.clock };
  try {
    let report = syncAfterChange(at);
    if (!report && nothingLeft) report = removeSyncOutputs(at);
    if (!report) return { text: [], warnings: [] };
    const d = describeSync(report);
    return { text: d.text.map((l) => `sync: ${l}`), warnings: d.warnings };
  } catch (err) {
    if (!isCtxpkgError(err)) throw err;
    return { text: [], warnings: [`installed, but syncing agent files failed: ${err.code}: ${err.message} (fix it and run \`ctxpkg sync\`)`] };
  }
}
