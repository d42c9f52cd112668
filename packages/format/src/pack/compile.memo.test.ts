/**
 * The compiler's per-graph memos (sections.ts `graphStructure`, node-facts.ts `factsFor`) are
 * kept across compilations in one process (the MCP server, `ctxpkg sync`): a compilation must give
 * the same bytes whatever was compiled before it — here after other compilations of the same graph
 * that ask for the heading paths in another order (a pinned-only block first, as sync does), on
 * graphs a package can write but no importer does (`contains` cycles, sections nested past 16).
 */
import { describe, expect, it } from 'vitest';
import type { MergedGraph, MergedNode } from '../graph-types.js';
import { compilePack, type PackInput } from './compile.js';
import { receiptText } from './receipt.js';
import { graph, node, NOW } from './__tests__/graph.js';

const P = '@a/p';

/** A fresh copy of `g` (new arrays and objects: no memo of `g` applies to it). */
function copy(g: MergedGraph): MergedGraph {
  return structuredClone(g);
}

function cycleGraph(): MergedGraph {
  return graph(
    [
      node(P, 'A', { type: 'section', content: 'Alpha', file_path: 'F.md', line_start: 1, line_end: 1 }),
      node(P, 'B', { type: 'section', content: 'Beta', file_path: 'F.md', line_start: 5, line_end: 5 }),
      node(P, 'a1', { type: 'convention', content: 'an item in A', file_path: 'F.md', line_start: 2, line_end: 2 }),
      node(P, '0b1', { type: 'convention', content: 'an item in B', file_path: 'F.md', line_start: 6, line_end: 6 }),
    ],
    [
      { from: `${P}#A`, to: `${P}#B`, type: 'contains' },
      { from: `${P}#B`, to: `${P}#A`, type: 'contains' },
      { from: `${P}#A`, to: `${P}#a1`, type: 'contains' },
      { from: `${P}#B`, to: `${P}#0b1`, type: 'contains' },
    ],
  );
}

function deepGraph(): MergedGraph {
  const depth = 24;
  const id = (i: number): string => `s${String(i).padStart(2, '0')}`;
  const nodes: MergedNode[] = Array.from({ length: depth }, (_, i) => node(P, id(i), { type: 'section', content: `Level ${i}`, file_path: 'F.md', line_start: i + 1, line_end: i + 1 }));
  nodes.push(node(P, 'zz-deep', { type: 'convention', content: 'the deepest item', file_path: 'F.md', line_start: 100, line_end: 100 }));
  nodes.push(node(P, '00-top', { type: 'convention', content: 'an item at level 20', file_path: 'F.md', line_start: 50, line_end: 50 }));
  const edges = Array.from({ length: depth - 1 }, (_, i) => ({ from: `${P}#${id(i)}`, to: `${P}#${id(i + 1)}`, type: 'contains' }));
  edges.push({ from: `${P}#${id(depth - 1)}`, to: `${P}#zz-deep`, type: 'contains' }, { from: `${P}#${id(20)}`, to: `${P}#00-top`, type: 'contains' });
  return graph(nodes, edges);
}

describe('a compilation does not depend on the compilations before it (memo state)', () => {
  for (const [name, make, pin] of [
    ['a contains cycle', cycleGraph, `${P}#a1`],
    ['sections nested 24 deep', deepGraph, `${P}#zz-deep`],
  ] as const) {
    it(`${name}: the full pack after two pinned-only packs equals the full pack of a fresh copy`, () => {
      const warm = make();
      const full = (g: MergedGraph): PackInput => ({ graph: g, maxBytes: 100_000, now: NOW });
      const pinnedOnly: PackInput = { ...full(warm), policy: { pins: [pin] }, pinnedOnly: true };
      compilePack(pinnedOnly);
      compilePack(pinnedOnly);
      const after = compilePack(full(warm));
      const fresh = compilePack(full(copy(warm)));
      expect(after.text).toBe(fresh.text);
      expect(after.sha256).toBe(fresh.sha256);
    });
  }
});

describe('a receipt not read yet does not change when the same graph is compiled again after an in-place change', () => {
  const LEAK = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
  // Omitted for space (plain and with a secret in their content), for a secret, and superseded.
  const make = (): MergedGraph =>
    graph([
      node(P, 'big', { content: 'y'.repeat(3000) }),
      node(P, 'big2', { content: `z key ${LEAK} ` + 'z'.repeat(3000) }),
      node(P, 'sec', { content: `token ${LEAK}` }),
      node(P, 'old', { content: 'old words', superseded_by: [`${P}#new`] }),
      node(P, 'new', { content: 'new words' }),
    ]);
  for (const read of ['receiptText', 'records'] as const) {
    it(`the first receipt, read after the second compilation (${read}), equals the receipt of a fresh copy`, () => {
      const warm = make();
      const input = (g: MergedGraph): PackInput => ({ graph: g, maxBytes: 1500, now: NOW });
      const first = compilePack(input(warm));
      const want = compilePack(input(copy(warm)));
      expect(first.receipt.counts.suppressed).toBe(4);
      // Every omitted node changes (same secret state or not), then the graph is compiled again:
      // the memo hashes the new contents into the same positions.
      for (const n of warm.nodes) if (n.local_id !== 'new') n.content = n.content.includes(LEAK) ? `other ${LEAK} ${n.content.length}` : `changed ${n.content}`;
      const second = compilePack(input(warm));
      expect(receiptText(second.receipt)).toBe(receiptText(compilePack(input(copy(warm))).receipt));
      if (read === 'records') expect(first.receipt.omissions).toEqual(want.receipt.omissions);
      expect(receiptText(first.receipt)).toBe(receiptText(want.receipt));
      expect(receiptText(first.receipt)).not.toBe(receiptText(second.receipt));
    });
  }
});
