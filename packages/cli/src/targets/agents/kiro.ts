/**
 * Kiro: steering files `.kiro/steering/*.md` with frontmatter `inclusion: always`, or
 * `inclusion: fileMatch` + `fileMatchPattern` (a list of globs); Kiro also includes AGENTS.md
 * on every request.
 */
import type { AgentTarget } from './types.js';
import { frontmatter, yamlList } from './yaml.js';

export const kiro: AgentTarget = {
  id: 'kiro',
  agent: 'Kiro',
  detect: ['.kiro'],
  alwaysOn: { kind: 'file', path: '.kiro/steering/ctxpkg.md', frontmatter: frontmatter(['inclusion: always']) },
  readsAgentsMd: true,
  scoped: {
    dir: '.kiro/steering',
    ext: '.md',
    frontmatter: (patterns) => frontmatter(['inclusion: fileMatch', `fileMatchPattern: ${yamlList(patterns)}`]),
  },
  mcp: {
    // Workspace `.kiro/settings/mcp.json` (user: `~/.kiro/settings/mcp.json`; the workspace wins), `mcpServers`.
    // Strict JSON: its CLI predecessor discards an mcp.json with comments (github.com/aws/amazon-q-developer-cli/issues/2082).
    path: '.kiro/settings/mcp.json',
    format: 'json',
    key: 'mcpServers',
    entry: (command, args) => ({ command, args: [...args] }),
    source: 'https://kiro.dev/docs/mcp/configuration (configuration locations: workspace .kiro/settings/mcp.json)',
  },
  limits: {
    alwaysOn: { text: 'no documented cap', source: 'https://kiro.dev/docs/steering/' },
    ruleFile: { text: 'no documented cap', source: 'https://kiro.dev/docs/steering/' },
  },
};
