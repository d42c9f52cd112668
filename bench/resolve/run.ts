/**
 * Resolver benchmark (issue 3 item 6). Run: `npm run bench:resolve`
 * (= `node --import tsx bench/resolve/run.ts`). Prints figures; asserts nothing.
 *
 * Registry: 1,000 packages × 5 versions (5,000 versions), in memory. Package i depends on i+1
 * (so all are reachable) and on two more packages up to 40 places later (many diamonds), with
 * ranges that agree on each target's major. 5% of the packages publish a newest version whose
 * dependency contradicts that major, so the solver must back off to the previous version, and a
 * separate cluster (bt-a needs bt-c ^k at version k.0.0, bt-b needs bt-c ^1) makes it walk back
 * through four versions. Target: full resolution < 1 s.
 *
 * Floor, measured in the same run: a greedy walk that asks the same source for every version
 * list and for the dependencies of the highest version of every reachable package, with no
 * constraint solving — the cost of the source calls themselves.
 */
import { resolve } from '../../packages/format/src/resolve.js';
import { memorySource, type MemRegistry } from '../../packages/format/src/resolve/__tests__/memory-source.js';
import type { ResolverDependency, VersionSource } from '../../packages/format/src/resolve/types.js';
import { sized, smokeBanner } from '../smoke.js';

/** Packages in the registry; resolutions timed (the first is the cold one). Smoke: tiny. */
const N = sized(1000, 100);
const RESOLUTIONS = sized(6, 2);
const VERSIONS = ['1.0.0', '1.1.0', '1.2.0', '2.0.0', '2.1.0'];
const name = (i: number) => `@bench/p${String(i).padStart(4, '0')}`;

function registry(): MemRegistry {
  let seed = 12345;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const major = Array.from({ length: N }, () => (rnd() < 0.5 ? 1 : 2));
  const reg: MemRegistry = {};
  for (let i = 0; i < N; i++) {
    const targets = new Set<number>();
    if (i + 1 < N) targets.add(i + 1);
    for (let k = 0; k < 2 && i + 2 < N; k++) targets.add(i + 2 + Math.floor(rnd() * Math.min(39, N - i - 2)));
    const trap = rnd() < 0.05;
    const versions: MemRegistry[string] = {};
    VERSIONS.forEach((v, vi) => {
      const deps: Record<string, string> = {};
      for (const t of targets) {
        const m = major[t]!;
        const style = (i + t + vi) % 3;
        deps[name(t)] = style === 0 ? `^${m}` : style === 1 ? `>=${m}.0, <${m + 1}` : `${m}.x`;
      }
      if (trap && vi === VERSIONS.length - 1 && targets.size > 0) {
        const t = [...targets][0]!;
        deps[name(t)] = `^${3 - major[t]!}`; // contradicts every other requirement on t
      }
      versions[v] = { deps };
    });
    reg[name(i)] = versions;
  }
  reg['@bench/bt-a'] = Object.fromEntries([1, 2, 3, 4, 5].map((k) => [`${k}.0.0`, { deps: { '@bench/bt-c': `^${k}` } }]));
  reg['@bench/bt-b'] = { '1.0.0': { deps: { '@bench/bt-c': '^1' } } };
  reg['@bench/bt-c'] = Object.fromEntries([1, 2, 3, 4, 5].map((k) => [`${k}.0.0`, {}]));
  return reg;
}

const rootDeps: ResolverDependency[] = [
  { name: name(0), version_req: '*', optional: false },
  { name: '@bench/bt-a', version_req: '*', optional: false },
  { name: '@bench/bt-b', version_req: '*', optional: false },
];

async function greedyFloor(source: VersionSource): Promise<number> {
  const seen = new Set<string>();
  const queue = rootDeps.map((d) => d.name);
  while (queue.length > 0) {
    const n = queue.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    const vs = await source.listVersions(n);
    const top = vs[vs.length - 1]!.version;
    for (const d of await source.dependencies(n, top)) queue.push(d.name);
  }
  return seen.size;
}

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const out = await fn();
  return [performance.now() - t0, out];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  smokeBanner('resolve');
  const reg = registry();
  const versionCount = Object.values(reg).reduce((n, v) => n + Object.keys(v).length, 0);
  console.log(`registry: ${Object.keys(reg).length} packages, ${versionCount} versions`);
  const runs: number[] = [];
  const cpus: number[] = [];
  const floors: number[] = [];
  let cold = 0;
  let result;
  for (let i = 0; i < RESOLUTIONS; i++) {
    const c0 = process.cpuUsage();
    const [ms, r] = await time(() => resolve({ dependencies: rootDeps }, memorySource(reg)));
    const c = process.cpuUsage(c0);
    const [fms] = await time(() => greedyFloor(memorySource(reg)));
    if (i === 0) cold = ms;
    else {
      runs.push(ms);
      cpus.push((c.user + c.system) / 1000);
      floors.push(fms);
    }
    result = r;
  }
  const picked = new Map(result!.packages.map((p) => [p.name, p.version]));
  const backedOff = result!.packages.filter((p) => p.version !== '2.1.0' && p.version !== '1.2.0').length;
  console.log(`resolved: ${picked.size} packages; bt-a → ${picked.get('@bench/bt-a')}; packages not at their newest major.minor: ${backedOff}`);
  console.log(`resolve: first (cold) run ${cold.toFixed(1)} ms; then median ${median(runs).toFixed(1)} ms (cpu ${median(cpus).toFixed(1)} ms) over ${runs.length} runs (target < 1000 ms)`);
  console.log(`floor (greedy walk, same source calls, no solving): median ${median(floors).toFixed(1)} ms; ratio ${(median(runs) / median(floors)).toFixed(1)}×`);
  console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
}

await main();
