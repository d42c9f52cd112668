/**
 * `ctxpkg logout --registry URL [--scope @ns]`: remove one saved token from the user config —
 * the token of `@ns` on that registry with `--scope`, else the registry-wide token — under every
 * spelling of the registry (with or without `/api`, config.ts `sameRegistry`). Tokens of other
 * scopes, the scope's registry binding (`registries["@ns"]`, where its packages live) and the
 * default registry stay. Nothing saved for that (registry, scope) is not an error: the answer says
 * so and writes nothing (a script may log out twice). The config is read and checked in full
 * before it is written back atomically with mode 0600; no token is ever printed.
 */
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

export interface LogoutOptions {
  registry?: string;
  scope?: string;
}

/**
 * Remove the token saved for (`opts.registry` or `CTXPKG_REGISTRY`, `opts.scope`). Returns what
 * was removed and what stays (`json`: `registry`, `scope`, `removed`, `remaining` — scopes, or
 * `registry-wide`). Throws `E_USAGE` (no registry, a bad URL or scope), `E_INVALID_JSON` or
 * `E_CONFIG` (an unreadable user config; nothing written).
 */
export async function runLogout(opts: LogoutOptions, deps: CliDeps): Promise<CommandResult> {
  const { checkScope, loadUserConfig, normalizeRegistryUrl, sameRegistry, savedTokensOf, saveUserConfig } = await import('../config.js');
  const { userConfigPath } = await import('../paths.js');
  const raw = opts.registry ?? deps.env.CTXPKG_REGISTRY;
  if (!raw) throw new CtxpkgError('E_USAGE', 'logout needs --registry URL', { hint: 'ctxpkg logout --registry https://registry.example.com/api [--scope @acme]' });
  const registry = normalizeRegistryUrl(raw);
  const scope = opts.scope === undefined ? undefined : checkScope(opts.scope);
  const cfg = loadUserConfig(deps);
  const which = scope ? `the token of ${scope}` : 'the registry-wide token';
  let removedFrom: string[];
  if (scope) {
    const scoped = cfg.scopedTokens ?? {};
    removedFrom = Object.keys(scoped).filter((k) => sameRegistry(k, registry) && scoped[k]?.[scope] !== undefined).sort();
    for (const k of removedFrom) {
      delete scoped[k]![scope];
      if (Object.keys(scoped[k]!).length === 0) delete scoped[k];
    }
  } else {
    removedFrom = Object.keys(cfg.tokens).filter((k) => sameRegistry(k, registry)).sort();
    for (const k of removedFrom) delete cfg.tokens[k];
  }
  const remaining = savedTokensOf(cfg, registry).map((t) => t.scope ?? 'registry-wide');
  const path = removedFrom.length > 0 ? saveUserConfig(deps, cfg) : userConfigPath(deps);
  const text =
    removedFrom.length > 0
      ? [`removed ${which} saved for ${removedFrom.join(', ')} from ${path}`]
      : [`no ${scope ? `token of ${scope}` : 'registry-wide token'} is saved for ${registry}; nothing changed`];
  text.push(remaining.length > 0 ? `still saved for ${registry}: ${remaining.join(', ')}` : `no token is saved for ${registry} now`);
  if (scope && removedFrom.length > 0 && cfg.registries[scope] !== undefined) {
    text.push(`scope ${scope} stays bound to ${cfg.registries[scope]} (its packages are still looked up there${remaining.includes('registry-wide') ? ', with the registry-wide token' : ', without a token'})`);
  }
  return { text, json: { registry, config: path, scope: scope ?? null, removed: removedFrom.length > 0, remaining } };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'logout', "remove a saved registry token: one scope's (--scope) or the registry-wide one")
    .option('--registry <url>', 'the registry the token belongs to (default: CTXPKG_REGISTRY)')
    .option('--scope <@ns>', 'remove the token saved for this scope only (without it: the registry-wide token); other tokens stay')
    .addHelpText('after', examples(['ctxpkg logout --registry https://r.example/api --scope @vendor', 'ctxpkg logout --registry https://r.example/api']))
    .action(ctx.action(async (opts: LogoutOptions) => runLogout(opts, ctx.deps)));
}
