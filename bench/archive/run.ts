/**
 * Bench: read + verify a 100 MiB-uncompressed ZIP-form package with 10,000 blobs
 * (issue 7 item 6, spec/archive.md §6).
 *
 *   npm run bench:archive   (env BENCH_MIB / BENCH_BLOBS resize it, BENCH_RUNS / BENCH_ROUNDS set
 *                            the child processes and the timed rounds in each, BENCH_SAVE=<file>
 *                            keeps a copy of the generated archive, BENCH_LOAD=<file> reads that
 *                            copy instead of building one)
 *
 * Measured:
 *   floor     raw inflate (node:zlib inflateRawSync) + SHA-256 (node:crypto) of every entry,
 *             offsets parsed beforehand — the least any reader must do with the same data;
 *   package   `readPackage` (format core): every archive check, CRC-32, blob hashes, strict JSON
 *             parse, integrity, Ed25519 signature, blob references; blobs kept in memory;
 *   stream    `readArchive({ keepBlobs: false })` + `checkBlobRefs`: the same archive checks with
 *             each blob hashed and dropped — the memory-bounded path.
 * Speed (the targets): `BENCH_RUNS` child processes (default 3), each running `BENCH_ROUNDS`
 * rounds (default 5) after one uncounted round; a round runs the three modes once each, in an
 * order that rotates from round to round, each pass after a forced GC, so the floor and the
 * subjects share the machine's load, the JIT state and the GC state as closely as they can. The
 * ratio is the median over all rounds of each round's subject/floor ratio (wall and CPU time);
 * the spread of the floor's own times is printed, to show how much the machine moved. Targets
 * (issue 16 item 4): readPackage ≤ 1.8× quiet, ≤ 2× loaded.
 * Memory and the cold pass: one fresh child process per mode and run, one cold pass each — peak
 * live memory (heap + ArrayBuffers after a forced GC, sampled at each 8 MiB event-loop yield,
 * above the start of the pass; the streaming path must stay under the documented bound
 * STREAM_PEAK_BOUND_MIB), each child's peak RSS (dominated by start-up and uncollected garbage;
 * shown for completeness) and the cold pass's time. Instructions: the callgrind ratio of one
 * cold pass (valgrind installed; bench/measure.ts: loading the archive subtracted).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import {
  checkBlobRefs,
  jsonBundleToArchive,
  parseStrictJson,
  readArchive,
  readPackage,
  resolveLimits,
  writePackage,
  type ArchiveLimits,
} from '@ctxpkg/format';
import { scanZip } from '../../packages/format/src/archive/zip-scan.js';
import { SMOKE, sized, smokeBanner, verdict } from '../smoke.js';
import { callgrindOn, cgCommands, cgMode, instructionLine, instructionRatio } from '../measure.js';

const MiB = 1024 * 1024;
// Smoke mode (bench/smoke.ts): 1 MiB in 20 blobs, one child per mode, whatever the env says.
const TOTAL_MIB = sized(Number(process.env.BENCH_MIB ?? 100), 1);
const BLOBS = sized(Number(process.env.BENCH_BLOBS ?? 10_000), 20);
const RUNS = sized(Number(process.env.BENCH_RUNS ?? 3), 1);
const ROUNDS = sized(Number(process.env.BENCH_ROUNDS ?? 5), 1);
/**
 * Documented bound on the streaming path's peak live memory above its start (input loaded): the
 * manifest and content texts and their parse (~10 MiB for 10k nodes), one blob (≤ maxEntryBytes,
 * here ~10 KiB), zlib/yauzl buffers and V8 garbage between collections. Independent of archive size.
 */
const STREAM_PEAK_BOUND_MIB = 64;

const LIMITS: Partial<ArchiveLimits> = {
  maxArchiveBytes: (TOTAL_MIB + 64) * MiB,
  maxEntries: BLOBS + 16,
  maxEntryBytes: 16 * MiB,
  maxTotalBytes: (TOTAL_MIB + 32) * MiB,
};

type Mode = 'floor' | 'package' | 'stream';
const MODES: readonly Mode[] = ['floor', 'package', 'stream'];
/** One cold pass in a fresh process (memory and cold-time figures). */
interface ColdSample {
  /** Cold (first) pass, milliseconds. */
  coldMs: number;
  /** Peak live memory (heap + ArrayBuffers after GC) above the baseline during the cold pass, MiB. */
  liveMiB: number;
  peakMiB: number;
}
/** One timed pass of a round: wall and CPU milliseconds (user + system, GC threads included). */
interface Pass {
  ms: number;
  cpuMs: number;
}
/** The timed rounds of one child: per round, each mode's pass. */
type Rounds = Array<Record<Mode, Pass>>;

/** Deterministic, moderately compressible text (words from a vocabulary; deflates ~3:1). */
function blobText(i: number, size: number): Uint8Array {
  const words = ['token', 'session', 'expires', 'refresh', 'rotate', 'the', 'auth', 'service', 'must', 'never', 'log', 'secret', 'cache', 'header', 'retry', 'after', 'minutes', 'config', 'tenant', 'scope'];
  const out = new Uint8Array(size);
  let x = (i * 2654435761) >>> 0 || 1;
  let o = 0;
  while (o < size) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    const w = (x % 7 === 0 ? `${x % 100000}` : words[x % words.length]!) + (x % 11 === 0 ? '.\n' : ' ');
    for (let k = 0; k < w.length && o < size; k++) out[o++] = w.charCodeAt(k);
  }
  return out;
}

async function buildArchive(): Promise<Uint8Array> {
  const per = Math.floor((TOTAL_MIB * MiB) / BLOBS);
  const blobs = new Map<string, Uint8Array>();
  const nodes: Array<{ id: string; type: string; content: string; activation: number; blob_ref: string }> = [];
  for (let i = 0; i < BLOBS; i++) {
    const data = blobText(i, per);
    const ref = `sha256-${createHash('sha256').update(data).digest('hex')}`;
    blobs.set(ref, data);
    nodes.push({ id: `doc-${i}`, type: 'fact', content: `document ${i}`, activation: 1, blob_ref: ref });
  }
  const json = writePackage(
    {
      manifest: { name: '@bench/large', version: '1.0.0', description: 'archive bench', created_at: '2026-01-01T00:00:00Z' },
      content: { context_graph: { format: 'ctxpkg-graph-v2', nodes, edges: [] } },
    },
    { seed: new Uint8Array(32).fill(0x2a) },
  );
  return jsonBundleToArchive(json, { blobs, limits: LIMITS });
}

/** One pass of `mode` over the archive; returns the uncompressed bytes it covered. */
async function pass(mode: Mode, zip: Uint8Array, entries: ReturnType<typeof scanZip>['entries']): Promise<number> {
  let bytes = 0;
  if (mode === 'floor') {
    let sinceYield = 0;
    for (const e of entries) {
      const data = zip.subarray(e.dataStart, e.dataStart + e.compressedSize);
      const out = e.method === 8 ? inflateRawSync(data) : data;
      createHash('sha256').update(out).digest('hex');
      bytes += out.length;
      sinceYield += out.length;
      if (sinceYield >= 8 * MiB) {
        sinceYield = 0; // the same event-loop yield the archive reader makes every 8 MiB
        await new Promise((r) => setImmediate(r));
      }
    }
  } else if (mode === 'package') {
    const p = await readPackage(zip, { maxBytes: LIMITS.maxArchiveBytes!, archiveLimits: LIMITS });
    bytes = p.contentText.length + [...(p.blobs?.values() ?? [])].reduce((n, b) => n + b.length, 0);
  } else {
    const r = await readArchive(zip, { limits: LIMITS, keepBlobs: false });
    const content = parseStrictJson(r.contentText) as { context_graph?: { nodes?: Array<{ blob_ref?: unknown }> } };
    checkBlobRefs(content.context_graph, r.blobSizes.keys());
    bytes = r.contentText.length + [...r.blobSizes.values()].reduce((n, b) => n + b, 0);
  }
  return bytes;
}

async function loadInput(file: string): Promise<{ zip: Uint8Array; entries: ReturnType<typeof scanZip>['entries'] }> {
  const zip = new Uint8Array(readFileSync(file));
  return { zip, entries: scanZip(zip, resolveLimits(LIMITS)).entries };
}

/**
 * The cold pass of `mode` in this (child) process: its time, its peak live memory above the
 * baseline with the archive loaded, and the process's peak RSS.
 */
async function measureCold(mode: Mode, file: string): Promise<ColdSample> {
  const { zip, entries } = await loadInput(file);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  // Live memory: heap + ArrayBuffers right after a forced GC, sampled at every event-loop yield of
  // the cold pass (every 8 MiB), minus the same figure before it (archive bytes loaded).
  const live = (): number => {
    gc?.();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const liveBase = live();
  let livePeak = 0;
  const sampler = setInterval(() => (livePeak = Math.max(livePeak, live() - liveBase)), 1);
  const t0 = performance.now();
  await pass(mode, zip, entries);
  const coldMs = performance.now() - t0;
  clearInterval(sampler);
  // The process's peak RSS so far: start-up (identical in every mode), the archive bytes, and
  // the cold pass. Modes are compared by their difference to the floor's peak.
  const peakMiB = (process.resourceUsage().maxRSS * 1024) / MiB;
  return { coldMs, peakMiB, liveMiB: livePeak / MiB };
}

/**
 * `rounds` timed rounds in this (child) process after one uncounted round (so every mode's code
 * is compiled and warm): each round runs every mode once, in an order rotated by `offset + round`,
 * each pass after a forced GC — a change in the machine's load hits the floor and the subjects
 * of a round alike.
 */
async function measureRounds(file: string, rounds: number, offset: number): Promise<Rounds> {
  const { zip, entries } = await loadInput(file);
  const gc = (globalThis as { gc?: () => void }).gc;
  const out: Rounds = [];
  for (let r = -1; r < rounds; r++) {
    const round = {} as Record<Mode, Pass>;
    for (let k = 0; k < MODES.length; k++) {
      const mode = MODES[(offset + r + 1 + k) % MODES.length]!;
      gc?.();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await pass(mode, zip, entries);
      const ms = performance.now() - t0;
      const c = process.cpuUsage(c0);
      round[mode] = { ms, cpuMs: (c.user + c.system) / 1000 };
    }
    if (r >= 0) out.push(round);
  }
  return out;
}

function child<T>(args: string[]): T {
  const self = fileURLToPath(import.meta.url);
  const out = execFileSync(process.execPath, ['--expose-gc', '--conditions=source', '--import', 'tsx', self, ...args], {
    maxBuffer: 1 << 20,
    env: process.env,
  });
  return JSON.parse(out.toString()) as T;
}

function signed(x: number): string {
  return `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  const cg = cgMode();
  if (cg !== undefined) {
    // `--cg base|floor|package <file>`: one pass for the instruction counts (bench/measure.ts);
    // base loads the archive and parses its offsets.
    const zip = new Uint8Array(readFileSync(process.argv[process.argv.indexOf('--cg') + 2]!));
    const entries = scanZip(zip, resolveLimits(LIMITS)).entries;
    if (cg !== 'base') await pass(cg as Mode, zip, entries);
    return;
  }
  if (process.argv[2] === '--cold') {
    process.stdout.write(JSON.stringify(await measureCold(process.argv[3] as Mode, process.argv[4]!)));
    return;
  }
  if (process.argv[2] === '--rounds') {
    process.stdout.write(JSON.stringify(await measureRounds(process.argv[3]!, Number(process.argv[4]), Number(process.argv[5]))));
    return;
  }
  smokeBanner('archive');
  const dir = mkdtempSync(join(tmpdir(), 'ctxpkg-bench-archive-'));
  try {
    const t0 = performance.now();
    const file = join(dir, 'large.ctxpkg');
    let zip: Uint8Array;
    if (process.env.BENCH_LOAD && !SMOKE) {
      zip = new Uint8Array(readFileSync(process.env.BENCH_LOAD));
    } else {
      zip = await buildArchive();
      if (process.env.BENCH_SAVE) writeFileSync(process.env.BENCH_SAVE, zip);
    }
    writeFileSync(file, zip);
    let uncompressed = 0;
    let blobCount = 0;
    const names = new TextDecoder();
    for (const e of scanZip(zip, resolveLimits(LIMITS)).entries) {
      uncompressed += e.uncompressedSize;
      if (names.decode(e.nameBytes).startsWith('blobs/sha256-')) blobCount++;
    }
    console.log(
      `archive: ${blobCount} blobs, ${(uncompressed / MiB).toFixed(1)} MiB uncompressed, ${(zip.length / MiB).toFixed(1)} MiB on disk ` +
        `(${process.env.BENCH_LOAD && !SMOKE ? `read from ${process.env.BENCH_LOAD}` : 'built and self-checked'} in ${((performance.now() - t0) / 1000).toFixed(1)} s); load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`,
    );
    const cold: Record<Mode, ColdSample[]> = { floor: [], package: [], stream: [] };
    const rounds: Rounds = [];
    for (let run = 0; run < RUNS; run++) {
      for (const mode of MODES) cold[mode].push(child<ColdSample>(['--cold', mode, file]));
      rounds.push(...child<Rounds>(['--rounds', file, String(ROUNDS), String(run)]));
    }
    const floorMs = rounds.map((r) => r.floor.ms);
    console.log(
      `speed: ${rounds.length} rounds (${RUNS} child processes × ${ROUNDS}, after one uncounted round each), every mode once per round in rotating order, a forced GC before each pass; ` +
        `ratios are medians of the per-round ratios; MB = 10^6 bytes of uncompressed data`,
    );
    console.log(`floor spread: ${Math.min(...floorMs).toFixed(0)}–${Math.max(...floorMs).toFixed(0)} ms wall across rounds`);
    console.log('live: peak of heap + ArrayBuffers after a forced GC at each 8 MiB yield of the cold pass, above the start of the pass');
    console.log("rss: the child's peak RSS (start-up, the archive bytes, garbage before collection included)");
    const ratioOf = (mode: Mode, key: keyof Pass): number => median(rounds.map((r) => r[mode][key] / r.floor[key]));
    for (const mode of MODES) {
      const ms = median(rounds.map((r) => r[mode].ms));
      const cpu = median(rounds.map((r) => r[mode].cpuMs));
      const coldMs = median(cold[mode].map((s) => s.coldMs));
      const live = Math.max(...cold[mode].map((s) => s.liveMiB));
      const rss = Math.max(...cold[mode].map((s) => s.peakMiB));
      const mbs = uncompressed / 1e6 / (ms / 1000);
      console.log(
        `${mode.padEnd(8)} ${ms.toFixed(0).padStart(6)} ms  ${mbs.toFixed(1).padStart(7)} MB/s  ${ratioOf(mode, 'ms').toFixed(2)}× floor  ` +
          `cpu ${cpu.toFixed(0)} ms (${ratioOf(mode, 'cpuMs').toFixed(2)}×)  ` +
          `(cold ${coldMs.toFixed(0)} ms, ${(coldMs / median(cold.floor.map((s) => s.coldMs))).toFixed(2)}×)  live ${signed(live)} MiB  rss ${rss.toFixed(0)} MiB`,
      );
    }
    const ratio = ratioOf('package', 'ms');
    const streamRatio = ratioOf('stream', 'ms');
    const streamLive = Math.max(...cold.stream.map((s) => s.liveMiB));
    console.log(
      `targets: readPackage ≤ 1.80× floor quiet ${verdict(ratio <= 1.8, 'met', 'MISSED')}, ≤ 2.00× loaded ${verdict(ratio <= 2, 'met', 'MISSED')} ` +
        `(${ratio.toFixed(2)}× wall, ${ratioOf('package', 'cpuMs').toFixed(2)}× CPU); stream ≤ 2.00× ${verdict(streamRatio <= 2, 'met', 'MISSED')} (${streamRatio.toFixed(2)}×)`,
    );
    const self = fileURLToPath(import.meta.url);
    const cgP = callgrindOn() ? instructionRatio(cgCommands(self, { subject: 'package' }, [file])) : undefined;
    console.log(instructionLine('readPackage (one cold pass)', cgP, `target ≤ 1.8× → ${cgP && Number.isFinite(cgP.ratio) ? verdict(cgP.ratio <= 1.8, 'met', 'MISSED') : 'n/a'}`));
    console.log(`stream live memory ≤ ${STREAM_PEAK_BOUND_MIB} MiB: ${verdict(streamLive <= STREAM_PEAK_BOUND_MIB, 'met', 'MISSED')} (${signed(streamLive)} MiB)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
