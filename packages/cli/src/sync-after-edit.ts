/**
 * The agent-file sync that follows an edit of ctxpkg.json by `pin`, `unpin` and `trust add|rm`:
 * the edit changes what every agent receives, so the agent files are brought up to date at once
 * when `context.sync.auto` is on (the default), as install does. Lines are prefixed `sync: `.
 */
import type { CliDeps } from './deps.js';

/**
 * Run sync when `context.sync.auto` is on; returns the report lines (`sync: …`) and its
 * warnings, or one line saying to run `ctxpkg sync` when auto-sync is off. Throws what
 * `syncProject` and `loadProjectContext` throw (e.g. `E_BUDGET`, `E_UNSEALED`).
 */
export async function syncAfterEdit(deps: Pick<CliDeps, 'cwd' | 'clock' | 'env' | 'homeDir'>): Promise<{ text: string[]; warnings: string[] }> {
  const { syncAfterChange, describeSync } = await import('./targets/index.js');
  const report = syncAfterChange({ cwd: deps.cwd, clock: deps.clock, env: deps.env, homeDir: deps.homeDir });
  if (!report) return { text: ['run `ctxpkg sync` to update the agent files ("context.sync.auto" is off)'], warnings: [] };
  const d = describeSync(report);
  return { text: d.text.map((l) => `sync: ${l}`), warnings: d.warnings };
}
