/**
 * Claude Code: CLAUDE.md (always loaded; it does not read AGENTS.md, but CLAUDE.md may import it
 * with `@AGENTS.md`) and `.claude/rules/*.md`, which load only when Claude works on files
 * matching their `paths:` frontmatter (a YAML list of globs).
 */
import type { AgentTarget } from './types.js';
import { frontmatter, yamlList } from './yaml.js';

export const claude: AgentTarget = {
  id: 'claude',
  agent: 'Claude Code',
  detect: ['CLAUDE.md', '.claude'],
  alwaysOn: { kind: 'block', path: 'CLAUDE.md' },
  readsAgentsMd: false,
  importsAgentsMd: true,
  scoped: {
    dir: '.claude/rules',
    ext: '.md',
    frontmatter: (patterns) => frontmatter([`paths: ${yamlList(patterns)}`]),
  },
  mcp: {
    // Project scope: `.mcp.json` at the root, `mcpServers` by name with `command`/`args` (what
    // `claude mcp add --scope project` writes; Claude Code asks each user to approve it once).
    path: '.mcp.json',
    format: 'json',
    key: 'mcpServers',
    entry: (command, args) => ({ command, args: [...args] }),
    source: 'https://code.claude.com/docs/en/mcp (project scope, .mcp.json)',
    firstStart: 'Claude Code asks once to approve a project server',
  },
  limits: {
    alwaysOn: {
      text: 'warns "Large CLAUDE.md will impact performance" above 40,000 characters; the docs advise under 200 lines',
      bytes: 40000,
      source: 'https://code.claude.com/docs/en/memory',
    },
    ruleFile: { text: 'no separate cap; rule files count toward the same context', source: 'https://code.claude.com/docs/en/memory' },
  },
};
