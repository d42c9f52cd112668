/**
 * Bench: context packs and MCP search over a merged graph of 50,000 nodes (issue 6 item 5,
 * spec/pack.md §4, §12).
 *
 *   npm run bench:render   (env BENCH_NODES resizes the graph, BENCH_RUNS the render runs,
 *                           BENCH_QUERIES the number of search queries)
 *
 * Measured in this process, after one warm-up each, on the graph already in memory (reading
 * merged.json is reported separately as `parse`: `ctxpkg render` pays it, the MCP server once):
 *   floor    one pass computing each node's UTF-8 length and content SHA-256 — the least any
 *            renderer whose receipt lists every node's hash must do with the same graph;
 *   render   `compilePack` of a 32 KiB Markdown pack (screening incl. the secret scan of every
 *            node, order, budget, render, receipt with ~50k omission hashes). Target: < 500 ms.
 *   index    `buildSearchIndex` (once, at MCP server start; reported, no target);
 *   search   the MCP `search_context` answer (BM25 + budgeted render, 16 KiB) for BENCH_QUERIES
 *            queries of 1–3 words drawn from the corpus vocabulary. Target: p99 < 50 ms.
 * Figures: median/min/max ms per render, ratio to the floor; search p50/p90/p99/max ms.
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { buildSearchIndex, compilePack, utf8Length, type MergedGraph, type MergedNode } from '@ctxpkg/format';
import { searchContext } from '../../packages/cli/src/mcp/tools.js';
import type { McpState } from '../../packages/cli/src/mcp/state.js';
import { defaultPackPolicy, defaultSyncPolicy } from '@ctxpkg/format';

const NODES = Number(process.env.BENCH_NODES ?? 50_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 1000);
const NOW = '2025-06-01T00:00:00Z';

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VOCAB = (
  'always never use prefer avoid cache database migration index query request response token session user admin ' +
  'config deploy build test lint format error retry timeout queue worker schedule invoice payment ledger account ' +
  'service client server route handler middleware auth permission role tenant region bucket storage upload stream ' +
  'parser schema validate encode decode hash sign verify release version branch commit review merge conflict flag ' +
  'metric trace log alert incident rollback feature toggle experiment cohort latency throughput memory thread pool'
).split(' ');
const TYPES = ['gotcha', 'convention', 'procedure', 'fact', 'fact', 'fact', 'decision', 'pattern'];

function makeGraph(n: number): MergedGraph {
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

/** Wall-clock and CPU (user + system of this process, GC threads included) milliseconds. */
function time<T>(fn: () => T): { ms: number; cpu: number; value: T } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = fn();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ms, cpu: (c.user + c.system) / 1000, value };
}

const q = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] as number;
};
const f = (ms: number): string => ms.toFixed(1).padStart(7);

console.log(`machine: ${os.cpus().length} cpus, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (figures scale with contention)`);
const graph = makeGraph(NODES);
const text = JSON.stringify(graph);
console.log(`graph: ${NODES} nodes, ${graph.edges.length} edges, merged.json ${(text.length / 1e6).toFixed(1)} MB`);

const parses: number[] = [];
for (let i = 0; i < 3; i++) parses.push(time(() => JSON.parse(text)).ms);
console.log(`parse  (JSON.parse of merged.json):          median ${f(q(parses, 0.5))} ms`);
const floorRun = (): number => {
  let total = 0;
  for (const node of graph.nodes) total += utf8Length(node.content) + createHash('sha256').update(node.content).digest('hex').length;
  return total;
};
const renderRun = () => compilePack({ graph, maxBytes: 32 * 1024, now: NOW });

floorRun();
renderRun();
const floors: number[] = [];
const renders: number[] = [];
const renderCpu: number[] = [];
let last: ReturnType<typeof renderRun> | undefined;
for (let i = 0; i < RUNS; i++) {
  floors.push(time(floorRun).ms);
  const t = time(renderRun);
  renders.push(t.ms);
  renderCpu.push(t.cpu);
  last = t.value;
}
const floorMed = q(floors, 0.5);
const renderMed = q(renders, 0.5);
console.log(`floor  (length + sha256 per node):         median ${f(floorMed)} ms  min ${f(Math.min(...floors))}  max ${f(Math.max(...floors))}`);
console.log(
  `render (32 KiB pack):                       median ${f(renderMed)} ms  min ${f(Math.min(...renders))}  max ${f(Math.max(...renders))}  ` +
    `= ${(renderMed / floorMed).toFixed(2)}× floor  → ${renderMed < 500 ? 'PASS' : 'FAIL'} (target: < 500 ms, median)`,
);
console.log(`        cpu time per render: median ${f(q(renderCpu, 0.5))} ms  min ${f(Math.min(...renderCpu))}`);
console.log(`        pack ${last!.bytes} bytes, delivered ${last!.receipt.counts.delivered}, omitted ${last!.receipt.counts.suppressed}`);

const idx = time(() => buildSearchIndex(graph, { nowMs: Date.parse(NOW) }));
console.log(`index  (buildSearchIndex, once at server start): ${f(idx.ms)} ms, ${idx.value.postings.size} terms`);
const state: McpState = {
  project: { root: '/', config: { pack: defaultPackPolicy(), sync: defaultSyncPolicy() }, graph, installed: true, read: () => undefined },
  index: idx.value,
  now: NOW,
};
const r = rng(7);
const queries = Array.from({ length: QUERIES }, () => Array.from({ length: 1 + Math.floor(r() * 3) }, () => VOCAB[Math.floor(r() * VOCAB.length)]).join(' '));
for (const query of queries.slice(0, 20)) searchContext(state, query);
const lat: number[] = [];
let bytesMax = 0;
for (const query of queries) {
  const t = time(() => searchContext(state, query));
  lat.push(t.ms);
  bytesMax = Math.max(bytesMax, Buffer.byteLength(t.value));
}
const p99 = q(lat, 0.99);
console.log(`machine: load average after the run ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log(
  `search (search_context, 16 KiB answers, ${QUERIES} queries): p50 ${f(q(lat, 0.5))} ms  p90 ${f(q(lat, 0.9))}  p99 ${f(p99)}  max ${f(Math.max(...lat))}  ` +
    `→ ${p99 < 50 ? 'PASS' : 'FAIL'} (target: p99 < 50 ms); largest answer ${bytesMax} bytes`,
);
