/**
 * `ctxpkg sync [--target <t>…] [--remove] [--dry-run] [--now ISO]`: write agent instruction
 * files (AGENTS.md block by default; CLAUDE.md, Cursor rules, Copilot instructions when enabled
 * in ctxpkg.json `context.sync.targets` or named with --target), leaving user-edited blocks and
 * files alone with a warning (spec/pack.md "Sync").
 */
import type { Command } from 'commander';
import { CtxpkgError, SYNC_TARGETS, type SyncTarget } from '@ctxpkg/format';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

export interface SyncCommandOptions {
  target?: string[];
  remove?: boolean;
  dryRun?: boolean;
  now?: string;
}

/** Run `ctxpkg sync`. */
export async function runSync(opts: SyncCommandOptions, deps: CliDeps): Promise<CommandResult> {
  const { loadProjectContext, syncProject, describeSync } = await import('../targets/index.js');
  const { parseNow } = await import('@ctxpkg/format');
  if (opts.remove && opts.target) throw new CtxpkgError('E_USAGE', '--remove and --target are mutually exclusive');
  let targets: SyncTarget[] | undefined;
  if (opts.target) {
    const names = opts.target.flatMap((t) => t.split(',')).map((t) => t.trim()).filter((t) => t !== '');
    const bad = names.filter((t) => !(SYNC_TARGETS as readonly string[]).includes(t));
    if (bad.length > 0) throw new CtxpkgError('E_USAGE', `unknown sync target ${bad.join(', ')} (one of ${SYNC_TARGETS.join(', ')})`);
    targets = names as SyncTarget[];
  }
  if (opts.remove) targets = [];
  const now = parseNow(opts.now ?? deps.clock().toISOString()).iso;
  const project = loadProjectContext(deps, { requireGraph: false, evidence: opts.dryRun ? 'read' : 'record' });
  const report = syncProject(project, { now, dryRun: Boolean(opts.dryRun), ...(targets ? { targets } : {}) });
  const { text, warnings } = describeSync(report, opts.dryRun);
  return { text, warnings, json: { ...report, dry_run: Boolean(opts.dryRun), installed: project.installed } };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'sync', 'write installed context into agent instruction files (AGENTS.md, CLAUDE.md, Cursor, Copilot)')
    .option('--target <name...>', `targets for this run (${SYNC_TARGETS.join(', ')}); default: context.sync.targets in ctxpkg.json`)
    .option('--remove', 'remove everything an earlier sync wrote (unedited blocks and files)')
    .option('--dry-run', 'report what would change, write nothing')
    .option('--now <iso>', 'the time to compile for (RFC 3339; default: now)')
    .addHelpText('after', examples(['ctxpkg sync', 'ctxpkg sync --target agents-md cursor copilot', 'ctxpkg sync --remove']))
    .action(ctx.action(async (opts: SyncCommandOptions) => runSync(opts, ctx.deps)));
}
