/**
 * AGENTS.md — read by Codex and the other agents of the agents.md convention (Jules, Amp, Zed,
 * OpenCode, Cursor, Windsurf, Kiro, Cline, GitHub Copilot's coding agent, …). No path scoping in
 * the file itself (Codex scopes by directory: nested AGENTS.md files), so the always-on block
 * names each path-scoped rule set and where to read it.
 */
import type { AgentTarget } from './types.js';

export const agentsMd: AgentTarget = {
  id: 'agents-md',
  agent: 'AGENTS.md readers (Codex, Jules, Amp, Zed, OpenCode, …)',
  detect: ['AGENTS.md'],
  alwaysOn: { kind: 'block', path: 'AGENTS.md' },
  readsAgentsMd: true,
  scoped: null,
  // Codex registers MCP servers in the user's `~/.codex/config.toml` (`codex mcp add`); the other
  // AGENTS.md readers each have their own. Sync writes nothing outside the project.
  mcp: null,
  mcpUserOnly: {
    path: '~/.codex/config.toml ([mcp_servers.ctxpkg])',
    source: 'https://developers.openai.com/codex/mcp (codex mcp add <name> -- <command>)',
    how: (command, args) => `Codex: codex mcp add ctxpkg -- ${[command, ...args].join(' ')}`,
  },
  limits: {
    alwaysOn: {
      text: 'Codex stops reading project docs after 32 KiB (`project_doc_max_bytes`, all AGENTS.md files from the root down, your own text included) and cuts silently',
      bytes: 32768,
      source: 'https://developers.openai.com/codex/guides/agents-md (project_doc_max_bytes, default 32 KiB)',
    },
  },
};
