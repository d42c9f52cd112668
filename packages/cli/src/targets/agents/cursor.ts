/**
 * Cursor: reads AGENTS.md natively; its own rules are `.cursor/rules/*.mdc` with frontmatter
 * `description`, `globs` (comma-separated patterns, no spaces, unquoted: Cursor reads the rest of
 * the line as it stands and keeps quotes in the patterns, see yaml.ts) and `alwaysApply`. Without the
 * AGENTS.md target the always-on tier is `.cursor/rules/ctxpkg.mdc` with `alwaysApply: true`.
 */
import type { AgentTarget } from './types.js';
import { bareGlobs, barePatternProblem, frontmatter, yamlQuote } from './yaml.js';

export const cursor: AgentTarget = {
  id: 'cursor',
  agent: 'Cursor',
  detect: ['.cursor', '.cursorrules'],
  alwaysOn: {
    kind: 'file',
    path: '.cursor/rules/ctxpkg.mdc',
    // `alwaysApply: true` alone: a description only helps Cursor choose rules it applies on its
    // own judgement, and every byte here is paid by the always-on text of every agent (one
    // selection: the frontmatter overhead is the largest of any target's).
    frontmatter: frontmatter(['alwaysApply: true']),
  },
  readsAgentsMd: true,
  scoped: {
    dir: '.cursor/rules',
    ext: '.mdc',
    // The source rule's own description when it had one (what the rules are for, as its author
    // wrote it for Cursor), else the package and source file (the block markers say ctxpkg
    // manages the file; the description is for the agent).
    frontmatter: (patterns, title, description) =>
      frontmatter([`description: ${yamlQuote(description ?? title)}`, `globs: ${bareGlobs(patterns)}`, 'alwaysApply: false']),
    // `globs: **/*.ts,**/*.tsx` as the docs write it (cursor.com/docs/context/rules): a pattern
    // that cannot be written so (comma, comment, YAML syntax, edge spaces) is left out, with a warning.
    patternProblem: barePatternProblem,
  },
  mcp: {
    // Project: `.cursor/mcp.json` (global: `~/.cursor/mcp.json`), `mcpServers` with `command`/`args`.
    // Strict JSON: Cursor rejects a trailing comma there (github.com/upstash/context7/issues/563).
    path: '.cursor/mcp.json',
    format: 'json',
    key: 'mcpServers',
    entry: (command, args) => ({ command, args: [...args] }),
    source: 'https://cursor.com/docs/mcp (project configuration: .cursor/mcp.json)',
  },
  limits: {
    alwaysOn: { text: 'no documented cap; the docs advise rules under 500 lines', source: 'https://cursor.com/docs/context/rules' },
    ruleFile: { text: 'no documented cap; under 500 lines advised', source: 'https://cursor.com/docs/context/rules' },
  },
};
