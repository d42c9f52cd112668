/**
 * Measures every bench prints next to wall time, because the machine a bench runs on is often
 * shared (issue 16 item 5): CPU time, and — where `valgrind` is installed — instruction counts
 * from callgrind over the whole process tree (`--trace-children=yes`), which do not depend on
 * what else the machine runs. An instruction ratio is the trustworthy figure on a busy machine;
 * wall time is the user's figure on a quiet one.
 *
 * Instruction ratios are taken over child processes: a bench script re-runs itself with
 * `--cg <mode>` (see `cgMode`), where mode `base` does the setup only (start-up, loading, reading
 * the input), and `floor` / `subject` do the setup and then the floor or the subject once. The
 * ratio is (subject − base) / (floor − base): start-up and setup cancel out.
 *
 * Env: `BENCH_CALLGRIND=0` skips instruction counts; in smoke mode they are skipped too (slow).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMOKE } from './smoke.js';

/** Wall-clock and CPU (user + system of this process, GC and worker threads included) milliseconds of `fn`. */
export function timed<T>(fn: () => T): { ms: number; cpuMs: number; value: T } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = fn();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ms, cpuMs: (c.user + c.system) / 1000, value };
}

/** `timed` for an async `fn` (CPU time of this process only: await nothing that runs elsewhere). */
export async function timedAsync<T>(fn: () => Promise<T>): Promise<{ ms: number; cpuMs: number; value: T }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ms, cpuMs: (c.user + c.system) / 1000, value };
}

/**
 * CPU milliseconds (user + system) of this process's terminated and waited-for children, their
 * descendants included (Linux `/proc/self/stat` cutime + cstime, clock ticks of 10 ms; `NaN`
 * elsewhere). Take the difference around a `spawnSync` for the child's CPU time (rusage).
 */
export function childrenCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return NaN;
  }
}

/** A command to count: executable, arguments, and optionally cwd and env. */
export interface Cmd {
  cmd: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

let available: boolean | undefined;
/** True when instruction counts are taken: valgrind runs, not smoke mode, BENCH_CALLGRIND ≠ 0. */
export function callgrindOn(): boolean {
  if (SMOKE || process.env.BENCH_CALLGRIND === '0') return false;
  available ??= spawnSync('valgrind', ['--version'], { encoding: 'utf8' }).status === 0;
  return available;
}

/** Why instruction counts are absent (for the printed line), or undefined when they are on. */
export function callgrindOffReason(): string | undefined {
  if (SMOKE) return 'skipped in smoke mode';
  if (process.env.BENCH_CALLGRIND === '0') return 'skipped (BENCH_CALLGRIND=0)';
  return callgrindOn() ? undefined : 'valgrind not installed';
}

/**
 * Instructions executed by `c` and every process it starts (callgrind `--trace-children=yes`,
 * the sum of each process's `summary:` line). Throws when the command fails.
 */
export function instructions(c: Cmd): number {
  const dir = mkdtempSync(join(tmpdir(), 'ctxpkg-bench-cg-'));
  try {
    const r = spawnSync(
      'valgrind',
      ['--tool=callgrind', '--trace-children=yes', '--trace-children-skip=*esbuild*', `--callgrind-out-file=${join(dir, 'cg.%p')}`, c.cmd, ...c.args],
      { cwd: c.cwd, env: c.env ?? process.env, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    if (r.status !== 0) throw new Error(`callgrind: ${c.cmd} ${c.args.join(' ')} exited ${r.status}: ${(r.stderr ?? '').slice(-1500)}`);
    let total = 0;
    for (const f of readdirSync(dir)) {
      const m = /^summary:\s+(\d+)/m.exec(readFileSync(join(dir, f), 'utf8'));
      if (m) total += Number(m[1]);
    }
    return total;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface InstructionRatio {
  base: number;
  floor: number;
  subject: number;
  /** (subject − base) / (floor − base). */
  ratio: number;
}

/**
 * Run `c` once without valgrind, so that what a first run does once per source change — tsx
 * transforming the sources and writing its cache — is not counted as the work of the mode that
 * happens to run first (one cold pass of the verifier measured 3.7 G then 2.8 G instructions,
 * source unchanged, before this warm-up).
 */
function warmUp(c: Cmd): void {
  const r = spawnSync(c.cmd, c.args, { cwd: c.cwd, env: c.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`warm-up: ${c.cmd} ${c.args.join(' ')} exited ${r.status}: ${(r.stderr ?? '').slice(-1500)}`);
}

/**
 * Instruction counts of `base`, `floor` and `subject` (one run each after an uncounted warm-up
 * run of each; callgrind is deterministic to ~0.1 %, one cold pass's JIT timing to a few per
 * cent), and their ratio.
 */
export function instructionRatio(cmds: { base: Cmd; floor: Cmd; subject: Cmd }): InstructionRatio {
  for (const c of [cmds.base, cmds.floor, cmds.subject]) warmUp(c);
  const base = instructions(cmds.base);
  const floor = instructions(cmds.floor);
  const subject = instructions(cmds.subject);
  // Start-up under tsx varies between runs by a few per cent of the base; a floor whose work is
  // within that noise gives no ratio (NaN) rather than a meaningless one.
  const measurable = floor - base > 0.05 * base;
  return { base, floor, subject, ratio: measurable ? (subject - base) / (floor - base) : NaN };
}

/** `1234567890` → `1.23 G`. */
export function fmtInstr(n: number): string {
  return n >= 1e9 ? `${(n / 1e9).toFixed(2)} G` : `${(n / 1e6).toFixed(0)} M`;
}

/** One printed line: the ratio and the counts above the base (or why there are none). */
export function instructionLine(label: string, r: InstructionRatio | undefined, target?: string): string {
  if (!r) return `${label}: instructions ${callgrindOffReason() ?? 'not measured'}`;
  if (!Number.isFinite(r.ratio)) {
    return `${label}: instructions not measurable at this size (floor ${fmtInstr(r.floor - r.base)} above a base of ${fmtInstr(r.base)}: within start-up noise; use a larger input)`;
  }
  return (
    `${label}: instructions ${r.ratio.toFixed(2)}× floor (callgrind, whole process tree; subject ${fmtInstr(r.subject - r.base)}, ` +
    `floor ${fmtInstr(r.floor - r.base)} above a base of ${fmtInstr(r.base)} for start-up and setup)${target ? `; ${target}` : ''}`
  );
}

/**
 * V8 flags of every counted child (`cgCommands`; a bench counting its own commands adds them
 * too): `--predictable` runs the compilers and the GC on the main thread with a fixed hash seed.
 * Without it, callgrind's serialized threads count whatever the helper threads do while they
 * wait, and a cold 50k-node render measured 6.4 G and 17.6 G instructions above its base in two
 * runs of the same build; with it, 3.24 G and 3.37 G (2026-12-07).
 */
export const PREDICTABLE: readonly string[] = ['--predictable'];

/**
 * The `--cg <mode>` argument of a bench script re-run by `cgCommands`, or undefined in a normal
 * run. Modes are bench-defined (`base`, `floor`, `subject`, or several subjects).
 */
export function cgMode(): string | undefined {
  const i = process.argv.indexOf('--cg');
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/**
 * The commands that re-run `script` (a bench's run.ts, through tsx with the source condition)
 * in `--cg <mode>` mode for each of `modes` (default base `base`, floor `floor`), with `extra`
 * arguments after the mode, under `PREDICTABLE`.
 */
export function cgCommands(script: string, modes: { subject: string; floor?: string; base?: string }, extra: string[] = []): { base: Cmd; floor: Cmd; subject: Cmd } {
  const mk = (mode: string): Cmd => ({ cmd: process.execPath, args: [...PREDICTABLE, '--conditions=source', '--import', 'tsx', script, '--cg', mode, ...extra] });
  return { base: mk(modes.base ?? 'base'), floor: mk(modes.floor ?? 'floor'), subject: mk(modes.subject) };
}
