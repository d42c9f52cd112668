/**
 * The transparency-log section of `bench:registry` (issue 15; spec/transparency.md):
 *
 *   1. publish throughput with the log against without it: the whole publish route (gate,
 *      signature, blob, one transaction) in process on two SQLite registries, one of them with log
 *      appends switched off (the floor), sequential publishes interleaved A B B A in quarters so
 *      machine load hits both alike. Target: with the log ≥ 80 % of without.
 *   2. proof verification time per install: what `install` adds for the log — the latest
 *      checkpoint (two signatures), its consistency with the one seen before (from tiles), and per
 *      package the index checkpoint, its consistency, the publish entry, yank entry and key entries
 *      — for PACKAGES packages of a log of LOG_ENTRIES entries, with a fresh per-user state each
 *      run except the previous checkpoint. Reported: median ms per install and per package.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, createNamespace, createToken, openSqliteStore, type SqliteStore } from '@ctxpkg/registry';
import { RegistryClient } from '../../packages/cli/src/client.js';
import { registrySettings } from '../../packages/cli/src/config.js';
import { LogChecker } from '../../packages/cli/src/tlog/check.js';
import { LogFetcher } from '../../packages/cli/src/tlog/fetcher.js';
import { readLogState, writeLogState } from '../../packages/cli/src/tlog/state.js';
import { makePackage } from '../../packages/registry/src/__tests__/support.js';
import { sized, verdict } from '../smoke.js';

const PUBLISHES = sized(240, 8);
const LOG_ENTRIES = sized(2000, 20);
const PACKAGES = sized(10, 2);
const INSTALL_RUNS = sized(30, 2);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function registry(dir: string, transparencyLog: boolean): Promise<{ store: SqliteStore; app: ReturnType<typeof createApp>; token: string }> {
  const store = await openSqliteStore({ dataDir: dir, transparencyLog });
  await createNamespace({ store }, 'acme');
  const token = (await createToken({ store }, { namespace: 'acme', scope: 'publish' })).token;
  return { store, app: createApp({ store }), token };
}

async function publish(r: { app: ReturnType<typeof createApp>; token: string }, name: string, version: string): Promise<void> {
  const res = await r.app.request(`http://r/v1/packages/acme/${name}/${version}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${r.token}`, 'x-ctxpkg-visibility': 'public' },
    body: makePackage({ name: `@acme/${name}`, version }),
  });
  if (res.status !== 201) throw new Error(`publish ${name}@${version}: ${res.status} ${await res.text()}`);
}

/** Wall and CPU (user + system) seconds of `count` sequential publishes from version index `from`. */
async function publishRun(r: { app: ReturnType<typeof createApp>; token: string }, from: number, count: number): Promise<{ wall: number; cpu: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = from; i < from + count; i++) await publish(r, `p${i % 50}`, `1.${Math.floor(i / 50)}.0`);
  const c = process.cpuUsage(c0);
  return { wall: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6 };
}

export async function tlogBench(): Promise<void> {
  const tmp = await mkdtemp(join(tmpdir(), 'ctxpkg-bench-tlog-'));
  try {
    // 1. Publish throughput, with and without the log.
    const withLog = await registry(join(tmp, 'with'), true);
    const without = await registry(join(tmp, 'without'), false);
    await publishRun(withLog, 0, 4); // warm-up: JIT, prepared statements
    await publishRun(without, 0, 4);
    // Short rounds, each publishing ROUND versions on both registries (which goes first alternates),
    // and the median of the per-round ratios: a burst of load from elsewhere spoils a round, not the figure.
    const ROUND = Math.max(1, Math.min(10, Math.floor(PUBLISHES / 4)));
    const rounds = Math.max(2, Math.floor(PUBLISHES / ROUND));
    const wallRatios: number[] = [];
    const cpuRatios: number[] = [];
    const total = { with: { wall: 0, cpu: 0 }, without: { wall: 0, cpu: 0 } };
    let at = 4;
    for (let k = 0; k < rounds; k++) {
      const first = k % 2 === 0 ? withLog : without;
      const second = first === withLog ? without : withLog;
      const m1 = await publishRun(first, at, ROUND);
      const m2 = await publishRun(second, at, ROUND);
      const w = first === withLog ? m1 : m2;
      const wo = first === withLog ? m2 : m1;
      wallRatios.push(wo.wall / w.wall);
      cpuRatios.push(wo.cpu / Math.max(w.cpu, 1e-6));
      total.with.wall += w.wall;
      total.with.cpu += w.cpu;
      total.without.wall += wo.wall;
      total.without.cpu += wo.cpu;
      at += ROUND;
    }
    const n = rounds * ROUND;
    const ratio = median(wallRatios);
    const cpuRatio = median(cpuRatios);
    const rateWith = n / total.with.wall;
    const rateWithout = n / total.without.wall;
    const sum = { with: { cpu: total.with.cpu, n }, without: { cpu: total.without.cpu, n } };
    const size = (await withLog.store.log.info()).size;
    console.log(
      `transparency log: publish throughput with the log / without = ${(ratio * 100).toFixed(1)}% (median of ${rounds} alternating rounds of ${ROUND}; overall ${rateWith.toFixed(1)} vs ${rateWithout.toFixed(1)} publishes/s), ${(cpuRatio * 100).toFixed(1)}% by CPU time (${((sum.with.cpu / sum.with.n) * 1000).toFixed(2)} vs ${((sum.without.cpu / sum.without.n) * 1000).toFixed(2)} ms per publish); log of ${size} entries; target ≥ 80% → ${verdict(ratio >= 0.8, 'PASS', 'FAIL')}`,
    );
    await withLog.store.close();
    await without.store.close();

    // 2. Proof verification per install: PACKAGES packages in a log of LOG_ENTRIES entries.
    const big = await registry(join(tmp, 'install'), true);
    for (let i = 0; i < LOG_ENTRIES - 1; i++) await publish(big, `q${i % 200}`, `1.${Math.floor(i / 200)}.0`);
    const fetchFn = ((url: string, init?: RequestInit) => Promise.resolve(big.app.request(url, init))) as typeof fetch;
    const home = join(tmp, 'home');
    const deps = { env: { CTXPKG_HOME: home }, homeDir: home, clock: () => new Date() };
    const settings = registrySettings({ env: deps.env, homeDir: home }, 'http://r');
    const client = new RegistryClient({ fetch: fetchFn, settings });
    const names = Array.from({ length: PACKAGES }, (_, i) => `@acme/q${i}`);
    const indexes = await Promise.all(names.map((n) => client.index('http://r', n)));
    const once = async (): Promise<number> => {
      const t0 = performance.now();
      const checker = new LogChecker(new LogFetcher(client, settings), deps, { strict: false, maxAgeSeconds: 86_400 });
      const view = (await checker.view('http://r'))!;
      for (const idx of indexes) await checker.checkVersion(view, idx, idx.versions[idx.versions.length - 1]!.version);
      const ms = performance.now() - t0;
      await checker.save();
      return ms;
    };
    await once(); // pins the key and stores a checkpoint, as a first install does
    const seen = readLogState(deps, 'http://r')!;
    await publish(big, 'late', '1.0.0'); // every later install proves consistency with a larger tree
    const runs: number[] = [];
    for (let i = 0; i < INSTALL_RUNS; i++) {
      writeLogState(deps, seen); // the same "last checkpoint seen" before each run
      runs.push(await once());
    }
    const m = median(runs);
    console.log(
      `transparency log: proof verification per install = ${m.toFixed(1)} ms median for ${PACKAGES} packages (${(m / PACKAGES).toFixed(2)} ms per package; log of ${(await big.store.log.info()).size} entries; ${INSTALL_RUNS} runs; loopback in process, tiles fetched every run)`,
    );
    await big.store.close();
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
