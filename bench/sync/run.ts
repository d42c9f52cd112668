/**
 * Bench: `ctxpkg sync` of 100 installed packages (10,000 nodes, a fifth of them path-scoped in
 * 100 rule sets) into all eight agent targets (issue 18), against a floor measured in the same
 * run: writing the very same files (the same bytes, the same folders) with plain `mkdirSync` +
 * `writeFileSync`.
 *
 *   npm run bench:sync   (env BENCH_PACKAGES, BENCH_NODES_PER_PACKAGE, BENCH_RUNS)
 *
 * Each run starts from an empty project folder. `sync` is `syncProject` on the loaded project
 * (delivery = one selection compiled for the always-on block and every rule set, encodings,
 * ownership scan, atomic writes with fsync, record, receipt); the floor writes the files that run
 * wrote. A second figure is the no-change sync (everything up to date) against reading the files.
 * Wall-clock medians on a shared machine (say "loaded" when reporting); the ratio is the figure.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { defaultPackPolicy, defaultSyncPolicy, SYNC_TARGETS, type MergedEdge, type MergedGraph, type MergedNode } from '@ctxpkg/format';
import { syncProject } from '../../packages/cli/src/targets/sync.js';
import type { ProjectContext } from '../../packages/cli/src/targets/context.js';
import { sized, smokeBanner } from '../smoke.js';

const PACKAGES = sized(Number(process.env.BENCH_PACKAGES ?? 100), 5);
const PER = sized(Number(process.env.BENCH_NODES_PER_PACKAGE ?? 100), 10);
const RUNS = sized(Number(process.env.BENCH_RUNS ?? 5), 1);
const NOW = '2026-01-01T00:00:00.000Z';
const TYPES = ['gotcha', 'convention', 'fact', 'procedure', 'decision'];

function makeGraph(): MergedGraph {
  const nodes: MergedNode[] = [];
  const edges: MergedEdge[] = [];
  for (let p = 0; p < PACKAGES; p++) {
    const pkg = `@bench/pkg-${String(p).padStart(3, '0')}`;
    const node = (local: string, over: Partial<MergedNode>): void => {
      nodes.push({ id: `${pkg}#${local}`, type: 'fact', content: '', activation: 1, package: pkg, version: '1.0.0', local_id: local, ...over });
    };
    node('AGENTS.md', { type: 'section', content: 'Rules', file_path: 'AGENTS.md', line_start: 1, line_end: PER + 2 });
    node('rules/api.md', { type: 'section', content: 'API', file_path: 'rules/api.md', line_start: 1, line_end: PER + 2 });
    node('scope', { type: 'scope', content: `services/svc-${p}/**/*.ts` });
    edges.push({ from: `${pkg}#rules/api.md`, to: `${pkg}#scope`, type: 'applies_to', weight: 1, packages: [pkg] });
    for (let i = 0; i < PER; i++) {
      const scoped = i % 5 === 0;
      const file = scoped ? 'rules/api.md' : 'AGENTS.md';
      node(`${file}:~${i}`, { type: TYPES[i % TYPES.length] as string, content: `Rule ${i} of ${pkg}: keep handlers small, validate input at the boundary and log the request id (${'x'.repeat(i % 40)}).`, file_path: file, line_start: i + 2, line_end: i + 2 });
      edges.push({ from: `${pkg}#${file}`, to: `${pkg}#${file}:~${i}`, type: 'contains', weight: 1, packages: [pkg] });
    }
  }
  const inputs = [...new Set(nodes.map((n) => n.package))].map((p) => ({ package: p, version: '1.0.0', content_hash: '0'.repeat(64) }));
  return { format: 'ctxpkg-merged-v1', inputs, nodes, edges, conflicts: [] };
}

function project(root: string, graph: MergedGraph): ProjectContext {
  return {
    root,
    config: { pack: defaultPackPolicy(), sync: { ...defaultSyncPolicy(), targets: [...SYNC_TARGETS] } },
    graph,
    installed: true,
    read: () => undefined,
    builtHere: [],
    trust: [],
    trusted: new Set<string>(),
  };
}

/** Every file under `dir` except `.ctxpkg/` and ctxpkg.json: relative path → bytes. */
function files(dir: string, rel = ''): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const name of readdirSync(join(dir, rel))) {
    const r = rel ? `${rel}/${name}` : name;
    if (r === '.ctxpkg' || r === 'ctxpkg.json') continue;
    if (statSync(join(dir, r)).isDirectory()) for (const [k, v] of files(dir, r)) out.set(k, v);
    else out.set(r, readFileSync(join(dir, r)));
  }
  return out;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const f = (ms: number): string => ms.toFixed(1);

smokeBanner('sync');
const graph = makeGraph();
console.log(`graph: ${PACKAGES} packages, ${graph.nodes.length} nodes; targets: ${SYNC_TARGETS.join(', ')}`);
const syncMs: number[] = [];
const floorMs: number[] = [];
const noopMs: number[] = [];
const readMs: number[] = [];
let written = new Map<string, Buffer>();
for (let r = 0; r < RUNS + 1; r++) {
  const root = mkdtempSync(join(tmpdir(), 'ctxpkg-bench-sync-'));
  writeFileSync(join(root, 'ctxpkg.json'), '{}\n');
  const p = project(root, graph);
  let t = performance.now();
  const report = syncProject(p, { now: NOW });
  const s = performance.now() - t;
  written = files(root);
  t = performance.now();
  const again = syncProject(p, { now: NOW });
  const n = performance.now() - t;
  if (again.written.length !== 0) throw new Error('the second sync rewrote files');
  t = performance.now();
  for (const k of written.keys()) readFileSync(join(root, k));
  const rd = performance.now() - t;
  const floorRoot = mkdtempSync(join(tmpdir(), 'ctxpkg-bench-floor-'));
  t = performance.now();
  for (const [k, v] of written) {
    mkdirSync(dirname(join(floorRoot, k)), { recursive: true });
    writeFileSync(join(floorRoot, k), v);
  }
  const fl = performance.now() - t;
  rmSync(root, { recursive: true, force: true });
  rmSync(floorRoot, { recursive: true, force: true });
  if (r === 0) {
    console.log(`warm-up: ${report.written.length} files written, ${report.tiers.always_on} always-on, ${report.tiers.path_scoped} path-scoped in ${report.tiers.rule_sets} rule sets, ${report.tiers.on_demand} on demand`);
    continue;
  }
  syncMs.push(s);
  floorMs.push(fl);
  noopMs.push(n);
  readMs.push(rd);
}
const bytes = [...written.values()].reduce((a, b) => a + b.length, 0);
console.log(`files: ${written.size} (${bytes} bytes) per sync`);
console.log(`sync: ctxpkg/floor = ${(median(syncMs) / median(floorMs)).toFixed(2)}× (sync median ${f(median(syncMs))} ms, floor median ${f(median(floorMs))} ms; ${RUNS} runs)`);
console.log(`no-change sync: ctxpkg/read floor = ${(median(noopMs) / median(readMs)).toFixed(2)}× (median ${f(median(noopMs))} ms, reading the files ${f(median(readMs))} ms)`);
