/**
 * Smoke mode shared by every bench script (`bench/<name>/run.ts`).
 *
 * `--smoke` on the command line, or env `CTXPKG_BENCH_SMOKE=1`, makes a bench run the same code
 * paths on tiny inputs (and without network-dependent comparisons), print its figures as usual,
 * and never evaluate a target as pass/fail: smoke figures measure nothing. CI runs every bench
 * this way (`test/bench-smoke.test.ts`) so a broken bench script fails a test.
 *
 * Importing this module with `--smoke` also sets `CTXPKG_BENCH_SMOKE=1` in `process.env`, so child
 * processes a bench spawns (which inherit the environment) run small too.
 */

/** True when this process runs a bench in smoke mode. */
export const SMOKE = process.argv.includes('--smoke') || process.env.CTXPKG_BENCH_SMOKE === '1';
if (SMOKE) process.env.CTXPKG_BENCH_SMOKE = '1';

/** `full` in a normal run, `small` in smoke mode (sizes, run counts, durations). */
export function sized<T>(full: T, small: T): T {
  return SMOKE ? small : full;
}

/**
 * The outcome word of a target check: `met` or `missed` in a normal run; in smoke mode the
 * fixed text `not evaluated (smoke)`, whatever `ok` is.
 */
export function verdict(ok: boolean, met: string, missed: string): string {
  if (SMOKE) return 'not evaluated (smoke)';
  return ok ? met : missed;
}

/** Prints one line saying the run is a smoke run (nothing in a normal run). */
export function smokeBanner(name: string): void {
  if (SMOKE) console.log(`${name} bench: SMOKE MODE (tiny inputs; figures are not meaningful; targets are not evaluated)`);
}
