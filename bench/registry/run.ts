/**
 * Registry load bench (issue 4 item 8). Run: `npm run bench:registry` (BENCH_SECONDS=10 by default).
 *
 * On loopback, with autocannon in this process and each server in its own child process:
 *   - GET index.json (20 versions; autocannon) and a 1 MiB download (discard-client.ts: raw
 *     keep-alive sockets that count body bytes and discard them — autocannon keeps each body in a
 *     JS string and caps even the floor) at 32 connections for BENCH_SECONDS each,
 *     against the registry and against a bare node:http server answering the same bytes (the
 *     floor: the same bodies with the very response headers the registry sent, so both write the
 *     same bytes but for the Date header; measured in the same run after a warm-up of
 *     WARMUP_SECONDS on each, interleaved A B B A in half-length runs so that changes in machine
 *     load hit both alike): req/s, p50/p99 latency, errors, server CPU time per request (user +
 *     system, from /proc: less sensitive than req/s to a busy machine), server peak RSS;
 *   - publish throughput: 100 sequential publishes, and 160 publishes 16 at a time.
 * Target: registry index.json ≥ 50% of the floor's req/s with p99 < 20 ms.
 * PostgreSQL (when reachable): the same index.json and download against the same floor on one of
 * three nodes on a fresh database, then one node against three (postgresSection).
 * Then the pages section (pages.ts): server render time per page against a same-run floor, and
 * the transparency-log section (tlog.ts): publish throughput with the log against without it
 * (target ≥ 80 %), and proof verification time per install.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createNamespace, createToken, type StoreLocation } from '@ctxpkg/registry';
import { createPgDatabase, dropPgDatabase, pgUnavailable, pgUrl } from '../../packages/registry/src/__tests__/pg-test-db.js';
import { makePackage } from '../../packages/registry/src/__tests__/support.js';
import { sized, smokeBanner, verdict } from '../smoke.js';
import { pagesBench } from './pages.js';
import { tlogBench } from './tlog.js';
import { loadDiscard } from './discard-client.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
// Smoke mode (bench/smoke.ts): autocannon for 1 s per target (two 0.5 s halves, see loadPair)
// with 2 connections, no warm-up, a few publishes; whatever the env says.
const SECONDS = sized(Number(process.env.BENCH_SECONDS ?? 10), 1);
/** Unmeasured load on each target before its pair is measured (JIT, caches, connection setup). */
const WARMUP_SECONDS = sized(Number(process.env.BENCH_WARMUP_SECONDS ?? 2), 0);
const CONNECTIONS = sized(32, 2);
/** Publish runs: [count, in flight] sequential and parallel. */
const PUBLISHES = sized({ seq: [100, 1], par: [160, 16] }, { seq: [3, 1], par: [4, 2] });

function startChild(args: string[]): Promise<{ proc: ChildProcess; url: string }> {
  return new Promise((resolvePromise, reject) => {
    const proc = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', join(HERE, 'server.ts'), ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += String(d);
      const m = /listening on (\S+)/.exec(out);
      if (m) resolvePromise({ proc, url: m[1] });
    });
    proc.once('exit', (c) => reject(new Error(`bench server exited with ${c}`)));
  });
}

async function stop(proc: ChildProcess): Promise<void> {
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
}

/** Resident set size now and at peak (bytes), from /proc (Linux). */
async function rss(pid: number): Promise<{ now: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) * 1024;
  return { now: kb('VmRSS'), peak: kb('VmHWM') };
}

/** CPU time (user + system) a process has used so far, seconds, from /proc (Linux; clock ticks of 1/100 s). */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Row {
  target: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  rssMiB: number;
  /** Server CPU time (user + system) per answered request, µs. */
  cpuUsPerReq: number;
}

/** One load run against one target. */
interface Sample {
  reqPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  total: number;
}

interface Target {
  name: string;
  url: string;
  pid: number;
}

/**
 * Load two targets in the order A B B A, each run half of SECONDS, so drift in machine load hits
 * both equally. req/s = mean of the halves, p50 = mean, p99 = the worse half, errors summed.
 */
async function loadPair(a: Target, b: Target, client: 'autocannon' | 'discard' = 'autocannon'): Promise<[Row, Row]> {
  const half = sized(Math.max(1, SECONDS / 2), SECONDS / 2);
  // Downloads use the body-discarding client (discard-client.ts): autocannon keeps every body
  // chunk in a JS string and is the bottleneck on 1 MiB bodies, for the floor too.
  const load = async (url: string, duration: number): Promise<Sample> => {
    if (client === 'discard') {
      const r = await loadDiscard(url, CONNECTIONS, duration);
      return { reqPerSec: r.reqPerSec, p50: r.p50, p99: Math.round(r.p99), errors: r.errors, total: r.total };
    }
    const r = await autocannon({ url, connections: CONNECTIONS, duration });
    return { reqPerSec: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts + r.non2xx, total: r.requests.total };
  };
  if (WARMUP_SECONDS > 0) for (const t of [a, b]) await load(t.url, WARMUP_SECONDS);
  const runs = new Map<string, Sample[]>([[a.name, []], [b.name, []]]);
  const cpu = new Map<string, number>([[a.name, 0], [b.name, 0]]);
  for (const t of [a, b, b, a]) {
    const before = await cpuSeconds(t.pid);
    runs.get(t.name)!.push(await load(t.url, half));
    cpu.set(t.name, cpu.get(t.name)! + (await cpuSeconds(t.pid)) - before);
  }
  const row = async (t: Target): Promise<Row> => {
    const rs = runs.get(t.name)!;
    return {
      cpuUsPerReq: (cpu.get(t.name)! * 1e6) / rs.reduce((s, r) => s + r.total, 0),
      target: t.name,
      reqPerSec: rs.reduce((s, r) => s + r.reqPerSec, 0) / rs.length,
      p50: rs.reduce((s, r) => s + r.p50, 0) / rs.length,
      p99: Math.max(...rs.map((r) => r.p99)),
      errors: rs.reduce((s, r) => s + r.errors, 0),
      rssMiB: (await rss(t.pid)).peak / 1024 / 1024,
    };
  };
  return [await row(a), await row(b)];
}

/** The registry's response headers minus those node:http adds itself (date, connection, keep-alive). */
function endToEndHeaders(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((value, name) => {
    if (name !== 'date' && name !== 'connection' && name !== 'keep-alive' && name !== 'transfer-encoding') out[name] = value;
  });
  return out;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function publishBench(url: string, token: string, name: string, count: number, parallel: number) {
  const bodies = Array.from({ length: count }, (_, i) => makePackage({ name: `@acme/${name}`, version: `1.0.${i}` }));
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const i = next++;
        const s = performance.now();
        const res = await fetch(`${url}/v1/packages/acme/${name}/1.0.${i}`, {
          method: 'PUT',
          body: bodies[i],
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream', 'x-ctxpkg-visibility': 'public' },
        });
        if (res.status !== 201) throw new Error(`publish ${i}: HTTP ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
        latencies.push(performance.now() - s);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((x, y) => x - y);
  return { count, parallel, perSec: count / seconds, p50: pct(latencies, 50), p99: pct(latencies, 99) };
}

function bigPackage(): Uint8Array {
  const para = 'Retry idempotent requests with jittered exponential backoff; never retry a non-idempotent write without a key. ';
  const nodes = Array.from({ length: 256 }, (_, i) => ({ content: `${i}: ${para.repeat(37)}`, type: 'convention' }));
  return makePackage({ name: '@acme/big', version: '1.0.0', nodes });
}

/** Publish the bench's packages (20 versions of @acme/kb, the 1 MiB @acme/big) through `url`. */
async function seed(url: string, token: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${url}/v1/packages/acme/kb/1.${i}.0`, {
      method: 'PUT',
      body: makePackage({ version: `1.${i}.0`, dependencies: [{ name: '@acme/base', version_req: '^1' }] }),
      headers: { authorization: `Bearer ${token}`, 'x-ctxpkg-visibility': 'public' },
    });
    if (res.status !== 201) throw new Error(`setup publish: ${res.status}`);
  }
  const putBig = await fetch(`${url}/v1/packages/acme/big/1.0.0`, { method: 'PUT', body: bigPackage(), headers: { 'x-ctxpkg-visibility': 'public', authorization: `Bearer ${token}` } });
  if (putBig.status !== 201) throw new Error(`setup publish big: ${putBig.status} ${await putBig.text()}`);
}

/** Sum of several autocannon runs at once (one per node), `connections` split between them. */
async function spread(urls: string[]): Promise<{ reqPerSec: number; p99: number; errors: number }> {
  const per = Math.max(1, Math.floor(CONNECTIONS / urls.length));
  const rs = await Promise.all(urls.map((url) => autocannon({ url, connections: per, duration: SECONDS })));
  return {
    reqPerSec: rs.reduce((n, r) => n + r.requests.average, 0),
    p99: Math.max(...rs.map((r) => r.latency.p99)),
    errors: rs.reduce((n, r) => n + r.errors + r.timeouts + r.non2xx, 0),
  };
}

/**
 * PostgreSQL next to SQLite and the floor: three nodes on one fresh database; index.json and the
 * 1 MiB download on one node (paired A B B A with the same floor), then one node against three
 * (the load spread over the nodes, same total connections). Skipped without PostgreSQL.
 */
async function postgresSection(floorUrl: string, floorPid: number, dir: string): Promise<void> {
  if (pgUnavailable) {
    console.log(`postgres section skipped: ${pgUnavailable}`);
    return;
  }
  const database = await createPgDatabase();
  const db = pgUrl(database);
  const where: StoreLocation = { db };
  const nodes: Array<{ proc: ChildProcess; url: string }> = [];
  try {
    await createNamespace(where, 'acme');
    const token = (await createToken(where, { namespace: 'acme', scope: 'publish' })).token;
    for (let i = 0; i < 3; i++) nodes.push(await startChild(['registry', db, join(dir, `pg-requests-${i}.log`)]));
    await seed(nodes[0]!.url, token);
    const [n0] = nodes as [{ proc: ChildProcess; url: string }];
    const rows: Row[] = [
      ...(await loadPair({ name: 'floor index.json', url: `${floorUrl}/index.json`, pid: floorPid }, { name: 'postgres index.json', url: `${n0.url}/v1/packages/acme/kb/index.json`, pid: n0.proc.pid! })),
      ...(await loadPair({ name: 'floor 1 MiB download', url: `${floorUrl}/download`, pid: floorPid }, { name: 'postgres 1 MiB download', url: `${n0.url}/v1/packages/acme/big/1.0.0/download`, pid: n0.proc.pid! }, 'discard')),
    ];
    console.table(rows.map((r) => ({ target: r.target, 'req/s': Math.round(r.reqPerSec), 'p50 ms': Number(r.p50.toFixed(1)), 'p99 ms': r.p99, errors: r.errors, 'server CPU µs/req': Number(r.cpuUsPerReq.toFixed(1)) })));
    console.log(`postgres index.json: registry/floor = ${((rows[1]!.reqPerSec / rows[0]!.reqPerSec) * 100).toFixed(1)}%, p99 ${rows[1]!.p99} ms`);
    const path = '/v1/packages/acme/kb/index.json';
    const one = await spread([`${n0.url}${path}`]);
    const three = await spread(nodes.map((n) => `${n.url}${path}`));
    console.table([
      { nodes: 1, 'index.json req/s': Math.round(one.reqPerSec), 'p99 ms': one.p99, errors: one.errors },
      { nodes: 3, 'index.json req/s': Math.round(three.reqPerSec), 'p99 ms': three.p99, errors: three.errors },
    ]);
    console.log(`postgres three nodes/one node (index.json, same connections, one machine of ${(await import('node:os')).availableParallelism()} cores) = ${((three.reqPerSec / one.reqPerSec) * 100).toFixed(1)}%`);
  } finally {
    for (const n of nodes) await stop(n.proc);
    await dropPgDatabase(database);
  }
}

async function main(): Promise<void> {
  smokeBanner('registry');
  const dir = await mkdtemp(join(tmpdir(), 'ctxpkg-bench-reg-'));
  const data = join(dir, 'data');
  await createNamespace({ dataDir: data }, 'acme');
  const token = (await createToken({ dataDir: data }, { namespace: 'acme', scope: 'publish' })).token;
  const reg = await startChild(['registry', data, join(dir, 'requests.log')]);
  let floor: { proc: ChildProcess; url: string } | undefined;
  try {
    await seed(reg.url, token);
    const indexRes = await fetch(`${reg.url}/v1/packages/acme/kb/index.json`);
    const indexBytes = new Uint8Array(await indexRes.arrayBuffer());
    const blobRes = await fetch(`${reg.url}/v1/packages/acme/big/1.0.0/download`);
    const blobBytes = new Uint8Array(await blobRes.arrayBuffer());
    await writeFile(join(dir, 'index.json'), indexBytes);
    await writeFile(join(dir, 'blob.bin'), blobBytes);
    await writeFile(join(dir, 'headers.json'), JSON.stringify({ index: endToEndHeaders(indexRes.headers), download: endToEndHeaders(blobRes.headers) }));
    floor = await startChild(['floor', join(dir, 'index.json'), join(dir, 'blob.bin'), join(dir, 'headers.json')]);

    console.log(
      `registry bench: loopback, ${CONNECTIONS} connections, ${SECONDS} s per target (after ${WARMUP_SECONDS} s warm-up); index.json ${indexBytes.length} bytes, download ${blobBytes.length} bytes`,
    );
    const rows: Row[] = [
      ...(await loadPair(
        { name: 'floor index.json', url: `${floor.url}/index.json`, pid: floor.proc.pid! },
        { name: 'registry index.json', url: `${reg.url}/v1/packages/acme/kb/index.json`, pid: reg.proc.pid! },
      )),
      ...(await loadPair(
        { name: 'floor 1 MiB download', url: `${floor.url}/download`, pid: floor.proc.pid! },
        { name: 'registry 1 MiB download', url: `${reg.url}/v1/packages/acme/big/1.0.0/download`, pid: reg.proc.pid! },
        'discard',
      )),
    ];
    console.table(
      rows.map((r) => ({
        target: r.target,
        'req/s': Math.round(r.reqPerSec),
        'p50 ms': Number(r.p50.toFixed(1)),
        'p99 ms': r.p99,
        errors: r.errors,
        'server CPU µs/req': Number(r.cpuUsPerReq.toFixed(1)),
        'server peak RSS MiB': Number(r.rssMiB.toFixed(1)),
      })),
    );
    const idxRatio = rows[1].reqPerSec / rows[0].reqPerSec;
    const dlRatio = rows[3].reqPerSec / rows[2].reqPerSec;
    console.log(`index.json: registry/floor = ${(idxRatio * 100).toFixed(1)}% (target ≥ 50%), p99 ${rows[1].p99} ms (target < 20 ms) → ${verdict(idxRatio >= 0.5 && rows[1].p99 < 20, 'PASS', 'FAIL')}`);
    console.log(`1 MiB download: registry/floor = ${(dlRatio * 100).toFixed(1)}%`);
    // Server CPU per request is less sensitive than req/s to a saturated load generator or a busy machine.
    console.log(`index.json server CPU per request: floor/registry = ${((rows[0].cpuUsPerReq / rows[1].cpuUsPerReq) * 100).toFixed(1)}%`);

    const seq = await publishBench(reg.url, token, 'seq', PUBLISHES.seq[0]!, PUBLISHES.seq[1]!);
    const par = await publishBench(reg.url, token, 'par', PUBLISHES.par[0]!, PUBLISHES.par[1]!);
    console.table(
      [seq, par].map((p) => ({
        publishes: p.count,
        'in flight': p.parallel,
        'publishes/s': Number(p.perSec.toFixed(1)),
        'p50 ms': Number(p.p50.toFixed(1)),
        'p99 ms': Number(p.p99.toFixed(1)),
      })),
    );
    const mem = await rss(reg.proc.pid!);
    console.log(`registry server RSS after all runs: ${(mem.now / 1048576).toFixed(1)} MiB (peak ${(mem.peak / 1048576).toFixed(1)} MiB)`);
    await postgresSection(floor.url, floor.proc.pid!, dir);
  } finally {
    if (floor) await stop(floor.proc);
    await stop(reg.proc);
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
// Pages for people (issue 14): server render time per page, a section of its own (pages.ts).
await pagesBench();
// The transparency log (issue 15): publish throughput with/without it, proof time per install (tlog.ts).
await tlogBench();
