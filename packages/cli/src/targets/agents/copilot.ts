/**
 * GitHub Copilot: `.github/copilot-instructions.md` (repository-wide, always loaded) and
 * `.github/instructions/*.instructions.md` with frontmatter `applyTo` (comma-separated globs).
 * Copilot code review reads only the first 4,000 characters of each instruction file, which is
 * why pinned nodes and gotchas come first in every block.
 */
import type { AgentTarget } from './types.js';
import { commaFree, frontmatter, yamlQuote } from './yaml.js';

export const copilot: AgentTarget = {
  id: 'copilot',
  agent: 'GitHub Copilot',
  detect: ['.github/copilot-instructions.md', '.github/instructions'],
  alwaysOn: { kind: 'block', path: '.github/copilot-instructions.md' },
  readsAgentsMd: false,
  scoped: {
    dir: '.github/instructions',
    ext: '.instructions.md',
    frontmatter: (patterns) => frontmatter([`applyTo: ${yamlQuote(commaFree(patterns).patterns.join(','))}`]),
  },
  limits: {
    alwaysOn: {
      text: 'chat: no documented cap ("keep it short"); code review reads only the first 4,000 characters of an instruction file',
      source: 'https://docs.github.com/en/copilot/customizing-copilot/adding-repository-custom-instructions-for-github-copilot',
    },
    ruleFile: { text: 'code review: first 4,000 characters', source: 'https://docs.github.com/en/copilot/customizing-copilot/adding-repository-custom-instructions-for-github-copilot' },
  },
};
