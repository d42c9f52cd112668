/**
 * Format-core benchmark (issue 2 item 10). Run: `npm run bench:format`
 * (= `node --import tsx bench/format/run.ts`). Prints figures and ratios; asserts nothing.
 *
 * 1. verify: read a generated ~10 MiB package (~25k nodes) from disk + `readPackage`, against
 *    the floor "read file + native SHA-256 + JSON.parse" measured in the same run (target ≤ 2×).
 * 2. write+sign: `writePackage(model, { seed })` against the floor "JSON.stringify(model) +
 *    native SHA-256" (target ≤ 2×).
 * 3. peak RSS of a fresh process that reads and verifies the file (target ≤ 4× file size + 100 MB).
 * Each timing alternates floor and subject (15 pairs after 2 warm-up pairs), so a change in the
 * machine's load hits both alike; the ratio is the median of the per-pair ratios. The load average
 * is printed: on a shared machine, compare figures only at similar load. Targets (issue 16 item
 * 4): verify and write+sign ≤ 1.7× quiet, ≤ 2× loaded. CPU time is printed beside wall time, and
 * (valgrind installed) callgrind instruction ratios over child processes (bench/measure.ts: each
 * side once, the file read / model built subtracted) — the figure to trust on a busy machine.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ed25519VerifyBackend, MAX_PACKAGE_BYTES, readPackage, SHA256_BACKEND, writePackage, type PackageContent, type PackageInput } from '../../packages/format/src/index.js';
import { sized, smokeBanner, verdict } from '../smoke.js';
import { callgrindOn, cgCommands, cgMode, instructionLine, instructionRatio } from '../measure.js';

const SEED = new Uint8Array(32).fill(0x2a);
const MB = 1024 * 1024;
/** Nodes in the generated package, its size goal, and the timed pairs (smoke: tiny, one pair, no warm-up). */
const NODES = sized(25_000, 200);
const SIZE_GOAL = sized(MAX_PACKAGE_BYTES, 256 * 1024);
const RUNS = sized(15, 1);
const WARMUP = sized(2, 0);

/** A deterministic graph of `n` nodes and n−1 edges, node text of ~`textLen` characters in several scripts. */
function model(n: number, textLen: number): PackageInput {
  const words = ['token', 'refresh', 'rotate', 'secret', 'mutex', 'race', 'cache', 'schema', 'räksmörgås', '日本語', 'naïve', 'tab\tand "quotes"'];
  const nodes = [];
  const edges = [];
  // 32-bit LCG (Numerical Recipes constants). Math.imul keeps the product exact modulo 2^32; a plain
  // `seed * 1103515245` exceeds 2^53, loses low bits and falls into a short cycle.
  let seed = 7;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let i = 0; i < n; i++) {
    let text = `node ${i}:`;
    while (text.length < textLen) text += ' ' + words[Math.floor(rnd() * words.length)];
    nodes.push({
      id: `N${i}`,
      type: ['fact', 'gotcha', 'convention', 'code_function'][i % 4]!,
      content: text,
      activation: Math.round(rnd() * 1000) / 1000,
      category: 'security',
      created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
      confidence: Math.round(rnd() * 100) / 100,
    });
    if (i > 0) edges.push({ from: `N${i}`, to: `N${Math.floor(rnd() * i)}`, type: 'supports', weight: Math.round(rnd() * 100) / 100, coactivations: i % 5 });
  }
  const content: PackageContent = { context_graph: { format: 'ctxpkg-graph-v2', nodes, edges } };
  return { manifest: { name: '@bench/large', version: '1.0.0', description: 'bench', created_at: '2026-01-02T03:04:05Z' }, content };
}

/** Written size in bytes of `model(n, textLen)`, or Infinity when over the limit. */
function sizeOf(n: number, textLen: number): number {
  try {
    return writePackage(model(n, textLen), { seed: SEED }).length;
  } catch {
    return Infinity;
  }
}

/**
 * Peak RSS in KiB of the current process. Linux keeps `getrusage` maxRSS across fork+exec (a
 * child would report its parent's peak), so VmHWM from /proc/self/status is used where present.
 */
const PEAK_RSS_KB_EXPR =
  "(() => { try { return Number(/VmHWM:\\s+(\\d+)/.exec(process.getBuiltinModule('node:fs').readFileSync('/proc/self/status', 'utf8'))[1]); } catch { return process.resourceUsage().maxRSS; } })()";

function peakRssKb(): number {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]);
  } catch {
    return process.resourceUsage().maxRSS;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * Time `floor` and `subject` alternately (`runs` pairs after `warmup` pairs), so a change in the
 * machine's load during the run affects both sides alike. Medians in ms, and the median of the
 * per-pair ratios subject/floor.
 */
async function timePair(
  floor: () => unknown,
  subject: () => unknown,
  runs: number,
  warmup = 2,
): Promise<{ floor: number; subject: number; ratio: number; floorCpu: number; subjectCpu: number; cpuRatio: number }> {
  const f: number[] = [];
  const s: number[] = [];
  const r: number[] = [];
  const fc: number[] = [];
  const sc: number[] = [];
  const rc: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    let c = process.cpuUsage();
    let t = performance.now();
    await floor();
    const a = performance.now() - t;
    let u = process.cpuUsage(c);
    const ac = (u.user + u.system) / 1000;
    c = process.cpuUsage();
    t = performance.now();
    await subject();
    const b = performance.now() - t;
    u = process.cpuUsage(c);
    const bc = (u.user + u.system) / 1000;
    if (i < warmup) continue;
    f.push(a);
    s.push(b);
    r.push(b / a);
    fc.push(ac);
    sc.push(bc);
    rc.push(bc / ac);
  }
  return { floor: median(f), subject: median(s), ratio: median(r), floorCpu: median(fc), subjectCpu: median(sc), cpuRatio: median(rc) };
}

/**
 * `--cg <mode> <file> <nodes> <textLen>`: one pass for the instruction counts (bench/measure.ts).
 * verify: `base` reads the file, `floor` adds sha256 + JSON.parse, `verify` is readPackage;
 * write: `wbase` builds the model, `wfloor` adds JSON.stringify + sha256, `write` is writePackage.
 */
async function cgChild(mode: string, file: string, n: number, textLen: number): Promise<void> {
  if (mode === 'base' || mode === 'floor' || mode === 'verify') {
    const b = readFileSync(file);
    if (mode === 'floor') {
      createHash('sha256').update(b).digest('hex');
      JSON.parse(b.toString('utf8'));
    } else if (mode === 'verify') await readPackage(b);
    return;
  }
  const input = model(n, textLen);
  if (mode === 'wfloor') createHash('sha256').update(JSON.stringify(input, null, 2)).digest('hex');
  else if (mode === 'write') writePackage(input, { seed: SEED });
}

async function child(file: string): Promise<void> {
  const bytes = new Uint8Array(readFileSync(file));
  const pkg = await readPackage(bytes);
  if (!pkg.signer) throw new Error('expected a signed package');
  process.stdout.write(JSON.stringify({ maxRssKb: peakRssKb() }));
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child-verify') return child(process.argv[3]!);
  const cg = cgMode();
  if (cg !== undefined) {
    const [file, n, textLen] = process.argv.slice(process.argv.indexOf('--cg') + 2);
    return cgChild(cg, file!, Number(n), Number(textLen));
  }
  smokeBanner('format');
  const dir = mkdtempSync(join(tmpdir(), 'ctxpkg-bench-format-'));
  try {
    // 25k nodes; node text sized so the written file is just under the 10 MiB limit (the size
    // is linear in the text length: two probes, then a check).
    const n = NODES;
    const s0 = sizeOf(n, 8);
    const s1 = sizeOf(n, 16);
    let textLen = Math.floor(8 + ((SIZE_GOAL - 32 * 1024 - s0) * 8) / (s1 - s0));
    while (sizeOf(n, textLen) > SIZE_GOAL) textLen -= 2;
    const input = model(n, textLen);
    const bytes = writePackage(input, { seed: SEED });
    const file = join(dir, 'large.ctxpkg');
    writeFileSync(file, bytes);
    const size = bytes.length;
    console.log(`node ${process.version}; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    const g = input.content.context_graph!;
    const distinctTexts = new Set(g.nodes.map((x) => x.content.slice(x.content.indexOf(':')))).size;
    const distinctTargets = new Set(g.edges.map((e) => e.to)).size;
    console.log(
      `package: ${n} nodes (node text ~${textLen} chars, ${distinctTexts} distinct texts without the id prefix), ${g.edges.length} edges ` +
        `(${distinctTargets} distinct targets), ${(size / MB).toFixed(2)} MiB (${size} bytes); sha256 backend: ${SHA256_BACKEND}; Ed25519 verify backend: ${await ed25519VerifyBackend()}`,
    );

    // Both sides read the file the same way (a Buffer is a Uint8Array).
    const v = await timePair(
      () => {
        const b = readFileSync(file);
        createHash('sha256').update(b).digest('hex');
        JSON.parse(b.toString('utf8'));
      },
      () => readPackage(readFileSync(file)),
      RUNS,
      WARMUP,
    );
    console.log(
      `verify:     ${v.subject.toFixed(1)} ms  (${(size / MB / (v.subject / 1000)).toFixed(1)} MiB/s)   floor read+sha256+JSON.parse ${v.floor.toFixed(1)} ms   ` +
        `ratio ${v.ratio.toFixed(2)}× (median of ${RUNS} alternating pairs; target ≤ 1.7× quiet, ≤ 2× loaded → ${verdict(v.ratio <= 1.7, 'met', 'MISSED')})`,
    );
    console.log(`            cpu ${v.subjectCpu.toFixed(1)} ms, floor cpu ${v.floorCpu.toFixed(1)} ms, ratio ${v.cpuRatio.toFixed(2)}× (user + system of this process, GC threads included)`);
    const self = fileURLToPath(import.meta.url);
    const cgArgs = [file, String(n), String(textLen)];
    const cgV = callgrindOn() ? instructionRatio(cgCommands(self, { subject: 'verify' }, cgArgs)) : undefined;
    console.log(`            ${instructionLine('verify', cgV, `target ≤ 1.7× → ${cgV && Number.isFinite(cgV.ratio) ? verdict(cgV.ratio <= 1.7, 'met', 'MISSED') : 'n/a'}`)}`);

    const w = await timePair(
      () => {
        const text = JSON.stringify(input, null, 2);
        createHash('sha256').update(text).digest('hex');
      },
      () => writePackage(input, { seed: SEED }),
      RUNS,
      WARMUP,
    );
    console.log(
      `write+sign: ${w.subject.toFixed(1)} ms  (${(size / MB / (w.subject / 1000)).toFixed(1)} MiB/s)   floor JSON.stringify+sha256 ${w.floor.toFixed(1)} ms   ` +
        `ratio ${w.ratio.toFixed(2)}× (median of ${RUNS} alternating pairs; target ≤ 1.7× quiet, ≤ 2× loaded → ${verdict(w.ratio <= 1.7, 'met', 'MISSED')})`,
    );
    console.log(`            cpu ${w.subjectCpu.toFixed(1)} ms, floor cpu ${w.floorCpu.toFixed(1)} ms, ratio ${w.cpuRatio.toFixed(2)}×`);
    const cgW = callgrindOn() ? instructionRatio(cgCommands(self, { base: 'wbase', floor: 'wfloor', subject: 'write' }, cgArgs)) : undefined;
    console.log(`            ${instructionLine('write+sign', cgW, `target ≤ 1.7× → ${cgW && Number.isFinite(cgW.ratio) ? verdict(cgW.ratio <= 1.7, 'met', 'MISSED') : 'n/a'}`)}`);

    // Peak RSS of a fresh process that only reads and verifies, running the compiled package
    // (what the CLI and registry run), so the figure carries no TypeScript-loader overhead.
    const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
    const build = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', join(root, 'packages', 'format', 'tsconfig.build.json')], { encoding: 'utf8' });
    const dist = join(root, 'packages', 'format', 'dist', 'index.js');
    const useDist = build.status === 0;
    const childScript =
      `const { readPackage } = await import(${JSON.stringify(pathToFileURL(dist).href)});` +
      `const { readFileSync } = await import('node:fs');` +
      `const pkg = await readPackage(new Uint8Array(readFileSync(${JSON.stringify(file)})));` +
      `if (!pkg.signer) throw new Error('expected a signed package');` +
      `process.stdout.write(JSON.stringify({ maxRssKb: ${PEAK_RSS_KB_EXPR} }));`;
    const r = useDist
      ? spawnSync(process.execPath, ['--input-type=module', '-e', childScript], { encoding: 'utf8' })
      : spawnSync(process.execPath, ['--import', 'tsx', self, '--child-verify', file], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
    const base = spawnSync(process.execPath, [...(useDist ? [] : ['--import', 'tsx']), '-e', `process.stdout.write(JSON.stringify({maxRssKb: ${PEAK_RSS_KB_EXPR}}))`], { encoding: 'utf8' });
    const imported = useDist
      ? spawnSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(dist).href)}); process.stdout.write(JSON.stringify({ maxRssKb: ${PEAK_RSS_KB_EXPR} }));`], { encoding: 'utf8' })
      : undefined;
    const rss = JSON.parse(r.stdout).maxRssKb * 1024;
    const baseRss = JSON.parse(base.stdout).maxRssKb * 1024;
    const importRss = imported && imported.status === 0 ? JSON.parse(imported.stdout).maxRssKb * 1024 : undefined;
    const budget = 4 * size + 100 * 1e6;
    console.log(
      `peak RSS (fresh process, read+verify, ${useDist ? 'compiled dist' : 'tsx source: build failed'}): ${(rss / MB).toFixed(0)} MiB ` +
        `(an idle ${useDist ? 'node' : 'node+tsx'} process: ${(baseRss / MB).toFixed(0)} MiB` +
        `${importRss ? `; after importing @ctxpkg/format: ${(importRss / MB).toFixed(0)} MiB` : ''})   budget 4×size+100 MB = ${(budget / MB).toFixed(0)} MiB   ${verdict(rss <= budget, 'within', 'OVER')}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
