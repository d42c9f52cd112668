import { describe, expect, it } from 'vitest';
import type { ContextEdge, ContextGraph, ContextNode } from '@ctxpkg/format';
import { buildTree, containsParents, MAX_DEPTH, MAX_HEADINGS, sectionTitle, typeCounts } from './tree.js';
import { readableText } from './common.js';

const node = (id: string, type: string, content: string, o: Partial<ContextNode> = {}): ContextNode => ({ id, type, content, activation: 1, ...o });
const contains = (from: string, to: string): ContextEdge => ({ from, to, type: 'contains', weight: 1 });

/** AGENTS.md: # Rules / ## Testing / ### Fixtures, with blocks, a nested item and a scope; b.md without headings. */
function markdownGraph(): ContextGraph {
  const f = { file_path: 'AGENTS.md' };
  return {
    format: 'ctxpkg-graph-v2',
    nodes: [
      node('b.md', 'section', 'b.md', { file_path: 'b.md', line_start: 1 }),
      node('b.md:~11111111', 'fact', 'B fact', { file_path: 'b.md', line_start: 1 }),
      node('AGENTS.md:testing/fixtures~22222222', 'gotcha', 'Fixture gotcha', { ...f, line_start: 9 }),
      node('AGENTS.md', 'section', '# Rules', { ...f, line_start: 1 }),
      node('AGENTS.md:scope:1', 'scope', 'src/**/*.ts', f),
      node('AGENTS.md:~33333333', 'fact', 'Top fact', { ...f, line_start: 3 }),
      node('AGENTS.md:testing', 'section', 'Testing', { ...f, line_start: 5 }),
      node('AGENTS.md:testing~44444444', 'procedure', 'Run tests', { ...f, line_start: 6 }),
      node('AGENTS.md:testing~55555555', 'fact', 'Nested item', { ...f, line_start: 7 }),
      node('AGENTS.md:testing/fixtures', 'section', '### Fixtures', { ...f, line_start: 8 }),
    ],
    edges: [
      contains('AGENTS.md', 'AGENTS.md:~33333333'),
      contains('AGENTS.md', 'AGENTS.md:testing'),
      contains('AGENTS.md:testing', 'AGENTS.md:testing~44444444'),
      contains('AGENTS.md:testing~44444444', 'AGENTS.md:testing~55555555'),
      contains('AGENTS.md:testing', 'AGENTS.md:testing/fixtures'),
      contains('AGENTS.md:testing/fixtures', 'AGENTS.md:testing/fixtures~22222222'),
      { from: 'AGENTS.md', to: 'AGENTS.md:scope:1', type: 'applies_to', weight: 1 },
      contains('b.md', 'b.md:~11111111'),
    ],
  };
}

describe('buildTree', () => {
  it('groups by file (sorted), takes the root section as the title, scope nodes as patterns, items in source order', () => {
    const tree = buildTree(markdownGraph());
    expect(tree.map((f) => f.path)).toEqual(['AGENTS.md', 'b.md']);
    const a = tree[0];
    expect(a.title).toBe('Rules');
    expect(a.rootId).toBe('AGENTS.md');
    expect(a.scopes.map((s) => s.content)).toEqual(['src/**/*.ts']);
    expect(a.items.map((i) => [i.node.content, i.depth, i.headingPath.join(' › ')])).toEqual([
      ['Top fact', 0, ''],
      ['Testing', 0, ''],
      ['Run tests', 1, 'Testing'],
      ['Nested item', 2, 'Testing'],
      ['### Fixtures', 1, 'Testing'],
      ['Fixture gotcha', 2, 'Testing › Fixtures'],
    ]);
    expect(tree[1]).toMatchObject({ path: 'b.md', title: 'b.md' });
  });

  it('renders a graph without file paths or contains edges as one group in graph order', () => {
    const g: ContextGraph = { format: 'ctxpkg-graph-v2', nodes: [node('N2', 'fact', 'two'), node('N1', 'gotcha', 'one')], edges: [] };
    const tree = buildTree(g);
    expect(tree).toHaveLength(1);
    expect(tree[0]).toMatchObject({ path: null, title: null, rootId: null });
    expect(tree[0].items.map((i) => i.node.id)).toEqual(['N2', 'N1']);
  });

  it('ignores contains edges that would close a cycle, to missing nodes, or to a second parent', () => {
    const g: ContextGraph = {
      format: 'ctxpkg-graph-v2',
      nodes: [node('a', 'section', 'A'), node('b', 'section', 'B'), node('c', 'fact', 'C')],
      edges: [contains('a', 'b'), contains('b', 'a'), contains('b', 'c'), contains('a', 'c'), contains('a', 'ghost'), contains('c', 'c')],
    };
    const parents = containsParents(g);
    expect([...parents]).toEqual([
      ['b', 'a'],
      ['c', 'b'],
    ]);
    const items = buildTree(g)[0].items;
    expect(items.find((i) => i.node.id === 'c')).toMatchObject({ depth: 2, headingPath: ['A', 'B'] });
  });

  it('stays linear on a 30,000-deep chain of contains edges (hostile input): depth and heading path are capped', () => {
    const nodes: ContextNode[] = Array.from({ length: 30_000 }, (_, i) => node(`n${i}`, 'section', `S${i}`, { file_path: 'deep.md', line_start: i + 1 }));
    const edges = nodes.slice(1).map((n, i) => contains(`n${i}`, n.id)).reverse();
    const tree = buildTree({ format: 'ctxpkg-graph-v2', nodes, edges });
    const last = tree[0].items[tree[0].items.length - 1];
    expect(last.depth).toBe(MAX_DEPTH);
    expect(last.headingPath).toHaveLength(MAX_HEADINGS);
    expect(last.headingPath[0]).toBe('…');
    expect(last.headingPath[MAX_HEADINGS - 1]).toBe('S29998');
  });

  it('counts node types, most frequent first then by name', () => {
    expect(typeCounts(markdownGraph())).toEqual([
      { type: 'section', count: 4 },
      { type: 'fact', count: 3 },
      { type: 'gotcha', count: 1 },
      { type: 'procedure', count: 1 },
      { type: 'scope', count: 1 },
    ]);
  });

  it('takes a section title from its first line without heading marks', () => {
    expect(sectionTitle(node('x', 'section', '## Build & test\nmore'))).toBe('Build & test');
    expect(sectionTitle(node('x', 'section', '   '))).toBe('x');
  });
});

describe('readableText', () => {
  it('joins soft line breaks but keeps list items, quotes, headings, paragraphs, code and tables', () => {
    expect(readableText('one line\n  continues here\n- item\n> quote\n\nnew para\n2. second')).toBe('one line continues here\n- item\n> quote\n\nnew para\n2. second');
    const code = '```sh\nnpm ci\nnpm test\n```';
    expect(readableText(code)).toBe(code);
    const table = '| a | b |\n| - | - |';
    expect(readableText(table)).toBe(table);
  });
});
