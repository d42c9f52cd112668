/**
 * `ctxpkg search <query>`: search the default registry (names, descriptions, tags and node content).
 */
import type { Command } from 'commander';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

export async function runSearch(query: string, opts: { registry?: string }, deps: CliDeps): Promise<CommandResult> {
  const { defaultRegistry } = await import('../config.js');
  const { openSession } = await import('../session.js');
  const session = openSession(deps, opts.registry);
  const registry = defaultRegistry(session.settings);
  const results = await session.client.search(registry, query);
  const text = results.length === 0 ? [`no packages match ${JSON.stringify(query)} on ${registry}`] : [];
  for (const r of results) {
    const name = String(r.name ?? '?');
    const version = r.latest ?? r.version;
    const desc = typeof r.description === 'string' && r.description !== '' ? ` — ${r.description}` : '';
    text.push(`${name}${version ? `@${String(version)}` : ''}${desc}`);
    if (typeof r.snippet === 'string' && r.snippet !== '') text.push(`    ${r.snippet.replace(/\s+/g, ' ').slice(0, 120)}`);
  }
  return { text, json: { registry, query, results } };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'search <query>', 'search a registry for packages (names, descriptions, tags, node content)')
    .option('--registry <url>', 'registry to search (default: CTXPKG_REGISTRY or the configured default)')
    .addHelpText('after', examples(['ctxpkg search "token refresh"', 'ctxpkg search jwt --json']))
    .action(ctx.action(async (q: string, opts: { registry?: string }) => runSearch(q, opts, ctx.deps)));
}
