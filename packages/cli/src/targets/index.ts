/**
 * Agent-file targets of `ctxpkg sync` and the hooks other commands call (spec/pack.md "Sync").
 *
 * For install/uninstall (issue 5): after the merged graph is rewritten, call
 * `syncAfterChange(deps)` — it runs sync when `context.sync.auto` is true (the default) and
 * returns its report (warnings to print), or `undefined` when auto-sync is off.
 * `removeSyncOutputs(deps)` removes exactly what sync wrote (unedited blocks and files).
 */
import { SYNC_TARGETS } from '@ctxpkg/format/pack/policy';
import type { CliDeps } from '../deps.js';
import { loadProjectContext } from './context.js';
import { syncProject, type SyncReport } from './sync.js';

export { loadProjectContext, workspaceReader, emptyGraph, type EvidenceMode, type ProjectContext } from './context.js';
export { BUILT_HERE_FILE, builtHereFor, readBuiltHere } from './built-here.js';
export { syncProject, generatedFile, type SyncOptions, type SyncReport } from './sync.js';
export { desiredOutputs, type DesiredOutput } from './outputs.js';
export { computeDelivery, type Delivery } from './delivery.js';
export { findOwnedOutputs, type OwnedOutput } from './owned.js';
export { enabledTargets } from './enabled.js';
export { AGENT_TARGETS, agentTarget, type AgentTarget } from './agents/index.js';
export { readSyncRecord, SYNC_RECORD, type SyncEntry, type SyncRecord } from './record.js';
export { SYNC_RECEIPT } from './receipt.js';

/**
 * Run sync after install/uninstall when `context.sync.auto` is on. Throws like `syncProject` and
 * `loadProjectContext` (`E_UNSEALED`: `env`/`homeDir` locate the key that opens the seal of the
 * merged graph and of the built-here record, spec/pack.md §6 "Evidence").
 */
export function syncAfterChange(deps: Pick<CliDeps, 'cwd' | 'clock' | 'env' | 'homeDir'>): SyncReport | undefined {
  const project = loadProjectContext(deps, { requireGraph: false, evidence: 'record' });
  if (!project.config.sync.auto) return undefined;
  return syncProject(project, { now: deps.clock().toISOString(), ...(deps.env.PATH !== undefined ? { path: deps.env.PATH } : {}) });
}

/** Remove every unedited output of earlier syncs (blocks cut out, generated files deleted). */
export function removeSyncOutputs(deps: Pick<CliDeps, 'cwd' | 'clock' | 'env' | 'homeDir'>): SyncReport {
  const project = loadProjectContext(deps, { requireGraph: false });
  return syncProject(project, { now: deps.clock().toISOString(), targets: [], removeTargets: SYNC_TARGETS });
}

/**
 * Human-readable lines of a report, and its warnings (skips): one line per file written or
 * removed, one summary line for the unchanged ones, the delivery tiers, the targets, the notes.
 */
export function describeSync(report: SyncReport, dryRun = false): { text: string[]; warnings: string[] } {
  const verb = dryRun ? 'would ' : '';
  const text: string[] = [];
  for (const p of report.written) text.push(`${verb}write ${p}`);
  for (const p of report.removed) text.push(`${verb}remove ${p}`);
  // Only changes get a line each; files already up to date are one summary line (npm prints what
  // it changed, not every package it left alone): a pin with eight targets is not 28 lines.
  const same = report.unchanged.length;
  if (same > 0) text.push(same <= 3 ? `unchanged: ${report.unchanged.join(', ')}` : `unchanged: ${same} files (\`ctxpkg sync --json\` lists them)`);
  const t = report.tiers;
  if (t.always_on + t.path_scoped + t.on_demand > 0) {
    text.push(
      `delivered: ${t.always_on} always-on, ${t.path_scoped} path-scoped in ${t.rule_sets} rule ${t.rule_sets === 1 ? 'set' : 'sets'}; ${t.on_demand} on demand (ctxpkg mcp, ctxpkg render)${report.receipt ? `; receipt ${report.receipt}` : ''}`,
    );
  }
  text.push(`targets: ${report.targets.join(', ') || 'none'}${report.auto ? ` (AGENTS.md + detected${report.detected.length > 0 ? `: ${report.detected.join(', ')}` : ''}; set "context.sync.targets" or use --target/--remove to choose)` : ' (context.sync.targets)'}`);
  for (const n of report.notes) text.push(`note: ${n}`);
  return { text, warnings: [...report.warnings, ...report.skipped.map((s) => `${s.path}: ${s.reason}`)] };
}
