import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildGraph } from './index.js';
import { importMarkdown, nearlySame } from './markdown.js';
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
  it('keeps each list item whole — marker, continuation lines, nested items — and fences intact', () => {
    expect(byId.get('AGENTS.md:commands~950ea4f3')).toMatchObject({ type: 'procedure', content: '1. Install: `npm ci`' });
    const item = r.nodes.find((n) => n.content.startsWith('- Never commit'))!;
    expect(item).toMatchObject({ type: 'gotcha', content: '- Never commit `dist/`.\n  It is generated.\n  - Nested: avoid `git add -A`.', line_start: 10, line_end: 12 });
    expect(item.id).toMatch(/^AGENTS\.md:gotchas~[0-9a-f]{8}$/);
    expect(r.nodes.some((n) => n.content.startsWith('Nested'))).toBe(false);
    expect(byId.get('AGENTS.md:gotchas~cb8d2084')).toMatchObject({ type: 'procedure', content: '```sh\nnpm run build\n```', line_end: 16 });
  });
  it('records provenance as the SHA-256 of the exact lines', () => {
    const n = r.nodes.find((x) => x.content.startsWith('- Never commit'))!;
    const expected = createHash('sha256').update('- Never commit `dist/`.\n  It is generated.\n  - Nested: avoid `git add -A`.').digest('hex');
    expect(n.source).toBe(`sha256:${expected}`);
    expect(n.source).toBe(sourceHash(splitLines(AGENTS), 10, 12));
  });
  it('reports links for reference edges', () => {
    expect(r.links).toContainEqual({ from: 'AGENTS.md:gotchas~08310f8b', url: 'spec/format.md', line: 18 });
  });
  it('ignores CRLF line endings and a BOM for hashing', () => {
    const crlf = importMarkdown({ path: 'AGENTS.md', kind: 'agents-md', text: '\ufeff' + AGENTS.replace(/\n/g, '\r\n') });
    expect(crlf.nodes.map((n) => [n.id, n.source])).toEqual(r.nodes.map((n) => [n.id, n.source]));
  });
});

describe('chunking: a lead-in stays with the block it introduces', () => {
  const text = [
    '# Rules', // 1
    '', // 2
    '**DO NOT**:', // 3
    '', // 4
    '```sh', // 5
    'git push --force', // 6
    '```', // 7
    '', // 8
    'Before you commit, run:', // 9
    '', // 10
    '1. `npm run lint`', // 11
    '2. `npm test`', // 12
    '', // 13
    'Commands:', // 14
    '', // 15
    '| Command | Purpose |', // 16
    '| --- | --- |', // 17
    '| `make` | build |', // 18
    '', // 19
    'This paragraph ends with a colon:', // 20
    '', // 21
    'but a paragraph follows, so it stands alone.', // 22
    '', // 23
    '**Note**', // 24
    '- bold label with its list', // 25
    '', // 26
  ].join('\n');
  const nodes = importMarkdown({ path: 'AGENTS.md', kind: 'agents-md', text }).nodes.filter((n) => n.type !== 'section');

  it('joins a lead-in with its code block, ordered list, table or list (one node, exact source lines)', () => {
    expect(nodes.map((n) => [n.line_start, n.line_end])).toEqual([
      [3, 7],
      [9, 12],
      [14, 18],
      [20, 20],
      [22, 22],
      [24, 25],
    ]);
    const lines = text.split('\n');
    for (const n of nodes) expect(n.content).toBe(lines.slice((n.line_start as number) - 1, n.line_end).join('\n'));
  });

  it('types the joined node: a warning lead-in makes a gotcha, steps a procedure', () => {
    expect(nodes.map((n) => n.type)).toEqual(['gotcha', 'procedure', 'fact', 'fact', 'fact', 'fact']);
  });

  it('keeps ids stable when lines are added elsewhere', () => {
    const again = importMarkdown({ path: 'AGENTS.md', kind: 'agents-md', text: text.replace('# Rules\n', '# Rules\n\nA new intro.\n') }).nodes.filter((n) => n.type !== 'section');
    for (const n of nodes) expect(again.some((m) => m.id === n.id && m.content === n.content), n.content).toBe(true);
  });

  it('list items keep the ids they had without their marker', () => {
    const n = importMarkdown({ path: 'x.md', kind: 'markdown', text: '- Use tabs.\n' }).nodes.find((x) => x.type !== 'section')!;
    expect(n.content).toBe('- Use tabs.');
    expect(n.id).toBe(`x.md:~${createHash('sha256').update('Use tabs.').digest('hex').slice(0, 8)}`);
  });
});

describe('frontmatter scope', () => {
  it('turns .mdc globs into scope nodes with applies_to edges', () => {
    const text = '---\ndescription: Python rules\nglobs: src/**/*.py, tests/**\nalwaysApply: false\n---\n# Py\n\n- Use type hints.\n';
    const g = buildGraph([{ path: '.cursor/rules/py.mdc', kind: 'cursor-rule', text }]);
    const scopes = g.nodes.filter((n) => n.type === 'scope');
    expect(scopes.map((s) => [s.content, s.line_start])).toEqual([['src/**/*.py', 3], ['tests/**', 3]]);
    expect(g.edges.filter((e) => e.type === 'applies_to').map((e) => e.from)).toEqual(['.cursor/rules/py.mdc', '.cursor/rules/py.mdc']);
    expect(g.nodes.find((n) => n.content === '- Use type hints.')?.line_start).toBe(8);
  });
  it('keeps a frontmatter description (when an agent-requested rule applies) as a node of the root section', () => {
    const text = '---\ndescription: Follow these rules when writing or modifying tests\nglobs:\nalwaysApply: false\n---\n# Testing\n\n- Use pytest fixtures.\n';
    const g = buildGraph([{ path: '.cursor/rules/tests.mdc', kind: 'cursor-rule', text }]);
    const d = g.nodes.find((n) => n.id === '.cursor/rules/tests.mdc:frontmatter:description');
    expect(d).toMatchObject({ type: 'convention', content: 'Follow these rules when writing or modifying tests', line_start: 2, line_end: 2 });
    expect(g.edges).toContainEqual({ from: '.cursor/rules/tests.mdc', to: d?.id, type: 'contains', weight: 1.0 });
    // No description, or an empty one: no node.
    const none = buildGraph([{ path: 'x.mdc', kind: 'cursor-rule', text: '---\ndescription: ""\nalwaysApply: true\n---\nx\n' }]);
    expect(none.nodes.some((n) => n.id.endsWith(':frontmatter:description'))).toBe(false);
  });
  it('makes no description node when the title or first paragraph already says it (printed once)', () => {
    const ids = (text: string) => buildGraph([{ path: '.cursor/rules/db.mdc', kind: 'cursor-rule', text }]).nodes.map((n) => n.content);
    // First paragraph repeats it (whitespace, a final period and case aside): only the body's line.
    const para = ids('---\ndescription: Use these rules when  writing migrations\nalwaysApply: false\n---\nUse these rules when writing migrations.\n\n- Never edit an applied migration.\n');
    expect(para.filter((c) => /use these rules/i.test(c))).toEqual(['Use these rules when writing migrations.']);
    // …and that paragraph's node is the description node (rule files read their description from it).
    const g = buildGraph([{ path: '.cursor/rules/db.mdc', kind: 'cursor-rule', text: '---\ndescription: Use these rules when writing migrations\n---\nUse these rules when writing migrations.\n' }]);
    expect(g.nodes.find((n) => n.id === '.cursor/rules/db.mdc:frontmatter:description')).toMatchObject({ content: 'Use these rules when writing migrations.', line_start: 4, line_end: 4 });
    // The H1 says it: the section title only.
    const h1 = ids('---\ndescription: Database migrations\nalwaysApply: false\n---\n# Database migrations\n\n- Never edit an applied migration.\n');
    expect(h1.filter((c) => /database migrations/i.test(c))).toEqual(['Database migrations']);
    // In nearly the same words (the NeMo test rules of the corpus): printed once, from the body.
    const near = ids(
      "---\ndescription: Follow these rules when the user's request involves writing, creating, or modifying tests for NeMo Agent Toolkit\nalwaysApply: false\n---\nFollow these rules when writing, creating, or modifying tests for NeMo Agent Toolkit.\n\n- Use pytest.\n",
    );
    expect(near.filter((c) => /follow these rules/i.test(c))).toEqual(['Follow these rules when writing, creating, or modifying tests for NeMo Agent Toolkit.']);
    // A paragraph that adds its own clause, or a short one that differs: both stay.
    const more = ids('---\ndescription: Use these rules for Python tests\nalwaysApply: false\n---\nUse these rules for Python tests in the tests folder, and for fixtures shared with the benchmarks.\n');
    expect(more.filter((c) => /use these rules/i.test(c))).toHaveLength(2);
    expect(nearlySame('Rules for API endpoints', 'Rules for API handlers')).toBe(false);
    // A different first paragraph (or one further down): the description stays a node.
    const other = ids('---\ndescription: Use these rules when writing migrations\nalwaysApply: false\n---\n- Never edit an applied migration.\n\nUse these rules when writing migrations\n');
    expect(other.filter((c) => /use these rules/i.test(c))).toHaveLength(2);
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
  it('splits run-on legacy .cursorrules lines into ordered nodes on the same line', () => {
    const text = 'You are an expert.  Key Principles - Write concise code. - Avoid classes where possible. - Prefer iteration over duplication.  Errors - Handle them early:  - Guard clauses first.  - Log with context.  Use descriptive names with auxiliary verbs for readability of the code in all the modules and files that make up the service.';
    expect(text.length).toBeGreaterThan(300);
    const g = buildGraph([{ path: '.cursorrules', kind: 'cursorrules', text }]);
    const kids = g.nodes.filter((n) => n.id.startsWith('.cursorrules:~'));
    const byContent = new Map(kids.map((n) => [n.content, n]));
    const pieces = [
      'You are an expert.',
      'Key Principles - Write concise code. - Avoid classes where possible. - Prefer iteration over duplication.',
      'Errors - Handle them early:  - Guard clauses first.  - Log with context.',
      'Use descriptive names with auxiliary verbs for readability of the code in all the modules and files that make up the service.',
    ];
    expect([...byContent.keys()].sort()).toEqual([...pieces].sort());
    for (const n of kids) expect(n).toMatchObject({ line_start: 1, line_end: 1 });
    expect(byContent.get(pieces[1]!)?.type).toBe('gotcha');
    // followed_by edges keep their order (all share line 1).
    const next = pieces.slice(1).map((p, i) => ({ from: byContent.get(pieces[i]!)!.id, to: byContent.get(p)!.id, type: 'followed_by', weight: 1.0 }));
    for (const e of next) expect(g.edges).toContainEqual(e);
  });
});
