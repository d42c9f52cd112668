/**
 * `ctxpkg mcp`: serve the installed context to agents over MCP (stdio). The SDK is imported
 * lazily here, so no other command pays for it (spec/pack.md "MCP").
 */
import type { Command } from 'commander';
import type { CliDeps } from '../deps.js';
import type { CommandResult } from '../output.js';
import type { CommandContext } from '../program.js';
import { examples } from '../session.js';

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
      examples(['ctxpkg mcp', 'claude mcp add ctxpkg -- npx ctxpkg mcp', '# .cursor/mcp.json: { "mcpServers": { "ctxpkg": { "command": "npx", "args": ["ctxpkg", "mcp"] } } }']),
    )
    .action(ctx.action(async () => runMcp(ctx.deps)));
}
