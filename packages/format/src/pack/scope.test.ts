import { describe, expect, it } from 'vitest';
import { computeScopes, focusScore, globsOverlap, parseFocus } from './scope.js';
import { sectionPathResolver } from './sections.js';
import { graph, node } from './__tests__/graph.js';

describe('computeScopes', () => {
  const g = graph(
    [
      node('@a/x', 'root', { type: 'section', content: 'Rules' }),
      node('@a/x', 'sec', { type: 'section', content: 'API' }),
      node('@a/x', 'item', { type: 'convention' }),
      node('@a/x', 'deep', { type: 'fact' }),
      node('@a/x', 'free', { type: 'fact' }),
      node('@a/x', 's1', { type: 'scope', content: 'src/**/*.ts' }),
      node('@a/x', 's2', { type: 'scope', content: 'api/**' }),
    ],
    [
      { from: '@a/x#root', to: '@a/x#s1', type: 'applies_to' },
      { from: '@a/x#root', to: '@a/x#sec', type: 'contains' },
      { from: '@a/x#sec', to: '@a/x#s2', type: 'applies_to' },
      { from: '@a/x#sec', to: '@a/x#item', type: 'contains' },
      { from: '@a/x#item', to: '@a/x#deep', type: 'contains' },
      { from: '@a/x#deep', to: '@a/x#root', type: 'contains' }, // a cycle must not hang
    ],
  );

  it('inherits globs down contains edges and unions them, sorted', () => {
    const s = computeScopes(g);
    expect(s.get('@a/x#root')).toEqual(['api/**', 'src/**/*.ts']); // via the cycle
    expect(s.get('@a/x#sec')).toEqual(['api/**', 'src/**/*.ts']);
    expect(s.get('@a/x#deep')).toEqual(['api/**', 'src/**/*.ts']);
    expect(s.has('@a/x#free')).toBe(false);
  });

  it('ignores applies_to edges to non-scope nodes', () => {
    const h = graph([node('@a/x', 'a'), node('@a/x', 'b', { content: 'x/**' })], [{ from: '@a/x#a', to: '@a/x#b', type: 'applies_to' }]);
    expect(computeScopes(h).size).toBe(0);
  });

  it('heading paths from enclosing sections (sections.ts; scope.ts had an unused copy that did not redact)', () => {
    const h = graph(
      [node('@a/x', 'r', { type: 'section', content: 'Top' }), node('@a/x', 's', { type: 'section', content: 'Testing\nmore' }), node('@a/x', 'i')],
      [
        { from: '@a/x#r', to: '@a/x#s', type: 'contains' },
        { from: '@a/x#s', to: '@a/x#i', type: 'contains' },
      ],
    );
    expect(sectionPathResolver(h, computeScopes(h))('@a/x#i').map((s) => s.title)).toEqual(['Top', 'Testing']);
  });
});

describe('focus', () => {
  it('parses globs and queries', () => {
    expect(parseFocus('src/api/**')).toMatchObject({ kind: 'glob', glob: 'src/api/**' });
    expect(parseFocus('./README.md')).toMatchObject({ kind: 'glob', glob: 'README.md' });
    expect(parseFocus('How do we test, the API?')).toEqual({ kind: 'query', terms: ['api', 'do', 'how', 'test', 'the', 'we'] });
    expect(parseFocus('  ')).toBeUndefined();
  });

  it('decides glob overlap conservatively', () => {
    expect(globsOverlap('src/**', 'src/api/*.ts')).toBe(true);
    expect(globsOverlap('src/api/**', 'src/web/**')).toBe(false);
    expect(globsOverlap('**/*.ts', 'src/a.ts')).toBe(true);
    expect(globsOverlap('**/*.py', 'src/a.ts')).toBe(false);
    expect(globsOverlap('docs/a.md', 'docs/a.md')).toBe(true);
  });

  it('scores nodes', () => {
    const f = parseFocus('src/api/**')!;
    expect(focusScore(f, { id: 'x', content: '' }, ['src/**'])).toBe(2);
    expect(focusScore(f, { id: 'x', content: '' }, [])).toBe(1);
    expect(focusScore(f, { id: 'x', content: '' }, ['web/**'])).toBe(0);
    expect(focusScore(f, { id: 'x', content: '', file_path: 'src/api/AGENTS.md' }, ['web/**'])).toBe(2);
    const q = parseFocus('redis cache')!;
    expect(focusScore(q, { id: 'x', content: 'Use Redis as a cache' }, undefined)).toBe(2);
    expect(focusScore(q, { id: 'x', content: 'nothing' }, undefined)).toBe(0);
  });
});
