import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildGraph } from './index.js';
import { importMarkdown } from './markdown.js';
import { sourceHash, splitLines } from './provenance.js';

const AGENTS = [
  '# Project rules', // 1
  '', // 2
  '## Commands', // 3
  '', // 4
  '1. Install: `npm ci`', // 5
  '2. Test: `npm test`', // 6
  '', // 7
  '## Gotchas', // 8
  '', // 9
  '- Never commit `dist/`.', // 10
  '  It is generated.', // 11
  '  - Nested: avoid `git add -A`.', // 12
  '', // 13
  '```sh', // 14
  'npm run build', // 15
  '```', // 16
  '', // 17
  'See [the spec](spec/format.md).', // 18
  '',
].join('\n');

describe('importMarkdown', () => {
  const r = importMarkdown({ path: 'AGENTS.md', kind: 'agents-md', text: AGENTS });
  const byId = new Map(r.nodes.map((n) => [n.id, n]));

  it('makes the single leading H1 the root section spanning the file', () => {
    expect(byId.get('AGENTS.md')).toMatchObject({ type: 'section', content: 'Project rules', line_start: 1, line_end: 18 });
  });
  it('turns headings into sections with contains edges and line ranges to the section end', () => {
    expect(byId.get('AGENTS.md:commands')).toMatchObject({ type: 'section', content: 'Commands', line_start: 3, line_end: 6 });
    expect(r.edges).toContainEqual({ from: 'AGENTS.md', to: 'AGENTS.md:commands', type: 'contains', weight: 1.0 });
  });
  it('types bullets, keeps continuation lines, nests items and keeps fences intact', () => {
    expect(byId.get('AGENTS.md:commands~950ea4f3')).toMatchObject({ type: 'procedure', content: 'Install: `npm ci`' });
    expect(byId.get('AGENTS.md:gotchas~310b316e')).toMatchObject({ type: 'gotcha', content: 'Never commit `dist/`.\nIt is generated.', line_start: 10, line_end: 11 });
    expect(byId.get('AGENTS.md:gotchas~da9020bc')).toMatchObject({ type: 'gotcha', line_start: 12 });
    expect(r.edges).toContainEqual({ from: 'AGENTS.md:gotchas~310b316e', to: 'AGENTS.md:gotchas~da9020bc', type: 'contains', weight: 1.0 });
    expect(byId.get('AGENTS.md:gotchas~cb8d2084')).toMatchObject({ type: 'procedure', content: '```sh\nnpm run build\n```', line_end: 16 });
  });
  it('records provenance as the SHA-256 of the exact lines', () => {
    const n = byId.get('AGENTS.md:gotchas~310b316e')!;
    const expected = createHash('sha256').update('- Never commit `dist/`.\n  It is generated.').digest('hex');
    expect(n.source).toBe(`sha256:${expected}`);
    expect(n.source).toBe(sourceHash(splitLines(AGENTS), 10, 11));
  });
  it('reports links for reference edges', () => {
    expect(r.links).toContainEqual({ from: 'AGENTS.md:gotchas~08310f8b', url: 'spec/format.md', line: 18 });
  });
  it('ignores CRLF line endings and a BOM for hashing', () => {
    const crlf = importMarkdown({ path: 'AGENTS.md', kind: 'agents-md', text: '\ufeff' + AGENTS.replace(/\n/g, '\r\n') });
    expect(crlf.nodes.map((n) => [n.id, n.source])).toEqual(r.nodes.map((n) => [n.id, n.source]));
  });
});

describe('frontmatter scope', () => {
  it('turns .mdc globs into scope nodes with applies_to edges', () => {
    const text = '---\ndescription: Python rules\nglobs: src/**/*.py, tests/**\nalwaysApply: false\n---\n# Py\n\n- Use type hints.\n';
    const g = buildGraph([{ path: '.cursor/rules/py.mdc', kind: 'cursor-rule', text }]);
    const scopes = g.nodes.filter((n) => n.type === 'scope');
    expect(scopes.map((s) => [s.content, s.line_start])).toEqual([['src/**/*.py', 3], ['tests/**', 3]]);
    expect(g.edges.filter((e) => e.type === 'applies_to').map((e) => e.from)).toEqual(['.cursor/rules/py.mdc', '.cursor/rules/py.mdc']);
    expect(g.nodes.find((n) => n.content === 'Use type hints.')?.line_start).toBe(8);
  });
  it('reads applyTo lists of copilot instructions', () => {
    const text = '---\napplyTo:\n  - "**/*.ts"\n  - "**/*.tsx"\n---\nUse strict mode.\n';
    const g = buildGraph([{ path: '.github/instructions/ts.instructions.md', kind: 'copilot-scoped', text }]);
    expect(g.nodes.filter((n) => n.type === 'scope').map((s) => [s.content, s.line_start])).toEqual([['**/*.ts', 3], ['**/*.tsx', 4]]);
  });
  it('refuses broken frontmatter with file:line', () => {
    expect(() => buildGraph([{ path: 'x.mdc', kind: 'cursor-rule', text: '---\nglobs: [a\n---\nx\n' }])).toThrow(/x\.mdc:3/);
  });
});

describe('buildGraph', () => {
  it('links imported files with references edges and is independent of input order', () => {
    const a = { path: 'docs/a.md', kind: 'markdown' as const, text: 'Read [b](b.md#top).\n' };
    const b = { path: 'docs/b.md', kind: 'markdown' as const, text: 'B facts.\n' };
    const g1 = buildGraph([a, b]);
    const g2 = buildGraph([b, a]);
    expect(g1).toEqual(g2);
    expect(g1.edges).toContainEqual({ from: 'docs/a.md:~c2428311', to: 'docs/b.md', type: 'references', weight: 1.0 });
  });
  it('splits run-on legacy .cursorrules lines into nodes on the same line', () => {
    const text = 'You are an expert.  Key Principles - Write concise code. - Avoid classes where possible. - Prefer iteration over duplication. - Use descriptive names with auxiliary verbs for readability of the code in all the modules and files that make up the service. - Handle errors at the beginning of functions with guard clauses and early returns.';
    expect(text.length).toBeGreaterThan(300);
    const g = buildGraph([{ path: '.cursorrules', kind: 'cursorrules', text }]);
    const kids = g.nodes.filter((n) => n.id.startsWith('.cursorrules:~'));
    expect(kids.length).toBeGreaterThanOrEqual(5);
    expect(kids.find((n) => n.content.startsWith('Avoid'))?.type).toBe('gotcha');
    for (const n of kids) expect(text).toContain(n.content);
  });
});
