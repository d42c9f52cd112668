import { describe, expect, it } from 'vitest';
import type { ContextGraph, ContextNode } from '@ctxpkg/format';
import { diffGraphs, idStem, MAX_DIFF_CHARS, similarity, textDiff } from './diff.js';

const n = (id: string, content: string, o: Partial<ContextNode> = {}): ContextNode => ({ id, type: 'fact', content, activation: 1, file_path: 'A.md', ...o });
const g = (nodes: ContextNode[], edges: ContextGraph['edges'] = []): ContextGraph => ({ format: 'ctxpkg-graph-v2', nodes, edges });

describe('diffGraphs', () => {
  it('matches by id first: same id with new text or fields is changed; line moves are not', () => {
    const d = diffGraphs(
      g([n('A.md:build', 'Build'), n('x', 'same', { line_start: 3 }), n('y', 'typed')]),
      g([n('A.md:build', 'Build and test'), n('x', 'same', { line_start: 9 }), n('y', 'typed', { type: 'gotcha' })]),
    );
    expect(d.changed.map((c) => [c.to.id, c.matchedBy, c.fields])).toEqual([
      ['A.md:build', 'id', ['content']],
      ['y', 'id', ['type']],
    ]);
    expect(d.unchanged).toBe(1);
    expect(d.added).toEqual([]);
    expect(d.removed).toEqual([]);
  });

  it('pairs a removed and an added block under the same heading path as one changed node', () => {
    const d = diffGraphs(
      g([n('A.md:testing~11111111', 'Run the unit tests before pushing'), n('A.md:other~22222222', 'Gone')]),
      g([n('A.md:testing~33333333', 'Run the unit tests before every push'), n('A.md:new~44444444', 'Fresh')]),
    );
    expect(d.changed).toHaveLength(1);
    expect(d.changed[0]).toMatchObject({ matchedBy: 'heading', fields: ['content'] });
    expect(d.changed[0].from.id).toBe('A.md:testing~11111111');
    expect(d.changed[0].to.id).toBe('A.md:testing~33333333');
    expect(d.added.map((x) => x.id)).toEqual(['A.md:new~44444444']);
    expect(d.removed.map((x) => x.id)).toEqual(['A.md:other~22222222']);
  });

  it('under one heading with several edits, pairs by word overlap and leaves dissimilar ones added/removed', () => {
    const d = diffGraphs(
      g([n('A.md:s~00000001', 'Always pin the Node version in CI', { line_start: 1 }), n('A.md:s~00000002', 'Never log tokens or secrets', { line_start: 2 })]),
      g([
        n('A.md:s~00000003', 'Never log tokens, secrets or cookies', { line_start: 1 }),
        n('A.md:s~00000004', 'Completely unrelated sentence here', { line_start: 2 }),
        n('A.md:s~00000005', 'Always pin the Node version in CI and locally', { line_start: 3 }),
      ]),
    );
    expect(d.changed.map((c) => [c.from.id, c.to.id])).toEqual([
      ['A.md:s~00000002', 'A.md:s~00000003'],
      ['A.md:s~00000001', 'A.md:s~00000005'],
    ]);
    expect(d.added.map((x) => x.id)).toEqual(['A.md:s~00000004']);
    expect(d.removed).toEqual([]);
  });

  it('never pairs ids without a text hash, and reports edge changes', () => {
    const d = diffGraphs(g([n('old', 'x')], [{ from: 'old', to: 'old', type: 'relates_to', weight: 1 }]), g([n('new', 'x')]));
    expect(d.changed).toEqual([]);
    expect(d.added.map((x) => x.id)).toEqual(['new']);
    expect(d.removed.map((x) => x.id)).toEqual(['old']);
    expect(d.edgesRemoved).toHaveLength(1);
    expect(d.edgesAdded).toHaveLength(0);
  });

  it('is deterministic', () => {
    const a = g([n('A.md:s~00000001', 'one two'), n('A.md:s~00000002', 'three four')]);
    const b = g([n('A.md:s~00000003', 'one two five'), n('A.md:s~00000004', 'three four six')]);
    expect(JSON.stringify(diffGraphs(a, b))).toBe(JSON.stringify(diffGraphs(a, b)));
  });
});

describe('helpers', () => {
  it('idStem strips the text hash and duplicate suffix only', () => {
    expect(idStem('AGENTS.md:testing~3f2a9c1d')).toBe('AGENTS.md:testing');
    expect(idStem('AGENTS.md:~3f2a9c1d.2')).toBe('AGENTS.md:');
    expect(idStem('AGENTS.md:testing')).toBeNull();
    expect(idStem('x~3F2A9C1D')).toBeNull();
  });

  it('similarity is word-set Jaccard', () => {
    expect(similarity('a b c', 'a b c')).toBe(1);
    expect(similarity('a b', 'c d')).toBe(0);
    expect(similarity('a b c d', 'a b')).toBe(0.5);
  });

  it('textDiff marks words; texts over the cap are one removal and one addition', () => {
    expect(textDiff('keep the old word', 'keep the new word')).toEqual([
      { kind: 'same', text: 'keep the ' },
      { kind: 'removed', text: 'old' },
      { kind: 'added', text: 'new' },
      { kind: 'same', text: ' word' },
    ]);
    const big = 'x '.repeat(MAX_DIFF_CHARS);
    expect(textDiff(big, `${big}y`)).toEqual([
      { kind: 'removed', text: big },
      { kind: 'added', text: `${big}y` },
    ]);
    expect(textDiff('', '')).toEqual([]);
  });
});
