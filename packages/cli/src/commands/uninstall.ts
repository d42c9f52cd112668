/**
 * `ctxpkg uninstall <names…>`: remove declared dependencies, drop locked packages nobody needs
 * any more (from ctxpkg.lock, the store and the merged graph), and the `context.pins` entries that
 * named them (said in the output). Needs no network. Exit 8: uninstalled, but syncing agent files
 * failed. Without a ctxpkg.json here or in a parent: `E_NOT_FOUND`; a name that is not a
 * dependency: `E_NOT_FOUND` with the closest declared names.
 */
import type { Command } from 'commander';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';
import { finishPipeline, noProjectError } from './install.js';

export async function runUninstall(names: string[], opts: { registry?: string }, deps: CliDeps): Promise<CommandResult> {
  const { runPipeline } = await import('../install/run.js');
  const { openSession } = await import('../session.js');
  const session = openSession(deps, opts.registry);
  if (!session.exists) throw noProjectError(deps.cwd, 'uninstall');
  const report = await runPipeline(session, { remove: names }, deps);
  return finishPipeline(session.root, report, deps, 'uninstalled', report.packages.length === 0);
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'uninstall <packages...>', 'remove packages from this project (ctxpkg.json, ctxpkg.lock, store, merged graph)')
    .alias('remove')
    .option('--registry <url>', 'registry for unscoped configuration (rarely needed)')
    .addHelpText(
      'after',
      examples(['ctxpkg uninstall @acme/auth-context']) +
        '\nPins on removed packages ("context.pins" in ctxpkg.json) are removed too, and the output says so.\n' +
        'Exit codes: 0 done; 8 uninstalled, but syncing agent files failed (run `ctxpkg sync` after fixing it).\n',
    )
    .action(ctx.action(async (names: string[], opts: { registry?: string }) => runUninstall(names, opts, ctx.deps)));
}
