/**
 * `npm run bench`: every bench, one after the other, each exactly as its root `bench:<name>` npm
 * script runs it (the command is read from package.json, so node flags such as `--expose-gc`
 * stay in step), in a child process of its own. Arguments: bench names to run only those (in
 * the order given), and `--smoke` (bench/smoke.ts: tiny inputs, no target evaluated), passed on.
 *
 *   npm run bench                     all benches (minutes; the figures go to the README table)
 *   npm run bench -- render format    only these two
 *   npm run bench -- --smoke resolve  one bench in smoke mode
 *
 * Exit code: 0 when every bench exited 0; otherwise 1, after running the rest (each failure is
 * named at the end). An unknown name exits 2 before anything runs.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** `bench:<name>` scripts as argv (`node <flags> bench/<name>/run.ts`), by name, in package.json order. */
const benches = new Map<string, string[]>();
for (const [key, script] of Object.entries(scripts)) {
  if (!key.startsWith('bench:')) continue;
  const name = key.slice('bench:'.length);
  const argv = script.split(/\s+/);
  if (argv[0] !== 'node' || !argv.includes(`bench/${name}/run.ts`)) throw new Error(`unexpected ${key} script: ${script}`);
  benches.set(name, argv.slice(1));
}

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const names = args.filter((a) => a !== '--smoke');
const unknown = names.filter((n) => !benches.has(n));
if (unknown.length > 0) {
  console.error(`bench: no such bench: ${unknown.join(', ')} (there are: ${[...benches.keys()].join(', ')})`);
  process.exit(2);
}

const failed: string[] = [];
for (const name of names.length > 0 ? names : [...benches.keys()]) {
  console.log(`\n=== bench:${name}${smoke ? ' (smoke)' : ''}`);
  const r = spawnSync(process.execPath, [...(benches.get(name) as string[]), ...(smoke ? ['--smoke'] : [])], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) failed.push(`${name} (${r.signal ?? `exit ${r.status}`})`);
}
if (failed.length > 0) {
  console.error(`\nbench: failed: ${failed.join(', ')}`);
  process.exit(1);
}
