/**
 * GitHub Copilot: `.github/copilot-instructions.md` (repository-wide, always loaded) and
 * `.github/instructions/*.instructions.md` with frontmatter `applyTo` (comma-separated globs).
 * Copilot code review reads only the first 4,000 characters of each instruction file (chat and
 * the coding agent read all of it): sync notes each file it writes past that
 * (`limits.*.partial`), since the one selection every agent shares is not cut for one feature.
 *
 * Copilot also reads AGENTS.md by itself (`readsAgentsMd`): VS Code chat lists "one or more
 * AGENTS.md files" among its always-on instructions next to copilot-instructions.md
 * (code.visualstudio.com/docs/agent-customization/custom-instructions; the Copilot harness row
 * of .../agents/reference/custom-instructions-reference), and Copilot on GitHub — the cloud
 * (coding) agent and code review — reads "agent instructions" from AGENTS.md
 * (docs.github.com/en/copilot/how-tos/configure-custom-instructions/add-repository-instructions).
 * So with the `agents-md` target on, copilot-instructions.md gets no block (Copilot would read
 * the same text twice); its path-scoped `.instructions.md` files are written as before.
 */
import type { AgentTarget } from './types.js';
import { commaFree, commaProblem, frontmatter, yamlQuote } from './yaml.js';

const PARTIAL = 'code review reads only the first 4,000 characters of an instruction file (chat and the coding agent read all of it)';

export const copilot: AgentTarget = {
  id: 'copilot',
  agent: 'GitHub Copilot',
  detect: ['.github/copilot-instructions.md', '.github/instructions'],
  alwaysOn: { kind: 'block', path: '.github/copilot-instructions.md' },
  readsAgentsMd: true,
  scoped: {
    dir: '.github/instructions',
    ext: '.instructions.md',
    // Quoted, as GitHub's and VS Code's docs write it (`applyTo: "**/*.ts,**/*.tsx"`): Copilot
    // parses the frontmatter as YAML. Comma-joined, so a comma inside a pattern would split it.
    frontmatter: (patterns) => frontmatter([`applyTo: ${yamlQuote(commaFree(patterns).patterns.join(','))}`]),
    patternProblem: commaProblem,
  },
  mcp: {
    // VS Code (Copilot agent mode): workspace `.vscode/mcp.json`, top-level `servers`, `type`
    // required ("stdio"); JSON with comments, which sync keeps. The Copilot cloud agent reads its
    // MCP servers from the repository's settings on GitHub, not from a file.
    path: '.vscode/mcp.json',
    format: 'jsonc',
    key: 'servers',
    entry: (command, args) => ({ type: 'stdio', command, args: [...args] }),
    source: 'https://code.visualstudio.com/docs/agents/reference/mcp-configuration (.vscode/mcp.json, "servers", stdio: type, command, args)',
  },
  limits: {
    alwaysOn: {
      text: 'chat: no documented cap ("keep it short"); code review reads only the first 4,000 characters of an instruction file',
      partial: { chars: 4000, what: PARTIAL },
      source: 'https://docs.github.com/en/copilot/customizing-copilot/adding-repository-custom-instructions-for-github-copilot',
    },
    ruleFile: { text: 'code review: first 4,000 characters', partial: { chars: 4000, what: PARTIAL }, source: 'https://docs.github.com/en/copilot/customizing-copilot/adding-repository-custom-instructions-for-github-copilot' },
  },
};
