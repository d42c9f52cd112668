/**
 * `ctxpkg uninstall <names…>`: remove declared dependencies, drop locked packages nobody needs
 * any more (from ctxpkg.lock, the store and the merged graph). Needs no network.
 */
import type { Command } from 'commander';
import type { CliDeps } from '../deps.js';
import type { CommandResult } from '../output.js';
import type { CommandContext } from '../program.js';
import { examples, openSession } from '../session.js';
import { recordState, reportJson, reportLines } from './install.js';

export async function runUninstall(names: string[], opts: { registry?: string }, deps: CliDeps): Promise<CommandResult> {
  const { runPipeline } = await import('../install/run.js');
  const session = openSession(deps, opts.registry);
  const report = await runPipeline(session, { remove: names }, deps);
  const { syncAfterInstall } = await import('../install/sync-hook.js');
  const sync = await syncAfterInstall(session.root, deps, report.packages.length === 0);
  await recordState(session.root, report, sync.warnings, deps);
  return { text: [...reportLines(report), ...sync.text], json: { ...reportJson(report), sync: sync.text }, warnings: sync.warnings };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'uninstall <packages...>', 'remove packages from this project (ctxpkg.json, ctxpkg.lock, store, merged graph)')
    .alias('remove')
    .option('--registry <url>', 'registry for unscoped configuration (rarely needed)')
    .addHelpText('after', examples(['ctxpkg uninstall @acme/auth-context']))
    .action(ctx.action(async (names: string[], opts: { registry?: string }) => runUninstall(names, opts, ctx.deps)));
}
