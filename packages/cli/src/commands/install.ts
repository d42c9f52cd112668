/**
 * `ctxpkg install [@ns/name[@range] | file.ctxpkg …]` — see install/run.ts for the pipeline.
 * With no arguments it installs exactly what ctxpkg.lock describes (offline when the store is
 * complete); `--frozen-lockfile` fails on any drift between ctxpkg.json and ctxpkg.lock.
 * `@ns/name@X.Y.Z` installs exactly X.Y.Z and saves `^X.Y.Z` (npm's rule); a bare name saves
 * `^<installed version>`; a range is saved as written. Exit 8: installed, but syncing agent files
 * failed (install/sync-hook.ts).
 */
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';
import type { InstallOptions, InstallReport } from '../install/run.js';

const plural = (n: number, w: string): string => `${n} ${w}${n === 1 ? '' : 's'}`;

/**
 * Human lines for a pipeline report (shared by install, update, uninstall). Notices about yanked
 * versions come first (before the result they qualify), then what changed in the project files;
 * "up to date" only when nothing changed, nothing was fetched and the merged graph was reused.
 * The count line is npm-like for the command that ran (`verb`): `N packages installed, …` for
 * install and update, `removed N packages, M packages still installed, …` for uninstall (which
 * installs nothing; "1 package installed" after a `- name@version` line read as an install).
 */
export function reportLines(r: InstallReport, verb = 'installed'): string[] {
  const yankLines: string[] = [];
  // Notices about what was installed come before the result lines they qualify (npm prints its
  // warnings before "added N packages"), not after the summary.
  for (const y of r.yanked) {
    yankLines.push(
      y.requested
        ? `! ${y.name}@${y.version} is yanked by its publisher; installed because you named exactly this version (ranges never pick a yanked version)`
        : y.kept
        ? `! ${y.name}@${y.version} is yanked by its publisher; kept, because no newer version is allowed${y.olderAllowed ? ` (to move to ${y.olderAllowed}: ctxpkg install ${y.name}@${y.olderAllowed})` : ''}`
        : y.as_of === 'last_check'
          ? `! ${y.name}@${y.version} was yanked when the registry was last checked (this run made no registry request); kept because ctxpkg.lock pins it (\`ctxpkg outdated\` checks the registry now)`
          : `! ${y.name}@${y.version} is yanked by its publisher; kept because ctxpkg.lock pins it (\`ctxpkg update ${y.name}\` moves to a newer allowed version when there is one)`,
    );
  }
  const lines: string[] = [...yankLines];
  if (r.manifestCreated) lines.push(`created ctxpkg.json in ${r.root} (there was none here or in a parent directory); commit it with ctxpkg.lock`);
  for (const a of r.added) lines.push(`+ ${a.name}@${a.version}`);
  for (const c of r.changed) lines.push(`~ ${c.name} ${c.from} → ${c.to}${c.downgrade ? ' (downgrade)' : ''}`);
  for (const d of r.removed) lines.push(`- ${d.name}@${d.version}`);
  for (const s of r.saved) lines.push(`saved ${s.name} ${JSON.stringify(s.range)} in ctxpkg.json${s.previous !== undefined ? ` (was ${JSON.stringify(s.previous)})` : ''}`);
  for (const b of r.bound) {
    lines.push(`bound ${b.scope} to ${b.registry} in ctxpkg.json (from ${b.from}); commit it so teammates and CI install ${b.scope} from the same registry`);
  }
  for (const p of r.pinsRemoved) lines.push(`removed pin ${JSON.stringify(p)} from context.pins in ctxpkg.json (its package is no longer installed)`);
  if (lines.length === yankLines.length) {
    const restored = r.downloaded + r.localReads;
    if (restored > 0) lines.push(`ctxpkg.lock unchanged; restored ${plural(restored, 'package')} into .ctxpkg/store`);
    else if (r.merge.rebuilt) lines.push('ctxpkg.lock unchanged; rebuilt the merged graph');
    else lines.push('up to date');
  }
  if (r.gitignoreUpdated) lines.push('added .ctxpkg/ to .gitignore');
  const network = r.requests === 0 ? 'no network' : plural(r.requests, 'registry request');
  if (verb === 'uninstalled') {
    // Nothing is fetched to uninstall; a restore of a missing store file still says so.
    const fetched = [...(r.downloaded > 0 ? [`${r.downloaded} downloaded`] : []), ...(r.localReads > 0 ? [`${r.localReads} read from local files`] : [])];
    lines.push([`removed ${plural(r.removed.length, 'package')}`, `${r.packages.length === 0 ? 'no package' : plural(r.packages.length, 'package')} still installed`, ...fetched, network].join(', '));
  } else {
    const fetched = [`${r.downloaded} downloaded`, ...(r.localReads > 0 ? [`${r.localReads} read from local files`] : [])].join(', ');
    lines.push(`${plural(r.packages.length, 'package')} installed, ${fetched}, ${network}`);
  }
  const m = r.merge;
  lines.push(
    `merged graph: ${m.nodes} nodes (${m.nodesAdded.length} added), ${m.edges} edges, ${plural(m.conflicts.length, 'conflict')}, ${m.superseded.length} superseded`,
  );
  const across = m.supersededAcross.map((s) => `  superseded by another package: ${s.node} by ${s.by.join(', ')} (it is no longer delivered)`);
  lines.push(...capped(across, 'superseded by another package', 'merged.superseded_across'));
  lines.push(...capped(m.conflicts.map((c) => `  conflict: ${c.from} contradicts ${c.to} (declared by ${c.package})`), 'conflicts', 'merged.conflicts'));
  for (const s of r.skippedOptional) lines.push(`  optional dependency not installed: ${s}`);
  lines.push(...transparencyLines(r));
  return lines;
}

/** What the transparency logs proved (spec/transparency.md §5, §6): checked packages, logged key changes. */
function transparencyLines(r: InstallReport): string[] {
  const t = r.transparency;
  if (!t || t.registries.length === 0) return [];
  const lines = t.registries.map(
    // "consistent with the last one you saw" only when there was one (new-user 2 item 11).
    (g) =>
      `transparency log of ${g.registry}: ${
        g.seen_before ? `tree size ${g.size} consistent with the last one you saw` : g.first_use ? `key pinned on first use (tree size ${g.size})` : `first checkpoint seen (tree size ${g.size})`
      }${g.age_seconds === null ? '' : `, signed ${Math.max(0, Math.round(g.age_seconds / 60))} min ago`}`,
  );
  lines.push(`${plural(t.checked, 'package')} proven in the log (publish entry, signer key, yank status)`);
  for (const k of t.keyChanges) {
    lines.push(`signer key of ${k.name}@${k.version} changed from ${k.from.slice(0, 16)}… to ${k.to.slice(0, 16)}…: accepted, because the log shows it added to its namespace (log index ${k.added_at})`);
  }
  return lines;
}

/** Per-item report lines shown at most; a flood (10k conflicts) is summarised, `--json` lists all. */
export const REPORT_ITEM_LINES = 20;

function capped(items: string[], what: string, jsonPath: string): string[] {
  if (items.length <= REPORT_ITEM_LINES) return items;
  return [...items.slice(0, REPORT_ITEM_LINES), `  … and ${items.length - REPORT_ITEM_LINES} more ${what} (\`--json\` lists them all in ${jsonPath})`];
}

/** JSON form of a pipeline report. */
export function reportJson(r: InstallReport): Record<string, unknown> {
  return {
    root: r.root,
    added: r.added,
    changed: r.changed,
    removed: r.removed,
    saved: r.saved,
    bound: r.bound,
    pins_removed: r.pinsRemoved,
    yanked: r.yanked,
    manifest_created: r.manifestCreated,
    gitignore_updated: r.gitignoreUpdated,
    packages: r.packages,
    requests: r.requests,
    downloaded: r.downloaded,
    local_reads: r.localReads,
    lockfile_changed: r.lockfileChanged,
    merged: {
      nodes: r.merge.nodes,
      edges: r.merge.edges,
      nodes_added: r.merge.nodesAdded.length,
      superseded: r.merge.superseded,
      superseded_across: r.merge.supersededAcross,
      conflicts: r.merge.conflicts,
    },
    skipped_optional: r.skippedOptional,
    ...(r.transparency
      ? { transparency: { registries: r.transparency.registries, key_changes: r.transparency.keyChanges, checked: r.transparency.checked, warnings: r.transparency.warnings } }
      : {}),
  };
}

/**
 * After the pipeline of install/update/uninstall: sync agent files, record the no-op state when
 * everything succeeded, and build the result. A failed sync exits `SYNC_FAILED_EXIT` (8) with
 * the report (the project change is committed; agents did not get it).
 */
export async function finishPipeline(root: string, report: InstallReport, deps: CliDeps, verb: string, nothingLeft = false): Promise<CommandResult> {
  const { syncAfterInstall, SYNC_FAILED_EXIT } = await import('../install/sync-hook.js');
  const sync = await syncAfterInstall(root, deps, nothingLeft, verb);
  await recordState(root, report, sync.warnings, deps);
  const json: Record<string, unknown> = { ...reportJson(report), sync: sync.text };
  if (sync.error) json.sync_error = { code: sync.error.code, message: sync.error.message, ...(sync.error.hint ? { hint: sync.error.hint } : {}) };
  return {
    text: [...reportLines(report, verb), ...sync.text],
    json,
    warnings: [...(report.transparency?.warnings ?? []), ...sync.warnings],
    ...(sync.error ? { exitCode: SYNC_FAILED_EXIT } : {}),
  };
}

export interface InstallCliOptions {
  registry?: string;
  frozenLockfile?: boolean;
  acceptNewKey?: boolean;
  /** A frozen transparency log is an error (spec/transparency.md §5.3). */
  strict?: boolean;
  /** The allowed age of a log checkpoint (`24h`). */
  logMaxAge?: string;
}

/**
 * The error for a command that needs an existing project (bare `install`, `update`, `uninstall`) run where
 * there is no ctxpkg.json in the working directory or any parent: `E_NOT_FOUND` (exit 4), nothing
 * written — as npm (ENOENT package.json) and cargo ("could not find Cargo.toml") refuse.
 */
export function noProjectError(cwd: string, command: string): CtxpkgError {
  return new CtxpkgError('E_NOT_FOUND', `no ctxpkg.json in ${cwd} or any parent directory, so there is nothing for \`ctxpkg ${command}\` to ${command === 'i' ? 'install' : command}`, {
    hint: 'run `ctxpkg init` to start a project here, or `ctxpkg install <@ns/name | file.ctxpkg>` to start one with a package (or cd into your project)',
    details: { cwd },
  });
}

/**
 * Run `install` (also used by `quickstart` and tests). Bare `install` (no specs) needs a project:
 * throws `noProjectError` (`E_NOT_FOUND`) before anything is written; `install <pkg>` creates
 * ctxpkg.json when there is none, and says so.
 */
export async function runInstall(specs: string[], opts: InstallCliOptions, deps: CliDeps): Promise<CommandResult> {
  const { runPipeline } = await import('../install/run.js');
  const { openSession } = await import('../session.js');
  const session = openSession(deps, opts.registry);
  if (!session.exists && specs.length === 0) throw noProjectError(deps.cwd, 'install');
  const pipelineOpts: InstallOptions = { specs, frozen: opts.frozenLockfile, acceptNewKey: opts.acceptNewKey, strict: opts.strict, logMaxAge: opts.logMaxAge };
  const report = await runPipeline(session, pipelineOpts, deps);
  return finishPipeline(session.root, report, deps, 'installed');
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
    .option('--strict', "fail (not warn) when a registry's transparency log looks frozen")
    .option('--log-max-age <age>', 'how old a log checkpoint may be before it counts as frozen (CTXPKG_LOG_MAX_AGE; default 24h)')
    .addHelpText(
      'after',
      examples([
        'ctxpkg install @acme/auth-context            # newest version; saves "^<that version>"',
        'ctxpkg install @acme/auth-context@1.1.0      # exactly 1.1.0; saves "^1.1.0" (update may move up)',
        'ctxpkg install @acme/auth-context@^2.0.0 @acme/style',
        'ctxpkg install                       # from ctxpkg.lock (offline when the store is complete)',
        'ctxpkg install --frozen-lockfile     # CI: fail on any drift',
        'ctxpkg install ./acme-kb-1.0.0.ctxpkg',
      ]) +
        '\nA version X.Y.Z installs exactly that version and saves the range ^X.Y.Z in ctxpkg.json (npm\'s rule).\n' +
        'Exit codes: 0 done; 8 installed, but syncing agent files failed (run `ctxpkg sync` after fixing it);\n' +
        'others as in README "Exit codes" (5: lockfile drift or tampering, 6: resolution failed, 7: network).\n',
    )
    .action(ctx.action(async (specs: string[], opts: InstallCliOptions) => runInstall(specs, opts, ctx.deps)));
}
