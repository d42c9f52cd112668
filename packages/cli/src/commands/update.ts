/**
 * `ctxpkg update [names…]`: move packages (all by default) to the newest versions their ranges
 * allow, re-resolving transitively; ranges in ctxpkg.json are not changed.
 */
import type { Command } from 'commander';
import type { CliDeps } from '../deps.js';
import type { CommandResult } from '../output.js';
import type { CommandContext } from '../program.js';
import { examples, openSession } from '../session.js';
import { recordState, reportJson, reportLines } from './install.js';

export async function runUpdate(names: string[], opts: { registry?: string; acceptNewKey?: boolean }, deps: CliDeps): Promise<CommandResult> {
  const { runPipeline } = await import('../install/run.js');
  const { parsePackageName } = await import('@ctxpkg/format');
  for (const n of names) parsePackageName(n);
  const session = openSession(deps, opts.registry);
  const report = await runPipeline(session, { update: names.length > 0 ? names : true, acceptNewKey: opts.acceptNewKey }, deps);
  const { syncAfterInstall } = await import('../install/sync-hook.js');
  const sync = await syncAfterInstall(session.root, deps);
  await recordState(session.root, report, sync.warnings, deps);
  return { text: [...reportLines(report), ...sync.text], json: { ...reportJson(report), sync: sync.text }, warnings: sync.warnings };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'update [packages...]', 'update packages to the newest versions their ranges allow')
    .option('--registry <url>', 'registry for packages whose scope has no registry configured')
    .option('--accept-new-key', 'accept a signer key different from the pinned one')
    .addHelpText('after', examples(['ctxpkg update', 'ctxpkg update @acme/auth-context']))
    .action(ctx.action(async (names: string[], opts: { registry?: string; acceptNewKey?: boolean }) => runUpdate(names, opts, ctx.deps)));
}
