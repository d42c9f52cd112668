/**
 * Determinism across install orders and runs: the packages merged by `mergeGraphs` in any
 * order (and the merged file re-read) compile to byte-identical packs and receipts; the merge's
 * supersession and cross-package contradictions reach the pack as `superseded` omissions and
 * DISPUTED flags.
 */
import { describe, expect, it } from 'vitest';
import { compilePack, mergeGraphs, receiptText, type ContextGraph, type MergeInput } from '@ctxpkg/format';

const NOW = '2025-06-01T00:00:00Z';

function input(pkg: string, graph: ContextGraph): MergeInput {
  return { package: pkg, version: '1.0.0', content_hash: pkg.length.toString(16).padStart(64, '0'), graph };
}

const A = input('@acme/a', {
  format: 'ctxpkg-graph-v2',
  nodes: [
    { id: 'old', type: 'convention', content: 'Use npm.', activation: 1.0 },
    { id: 'new', type: 'convention', content: 'Use pnpm.', activation: 1.0, supersedes: 'old' },
    { id: 'tabs', type: 'convention', content: 'Indent with tabs.', activation: 1.0 },
    { id: 'g', type: 'gotcha', content: 'Never force-push main.', activation: 1.0 },
  ],
  edges: [{ from: 'g', to: 'new', type: 'related_to', weight: 1.0 }],
});
const B = input('@acme/b', {
  format: 'ctxpkg-graph-v2',
  nodes: [
    { id: 'spaces', type: 'convention', content: 'Indent with two spaces.', activation: 1.0 },
    { id: 'f', type: 'fact', content: 'CI runs on every push.', activation: 0.5 },
  ],
  edges: [{ from: 'spaces', to: '@acme/a#tabs', type: 'contradicts', weight: 1.0 }],
});
const C = input('@acme/c', {
  format: 'ctxpkg-graph-v2',
  nodes: Array.from({ length: 40 }, (_, i) => ({ id: `n${i}`, type: i % 2 ? 'fact' : 'procedure', content: `Step ${i}: do the thing number ${i}.`, activation: 1.0 })),
  edges: [],
});

describe('packs are independent of install order', () => {
  const orders = [
    [A, B, C],
    [C, B, A],
    [B, A, C],
  ];
  for (const format of ['md', 'json'] as const) {
    it(`${format}: byte-identical across install orders, runs and a JSON round trip`, () => {
      const outs = orders.map((o) => {
        const g = mergeGraphs(o).graph;
        const reread = JSON.parse(JSON.stringify(g));
        const p = compilePack({ graph: reread, maxBytes: format === 'md' ? 900 : 2500, now: NOW, format });
        return { text: p.text, receipt: receiptText(p.receipt) };
      });
      for (const o of outs) expect(o).toEqual(outs[0]);
      expect(outs[0]!.receipt).toContain('"reason": "byte_budget"');
    });
  }

  it('carries supersession and cross-package contradictions from the merge', () => {
    const g = mergeGraphs([A, B]).graph;
    const p = compilePack({ graph: g, maxBytes: 64 * 1024, now: NOW });
    expect(p.receipt.omissions).toEqual([expect.objectContaining({ id: '@acme/a#old', reason: 'superseded' })]);
    expect(p.text).toMatch(/\(ctxpkg: DISPUTED[^\n]*conflicts with @acme\/a#tabs\)\nIndent with two spaces\.\n/);
    const omit = compilePack({ graph: g, maxBytes: 64 * 1024, now: NOW, policy: { disputed: 'omit' } });
    expect(omit.receipt.omissions.map((o) => [o.id, o.reason])).toEqual([
      ['@acme/a#old', 'superseded'],
      ['@acme/a#tabs', 'disputed'],
      ['@acme/b#spaces', 'disputed'],
    ]);
  });
});
