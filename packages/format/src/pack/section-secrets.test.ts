/**
 * A section node is never delivered itself, but its title (first line) and provenance are written
 * into every pack, agent file and MCP answer as the header of its items (spec/pack.md §8). The
 * secret screening of §3 must reach them too: a token in a heading or in a section's file path
 * must not be delivered, in Markdown or JSON, while the clean items under it still are.
 */
import { describe, expect, it } from 'vitest';
import { compilePack } from './compile.js';
import { graph, node, NOW } from './__tests__/graph.js';

const P = '@a/p';
const TOKEN = 'ghp_' + 'aB3'.repeat(12);

describe('secrets in section titles and paths', () => {
  for (const format of ['md', 'json'] as const) {
    it(`are redacted in the headers of a ${format} pack; the clean items under them are delivered`, () => {
      const g = graph(
        [
          node(P, 'S', { type: 'section', content: `Deploy with ${TOKEN}\nmore`, file_path: 'docs/a.md', line_start: 1, line_end: 9 }),
          node(P, 'T', { type: 'section', content: 'Release', file_path: `docs/${TOKEN}.md`, line_start: 3, line_end: 9 }),
          node(P, 'x', { type: 'convention', content: 'a clean rule', file_path: 'docs/a.md', line_start: 2, line_end: 2 }),
          node(P, 'y', { type: 'convention', content: 'another clean rule', file_path: 'docs/a.md', line_start: 4, line_end: 4 }),
        ],
        [
          { from: `${P}#S`, to: `${P}#x`, type: 'contains' },
          { from: `${P}#S`, to: `${P}#T`, type: 'contains' },
          { from: `${P}#T`, to: `${P}#y`, type: 'contains' },
        ],
      );
      const p = compilePack({ graph: g, maxBytes: 100_000, now: NOW, format, receipt: true });
      expect(p.text).not.toContain(TOKEN);
      expect(JSON.stringify(p.receipt)).not.toContain(TOKEN);
      expect(p.text).toContain('a clean rule');
      expect(p.text).toContain('another clean rule');
      expect(p.text).toContain('[REDACTED:github_token]');
    });
  }

  it('a node whose scope glob holds a secret is withheld (reason secret, with the kind), never written with its `applies to:` line', () => {
    const g = graph(
      [
        node(P, 'sc', { type: 'scope', content: `src/${TOKEN}/**` }),
        node(P, 'x', { type: 'convention', content: 'a scoped rule', file_path: 'docs/a.md', line_start: 2, line_end: 2 }),
        node(P, 'y', { type: 'convention', content: 'an unscoped rule', file_path: 'docs/a.md', line_start: 3, line_end: 3 }),
      ],
      [{ from: `${P}#x`, to: `${P}#sc`, type: 'applies_to' }],
    );
    for (const format of ['md', 'json'] as const) {
      const p = compilePack({ graph: g, maxBytes: 100_000, now: NOW, format, receipt: true });
      expect(p.text).not.toContain(TOKEN);
      expect(p.text).toContain('an unscoped rule');
      expect(p.receipt.omissions).toEqual([expect.objectContaining({ id: `${P}#x`, reason: 'secret', secret_kinds: ['github_token'] })]);
    }
  });
});

