/**
 * `ctxpkg mcp`: serve the installed context to agents over MCP (stdio). The SDK is imported
 * lazily here, so no other command pays for it (spec/pack.md "MCP").
 */
import type { Command } from 'commander';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

/**
 * Run the server until the client disconnects. Never fails before answering `initialize`: a
 * missing project is reported in each tool result and on stderr (spec/pack.md §12). `project`:
 * `--project <dir>`. `CTXPKG_MCP_POLL_MS` (environment) sets how often the installed set is
 * checked for `notifications/resources/list_changed` (default 1000).
 */
export async function runMcp(deps: CliDeps, opts: { project?: string } = {}): Promise<CommandResult> {
  const { serveMcp } = await import('../mcp/server.js');
  const poll = Number(deps.env.CTXPKG_MCP_POLL_MS);
  await serveMcp(deps, { ...(opts.project !== undefined ? { project: opts.project } : {}), ...(Number.isSafeInteger(poll) && poll > 0 ? { pollMs: poll } : {}) });
  return { text: [], json: null };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'mcp', 'serve installed context to agents over MCP (stdio): search_context, get_node, get_section, neighbors, render_pack')
    .option('--project <dir>', 'serve the project at <dir> (default: the MCP host\'s roots, else the working directory)')
    .addHelpText(
      'after',
      examples([
        'ctxpkg mcp',
        'claude mcp add ctxpkg -- ctxpkg mcp',
        'ctxpkg mcp --project ~/src/my-service',
        '# .cursor/mcp.json: { "mcpServers": { "ctxpkg": { "command": "ctxpkg", "args": ["mcp"] } } }',
        '# without a linked ctxpkg command: claude mcp add ctxpkg -- node /path/to/ctxpkg/packages/cli/bin/ctxpkg.js mcp',
      ]) +
        '\n`ctxpkg sync` registers this server by itself in the project MCP config of each enabled agent\n(.mcp.json, .cursor/mcp.json, .vscode/mcp.json, .gemini/settings.json, .kiro/settings/mcp.json):\nthe commands above are for other hosts and user-level configs (Windsurf, Cline, Codex).\n' +
        '\nUse the ctxpkg command you installed (README "Getting the ctxpkg command") or an absolute path to\nbin/ctxpkg.js; do not use `npx ctxpkg`: the name is not ctxpkg\'s on the npm registry, so npx could\ndownload and run someone else\'s package (sync writes `npx --no ctxpkg mcp` only for a project that\nlists ctxpkg as a dependency: `--no` never downloads).\n',
    )
    .action(ctx.action(async (opts: { project?: string }) => runMcp(ctx.deps, opts)));
}
