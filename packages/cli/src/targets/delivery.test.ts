/**
 * The always-on tier of `ctxpkg sync` fills its budget (spec/pack.md §4, §11), on the real
 * instruction file `npm run demo` packages: this repository's own AGENTS.md. Found by reading the
 * demo's AGENTS.md block as an agent would: 5,120 of 7,949 bytes used, 18 of 53 items, and no
 * "Commands" (how to build and run the tests) — the trusted package's group headers were charged
 * again for every node, and the block took gotchas strictly before everything else.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeGraphs, parseContextConfig, type MergedGraph } from '@ctxpkg/format';
import { buildGraph } from '../importers/index.js';
import { agentTarget } from './agents/index.js';
import { computeDelivery } from './delivery.js';
import type { ProjectContext } from './context.js';

const REPO = join(import.meta.dirname, '..', '..', '..', '..');
const NOW = '2025-06-01T12:00:00.000Z';

function demoGraph(): MergedGraph {
  const text = readFileSync(join(REPO, 'AGENTS.md'), 'utf8');
  const graph = buildGraph([{ path: 'AGENTS.md', kind: 'markdown', text }], { package: '@demo/agents' });
  return mergeGraphs([{ package: '@demo/agents', version: '1.0.0', content_hash: '0'.repeat(64), graph }]).graph;
}

function project(graph: MergedGraph, trusted: string[]): ProjectContext {
  const root = mkdtempSync(join(tmpdir(), 'ctxpkg-delivery-'));
  return { root, config: parseContextConfig(undefined), graph, installed: true, read: () => undefined, builtHere: [], trust: [], trusted: new Set(trusted) };
}

describe('the always-on block fills its budget', () => {
  const graph = demoGraph();
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));

  for (const trusted of [[], ['@demo/agents']]) {
    it(`delivers the build and test commands and leaves no room an omitted item fits (${trusted.length ? 'trusted' : 'untrusted'} package)`, () => {
      const d = computeDelivery(project(graph, trusted), [agentTarget('agents-md')], NOW);
      const r = d.alwaysOn.receipt;
      expect(d.alwaysOn.body).toContain('Run all tests: `npm test`');
      // Every procedure and every convention of the file is there (they are short; the section
      // shares keep the many gotchas from crowding them out).
      for (const n of graph.nodes.filter((x) => x.type === 'procedure' || x.type === 'convention')) expect(d.alwaysOn.body).toContain(n.content);
      // What is left over is smaller than the smallest omitted item.
      const smallest = Math.min(...r.omissions.map((o) => Buffer.byteLength(byId.get(o.id)?.content ?? '', 'utf8') + 1));
      expect(r.budget.max_bytes - r.budget.used_bytes).toBeLessThan(smallest);
      expect(r.budget.used_bytes).toBeGreaterThan(r.budget.max_bytes * 0.95);
    });
  }
});
