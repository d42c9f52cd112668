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
  // Gemini CLI loads the context files named by `context.fileName` (GEMINI.md by default; the
  // pre-0.3 key `contextFileName`): when that lists AGENTS.md, Gemini reads it by itself.
  readsAgentsMdWhen: {
    path: '.gemini/settings.json',
    test: (settings) => {
      const s = settings as { context?: { fileName?: unknown }; contextFileName?: unknown } | null;
      const names = s?.context?.fileName ?? s?.contextFileName;
      return (Array.isArray(names) ? names : [names]).some((n) => typeof n === 'string' && n.replace(/^\.\//, '') === 'AGENTS.md');
    },
    source: 'https://geminicli.com/docs/cli/configuration (context.fileName) and https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/gemini-md.md',
  },
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
    firstStart: 'Gemini CLI starts it only in a trusted folder',
  },
  limits: {
    alwaysOn: { text: 'no documented cap (the whole hierarchy is concatenated into the context)', source: 'https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/gemini-md.md' },
  },
};
