/**
 * Merge benchmark (issue 3 item 6). Run: `npm run bench:merge`
 * (= `node --import tsx bench/merge/run.ts`). Prints figures; asserts nothing.
 *
 * Run with `--expose-gc` (the npm script does) for exact heap figures. A last figure comes from a
 * fresh process doing one cold 200k merge, as the CLI does after an install.
 *
 * Input: 20 packages with 200,000 nodes and 400,000 edges in total (10k nodes / 20k edges
 * each). 10% of the edges point into other packages by qualified id, 2% repeat another
 * package's edge (so shared edges are merged), 0.5% are cross-package `contradicts`, 1% of the
 * nodes supersede a node of another package; every node has `created_at` and a half-life and
 * `now` is given, so decay and propagation run. Targets: 200k nodes < 2 s; time(200k) ÷
 * time(20k) ≤ 12 (linear growth). Peak RSS printed.
 *
 * Floor, measured in the same run: the unavoidable part of a union — qualify every node id,
 * put nodes and edges in maps, sort both by key.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mergeGraphs } from '../../packages/format/src/merge/index.js';
import type { ContextEdge, ContextNode, MergeInput } from '../../packages/format/src/graph-types.js';
import { sized, smokeBanner } from '../smoke.js';

const PACKAGES = 20;
/** Nodes per package of the small and large inputs, their labels, and the timed runs (warm-up, small, large). Smoke: tiny, one run each. */
const SMALL = sized(1_000, 10);
const LARGE = sized(10_000, 100);
const [SMALL_LABEL, LARGE_LABEL] = sized(['20k', '200k'], ['200', '2k']);
const [WARMUP_RUNS, SMALL_RUNS, LARGE_RUNS] = sized([3, 7, 5], [1, 1, 1]);

function inputs(nodesPerPackage: number): MergeInput[] {
  let seed = 99;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const pick = (n: number) => Math.floor(rnd() * n);
  const pkg = (p: number) => `@bench/kb-${String(p).padStart(2, '0')}`;
  const out: MergeInput[] = [];
  for (let p = 0; p < PACKAGES; p++) {
    const nodes: ContextNode[] = [];
    const edges: ContextEdge[] = [];
    for (let i = 0; i < nodesPerPackage; i++) {
      const n: ContextNode = {
        id: `N${i}`,
        type: i % 3 === 0 ? 'gotcha' : 'fact',
        content: `package ${p} fact ${i}: rotate secrets, pin versions, never log tokens`,
        activation: Math.round(rnd() * 1000) / 1000,
        created_at: `2025-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}T00:00:00Z`,
        decay_half_life_days: 90,
      };
      if (rnd() < 0.01) n.supersedes = `${pkg((p + 1) % PACKAGES)}#N${pick(nodesPerPackage)}`;
      nodes.push(n);
    }
    for (let e = 0; e < 2 * nodesPerPackage; e++) {
      const r = rnd();
      const from = `N${pick(nodesPerPackage)}`;
      if (r < 0.02 && p > 0) {
        // Repeat an edge that package p-1 declares for its own nodes: a shared edge.
        const prev = out[p - 1]!.graph.edges[pick(out[p - 1]!.graph.edges.length)]!;
        const q = (ref: string) => (ref.includes('#') ? ref : `${pkg(p - 1)}#${ref}`);
        edges.push({ from: q(prev.from), to: q(prev.to), type: prev.type, weight: Math.round(rnd() * 100) / 100, coactivations: 1 });
      } else if (r < 0.025) {
        edges.push({ from, to: `${pkg((p + 3) % PACKAGES)}#N${pick(nodesPerPackage)}`, type: 'contradicts', weight: 1 });
      } else if (r < 0.12) {
        edges.push({ from, to: `${pkg(pick(PACKAGES))}#N${pick(nodesPerPackage)}`, type: 'supports', weight: Math.round(rnd() * 100) / 100, coactivations: e % 4 });
      } else {
        edges.push({ from, to: `N${pick(nodesPerPackage)}`, type: e % 2 ? 'supports' : 'has_gotcha', weight: Math.round(rnd() * 100) / 100, coactivations: e % 3 });
      }
    }
    out.push({ package: pkg(p), version: '1.0.0', content_hash: (p + 1).toString(16).padStart(64, '0'), graph: { format: 'ctxpkg-graph-v2', nodes, edges } });
  }
  return out;
}

function floor(ins: MergeInput[]): number {
  const nodes = new Map<string, ContextNode>();
  const edges = new Map<string, ContextEdge>();
  for (const i of ins) {
    for (const n of i.graph.nodes) nodes.set(`${i.package}#${n.id}`, n);
    for (const e of i.graph.edges) edges.set(`${i.package}#${e.from}\u0000${e.to}\u0000${e.type}`, e);
  }
  return [...nodes.keys()].sort().length + [...edges.keys()].sort().length;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function measure(ins: MergeInput[], runs: number): { merge: number; floor: number; cpu: number; nodes: number; edges: number; merged: number; conflicts: number } {
  const times: number[] = [];
  const floors: number[] = [];
  const cpus: number[] = [];
  let counts = { nodes: 0, edges: 0, merged: 0, conflicts: 0 };
  // Collect before each timed run, so garbage left by the previous run (merge or floor) is not
  // charged to the next one; each run still pays for the garbage it makes itself.
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  for (let r = 0; r < runs; r++) {
    gc();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const { graph, report } = mergeGraphs(ins, { now: '2026-03-01T00:00:00Z' });
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpus.push((c.user + c.system) / 1000);
    counts = { nodes: graph.nodes.length, edges: graph.edges.length, merged: report.edges_merged.length, conflicts: graph.conflicts.length };
    gc();
    const f0 = performance.now();
    floor(ins);
    floors.push(performance.now() - f0);
  }
  return {
    merge: median(times),
    floor: median(floors),
    cpu: median(cpus),
    ...counts,
  };
}

/** Child mode: one 200k merge in a fresh process; prints RSS before the merge and the peak. */
function child(): void {
  const ins = inputs(LARGE);
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  const { graph } = mergeGraphs(ins, { now: '2026-03-01T00:00:00Z' });
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ before: before / 1024 / 1024, peak: process.resourceUsage().maxRSS / 1024, nodes: graph.nodes.length, ms }));
}

function main(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  const heapMiB = () => {
    gc?.();
    return process.memoryUsage().heapUsed / 1024 / 1024;
  };
  smokeBanner('merge');
  const base = heapMiB();
  const small = inputs(SMALL);
  const large = inputs(LARGE);
  const withInputs = heapMiB();
  measure(small, WARMUP_RUNS); // warm-up
  const s = measure(small, SMALL_RUNS);
  const l = measure(large, LARGE_RUNS);
  for (const [label, m] of [[SMALL_LABEL, s], [LARGE_LABEL, l]] as const) {
    console.log(
      `${label}: ${m.nodes} nodes, ${m.edges} edges (${m.merged} shared, ${m.conflicts} conflicts): merge median ${m.merge.toFixed(0)} ms (cpu ${m.cpu.toFixed(0)} ms); floor ${m.floor.toFixed(0)} ms; ratio ${(m.merge / m.floor).toFixed(1)}×`,
    );
  }
  console.log(`time(${LARGE_LABEL}) / time(${SMALL_LABEL}) = ${(l.merge / s.merge).toFixed(1)} (target ≤ 12); 200k target < 2000 ms`);
  const kept = mergeGraphs(large, { now: '2026-03-01T00:00:00Z' });
  const withResult = heapMiB();
  console.log(
    `heap${gc ? '' : ' (run with --expose-gc for exact figures)'}: inputs ${(withInputs - base).toFixed(0)} MiB; one ${LARGE_LABEL} result (graph + report) retains ${(withResult - withInputs).toFixed(0)} MiB; this process's peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
  );
  void kept;
  const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child'], { encoding: 'utf8' });
  const m = JSON.parse(r.stdout.trim().split('\n').pop()!) as { before: number; peak: number; ms: number };
  console.log(`fresh process, one cold ${LARGE_LABEL} merge: ${m.ms.toFixed(0)} ms; RSS ${m.before.toFixed(0)} MiB before the merge (inputs built), peak ${m.peak.toFixed(0)} MiB`);
}

if (process.argv.includes('--child')) child();
else main();
