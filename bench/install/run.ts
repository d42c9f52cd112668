/**
 * Install bench (issue 5 item 9): a package with 50 transitive dependencies (root → 10 mid
 * packages → 4 leaves each) from a local registry, with the real `ctxpkg` binary:
 *   cold = fresh project, empty store, no lockfile; warm = lockfile + store present.
 * Side by side in the same run: `npm install` of 51 equivalent tiny npm packages (same shape,
 * same text) from a local Verdaccio 6.8.0, cold (empty cache, no lockfile) and warm.
 * Wall time and peak RSS (GNU time %M) of each command; median of RUNS runs.
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

async function benchCtxpkg(): Promise<{ cold: Sample[]; warm: Sample[] }> {
  const work = mkdtempSync(join(tmpdir(), 'ctxpkg-bench-'));
  const reg = await startRegistry({ dataDir: join(work, 'data'), port: 0, gcIntervalMs: 0, shutdownTimeoutMs: 200 });
  try {
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
      const res = await fetch(`${api}/v1/packages/bench/${p.name}/1.0.0`, { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body: bytes });
      if (res.status !== 201) throw new Error(`publish ${p.name}: ${res.status} ${await res.text()}`);
    }
    const env = { PATH: process.env.PATH, HOME: work, CTXPKG_HOME: join(work, 'home'), CTXPKG_REGISTRY: api, NO_COLOR: '1' };
    const cold: Sample[] = [];
    const warm: Sample[] = [];
    for (let i = 0; i < RUNS; i++) {
      const proj = join(work, `proj-${i}`);
      mkdirSync(proj);
      writeFileSync(join(proj, 'ctxpkg.json'), JSON.stringify({ dependencies: { '@bench/root': '^1.0.0' } }));
      cold.push(await measure(process.execPath, [BIN, 'install'], proj, env));
      warm.push(await measure(process.execPath, [BIN, 'install'], proj, env));
    }
    return { cold, warm };
  } finally {
    await reg.close();
    rmSync(work, { recursive: true, force: true });
  }
}

async function benchNpm(): Promise<{ cold: Sample[]; warm: Sample[] } | string> {
  const scratch = process.env.CTXPKG_BENCH_SCRATCH ?? join(tmpdir(), 'ctxpkg-bench-verdaccio');
  let bin: string;
  try {
    bin = installVerdaccio(scratch);
  } catch (err) {
    return `npm side skipped: ${(err as Error).message.split('\n')[0]}`;
  }
  const work = mkdtempSync(join(tmpdir(), 'ctxpkg-bench-npm-'));
  const v = await startVerdaccio(bin, join(work, 'verdaccio'));
  try {
    for (const p of shape()) {
      await publishNpm(v, join(work, 'pkgs'), `bench-${p.name}`, Object.fromEntries(p.deps.map((d) => [`bench-${d}`, '^1.0.0'])), p.nodes.join('\n') + '\n');
    }
    const cold: Sample[] = [];
    const warm: Sample[] = [];
    for (let i = 0; i < RUNS; i++) {
      const proj = join(work, `proj-${i}`);
      mkdirSync(proj);
      writeFileSync(join(proj, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', private: true, dependencies: { 'bench-root': '^1.0.0' } }));
      const env = { PATH: process.env.PATH, HOME: work, npm_config_cache: join(work, `cache-${i}`), npm_config_registry: v.url, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
      cold.push(await measure('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], proj, env));
      warm.push(await measure('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], proj, env));
    }
    return { cold, warm };
  } finally {
    await v.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'packages', 'cli', 'dist', 'bin.js'))) throw new Error('run `npm run build` first');
  const { loadavg } = await import('node:os');
  smokeBanner('install');
  console.log(`install bench: root + ${shape().length - 1} transitive dependencies, ${RUNS} run(s) each, median; node ${process.version}; load average ${loadavg()[0].toFixed(1)}`);
  const c = await benchCtxpkg();
  console.log(`ctxpkg cold (empty store, no lockfile): ${fmt(c.cold)}`);
  console.log(`ctxpkg warm (lockfile + store present): ${fmt(c.warm)}`);
  if (SMOKE) {
    console.log('npm side skipped: smoke mode (it needs the network)');
    return;
  }
  const n = await benchNpm();
  if (typeof n === 'string') {
    console.log(n);
    return;
  }
  console.log(`npm cold (empty cache, no lockfile), Verdaccio: ${fmt(n.cold)}`);
  console.log(`npm warm (lockfile + node_modules present):   ${fmt(n.warm)}`);
  const ratio = median(c.cold.map((x) => x.ms)) / median(n.cold.map((x) => x.ms));
  const warmMs = median(c.warm.map((x) => x.ms));
  const cpuRatio = median(c.cold.map((x) => x.cpuMs)) / median(n.cold.map((x) => x.cpuMs));
  console.log(`cold ratio ctxpkg/npm = ${ratio.toFixed(2)} wall, ${cpuRatio.toFixed(2)} CPU (target ≤ 0.50: ${ratio <= 0.5 ? 'met' : 'NOT met'})`);
  console.log(`ctxpkg warm = ${warmMs.toFixed(0)} ms (target ≤ 300 ms: ${warmMs <= 300 ? 'met' : 'NOT met'})`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
