/**
 * `ctxpkg install [@ns/name[@range] | file.ctxpkg …]` — see install/run.ts for the pipeline.
 * With no arguments it installs exactly what ctxpkg.lock describes (offline when the store is
 * complete); `--frozen-lockfile` fails on any drift between ctxpkg.json and ctxpkg.lock.
 */
import type { Command } from 'commander';
import type { CliDeps } from '../deps.js';
import type { CommandResult } from '../output.js';
import type { CommandContext } from '../program.js';
import { examples, openSession } from '../session.js';
import type { InstallOptions, InstallReport } from '../install/run.js';

/** Human lines for a pipeline report (shared by install, update, uninstall). */
export function reportLines(r: InstallReport): string[] {
  const lines: string[] = [];
  for (const a of r.added) lines.push(`+ ${a.name}@${a.version}`);
  for (const c of r.changed) lines.push(`~ ${c.name} ${c.from} → ${c.to}`);
  for (const d of r.removed) lines.push(`- ${d.name}@${d.version}`);
  if (lines.length === 0) lines.push('up to date');
  lines.push(
    `${r.packages.length} package${r.packages.length === 1 ? '' : 's'} installed, ${r.downloaded} downloaded, ${r.requests === 0 ? 'no network' : `${r.requests} registry request${r.requests === 1 ? '' : 's'}`}`,
  );
  const m = r.merge;
  lines.push(
    `merged graph: ${m.nodes} nodes (${m.nodesAdded.length} added), ${m.edges} edges, ${m.conflicts.length} conflict${m.conflicts.length === 1 ? '' : 's'}, ${m.superseded.length} superseded`,
  );
  for (const c of m.conflicts) lines.push(`  conflict: ${c.from} contradicts ${c.to} (declared by ${c.package})`);
  for (const s of r.skippedOptional) lines.push(`  optional dependency not installed: ${s}`);
  return lines;
}

/** JSON form of a pipeline report. */
export function reportJson(r: InstallReport): Record<string, unknown> {
  return {
    root: r.root,
    added: r.added,
    changed: r.changed,
    removed: r.removed,
    packages: r.packages,
    requests: r.requests,
    downloaded: r.downloaded,
    lockfile_changed: r.lockfileChanged,
    merged: {
      nodes: r.merge.nodes,
      edges: r.merge.edges,
      nodes_added: r.merge.nodesAdded.length,
      superseded: r.merge.superseded,
      conflicts: r.merge.conflicts,
    },
    skipped_optional: r.skippedOptional,
  };
}

export interface InstallCliOptions {
  registry?: string;
  frozenLockfile?: boolean;
  acceptNewKey?: boolean;
}

/** Run `install` (also used by `quickstart` and tests). */
export async function runInstall(specs: string[], opts: InstallCliOptions, deps: CliDeps): Promise<CommandResult> {
  const { runPipeline } = await import('../install/run.js');
  const session = openSession(deps, opts.registry);
  const pipelineOpts: InstallOptions = { specs, frozen: opts.frozenLockfile, acceptNewKey: opts.acceptNewKey };
  const report = await runPipeline(session, pipelineOpts, deps);
  const { syncAfterInstall } = await import('../install/sync-hook.js');
  const sync = await syncAfterInstall(session.root, deps);
  await recordState(session.root, report, sync.warnings, deps);
  return { text: [...reportLines(report), ...sync.text], json: { ...reportJson(report), sync: sync.text }, warnings: sync.warnings };
}

/** After a clean install, record the no-op fingerprint (install/noop.ts) for the next run. */
export async function recordState(root: string, r: InstallReport, warnings: string[], deps: CliDeps): Promise<void> {
  if (warnings.length > 0) return;
  const { writeInstallState } = await import('../install/noop.js');
  writeInstallState(root, deps, {
    packages: r.packages.length,
    nodes: r.merge.nodes,
    edges: r.merge.edges,
    conflicts: r.merge.conflicts.length,
    superseded: r.merge.superseded.length,
  });
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'install [packages...]', 'install packages (or, with no arguments, exactly the lockfile) into this project')
    .alias('i')
    .option('--registry <url>', 'registry for packages whose scope has no registry configured')
    .option('--frozen-lockfile', 'install exactly ctxpkg.lock; fail if it does not match ctxpkg.json')
    .option('--accept-new-key', 'accept packages signed by a key other than the one pinned in ctxpkg.lock')
    .addHelpText(
      'after',
      examples([
        'ctxpkg install @acme/auth-context',
        'ctxpkg install @acme/auth-context@^2.0.0 @acme/style',
        'ctxpkg install                       # from ctxpkg.lock (offline when the store is complete)',
        'ctxpkg install --frozen-lockfile     # CI: fail on any drift',
        'ctxpkg install ./acme-kb-1.0.0.ctxpkg',
      ]),
    )
    .action(ctx.action(async (specs: string[], opts: InstallCliOptions) => runInstall(specs, opts, ctx.deps)));
}
