import { describe, expect, it } from 'vitest';
import { buildGraph } from './index.js';
import { headingSlug, IdAllocator, normalizeText } from './ids.js';
import { importMarkdown } from './markdown.js';

const BASE = ['# Rules', '', '## Testing', '', '- Never skip tests.', '- Run `npm test`.', '', '## Style', '', 'Use tabs.', ''].join('\n');

const idsByContent = (text: string): Map<string, string> =>
  new Map(importMarkdown({ path: 'AGENTS.md', kind: 'agents-md', text }).nodes.map((n) => [n.content, n.id]));

describe('stable importer node ids', () => {
  it('do not change when lines are inserted above or content is edited elsewhere', () => {
    const before = idsByContent(BASE);
    const edited = BASE.replace('## Testing\n', 'Intro paragraph.\n\n## Testing\n\n- A new first bullet.\n').replace('Use tabs.', 'Use tabs.\n\nAlso wrap at 100.');
    const after = idsByContent(edited);
    for (const [content, id] of before) expect(after.get(content), content).toBe(id);
    expect(before.get('- Never skip tests.')).toMatch(/^AGENTS\.md:testing~[0-9a-f]{8}$/);
    expect(before.get('Testing')).toBe('AGENTS.md:testing');
  });
  it('never contain line numbers, # or whitespace', () => {
    for (const n of importMarkdown({ path: 'AGENTS.md', kind: 'agents-md', text: BASE }).nodes) {
      expect(n.id.endsWith(`:${n.line_start}`), n.id).toBe(false);
      expect(n.id).not.toMatch(/[#\s]/);
    }
  });
  it('give exact duplicates in one section deterministic ordinals and keep ids unique', () => {
    const text = '## A\n\n- Same.\n- Same.\n- Same.\n\n## A\n\n- Same.\n';
    const nodes = importMarkdown({ path: 'x.md', kind: 'markdown', text }).nodes;
    const ids = nodes.map((n) => n.id);
    expect(new Set(ids).size).toBe(ids.length);
    const same = nodes.filter((n) => n.content === '- Same.').map((n) => n.id);
    expect(same[1]).toBe(`${same[0]}.2`);
    expect(same[2]).toBe(`${same[0]}.3`);
    expect(nodes.filter((n) => n.type === 'section').map((n) => n.id)).toEqual(['x.md', 'x.md:a', 'x.md:a.2']);
    expect(same[3]).toMatch(/^x\.md:a\.2~[0-9a-f]{8}$/);
    expect(importMarkdown({ path: 'x.md', kind: 'markdown', text }).nodes.map((n) => n.id)).toEqual(ids);
  });
  it('nest heading paths and hash normalized text (whitespace-only edits keep the id)', () => {
    const a = idsByContent('# T\n\n## Build & Release\n\n### CI\n\n- Pin   the\n  toolchain.\n');
    const b = idsByContent('# T\n\n## Build & Release\n\n### CI\n\n- Pin the toolchain.\n');
    expect(a.get('- Pin   the\n  toolchain.')).toBe(b.get('- Pin the toolchain.'));
    expect(a.get('CI')).toBe('AGENTS.md:build-release/ci');
  });
  it('name frontmatter scope nodes without line numbers', () => {
    const g = buildGraph([{ path: '.cursor/rules/py.mdc', kind: 'cursor-rule', text: '---\nglobs: src/**/*.py, tests/**\n---\n- Use type hints.\n' }]);
    expect(g.nodes.filter((n) => n.type === 'scope').map((n) => n.id)).toEqual(['.cursor/rules/py.mdc:scope:1', '.cursor/rules/py.mdc:scope:2']);
  });
});

describe('ids never read as secrets to the secret screens', () => {
  it('blocks under headings named like credentials do not scan as secret assignments', async () => {
    const { scanSecrets } = await import('@ctxpkg/format');
    const text = ['## API key', '', '- Rotate it monthly.', '', '## Password', '', '- Use the vault.', '- Use the vault.', '', '## Client secret', '', '- Never log it.', ''].join('\n');
    for (const n of importMarkdown({ path: 'AGENTS.md', kind: 'agents-md', text }).nodes) expect(scanSecrets(n.id), n.id).toEqual([]);
  });
});

describe('id helpers', () => {
  it('slugs keep Unicode letters and fall back to "section"', () => {
    expect(headingSlug('Café: Überblick (v2)')).toBe('café-überblick-v2');
    expect(headingSlug('🚀 !!')).toBe('section');
    expect(headingSlug('x'.repeat(80))).toHaveLength(48);
    expect(normalizeText('  a \n\t b ')).toBe('a b');
  });
  it('the allocator returns the base, then .2, .3', () => {
    const a = new IdAllocator();
    expect([a.take('n'), a.take('n'), a.take('m'), a.take('n')]).toEqual(['n', 'n.2', 'm', 'n.3']);
  });
});
