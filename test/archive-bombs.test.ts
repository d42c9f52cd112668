/**
 * Archive bombs are refused within bounded memory (ADVERSARIAL HB-16: rss grows < 64 MiB) and
 * without hanging. Each bomb is read in its own child process so that its memory peak is not
 * hidden by the test runner's; the child reports the growth of its peak RSS (`maxRSS`) over a
 * warmed-up baseline, and the error code. A hang is caught by the child's kill timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from '../packages/format/src/archive/crc32.js';
import { buildZip, fileEntry, parseZip, type RawEntry } from '../packages/format/src/archive/__tests__/zip-builder.js';
import { baseArchive } from '../packages/format/src/archive/__tests__/fixtures.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const MiB = 1024 * 1024;

const CHILD = `
import { readFileSync } from 'node:fs';
import { readArchive } from './packages/format/src/archive/index.ts';
const bytes = new Uint8Array(readFileSync(process.env.BOMB_FILE));
const warm = new Uint8Array(readFileSync(process.env.WARM_FILE));
await readArchive(warm);
globalThis.gc?.();
const base = process.resourceUsage().maxRSS;
const t0 = performance.now();
let code = 'OK';
try { await readArchive(bytes); } catch (e) { code = e.code ?? String(e); }
const ms = performance.now() - t0;
const growthKiB = process.resourceUsage().maxRSS - base;
process.stdout.write(JSON.stringify({ code, ms, growthKiB }));
`;

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxpkg-bombs-'));
  writeFileSync(join(dir, 'warm.ctxpkg'), await baseArchive());
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runChild(bytes: Uint8Array): { code: string; ms: number; growthKiB: number } {
  const file = join(dir, `bomb-${Math.random().toString(36).slice(2)}.zip`);
  writeFileSync(file, bytes);
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', CHILD], {
    cwd: REPO,
    env: { ...process.env, BOMB_FILE: file, WARM_FILE: join(dir, 'warm.ctxpkg') },
    timeout: 60_000, // hang guard only; the bench measures time
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.toString());
}

/** A zstd frame of RLE blocks without content size: `blocks` × 128 KiB of output from ~4 bytes each. */
function rleBombFrame(blocks: number): Uint8Array {
  const head = [0x28, 0xb5, 0x2f, 0xfd, 0x00, 10 << 3]; // no FCS, window 1 MiB
  const out = new Uint8Array(head.length + blocks * 4);
  out.set(head);
  for (let i = 0; i < blocks; i++) {
    const v = ((128 * 1024) << 3) | (1 << 1) | (i === blocks - 1 ? 1 : 0);
    out.set([v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, 0x61], head.length + i * 4);
  }
  return out;
}

/** `n` bytes repeating a 1000-byte pseudo-random block (seeded): deflates about 100:1, under the ratio cap. */
function repetitive(n: number, seed: number): Uint8Array {
  const block = new Uint8Array(1000);
  let x = 0x9e3779b9 ^ (seed + 1);
  for (let i = 0; i < block.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    block[i] = x & 0xff;
  }
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += block.length) out.set(block.subarray(0, Math.min(block.length, n - i)), i);
  return out;
}

async function base(): Promise<RawEntry[]> {
  return parseZip(await baseArchive());
}

describe('bombs: bounded memory, clean error', () => {
  const cases: Array<[string, string, () => Promise<Uint8Array>]> = [
    [
      'HB-16a: declares 100 bytes, inflates to 10 MiB',
      'E_ARCHIVE_SIZE_MISMATCH',
      async () => {
        const e = await base();
        const ten = new Uint8Array(10 * MiB);
        e[1] = { ...fileEntry('content.json', ten), uncompressedSize: 100, crc: crc32(ten.subarray(0, 100)) };
        return buildZip(e);
      },
    ],
    [
      'HB-16b: honest 64 MiB of zeros (~65 KB archive)',
      'E_TOO_LARGE',
      async () => {
        const e = await base();
        e.push(fileEntry('rebuild.json', new Uint8Array(64 * MiB)));
        return buildZip(e);
      },
    ],
    [
      'zstd bomb: 1 GiB of RLE blocks without content size in a blob entry',
      'E_TOO_LARGE',
      async () => {
        const e = await base();
        const frame = rleBombFrame(8192);
        const ref = 'sha256-' + createHash('sha256').update('anything').digest('hex');
        e.push(fileEntry(`blobs/${ref}.zst`, frame, { stored: true }));
        return buildZip(e);
      },
    ],
    [
      'zstd frame declaring 1 GiB content (refused before decoding)',
      'E_TOO_LARGE',
      async () => {
        const e = await base();
        const fcs = 1024 * MiB;
        const frame = Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0xa0, fcs & 0xff, (fcs >>> 8) & 0xff, (fcs >>> 16) & 0xff, fcs >>> 24, 0x03, 0, 0x10, 0x61]);
        e[1] = fileEntry('content.json.zst', frame, { stored: true });
        return buildZip(e);
      },
    ],
    [
      'six 6 MiB entries, each within the per-entry cap, 36 MiB declared in total',
      'E_TOO_LARGE',
      async () => {
        const e = await base();
        for (let i = 0; i < 6; i++) e.push(fileEntry(`blobs/sha256-${i.toString(16).padStart(64, '0')}`, repetitive(6 * MiB, i)));
        return buildZip(e);
      },
    ],
    [
      'the worst accepted: 31.5 MiB of blobs deflating ~100:1 (a ~330 KB archive at the default total)',
      'OK',
      async () => {
        const e = await base();
        for (let i = 0; i < 4; i++) {
          const data = repetitive(Math.floor(7.875 * MiB), i);
          e.push(fileEntry(`blobs/sha256-${createHash('sha256').update(data).digest('hex')}`, data));
        }
        return buildZip(e);
      },
    ],
    [
      'overlapping entries (non-recursive zip bomb shape)',
      'E_ARCHIVE',
      async () => {
        const e = await base();
        for (let i = 0; i < 200; i++) e.push({ ...e[2]!, name: new TextEncoder().encode(`blobs/sha256-${i.toString(16).padStart(64, '0')}`), pointAtEntry: 2 });
        return buildZip(e);
      },
    ],
  ];

  for (const [what, code, make] of cases) {
    it(`${what} → ${code}, peak RSS growth < 64 MiB`, async () => {
      const r = runChild(await make());
      console.log(`[bomb] ${what}: ${r.code} in ${r.ms.toFixed(0)} ms, peak RSS +${(r.growthKiB / 1024).toFixed(1)} MiB`);
      expect(r.code).toBe(code);
      expect(r.growthKiB * 1024).toBeLessThan(64 * MiB);
    });
  }
});
