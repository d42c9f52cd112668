/**
 * `ctxpkg search <query>`: search the default registry (names, descriptions, tags and node content).
 *
 * Which token the search sends (README "Which token"): the registry-wide one (or `CTXPKG_TOKEN`
 * bound to the registry), else the one scoped token when exactly one scope has one. When the user
 * saved only scoped tokens for the registry, of several scopes, it searches once per scope with
 * that scope's token — each token goes only to the registry it is saved for, as every request —
 * and merges the answers (new-user trial 2, item 2): rank by rank across the scopes' answers
 * (scopes sorted), each package once at its best rank, at most `MAX_RESULTS`. With no token at all
 * the answer holds public packages only, and the output says so with the login that changes it.
 */
import type { Command } from 'commander';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

/** The registry's own cap on one search answer (spec/registry.md §8: default and maximum 50). */
const MAX_RESULTS = 50;

/**
 * Merge ranked answers: position 0 of every list (in list order), then position 1, …; a package
 * (`name`) already taken is skipped. At most `max` results. Deterministic for the same lists.
 */
export function mergeRanked(lists: ReadonlyArray<ReadonlyArray<Record<string, unknown>>>, max: number): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  const seen = new Set<string>();
  const longest = lists.reduce((m, l) => Math.max(m, l.length), 0);
  for (let i = 0; i < longest && out.length < max; i++) {
    for (const l of lists) {
      const r = l[i];
      if (r === undefined) continue;
      const key = String(r.name ?? '');
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(r);
      if (out.length >= max) break;
    }
  }
  return out;
}

/**
 * Search (see the module docstring). Returns the results as text lines and
 * `json: { registry, query, results, public_only, scopes }` — `scopes`: the scopes whose tokens
 * were sent, one search each (empty when one request went with the registry-wide token, or none).
 * Throws `E_CONFIG` (no registry), `E_AUTH` (a saved token refused), `E_NETWORK`, `E_REGISTRY`.
 */
export async function runSearch(query: string, opts: { registry?: string }, deps: CliDeps): Promise<CommandResult> {
  const { defaultRegistry, savedTokensOf, tokenFor } = await import('../config.js');
  const { openSession } = await import('../session.js');
  const session = openSession(deps, opts.registry);
  const registry = defaultRegistry(session.settings);
  const sent = tokenFor(registry, session.settings);
  const scoped = [...new Set(savedTokensOf(session.settings.user, registry).flatMap((t) => (t.scope === undefined ? [] : [t.scope])))].sort();
  const fanOut = sent === undefined && scoped.length > 1;
  const results = fanOut
    ? mergeRanked(await Promise.all(scoped.map((sc) => session.client.search(registry, query, sc))), MAX_RESULTS)
    : await session.client.search(registry, query);
  const publicOnly = sent === undefined && !fanOut;
  const text = results.length === 0 ? [`no packages match ${JSON.stringify(query)} on ${registry}`] : [];
  for (const r of results) {
    const name = String(r.name ?? '?');
    const version = r.latest ?? r.version;
    const desc = typeof r.description === 'string' && r.description !== '' ? ` — ${r.description}` : '';
    text.push(`${name}${version ? `@${String(version)}` : ''}${desc}`);
    if (typeof r.snippet === 'string' && r.snippet !== '') text.push(`    ${r.snippet.replace(/\s+/g, ' ').slice(0, 120)}`);
  }
  if (publicOnly) text.push(`(public packages only: no token is saved for ${registry}; to search private packages too: ctxpkg login --registry ${registry} [--scope @ns])`);
  else if (fanOut) text.push(`(searched with the tokens of ${scoped.join(', ')}: public packages and the private packages of each)`);
  return { text, json: { registry, query, results, public_only: publicOnly, scopes: fanOut ? scoped : [] } };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'search <query>', 'search a registry for packages (names, descriptions, tags, node content)')
    .option('--registry <url>', 'registry to search (default: CTXPKG_REGISTRY or the configured default)')
    .addHelpText('after', examples(['ctxpkg search "token refresh"', 'ctxpkg search jwt --json']))
    .action(ctx.action(async (q: string, opts: { registry?: string }) => runSearch(q, opts, ctx.deps)));
}
