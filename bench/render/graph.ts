/**
 * The synthetic merged graph of bench/render: `n` nodes in 50 packages, 1 in 97 a section and 1
 * in 211 a scope, prose of 12–41 words drawn from `VOCAB`, `contains` edges from each section.
 * Deterministic (mulberry32, seed 42).
 */
import { createHash } from 'node:crypto';
import type { MergedGraph, MergedNode } from '@ctxpkg/format';
import { mulberry32 } from '../../test/support/rng.js';

/** Deterministic PRNG (mulberry32, test/support/rng.ts): uniform in [0, 1). */
export const rng = mulberry32;

export const VOCAB = (
  'always never use prefer avoid cache database migration index query request response token session user admin ' +
  'config deploy build test lint format error retry timeout queue worker schedule invoice payment ledger account ' +
  'service client server route handler middleware auth permission role tenant region bucket storage upload stream ' +
  'parser schema validate encode decode hash sign verify release version branch commit review merge conflict flag ' +
  'metric trace log alert incident rollback feature toggle experiment cohort latency throughput memory thread pool'
).split(' ');
const TYPES = ['gotcha', 'convention', 'procedure', 'fact', 'fact', 'fact', 'decision', 'pattern'];

/** The bench graph with `n` nodes. */
export function makeGraph(n: number): MergedGraph {
  const r = rng(42);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)] as T;
  const packages = Array.from({ length: 50 }, (_, i) => `@bench/pkg-${String(i).padStart(2, '0')}`);
  const nodes: MergedNode[] = [];
  const edges: MergedGraph['edges'] = [];
  for (let i = 0; i < n; i++) {
    const pkg = packages[i % packages.length] as string;
    const local = `AGENTS.md:${i}`;
    const words = Array.from({ length: 12 + Math.floor(r() * 30) }, () => pick(VOCAB));
    const content = words.join(' ').replace(/^./, (c) => c.toUpperCase()) + '.';
    nodes.push({
      id: `${pkg}#${local}`,
      type: i % 97 === 0 ? 'section' : i % 211 === 0 ? 'scope' : pick(TYPES),
      content: i % 211 === 0 ? `src/${pick(VOCAB)}/**` : content,
      activation: Math.round(r() * 1000) / 1000,
      package: pkg,
      version: '1.0.0',
      local_id: local,
      category: 'agents-md',
      file_path: 'AGENTS.md',
      line_start: i + 1,
      line_end: i + 1,
      source: 'sha256:' + createHash('sha256').update(content).digest('hex'),
    });
    if (i % 97 !== 0) edges.push({ from: `${pkg}#AGENTS.md:${i - (i % 97)}`, to: `${pkg}#${local}`, type: 'contains', weight: 1.0, packages: [pkg] });
  }
  nodes.sort((a, b) => (a.id < b.id ? -1 : 1));
  return {
    format: 'ctxpkg-merged-v1',
    inputs: packages.map((p) => ({ package: p, version: '1.0.0', content_hash: createHash('sha256').update(p).digest('hex') })),
    nodes,
    edges,
    conflicts: [],
  };
}

/** A query mix of `count` queries by class (deterministic, seed 7). */
export function makeQueries(count: number, nodes: number): Array<{ kind: string; text: string }> {
  const r = rng(7);
  const word = (): string => VOCAB[Math.floor(r() * VOCAB.length)] as string;
  const words = (k: number): string => Array.from({ length: k }, word).join(' ');
  const MISSES = ['kubernetes helm', 'graphql federation', 'terraform', 'zebra', 'quantum annealing'];
  return Array.from({ length: count }, () => {
    const x = r();
    if (x < 0.5) return { kind: 'words', text: words(1 + Math.floor(r() * 3)) };
    if (x < 0.65) return { kind: 'phrase', text: words(4 + Math.floor(r() * 3)) };
    if (x < 0.8) {
      const w = word();
      return { kind: 'prefix', text: w.slice(0, Math.min(w.length, 3 + Math.floor(r() * 3))) };
    }
    if (x < 0.9) return { kind: 'rare', text: `${String(Math.floor(r() * nodes))} ${word()}` };
    return { kind: 'miss', text: MISSES[Math.floor(r() * MISSES.length)] as string };
  });
}
