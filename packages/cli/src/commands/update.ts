/**
 * `ctxpkg update [names…]`: move packages to the newest versions their ranges allow; ranges in
 * ctxpkg.json are not changed. With no names the whole graph is re-resolved, indirect dependencies
 * included (npm / `cargo update`); with names only those packages are freed and every other
 * locked version stays unless the new versions require it to move (`cargo update -p`). A locked version that
 * was yanked is kept unless a newer allowed version exists (cargo's rule): update never moves to
 * an older version because of a yank, and says so; any version that does go down is marked
 * "(downgrade)". Exit 8: updated, but syncing agent files failed.
 */
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';
import { finishPipeline, noProjectError } from './install.js';

/**
 * `ctxpkg update [names…]`: with no names every registry package of the project (declared and
 * locked, indirect dependencies included) is freed from ctxpkg.lock and re-resolved to the newest
 * versions the ranges allow; with names only those packages move (cargo `update -p`). Yanked
 * locked versions follow the install rules (README "Daily use", the update paragraph). Writes ctxpkg.lock, the
 * store and the merged graph atomically under the project lock. Throws the install pipeline's
 * codes (`E_RESOLVE`, `E_NETWORK`, `E_INTEGRITY`, `E_SIGNATURE`, …); the result's exit code is 8
 * when the update committed but syncing agent files failed. Without a ctxpkg.json in the working
 * directory or a parent: `E_NOT_FOUND`, nothing written.
 */
export async function runUpdate(names: string[], opts: { registry?: string; acceptNewKey?: boolean; strict?: boolean; logMaxAge?: string }, deps: CliDeps): Promise<CommandResult> {
  const { runPipeline } = await import('../install/run.js');
  const { parsePackageName } = await import('@ctxpkg/format');
  for (const n of names) {
    // `update` takes names (npm, `cargo update -p`): a version or tag after the name is what
    // `install` takes (new-user trial 2: `update @acme/rules@latest` said the name was invalid).
    const at = n.indexOf('@', 1);
    if (at > 0) {
      const name = n.slice(0, at);
      throw new CtxpkgError('E_USAGE', `update takes package names, not versions: ${JSON.stringify(n)}`, {
        hint: `\`ctxpkg update ${name}\` moves it to the newest version its range in ctxpkg.json allows; to change the range, \`ctxpkg install ${name}@<range>\``,
      });
    }
    parsePackageName(n);
  }
  const { openSession } = await import('../session.js');
  const session = openSession(deps, opts.registry);
  if (!session.exists) throw noProjectError(deps.cwd, 'update');
  const report = await runPipeline(session, { update: names.length > 0 ? names : true, acceptNewKey: opts.acceptNewKey, strict: opts.strict, logMaxAge: opts.logMaxAge }, deps);
  return finishPipeline(session.root, report, deps, 'updated');
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'update [packages...]', 'update packages to the newest versions their ranges allow')
    .option('--registry <url>', 'registry for packages whose scope has no registry configured')
    .option('--accept-new-key', 'accept a signer key different from the pinned one')
    .option('--strict', "fail (not warn) when a registry's transparency log looks frozen")
    .option('--log-max-age <age>', 'how old a log checkpoint may be before it counts as frozen (CTXPKG_LOG_MAX_AGE; default 24h)')
    .addHelpText(
      'after',
      examples(['ctxpkg update', 'ctxpkg update @acme/auth-context']) +
        '\nWith no names every package is re-resolved, indirect dependencies included. With names only those\n' +
        'packages move; the other locked versions stay unless the new versions require them to move (as\n' +
        '`cargo update -p`); to move an indirect dependency alone, name it (`ctxpkg update @acme/base`).\n' +
        'A yanked locked version is kept unless a newer allowed version exists; to move to an older one, install it\n' +
        'exactly (`ctxpkg install @acme/auth-context@1.0.0`). Exit 8: updated, but syncing agent files failed.\n',
    )
    .action(ctx.action(async (names: string[], opts: { registry?: string; acceptNewKey?: boolean; strict?: boolean; logMaxAge?: string }) => runUpdate(names, opts, ctx.deps)));
}
