/**
 * Install bench (issue 5 item 9): a package with 50 transitive dependencies (root → 10 mid
 * packages → 4 leaves each) from a local registry, with the real `ctxpkg` binary:
 *   cold = fresh project, empty store, no lockfile; warm = lockfile + store present.
 * Side by side in the same run: `npm install` of 51 equivalent tiny npm packages (same shape,
 * same text) from a local Verdaccio 6.8.0, cold (empty cache, no lockfile) and warm.
 * Wall time, CPU time (GNU time %U + %S, the whole process tree) and peak RSS (GNU time %M) of
 * each command; median of RUNS runs, interleaved (run i: ctxpkg cold, npm cold, ctxpkg warm, npm
 * warm), so a change in the machine's load hits both tools alike. With valgrind installed, one
 * more cold and warm install per tool under callgrind: instructions of the client's whole
 * process tree (the registry servers not counted) — the figure to trust on a busy machine.
 * Targets: ctxpkg cold ≤ 0.5 × npm cold; ctxpkg warm ≤ 300 ms.
 *
 * Run: `npm run bench:install` (needs `npm run build`; installs Verdaccio into
 * $CTXPKG_BENCH_SCRATCH or <tmp>/ctxpkg-bench-verdaccio on first use).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPackage, type ContextGraph } from '@ctxpkg/format';
import { createNamespace, createToken, startRegistry } from '@ctxpkg/registry';
import { installVerdaccio, publishNpm, startVerdaccio } from './verdaccio.js';
import { SMOKE, sized, smokeBanner } from '../smoke.js';
import { callgrindOffReason, callgrindOn, fmtInstr, instructions } from '../measure.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(ROOT, 'packages', 'cli', 'bin', 'ctxpkg.js');
// Smoke mode (bench/smoke.ts): one run, root + 3 dependencies, no npm/Verdaccio side (it needs the network).
const RUNS = sized(Number(process.env.BENCH_RUNS ?? 3), 1);
/** Shape sizes: mid packages under root, leaves under each mid. */
const [MIDS, LEAVES] = sized([10, 4], [1, 2]);
const SEED = new Uint8Array(32).fill(0x2a);
const TIME = '/usr/bin/time';

interface Sample {
  ms: number;
  /** User + system CPU seconds × 1000 (less sensitive to a loaded machine than wall time). */
  cpuMs: number;
  rssKiB: number;
}

/** Run a command under GNU time; wall time measured here, peak RSS from %M. */
function measure(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Sample> {
  return new Promise((resolvePromise, reject) => {
    const useTime = existsSync(TIME);
    const t0 = process.hrtime.bigint();
    const child = useTime
      ? spawn(TIME, ['-f', '__RSS__%M %U %S', cmd, ...args], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] })
      : spawn(cmd, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== 0) return reject(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${err.slice(-2000)}`));
      const m = /__RSS__(\d+) ([\d.]+) ([\d.]+)/.exec(err);
      resolvePromise({ ms, rssKiB: m ? Number(m[1]) : NaN, cpuMs: m ? (Number(m[2]) + Number(m[3])) * 1000 : NaN });
    });
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (s: Sample[]): string =>
  `wall ${median(s.map((x) => x.ms)).toFixed(0)} ms, CPU ${median(s.map((x) => x.cpuMs)).toFixed(0)} ms, peak RSS ${(median(s.map((x) => x.rssKiB)) / 1024).toFixed(0)} MiB`;

/** Shape: root → mid-0..9 → leaf-0..39 (4 per mid; smoke: root → mid-0 → leaf-0..1). Text per package ≈ 20 short gotchas. */
function shape(): Array<{ name: string; deps: string[]; nodes: string[] }> {
  const text = (n: string) => Array.from({ length: 20 }, (_, k) => `Never skip check ${k} of ${n}: it guards a real failure mode.`);
  const out: Array<{ name: string; deps: string[]; nodes: string[] }> = [];
  for (let m = 0; m < MIDS; m++) {
    const leaves = Array.from({ length: LEAVES }, (_, k) => `leaf-${m * LEAVES + k}`);
    for (const l of leaves) out.push({ name: l, deps: [], nodes: text(l) });
    out.push({ name: `mid-${m}`, deps: leaves, nodes: text(`mid-${m}`) });
  }
  out.push({ name: 'root', deps: Array.from({ length: MIDS }, (_, m) => `mid-${m}`), nodes: text('root') });
  return out;
}

/** One side of the comparison: a fresh project per run, then its cold and warm install commands. */
interface Side {
  /** Make project `i` (fresh, no lockfile) and its environment (a fresh cache for npm). */
  project(i: number): { cwd: string; env: NodeJS.ProcessEnv };
  cmd: string;
  args: string[];
  close(): Promise<void>;
}

async function ctxpkgSide(): Promise<Side> {
  const work = mkdtempSync(join(tmpdir(), 'ctxpkg-bench-'));
  const reg = await startRegistry({ dataDir: join(work, 'data'), port: 0, gcIntervalMs: 0, shutdownTimeoutMs: 200 });
  const api = `${reg.url}/api`;
  await createNamespace({ store: reg.store }, 'bench');
  const token = (await createToken({ store: reg.store }, { namespace: 'bench', scope: 'publish' })).token;
  for (const p of shape()) {
    const graph: ContextGraph = { format: 'ctxpkg-graph-v2', nodes: p.nodes.map((c, i) => ({ id: `n${i}`, type: 'gotcha', content: c, activation: 1.0 })), edges: [] };
    const bytes = buildPackage(
      {
        manifest: { name: `@bench/${p.name}`, version: '1.0.0', description: p.name, created_at: '2026-01-01T00:00:00Z', dependencies: p.deps.map((d) => ({ name: `@bench/${d}`, version_req: '^1.0.0', optional: false })) },
        content: { context_graph: graph },
      },
      { seed: SEED },
    ).bytes;
    const res = await fetch(`${api}/v1/packages/bench/${p.name}/1.0.0`, { method: 'PUT', headers: { 'x-ctxpkg-visibility': 'public', authorization: `Bearer ${token}` }, body: bytes });
    if (res.status !== 201) throw new Error(`publish ${p.name}: ${res.status} ${await res.text()}`);
  }
  const env = { PATH: process.env.PATH, HOME: work, CTXPKG_HOME: join(work, 'home'), CTXPKG_REGISTRY: api, NO_COLOR: '1' };
  return {
    project(i) {
      const proj = join(work, `proj-${i}`);
      mkdirSync(proj);
      writeFileSync(join(proj, 'ctxpkg.json'), JSON.stringify({ dependencies: { '@bench/root': '^1.0.0' } }));
      return { cwd: proj, env };
    },
    cmd: process.execPath,
    args: [BIN, 'install'],
    async close() {
      await reg.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

async function npmSide(): Promise<Side | string> {
  const scratch = process.env.CTXPKG_BENCH_SCRATCH ?? join(tmpdir(), 'ctxpkg-bench-verdaccio');
  let bin: string;
  try {
    bin = installVerdaccio(scratch);
  } catch (err) {
    return `npm side skipped: ${(err as Error).message.split('\n')[0]}`;
  }
  const work = mkdtempSync(join(tmpdir(), 'ctxpkg-bench-npm-'));
  const v = await startVerdaccio(bin, join(work, 'verdaccio'));
  for (const p of shape()) {
    await publishNpm(v, join(work, 'pkgs'), `bench-${p.name}`, Object.fromEntries(p.deps.map((d) => [`bench-${d}`, '^1.0.0'])), p.nodes.join('\n') + '\n');
  }
  return {
    project(i) {
      const proj = join(work, `proj-${i}`);
      mkdirSync(proj);
      writeFileSync(join(proj, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', private: true, dependencies: { 'bench-root': '^1.0.0' } }));
      const env = { PATH: process.env.PATH, HOME: work, npm_config_cache: join(work, `cache-${i}`), npm_config_registry: v.url, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
      return { cwd: proj, env };
    },
    cmd: 'npm',
    args: ['install', '--no-audit', '--no-fund', '--loglevel=error'],
    async close() {
      await v.stop();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'packages', 'cli', 'dist', 'bin.js'))) throw new Error('run `npm run build` first');
  const { loadavg } = await import('node:os');
  smokeBanner('install');
  console.log(`install bench: root + ${shape().length - 1} transitive dependencies, ${RUNS} run(s) each, median; node ${process.version}; load average ${loadavg()[0].toFixed(1)}`);
  const sides: Array<[string, Side]> = [['ctxpkg', await ctxpkgSide()]];
  const n = SMOKE ? 'npm side skipped: smoke mode (it needs the network)' : await npmSide();
  if (typeof n !== 'string') sides.push(['npm', n]);
  const res = new Map<string, { cold: Sample[]; warm: Sample[]; cg?: { cold: number; warm: number } }>(sides.map(([k]) => [k, { cold: [], warm: [] }]));
  try {
    // Interleaved: run i is ctxpkg cold, npm cold, ctxpkg warm, npm warm, so a change in the
    // machine's load hits both tools alike.
    for (let i = 0; i < RUNS; i++) {
      const projects = sides.map(([, side]) => side.project(i));
      for (const phase of ['cold', 'warm'] as const) {
        for (let s = 0; s < sides.length; s++) {
          const [k, side] = sides[s]!;
          res.get(k)![phase].push(await measure(side.cmd, side.args, projects[s]!.cwd, projects[s]!.env));
        }
      }
    }
    // Instructions (callgrind, the client's whole process tree; the registry servers are not counted).
    if (callgrindOn()) {
      for (const [k, side] of sides) {
        const p = side.project(RUNS);
        const c = { cmd: side.cmd, args: side.args, cwd: p.cwd, env: p.env };
        res.get(k)!.cg = { cold: instructions(c), warm: instructions(c) };
      }
    }
  } finally {
    for (const [, side] of sides) await side.close();
  }
  const c = res.get('ctxpkg')!;
  const cg = (x: { cg?: { cold: number; warm: number } }, k: 'cold' | 'warm'): string => (x.cg ? `, ${fmtInstr(x.cg[k])} instructions` : '');
  console.log(`ctxpkg cold (empty store, no lockfile): ${fmt(c.cold)}${cg(c, 'cold')}`);
  console.log(`ctxpkg warm (lockfile + store present): ${fmt(c.warm)}${cg(c, 'warm')}`);
  const off = callgrindOffReason();
  if (off) console.log(`instructions: ${off}`);
  if (typeof n === 'string') {
    console.log(n);
    return;
  }
  const m = res.get('npm')!;
  console.log(`npm cold (empty cache, no lockfile), Verdaccio: ${fmt(m.cold)}${cg(m, 'cold')}`);
  console.log(`npm warm (lockfile + node_modules present):   ${fmt(m.warm)}${cg(m, 'warm')}`);
  const ratio = median(c.cold.map((x) => x.ms)) / median(m.cold.map((x) => x.ms));
  const warmMs = median(c.warm.map((x) => x.ms));
  const cpuRatio = median(c.cold.map((x) => x.cpuMs)) / median(m.cold.map((x) => x.cpuMs));
  const instr = c.cg && m.cg ? `, ${(c.cg.cold / m.cg.cold).toFixed(2)} instructions` : '';
  console.log(`cold ratio ctxpkg/npm = ${ratio.toFixed(2)} wall, ${cpuRatio.toFixed(2)} CPU${instr} (target ≤ 0.50: ${ratio <= 0.5 ? 'met' : 'NOT met'} in wall time)`);
  console.log(
    `ctxpkg warm = ${warmMs.toFixed(0)} ms (target ≤ 300 ms: ${warmMs <= 300 ? 'met' : 'NOT met'})` +
      (c.cg && m.cg ? `; warm instructions ctxpkg/npm = ${(c.cg.warm / m.cg.warm).toFixed(2)}` : ''),
  );
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
