/**
 * `ctxpkg sync [--target <t>…] [--remove <t>…|all] [--dry-run] [--now ISO]`: deliver installed
 * context to every enabled agent target — one selection, each agent in its own files
 * (spec/pack.md §11). `--target` adds targets and saves them in `context.sync.targets`;
 * `--remove` removes targets by name, saves that, and names every file and block it removes; a
 * name that is not an enabled target is reported as such and changes nothing in ctxpkg.json
 * (exit 0, like `npm uninstall` of a package that is not installed).
 * User-edited blocks and files are left alone with a warning.
 */
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format/errors';
import { SYNC_TARGETS, syncTargetOf, type SyncTarget } from '@ctxpkg/format/pack/policy';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

export interface SyncCommandOptions {
  target?: string[];
  remove?: string[] | boolean;
  dryRun?: boolean;
  now?: string;
}

/**
 * The targets named by `values` (`--target`/`--remove` arguments, comma- or space-separated;
 * aliases such as `claude-md` accepted; `all` when `allowAll`). Throws `E_USAGE` for an unknown
 * name, listing the targets and, for a near miss (`closest`, suggest.ts), "did you mean cursor?".
 */
function targetNames(values: readonly string[], flag: string, allowAll: boolean, closest: (word: string, candidates: Iterable<string>) => string[]): SyncTarget[] {
  const names = values.flatMap((t) => t.split(',')).map((t) => t.trim()).filter((t) => t !== '');
  if (allowAll && names.includes('all')) return [...SYNC_TARGETS];
  const bad = names.filter((t) => syncTargetOf(t) === undefined);
  if (bad.length > 0) {
    const near = [...new Set(bad.flatMap((b) => closest(b, allowAll ? [...SYNC_TARGETS, 'all'] : SYNC_TARGETS)))];
    throw new CtxpkgError('E_USAGE', `unknown sync target ${bad.join(', ')} for ${flag}${near.length > 0 ? `; did you mean ${near.join(' or ')}?` : ''} (one of ${SYNC_TARGETS.join(', ')}${allowAll ? ', or all' : ''})`, {
      ...(near.length > 0 ? { details: { suggestions: near } } : {}),
    });
  }
  if (names.length === 0) throw new CtxpkgError('E_USAGE', `${flag} needs target names (${SYNC_TARGETS.join(', ')}${allowAll ? ', or all' : ''})`);
  return [...new Set(names.map((t) => syncTargetOf(t) as SyncTarget))];
}

/** Run `ctxpkg sync`. */
export async function runSync(opts: SyncCommandOptions, deps: CliDeps): Promise<CommandResult> {
  const { loadProjectContext, syncProject, describeSync, findOwnedOutputs, enabledTargets } = await import('../targets/index.js');
  const { parseNow } = await import('@ctxpkg/format/pack/compile');
  const { closest } = await import('../suggest.js');
  if (opts.remove === true) throw new CtxpkgError('E_USAGE', `--remove needs the targets to remove, by name (${SYNC_TARGETS.join(', ')}, or all)`, { hint: 'targets are removed only by name, e.g. `ctxpkg sync --remove cursor`' });
  const add = opts.target ? targetNames(opts.target, '--target', false, closest) : [];
  const drop = Array.isArray(opts.remove) ? targetNames(opts.remove, '--remove', true, closest) : [];
  const both = add.filter((t) => drop.includes(t));
  if (both.length > 0) throw new CtxpkgError('E_USAGE', `${both.join(', ')} named in both --target and --remove`);
  const now = parseNow(opts.now ?? deps.clock().toISOString()).iso;
  let project = loadProjectContext(deps, { requireGraph: false, evidence: opts.dryRun ? 'read' : 'record' });
  const saved: string[] = [];
  const notTargetLines: string[] = [];
  const notTargets: SyncTarget[] = [];
  const removeAll = Array.isArray(opts.remove) && opts.remove.some((v) => v.split(',').some((t) => t.trim() === 'all'));
  let removeTargets: SyncTarget[] = drop;
  const owned = add.length > 0 || drop.length > 0 ? findOwnedOutputs(project.root) : [];
  const current = add.length > 0 || drop.length > 0 ? enabledTargets(project.root, project.config.sync, owned).targets : [];
  if (drop.some((t) => !current.includes(t))) {
    // Removing a target that is not one changes nothing, as `npm uninstall` of a package that is
    // not installed: ctxpkg.json is not rewritten (auto-detection stays on) and the output says so.
    // Outputs such a target left behind are still removed (sync's "left in place" note says to).
    for (const t of drop.filter((x) => !current.includes(x))) {
      const left = owned.filter((o) => o.target === t).length;
      notTargets.push(t);
      // `--remove all` names every target: only the outputs it removes are worth a line.
      if (!removeAll || left > 0) notTargetLines.push(`${t} is not a sync target (targets: ${current.join(', ')}): ${left > 0 ? `${opts.dryRun ? 'would remove' : 'removing'} the ${left === 1 ? 'output' : `${left} outputs`} it left` : 'nothing to remove'}`);
    }
    removeTargets = drop.filter((t) => current.includes(t) || owned.some((o) => o.target === t));
  }
  if (add.length > 0 || drop.some((t) => current.includes(t))) {
    const next = SYNC_TARGETS.filter((t) => (current.includes(t) || add.includes(t)) && !drop.includes(t));
    const { editManifest, syncOf } = await import('../manifest-edit.js');
    const { changed } = await editManifest(
      project.root,
      (m) => {
        syncOf(m).targets = next;
      },
      opts.dryRun,
    );
    if (changed || project.config.sync.targets === null) saved.push(`${opts.dryRun ? 'would save' : 'saved'} "context.sync.targets": [${next.map((t) => JSON.stringify(t)).join(', ')}] in ctxpkg.json`);
    if (!opts.dryRun) project = loadProjectContext(deps, { requireGraph: false, evidence: 'record' });
    else project = { ...project, config: { ...project.config, sync: { ...project.config.sync, targets: next } } };
  }
  const report = syncProject(project, { now, dryRun: Boolean(opts.dryRun), ...(removeTargets.length > 0 ? { removeTargets } : {}), ...(deps.env.PATH !== undefined ? { path: deps.env.PATH } : {}) });
  const { text, warnings } = describeSync(report, opts.dryRun);
  return {
    text: [...notTargetLines, ...saved, ...text],
    warnings,
    json: { ...report, saved: saved.length > 0, ...(notTargets.length > 0 ? { not_targets: notTargets } : {}), dry_run: Boolean(opts.dryRun), installed: project.installed },
  };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'sync', 'deliver installed context to agent files (AGENTS.md, Claude Code, Cursor, Copilot, Gemini CLI, Windsurf, Kiro, Cline)')
    .option('--target <name...>', `add targets and save them in context.sync.targets (${SYNC_TARGETS.join(', ')})`)
    .option('--remove [name...]', 'remove targets by name (or all), save that, and delete every file and block ctxpkg wrote for them')
    .option('--dry-run', 'report what would change, write nothing')
    .option('--now <iso>', 'the time to compile for (RFC 3339; default: now)')
    .addHelpText(
      'after',
      examples(['ctxpkg sync', 'ctxpkg sync --target claude cursor copilot', 'ctxpkg sync --remove cursor', 'ctxpkg sync --remove all']) +
        '\nWithout "context.sync.targets" in ctxpkg.json, sync writes AGENTS.md plus every agent detected in the project (its files or folders exist).\n',
    )
    .action(ctx.action(async (opts: SyncCommandOptions) => runSync(opts, ctx.deps)));
}
