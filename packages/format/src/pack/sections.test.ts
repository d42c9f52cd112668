import { describe, expect, it } from 'vitest';
import { sectionPathResolver, sequenceResolver } from './sections.js';
import { computeScopes } from './scope.js';
import { graph, node } from './__tests__/graph.js';

describe('sectionPathResolver', () => {
  const g = graph(
    [
      node('@a/p', 'F', { type: 'section', content: 'Guide\nmore', file_path: 'F', line_start: 1, line_end: 20 }),
      node('@a/p', 'F:t', { type: 'section', content: 'Tests', file_path: 'F', line_start: 5, line_end: 20 }),
      node('@a/p', 'item', { content: '- parent' }),
      node('@a/p', 'nested', { content: '- child' }),
      node('@a/p', 'scope', { type: 'scope', content: 'src/**' }),
      node('@a/p', 'loop1', { type: 'section', content: 'L1' }),
      node('@a/p', 'loop2', { type: 'section', content: 'L2' }),
    ],
    [
      { from: '@a/p#F', to: '@a/p#F:t', type: 'contains' },
      { from: '@a/p#F:t', to: '@a/p#item', type: 'contains' },
      { from: '@a/p#item', to: '@a/p#nested', type: 'contains' },
      { from: '@a/p#F', to: '@a/p#scope', type: 'applies_to' },
      { from: '@a/p#loop1', to: '@a/p#loop2', type: 'contains' },
      { from: '@a/p#loop2', to: '@a/p#loop1', type: 'contains' },
    ],
  );
  const resolve = sectionPathResolver(g, computeScopes(g));

  it('gives the enclosing sections outermost first, with titles, lines and scopes', () => {
    expect(resolve('@a/p#item')).toEqual([
      { id: '@a/p#F', title: 'Guide', file_path: 'F', line_start: 1, line_end: 20, scope: ['src/**'] },
      { id: '@a/p#F:t', title: 'Tests', file_path: 'F', line_start: 5, line_end: 20, scope: ['src/**'] },
    ]);
  });

  it('passes through non-section containers (a nested item of an older package)', () => {
    expect(resolve('@a/p#nested').map((s) => s.title)).toEqual(['Guide', 'Tests']);
  });

  it('stops on cycles and is empty outside any section', () => {
    expect(resolve('@a/p#loop1').map((s) => s.title)).toEqual(['L1', 'L2']); // a cycle ends where it closes
    expect(resolve('@a/p#F')).toEqual([]);
  });
});

describe('sequenceResolver', () => {
  it('numbers nodes along followed_by chains; cycles end', () => {
    const g = graph([node('@a/p', 'a'), node('@a/p', 'b'), node('@a/p', 'c')], [
      { from: '@a/p#a', to: '@a/p#b', type: 'followed_by' },
      { from: '@a/p#b', to: '@a/p#c', type: 'followed_by' },
      { from: '@a/p#x', to: '@a/p#y', type: 'followed_by' },
      { from: '@a/p#y', to: '@a/p#x', type: 'followed_by' },
    ]);
    const seq = sequenceResolver(g);
    expect(['@a/p#a', '@a/p#b', '@a/p#c', '@a/p#zz'].map(seq)).toEqual([0, 1, 2, 0]);
    expect(seq('@a/p#x')).toBe(1);
  });
});
