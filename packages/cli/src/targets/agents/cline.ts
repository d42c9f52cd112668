/**
 * Cline: `.clinerules/*.md` (all combined into one rule set); a rule file with `paths:`
 * frontmatter (a list of globs) is a conditional rule, active only while matching files are in
 * the task. Cline always reads AGENTS.md too.
 */
import type { AgentTarget } from './types.js';
import { mcpServersMember } from './mcp-by-hand.js';
import { frontmatter, yamlList } from './yaml.js';

export const cline: AgentTarget = {
  id: 'cline',
  agent: 'Cline',
  detect: ['.clinerules'],
  alwaysOn: { kind: 'file', path: '.clinerules/ctxpkg.md', frontmatter: '' },
  readsAgentsMd: true,
  scoped: {
    dir: '.clinerules',
    ext: '.md',
    frontmatter: (patterns) => frontmatter([`paths: ${yamlList(patterns)}`]),
  },
  // Cline reads MCP servers only from its user-level `cline_mcp_settings.json` (extension storage;
  // CLI: ~/.cline/data/settings/): sync writes nothing outside the project.
  mcp: null,
  mcpUserOnly: {
    path: 'cline_mcp_settings.json (MCP Servers → Configure)',
    source: 'https://docs.cline.bot/mcp/configuring-mcp-servers',
    how: (command, args) => `Cline: add ${mcpServersMember(command, args)} to "mcpServers" in cline_mcp_settings.json (MCP Servers → Configure)`,
  },
  limits: {
    alwaysOn: { text: 'no documented cap', source: 'https://docs.cline.bot/features/cline-rules/overview' },
    ruleFile: { text: 'no documented cap', source: 'https://docs.cline.bot/features/cline-rules/conditional-rules' },
  },
};
