/**
 * `ctxpkg why @ns/name`: every chain of dependencies from ctxpkg.json to the package, from
 * ctxpkg.lock (no network).
 */
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format/errors';
import { parsePackageName } from '@ctxpkg/format/names';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

export async function runWhy(target: string, deps: CliDeps): Promise<CommandResult> {
  parsePackageName(target);
  const { readLock } = await import('../install/lockio.js');
  const { findProjectRoot, readManifest } = await import('../project.js');
  const { root } = findProjectRoot(deps.cwd);
  const manifest = readManifest(root);
  const lock = readLock(root).state;
  const entry = lock.packages.get(target);
  if (!entry) throw new CtxpkgError('E_NOT_FOUND', `${target} is not installed in this project`, { hint: 'see `ctxpkg ls`' });
  const chains: string[][] = [];
  const walk = (name: string, chain: string[]): void => {
    if (chains.length >= 100) return;
    const e = lock.packages.get(name);
    if (!e) return;
    const here = [...chain, `${name}@${e.version}`];
    if (name === target) {
      chains.push(here);
      return;
    }
    if (chain.some((c) => c.startsWith(`${name}@`))) return;
    for (const d of Object.keys(e.dependencies).sort()) walk(d, here);
  };
  for (const n of Object.keys(manifest.dependencies).sort()) walk(n, []);
  const text = [`${target}@${entry.version}`];
  for (const c of chains) {
    const direct = c.length === 1;
    text.push(direct ? `  declared in ctxpkg.json (${manifest.dependencies[target]})` : `  ctxpkg.json → ${c.join(' → ')}`);
  }
  if (chains.length === 0) text.push('  no declared dependency needs it (run `ctxpkg install` to prune)');
  return { text, json: { name: target, version: entry.version, chains } };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'why <package>', 'explain which declared dependencies pull a package in')
    .addHelpText('after', examples(['ctxpkg why @acme/base-conventions']))
    .action(ctx.action(async (name: string) => runWhy(name, ctx.deps)));
}
