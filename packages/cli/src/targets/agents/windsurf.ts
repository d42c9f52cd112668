/**
 * Windsurf (Cascade): reads AGENTS.md (the root file is always on); its rules are
 * `.windsurf/rules/*.md` with frontmatter `trigger: glob` + `globs` (or `trigger: always_on`);
 * `globs` is written unquoted and comma-joined, as the docs' own example (`trigger: glob`,
 * `globs: **` + `/*.test.ts`), which is no YAML: Windsurf reads the line as it stands (yaml.ts).
 * Workspace rule files are cut after 12,000 characters.
 */
import type { AgentTarget } from './types.js';
import { mcpServersMember } from './mcp-by-hand.js';
import { bareGlobs, barePatternProblem, frontmatter } from './yaml.js';

const LIMIT = {
  text: 'a workspace rule file is truncated after 12,000 characters (6,000 for the global rules file)',
  bytes: 12000,
  source: 'https://docs.windsurf.com/windsurf/cascade/memories',
};

export const windsurf: AgentTarget = {
  id: 'windsurf',
  agent: 'Windsurf',
  detect: ['.windsurf', '.windsurfrules'],
  alwaysOn: { kind: 'file', path: '.windsurf/rules/ctxpkg.md', frontmatter: frontmatter(['trigger: always_on']) },
  readsAgentsMd: true,
  scoped: {
    dir: '.windsurf/rules',
    ext: '.md',
    frontmatter: (patterns) => frontmatter(['trigger: glob', `globs: ${bareGlobs(patterns)}`]),
    patternProblem: barePatternProblem,
  },
  // Windsurf reads MCP servers only from the user's `~/.codeium/windsurf/mcp_config.json`: sync
  // writes nothing outside the project (README: register `ctxpkg mcp` there yourself).
  mcp: null,
  mcpUserOnly: {
    path: '~/.codeium/windsurf/mcp_config.json',
    source: 'https://docs.windsurf.com/windsurf/cascade/mcp (mcp_config.json)',
    how: (command, args) => `Windsurf: add ${mcpServersMember(command, args)} to "mcpServers" in ~/.codeium/windsurf/mcp_config.json`,
  },
  limits: { alwaysOn: LIMIT, ruleFile: LIMIT },
};
