import { describe, expect, it } from 'vitest';
import { classifyBlock } from './classify.js';

describe('classifyBlock', () => {
  it.each([
    ['Never import node:fs inside packages/format.', 'gotcha'],
    ['Do not run `npm run build` inside the agent session.', 'gotcha'],
    ["Don't commit node_modules.", 'gotcha'],
    ['Avoid Buffer.from(hex) on untrusted input.', 'gotcha'],
    ['Run `npm test` before pushing.', 'procedure'],
    ['CI fails if formatting is wrong; run `pre-commit run --all-files` locally.', 'procedure'],
    ['$ npm install', 'procedure'],
    ['Use ESM only.', 'convention'],
    ['Tests should use pretty_assertions.', 'convention'],
    ['Prefer TypeScript for new components.', 'convention'],
    ['The registry is a Hono app.', 'fact'],
    ['Crate names are prefixed with `codex-`.', 'fact'],
  ])('%s → %s', (text, type) => {
    expect(classifyBlock(text)).toBe(type);
  });
  it('reads through emphasis: a prohibition in bold or italics is a gotcha, not the procedure it names', () => {
    expect(classifyBlock('* **Do _not_ run `npm run build` inside the agent session.**  Running the production\n  build command switches the `.next` folder.')).toBe('gotcha');
    expect(classifyBlock('- _Never_ run `make deploy` from a laptop.')).toBe('gotcha');
    expect(classifyBlock('- ~~Run `npm ci`~~ is gone; run `pnpm install`.')).toBe('procedure');
    expect(classifyBlock('Set `snake_case` names with a_never_b style.')).toBe('fact');
  });
  it('ignores words inside inline code', () => {
    expect(classifyBlock('The flag is `--never-fail`.')).toBe('fact');
  });
  it('ordered list items are procedures; code fences by language', () => {
    expect(classifyBlock('Install the dependencies.', { ordered: true })).toBe('procedure');
    expect(classifyBlock('```sh\nnpm ci\n```', { codeLang: 'sh' })).toBe('procedure');
    expect(classifyBlock('```rust\nfn main() {}\n```', { codeLang: 'rust' })).toBe('convention');
  });
});
