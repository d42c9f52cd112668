/**
 * H7: hostile spellings of qualified node references `@ns/name#id` (spec/merge.md §2): the
 * parser's verdicts, exact (never normalised) resolution in the merge, references into packages
 * that are not installed, a package naming itself, and `ctxpkg create` refusing malformed ones
 * with the file and line.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeGraphs, parseQualifiedRef, type MergeInput } from '@ctxpkg/format';
import { cli, createWorld, tempDir } from '../support/cli.js';

const node = (id: string) => ({ id, type: 'fact', content: `c ${id}`, activation: 1 });
const input = (pkg: string, nodes: string[], edges: Array<[string, string, string?]>, extra: Record<string, Record<string, unknown>> = {}): MergeInput =>
  ({
    package: pkg,
    version: '1.0.0',
    content_hash: pkg.length.toString(16).padStart(64, '0'),
    graph: { format: 'ctxpkg-graph-v2', nodes: nodes.map((n) => ({ ...node(n), ...(extra[n] ?? {}) })), edges: edges.map(([from, to, type]) => ({ from, to, type: type ?? 'relates_to', weight: 0.5 })) },
  }) as unknown as MergeInput;

describe('H7: qualified reference spellings', () => {
  it('parseQualifiedRef: splits at the first #, refuses bad names, empty or NUL local ids', () => {
    expect(parseQualifiedRef('@acme/a#x#y')).toEqual({ package: '@acme/a', localId: 'x#y' });
    expect(parseQualifiedRef('@acme/a##')).toEqual({ package: '@acme/a', localId: '#' });
    expect(parseQualifiedRef('@acme/a#../x')).toEqual({ package: '@acme/a', localId: '../x' });
    for (const bad of ['@acme/a#', '@acme/a#x\u0000', '@ACME/a#x', '@\u0430cme/a#x', '@acme/../a#x', '@acme/a/b#x', ' @acme/a#x', '@acme/a #x', '#x', 'n#x', '@acme#x', '']) {
      expect([bad, parseQualifiedRef(bad)]).toEqual([bad, undefined]);
    }
  });

  it('merge: resolution is exact — "#" and "/" inside a local id resolve, a confusable or NFD spelling does not', () => {
    const a = input('@acme/a', ['x#y', '../x', 'caf\u00e9', 'k'], []);
    const b = input('@acme/b', ['n'], [
      ['n', '@acme/a#x#y'],
      ['n', '@acme/a#../x'],
      ['n', '@acme/a#cafe\u0301'],
      ['n', '@acme/a#\u212a'],
      ['n', '@acme/missing#k'],
    ]);
    const { graph, report } = mergeGraphs([a, b]);
    const ends = graph.edges.map((e) => `${e.from} -> ${e.to}`).sort();
    expect(ends).toEqual(['@acme/b#n -> @acme/a#../x', '@acme/b#n -> @acme/a#x#y']);
    expect(report.edges_dropped.map((e) => e.to).sort()).toEqual(['@acme/a#cafe\u0301', '@acme/a#\u212a', '@acme/missing#k'].sort());
    // Same input set in the other order: the same graph.
    expect(JSON.stringify(mergeGraphs([b, a]).graph)).toBe(JSON.stringify(graph));
  });

  it('merge: a supersedes into a package that is not installed is dropped and reported; a qualified self-reference is an ordinary local one', () => {
    const b = input('@acme/b', ['n', 'm'], [['@acme/b#m', '@acme/b#n', 'supersedes']], { n: { supersedes: '@acme/gone#x' } });
    const { graph, report } = mergeGraphs([b]);
    expect(report.supersedes_dropped).toEqual([{ package: '@acme/b', node: '@acme/b#n', target: '@acme/gone#x' }]);
    expect(graph.nodes.find((x) => x.id === '@acme/b#n')?.superseded_by).toEqual(['@acme/b#m']);
  });

  it('ctxpkg create: malformed qualified ends and supersedes are E_SOURCE with file:line; self-naming refused', async () => {
    const world = createWorld();
    const home = tempDir();
    const env = { CTXPKG_HOME: join(home, '.home') };
    for (const ref of ['@acme/a#', '@acme/a#x\u0000', '@ACME/a#x', '@\u0430cme/a#x', '@acme/../a#x', 'n#x', '#x', '@acme/b#n']) {
      for (const where of ['to', 'supersedes'] as const) {
        const src =
          where === 'supersedes'
            ? { format: 'ctxpkg-source-v1', nodes: [{ id: 'n', type: 'fact', content: 'c', supersedes: ref }] }
            : { format: 'ctxpkg-source-v1', nodes: [{ id: 'n', type: 'fact', content: 'c' }], edges: [{ from: 'n', to: ref, type: 'relates_to', weight: 0.5 }] };
        writeFileSync(join(home, 's.json'), JSON.stringify(src));
        const r = await cli(['create', '--name', '@acme/b', '--from', 's.json', '--out', 'o.ctxpkg'], { cwd: home, fetch: world.fetch, env });
        expect([ref, where, r.code]).toEqual([ref, where, 1]);
        expect(r.stderr).toMatch(/^error E_SOURCE: s\.json:1: /);
      }
    }
  });
});
