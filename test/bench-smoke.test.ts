/**
 * Bench smoke tests: every bench script (`bench/<name>/run.ts`) runs in smoke mode (`--smoke`,
 * bench/smoke.ts: tiny inputs, no network, no target evaluated) exactly as the root
 * `bench:<name>` npm script runs it (the command is read from package.json, so the node flags
 * stay in step), and must exit 0 and print its main figure line. Timing is never asserted.
 *
 * The benches run at most two at a time (2-core machine); each is killed after
 * BENCH_TIMEOUT_MS. Measured: ~25 s of wall time for the first seven on an idle 2-core machine.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SHARED_DIR } from './support/shared.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SCRIPTS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** Bench name → a stable substring of its main figure line. */
const BENCHES: Record<string, string> = {
  format: 'verify:',
  hostile: 'worst/honest',
  resolve: 'resolve: first (cold) run',
  merge: 'merge median',
  archive: '× floor',
  render: 'render cold (32 KiB pack',
  sync: 'sync: ctxpkg/floor =',
  registry: 'index.json: registry/floor =',
  install: 'ctxpkg cold (empty store, no lockfile): wall',
  // The retrieval bench reads ../shared/corpus; without it (a fresh clone) it says so and exits 0.
  retrieval: existsSync(join(SHARED_DIR, 'corpus')) ? 'recall@3' : 'retrieval: skipped (',
};

const PARALLEL = 2;
const BENCH_TIMEOUT_MS = 120_000;

let running = 0;
const waiting: Array<() => void> = [];

/** Runs `fn` once fewer than PARALLEL benches are running. */
async function limited<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= PARALLEL) await new Promise<void>((r) => waiting.push(r));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** The root `bench:<name>` script as argv: `node <flags> bench/<name>/run.ts` (no shell). */
function command(name: string): string[] {
  const script = SCRIPTS[`bench:${name}`];
  if (!script) throw new Error(`package.json has no bench:${name} script`);
  const argv = script.split(/\s+/);
  if (argv[0] !== 'node' || !argv.includes(`bench/${name}/run.ts`)) throw new Error(`unexpected bench:${name} script: ${script}`);
  return argv.slice(1);
}

function runBench(name: string): Promise<{ code: number | null; signal: string | null; out: string }> {
  return runNode([...command(name), '--smoke']);
}

/** `node <args>` at the repository root without smoke or node options from this process; its exit and output (killed after BENCH_TIMEOUT_MS). */
function runNode(args: string[]): Promise<{ code: number | null; signal: string | null; out: string }> {
  return new Promise((resolvePromise, reject) => {
    const env = { ...process.env, CTXPKG_BENCH_SMOKE: undefined, NODE_OPTIONS: undefined };
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), BENCH_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, out });
    });
  });
}

describe('bench scripts in smoke mode', () => {
  it('covers every bench:<name> script of package.json', () => {
    const names = Object.keys(SCRIPTS)
      .filter((s) => s.startsWith('bench:'))
      .map((s) => s.slice('bench:'.length))
      .sort();
    expect(names).toEqual(Object.keys(BENCHES).sort());
  });

  for (const [name, figure] of Object.entries(BENCHES)) {
    it.concurrent(
      `bench:${name} --smoke exits 0 and prints its figures`,
      async () => {
        const r = await limited(() => runBench(name));
        expect(r.out, `bench:${name} --smoke output`).toContain('SMOKE MODE');
        expect({ code: r.code, signal: r.signal }, r.out).toEqual({ code: 0, signal: null });
        expect(r.out).toContain(figure);
        // Smoke figures measure nothing: no target may be judged.
        expect(r.out).not.toMatch(/\b(PASS|FAIL|MISSED|NOT met|OVER)\b/);
      },
      // Waiting for a slot counts too: up to three benches ahead of this one.
      4 * BENCH_TIMEOUT_MS,
    );
  }
});

/** `npm run bench` as argv (no shell), with `args` after it. */
function runAll(args: string[]): Promise<{ code: number | null; out: string }> {
  const argv = (SCRIPTS.bench ?? '').split(/\s+/);
  if (argv[0] !== 'node' || !argv.includes('bench/run.ts')) throw new Error(`unexpected bench script: ${SCRIPTS.bench}`);
  return runNode([...argv.slice(1), ...args]);
}

describe('npm run bench (bench/run.ts)', () => {
  it('runs the named benches as their bench:<name> scripts do, passing --smoke on', async () => {
    const r = await limited(() => runAll(['--smoke', 'resolve']));
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('=== bench:resolve (smoke)');
    expect(r.out).toContain('SMOKE MODE');
    expect(r.out).toContain(BENCHES.resolve);
    // Only the named bench ran.
    expect(r.out).not.toContain('=== bench:format');
  }, 2 * BENCH_TIMEOUT_MS);

  it('refuses an unknown bench name with exit 2 before running anything', async () => {
    const r = await runAll(['--smoke', 'resolve', 'no-such-bench']);
    expect(r.code, r.out).toBe(2);
    expect(r.out).toContain('no such bench: no-such-bench');
    expect(r.out).not.toContain('=== bench:');
  });
});
