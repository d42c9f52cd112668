/**
 * New-user finding 24: package text must not become a live `@path` import for Claude Code or
 * Gemini CLI. Each output is parsed by a CommonMark parser (mdast, the importer's) and checked
 * the way both agents scan: Claude Code matches `(?:^|\s)@\S` in text tokens (code spans and
 * code blocks skipped); Gemini CLI takes an `@` after a space, tab or line break in the raw file.
 */
import { describe, expect, it } from 'vitest';
import { claudeImports, geminiImports, rawAfterSpace } from '../../../../test/support/md-imports.js';
import { neutralizeImports } from './imports.js';

const HOSTILE = [
  '@.env',
  '@~/.ssh/id_ed25519',
  '- See @docs/setup.md for details.',
  '# Setup @/etc/passwd',
  'Read **@../secrets.yml** first, then _@./a.md_ and ~~@b.md~~.',
  '1. Step one: @config/prod.json\n2. Step two @x',
  '> quoted @.env.local',
  'Links: [@.env](https://x.test) and (@./paren.md) and "@quoted.md".',
  'Escaped \\@.env and double \\\\@.env and triple \\\\\\@.env',
  'Spans `x`@after.md and before@`y` and @mid`z`',
  'A stray ` backtick then @.env and ``double`` @two.md',
  'Multi `line\n@inside.md` span',
  '| col | path |\n| --- | --- |\n| a | @.env |\n| `x | @y.md` |',
  'tab\t@tab.md and nbsp\u00a0@nbsp.md',
  '@a@b@c.md and @a(@b) and @@double.md',
  'Setext @heading.md\n===',
  '*@star.md*',
];

describe('neutralizeImports', () => {
  it.each(HOSTILE)('leaves no import-capable @path outside code for either agent: %j', (input) => {
    const out = neutralizeImports(input);
    expect(claudeImports(out)).toEqual([]);
    expect(geminiImports(out)).toEqual([]);
    // Every wrapped `@` is preceded by a backtick or a backslash, never by whitespace, so even a
    // scanner that pairs backticks wrongly (Gemini CLI's regex version) sees none outside code.
    if (!/`/.test(input)) expect(rawAfterSpace(out)).toBe(0);
    // Only lengthens; the text is the same once the added backticks (and spaces) are removed.
    expect(out.replace(/[` ]/g, '')).toBe(input.replace(/[` ]/g, ''));
  });

  it('the hostile inputs were imports before (each case tests something)', () => {
    for (const input of HOSTILE) expect([input, claudeImports(input).length + geminiImports(input).length + rawAfterSpace(input)]).not.toEqual([input, 0]);
  });

  it('reads naturally: the @token goes in a code span, trailing punctuation stays outside', () => {
    expect(neutralizeImports('See @docs/setup.md.')).toBe('See `@docs/setup.md`.');
    expect(neutralizeImports('@.env')).toBe('`@.env`');
    expect(neutralizeImports('- Install @acme/kb, then run it.')).toBe('- Install `@acme/kb`, then run it.');
    expect(neutralizeImports('Read **@x.md** (or @y.md)')).toBe('Read **`@x.md`** (or `@y.md`)');
    expect(neutralizeImports('# Heading @h.md')).toBe('# Heading `@h.md`');
    expect(neutralizeImports('[@x.md](https://x.test) and (@y.md)')).toBe('[`@x.md`](https://x.test) and (`@y.md`)');
  });

  it('leaves e-mail addresses, word-internal @, a lone @ and code alone', () => {
    for (const same of ['Mail a@b.com or first.last@example.org', 'user@host:path', 'a @ b', 'ends with @', 'Use `npm i @acme/kb`.', '```\n@.env\n@property\n```', '~~~~\n@x.md\n~~~~', 'x@`y`']) {
      expect(neutralizeImports(same)).toBe(same);
    }
  });

  it('picks a backtick run the text does not use, and separates it from adjacent backticks', () => {
    expect(neutralizeImports('`x`@after.md')).toBe('`x` ``@after.md``');
    expect(neutralizeImports('a ` stray @b.md')).toBe('a ` stray ``@b.md``');
    expect(neutralizeImports('escaped \\@c.md')).toBe('escaped `\\@c.md`');
  });

  it('is linear: 200k candidates and 200k backtick runs finish', () => {
    const big = '@a '.repeat(200_000) + '` '.repeat(200_000);
    const out = neutralizeImports(big);
    expect(out.startsWith('``@a`` ``@a``')).toBe(true);
  });
});
