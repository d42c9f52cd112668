/**
 * `ctxpkg logout [--registry URL] [--scope @ns | --all]`: remove one saved token from the user
 * config — the token of `@ns` on that registry with `--scope`, else the registry-wide token;
 * `--all` removes every token saved for the registry — under every spelling of the registry
 * (with or without `/api`, config.ts `sameRegistry`). Tokens of other scopes, the scope's registry
 * binding (`registries["@ns"]`, where its packages live) and the default registry stay. Without
 * `--registry` (or CTXPKG_REGISTRY) it uses the scope's registry, else the default registry, as
 * npm's logout uses the configured one (new-user trial 2, item 5). Nothing saved for that
 * (registry, scope) is not an error: the answer says so and writes nothing (a script may log out
 * twice), and names the commands that remove the scoped tokens that stay. The config is read and
 * checked in full before it is written back atomically with mode 0600; no token is ever printed.
 */
import type { Command } from 'commander';
import { CtxpkgError, isCtxpkgError } from '@ctxpkg/format/errors';
import type { UserConfig } from '../config.js';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

export interface LogoutOptions {
  registry?: string;
  scope?: string;
  /** `--all`: every token saved for the registry (the registry-wide one and every scope's). */
  all?: boolean;
}

/**
 * The registry `logout` acts on, as npm's logout uses the configured registry: `--registry`, else
 * `CTXPKG_REGISTRY`, else with `--scope` the registry the user config binds that scope to, else
 * the user's default registry (`defaultRegistry` over the user config: `registry`, or the one
 * registry every bound scope names). ctxpkg.json is not read: logout edits only the user config.
 * Returns the URL and, when it was not named, where it came from (for the output). Throws
 * `E_USAGE` when none is found, `E_CONFIG` for a bad `CTXPKG_REGISTRY`.
 */
async function logoutRegistry(opts: LogoutOptions, scope: string | undefined, cfg: UserConfig, deps: CliDeps): Promise<{ url: string; from?: string }> {
  const { defaultRegistry, normalizeRegistryUrl } = await import('../config.js');
  const named = opts.registry ?? (deps.env.CTXPKG_REGISTRY?.trim() ? deps.env.CTXPKG_REGISTRY : undefined);
  if (named) return { url: normalizeRegistryUrl(named) };
  if (scope && cfg.registries[scope]) return { url: cfg.registries[scope]!, from: `the registry ${scope} is bound to` };
  try {
    return { url: defaultRegistry({ project: { registries: {} }, user: cfg, env: {} }), from: 'your default registry' };
  } catch (err) {
    if (!isCtxpkgError(err) || err.code !== 'E_CONFIG') throw err;
    throw new CtxpkgError('E_USAGE', `logout needs --registry URL: ${err.message}`, { hint: 'ctxpkg logout --registry https://registry.example.com/api [--scope @acme | --all]' });
  }
}

/**
 * Remove the token saved for (the registry, `opts.scope`), or with `opts.all` every token saved
 * for the registry. The registry is `logoutRegistry`'s. Returns what was removed and what stays
 * (`json`: `registry`, `scope`, `all`, `removed`, `remaining` — scopes, or `registry-wide`); when
 * scoped tokens stay after a logout without `--scope`, the text names the commands that remove
 * them. Throws `E_USAGE` (no registry, a bad URL or scope, `--scope` with `--all`),
 * `E_INVALID_JSON` or `E_CONFIG` (an unreadable user config; nothing written).
 */
export async function runLogout(opts: LogoutOptions, deps: CliDeps): Promise<CommandResult> {
  const { checkScope, loadUserConfig, sameRegistry, savedTokensOf, saveUserConfig } = await import('../config.js');
  const { userConfigPath } = await import('../paths.js');
  if (opts.all && opts.scope !== undefined) throw new CtxpkgError('E_USAGE', '--all and --scope exclude each other: --all removes every token saved for the registry', { hint: 'ctxpkg logout --scope @acme, or ctxpkg logout --all' });
  const scope = opts.scope === undefined ? undefined : checkScope(opts.scope);
  const cfg = loadUserConfig(deps);
  const { url: registry, from } = await logoutRegistry(opts, scope, cfg, deps);
  const which = opts.all ? 'every token' : scope ? `the token of ${scope}` : 'the registry-wide token';
  const removedFrom = new Set<string>();
  const scoped = cfg.scopedTokens ?? {};
  if (scope || opts.all) {
    for (const k of Object.keys(scoped).filter((k) => sameRegistry(k, registry))) {
      for (const sc of Object.keys(scoped[k]!)) {
        if (opts.all || sc === scope) {
          delete scoped[k]![sc];
          removedFrom.add(k);
        }
      }
      if (Object.keys(scoped[k]!).length === 0) delete scoped[k];
    }
  }
  if (!scope) {
    for (const k of Object.keys(cfg.tokens).filter((k) => sameRegistry(k, registry))) {
      delete cfg.tokens[k];
      removedFrom.add(k);
    }
  }
  const removed = [...removedFrom].sort();
  const remaining = savedTokensOf(cfg, registry).map((t) => t.scope ?? 'registry-wide');
  const path = removed.length > 0 ? saveUserConfig(deps, cfg) : userConfigPath(deps);
  const text = from ? [`registry: ${registry} (${from}; pass --registry URL for another)`] : [];
  text.push(
    removed.length > 0
      ? `removed ${which} saved for ${removed.join(', ')} from ${path}`
      : `no ${opts.all ? 'token' : scope ? `token of ${scope}` : 'registry-wide token'} is saved for ${registry}; nothing changed`,
  );
  text.push(remaining.length > 0 ? `still saved for ${registry}: ${remaining.join(', ')}` : `no token is saved for ${registry} now`);
  const scopesLeft = remaining.filter((r) => r !== 'registry-wide');
  if (!scope && scopesLeft.length > 0) {
    text.push(`to remove them: ctxpkg logout --registry ${registry} --scope ${scopesLeft[0]}${scopesLeft.length > 1 ? ' (one scope at a time)' : ''}, or ctxpkg logout --registry ${registry} --all (every token saved for it)`);
  }
  if (scope && removed.length > 0 && cfg.registries[scope] !== undefined) {
    text.push(`scope ${scope} stays bound to ${cfg.registries[scope]} (its packages are still looked up there${remaining.includes('registry-wide') ? ', with the registry-wide token' : ', without a token'})`);
  }
  return { text, json: { registry, config: path, scope: scope ?? null, all: opts.all === true, removed: removed.length > 0, remaining } };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'logout', "remove a saved registry token: one scope's (--scope) or the registry-wide one")
    .option('--registry <url>', "the registry the token belongs to (default: CTXPKG_REGISTRY, the scope's registry with --scope, else your default registry)")
    .option('--scope <@ns>', 'remove the token saved for this scope only (without it: the registry-wide token); other tokens stay')
    .option('--all', "remove every token saved for the registry: the registry-wide one and every scope's")
    .addHelpText('after', examples(['ctxpkg logout --registry https://r.example/api --scope @vendor', 'ctxpkg logout --scope @vendor   # the registry @vendor is bound to', 'ctxpkg logout   # the registry-wide token of your default registry', 'ctxpkg logout --all']))
    .action(ctx.action(async (opts: LogoutOptions) => runLogout(opts, ctx.deps)));
}
