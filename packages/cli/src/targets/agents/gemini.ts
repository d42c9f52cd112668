/**
 * Gemini CLI: GEMINI.md (hierarchical, always loaded; may import other files with `@file.md`).
 * No glob scoping (only nested GEMINI.md files per directory), so its block names each
 * path-scoped rule set and where to read it, as AGENTS.md does.
 */
import type { AgentTarget } from './types.js';

export const gemini: AgentTarget = {
  id: 'gemini',
  agent: 'Gemini CLI',
  detect: ['GEMINI.md', '.gemini'],
  alwaysOn: { kind: 'block', path: 'GEMINI.md' },
  readsAgentsMd: false,
  importsAgentsMd: true,
  scoped: null,
  mcp: {
    // Project settings `.gemini/settings.json` (user: `~/.gemini/settings.json`), `mcpServers`
    // with `command`/`args`; Gemini CLI starts stdio servers only in trusted folders.
    path: '.gemini/settings.json',
    format: 'jsonc',
    key: 'mcpServers',
    entry: (command, args) => ({ command, args: [...args] }),
    source: 'https://geminicli.com/docs/cli/configuration (project settings file) and https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md (mcpServers)',
  },
  limits: {
    alwaysOn: { text: 'no documented cap (the whole hierarchy is concatenated into the context)', source: 'https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/gemini-md.md' },
  },
};
