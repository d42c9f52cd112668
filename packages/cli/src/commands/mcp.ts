/**
 * `ctxpkg mcp`: serve the installed context to agents over MCP (stdio). The SDK is imported
 * lazily here, so no other command pays for it (spec/pack.md "MCP").
 */
import type { Command } from 'commander';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

/** Run the server until the client disconnects. Fails early (`E_NOT_FOUND`) outside a project. */
export async function runMcp(deps: CliDeps): Promise<CommandResult> {
  const { loadProjectContext } = await import('../targets/context.js');
  loadProjectContext(deps, { requireGraph: false });
  const { serveMcp } = await import('../mcp/server.js');
  await serveMcp(deps);
  return { text: [], json: null };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'mcp', 'serve installed context to agents over MCP (stdio): search_context, get_node, neighbors, render_pack')
    .addHelpText(
      'after',
      examples([
        'ctxpkg mcp',
        'claude mcp add ctxpkg -- ctxpkg mcp',
        '# .cursor/mcp.json: { "mcpServers": { "ctxpkg": { "command": "ctxpkg", "args": ["mcp"] } } }',
        '# without a linked ctxpkg command: claude mcp add ctxpkg -- node /path/to/ctxpkg/packages/cli/bin/ctxpkg.js mcp',
      ]) +
        '\nUse the ctxpkg command you installed (README "Getting the ctxpkg command") or an absolute path to\nbin/ctxpkg.js; do not use `npx ctxpkg`: the name is not ctxpkg\'s on the npm registry, so npx could\ndownload and run someone else\'s package.\n',
    )
    .action(ctx.action(async () => runMcp(ctx.deps)));
}
