/**
 * The merge applied to the reference's v2 vector package (`vectors/acme-auth-context-2.0.0.ctxpkg`,
 * FORMAT-FACTS §11.2) together with a second package that refers to it across packages.
 */
import { expect, it } from 'vitest';
import { mergeGraphs, type ContextGraph, type MergeInput } from '@ctxpkg/format';
import { describeShared, sharedJson } from './support/shared.js';

describeShared('merge of the reference v2 vector package', () => {
  const file = sharedJson<{ manifest: { name: string; version: string; integrity: { content_hash: string } }; content: { context_graph: ContextGraph } }>(
    'vectors/acme-auth-context-2.0.0.ctxpkg',
  );
  const acme: MergeInput = {
    package: file.manifest.name,
    version: file.manifest.version,
    content_hash: file.manifest.integrity.content_hash,
    graph: file.content.context_graph,
  };
  const team: MergeInput = {
    package: '@team/auth-notes',
    version: '0.1.0',
    content_hash: 'f'.repeat(64),
    graph: {
      format: 'ctxpkg-graph-v2',
      nodes: [
        { id: 'N1', type: 'fact', content: 'JWT secrets rotate every 12h here', activation: 1.0, supersedes: '@acme/auth-context#N1' },
        { id: 'N2', type: 'fact', content: 'never share refresh tokens', activation: 0.8 },
      ],
      edges: [
        { from: 'N2', to: '@acme/auth-context#N2', type: 'contradicts', weight: 1.0 },
        { from: '@acme/auth-context#N1', to: '@acme/auth-context#N2', type: 'has_gotcha', weight: 0.5, coactivations: 2 },
      ],
    },
  };

  it('qualifies ids, keeps unrelated N1/N2 apart and reports the dangling N3 → N0 supersedes', () => {
    const { graph, report } = mergeGraphs([team, acme]);
    expect(graph.nodes.map((n) => n.id)).toEqual([
      '@acme/auth-context#N1',
      '@acme/auth-context#N2',
      '@acme/auth-context#N3',
      '@team/auth-notes#N1',
      '@team/auth-notes#N2',
    ]);
    expect(report.supersedes_dropped).toEqual([{ package: '@acme/auth-context', node: '@acme/auth-context#N3', target: '@acme/auth-context#N0' }]);
    expect(graph.inputs).toEqual([
      { package: '@acme/auth-context', version: '2.0.0', content_hash: '1d7a13f86068b19c3c503fe2ce3c73fa6cf53048659e11a3a3fa46aeef9973fd' },
      { package: '@team/auth-notes', version: '0.1.0', content_hash: 'f'.repeat(64) },
    ]);
  });

  it('merges the shared has_gotcha edge, supersedes across packages and records the contradiction', () => {
    const { graph, report } = mergeGraphs([acme, team]);
    const gotcha = graph.edges.find((e) => e.type === 'has_gotcha')!;
    expect(gotcha).toEqual({ from: '@acme/auth-context#N1', to: '@acme/auth-context#N2', type: 'has_gotcha', weight: 0.7, coactivations: 5, packages: ['@acme/auth-context', '@team/auth-notes'] });
    expect(report.edges_merged).toEqual([{ from: '@acme/auth-context#N1', to: '@acme/auth-context#N2', type: 'has_gotcha' }]);
    const n1 = graph.nodes.find((n) => n.id === '@acme/auth-context#N1')!;
    expect(n1).toMatchObject({ activation: 0, superseded_by: ['@team/auth-notes#N1'], content: 'JWT secrets rotate every 24h' });
    expect(graph.conflicts).toEqual([{ from: '@team/auth-notes#N2', to: '@acme/auth-context#N2', package: '@team/auth-notes' }]);
    // N2 (0.9) gets input from the superseded N1 (now 0) only: unchanged. N3 gets 0.1 × 1.0 × 0.9 from N2.
    expect(graph.nodes.find((n) => n.id === '@acme/auth-context#N2')!.activation).toBe(0.9);
    expect(graph.nodes.find((n) => n.id === '@acme/auth-context#N3')!.activation).toBe(1);
  });

  it('decays N1 by its 90-day half-life only when now is given', () => {
    const alone = (now?: string) => mergeGraphs([acme], now ? { now } : {}).graph.nodes[0]!.activation;
    expect(alone()).toBe(1);
    expect(alone('2026-04-02T03:04:05Z')).toBe(0.5); // 90 whole days after 2026-01-02T03:04:05Z
  });
});
