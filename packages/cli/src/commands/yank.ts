/**
 * `ctxpkg yank @ns/name@version` / `ctxpkg unyank @ns/name@version`: mark a published version as
 * yanked (still downloadable for lockfiles that pin it, never chosen by new resolutions) or undo it.
 */
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format/errors';
import { parsePackageName, validateVersion } from '@ctxpkg/format/names';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

/** Split `@ns/name@version`. Throws `E_USAGE`/`E_INVALID_NAME`/`E_INVALID_VERSION`. */
export function parsePinned(arg: string): { name: string; version: string } {
  const at = arg.indexOf('@', 1);
  if (at < 0) throw new CtxpkgError('E_USAGE', `expected @ns/name@version, got ${JSON.stringify(arg)}`);
  const name = arg.slice(0, at);
  const version = arg.slice(at + 1);
  parsePackageName(name);
  validateVersion(version);
  return { name, version };
}

export async function runYank(arg: string, yanked: boolean, opts: { registry?: string }, deps: CliDeps): Promise<CommandResult> {
  const { registryFor } = await import('../config.js');
  const { name, version } = parsePinned(arg);
  const { openSession } = await import('../session.js');
  const session = openSession(deps, opts.registry);
  const registry = registryFor(name, session.settings);
  await session.client.setYanked(registry, name, version, yanked);
  return {
    text: [`${yanked ? 'yanked' : 'un-yanked'} ${name}@${version} on ${registry}`],
    json: { name, version, registry, yanked },
  };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'yank <package@version>', 'mark a published version as yanked (not chosen by new installs)')
    .option('--registry <url>', 'registry for packages whose scope has no registry configured')
    .addHelpText('after', examples(['ctxpkg yank @acme/auth-context@1.2.0']))
    .action(ctx.action(async (arg: string, opts: { registry?: string }) => runYank(arg, true, opts, ctx.deps)));
  ctx
    .command(program, 'unyank <package@version>', 'undo a yank')
    .option('--registry <url>', 'registry for packages whose scope has no registry configured')
    .addHelpText('after', examples(['ctxpkg unyank @acme/auth-context@1.2.0']))
    .action(ctx.action(async (arg: string, opts: { registry?: string }) => runYank(arg, false, opts, ctx.deps)));
}
