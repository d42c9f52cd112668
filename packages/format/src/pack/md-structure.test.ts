import { describe, expect, it } from 'vitest';
import { escapeStructure } from './md-structure.js';

describe('escapeStructure', () => {
  it('escapes headings, HTML comments and setext underlines outside code', () => {
    expect(escapeStructure('# Title\ntext\n===\n  ## Sub\n<!-- c -->\n- item\n---')).toBe('\\# Title\ntext\n\\===\n  \\## Sub\n\\<!-- c -->\n- item\n\\---');
  });

  it('leaves text that cannot pass for structure alone', () => {
    for (const t of ['#hashtag', 'a # b', '    # indented code', 'x\n\n---', 'C# and F#', '1. step\n2. step', 'plain']) expect(escapeStructure(t)).toBe(t);
  });

  it('never changes fenced code, at any indent, and closes a fence left open', () => {
    const code = '```sh\n# comment\n<!-- x -->\n```';
    expect(escapeStructure(code)).toBe(code);
    expect(escapeStructure('- step:\n  ```sh\n  # inside\n  ```\n# out')).toBe('- step:\n  ```sh\n  # inside\n  ```\n\\# out');
    expect(escapeStructure('text\n~~~~\n# inside')).toBe('text\n~~~~\n# inside\n~~~~');
    // A shorter or different fence does not close it.
    expect(escapeStructure('````\n```\n~~~~\n# in')).toBe('````\n```\n~~~~\n# in\n````');
    // An info string with a backtick is not a backtick fence.
    expect(escapeStructure('``` a`b\n# out')).toBe('``` a`b\n\\# out');
  });

  it('is linear: a large adversarial text is handled in one pass', () => {
    const big = '#\n'.repeat(200_000) + '```\n'.repeat(1000);
    const out = escapeStructure(big);
    expect(out.startsWith('\\#\n\\#\n')).toBe(true);
  });
});
