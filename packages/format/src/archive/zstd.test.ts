import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Xxh64 } from './xxhash64.js';
import { decodeZstdFrame, decompressZstd, encodeZstdFrame, inspectZstdFrame, type ZstdDecodeCaps } from './zstd.js';
import { expectCode, expectSameBytes } from './__tests__/fixtures.js';

const FIXTURES = fileURLToPath(new URL('../../../../fixtures/archives/zstd/', import.meta.url));
const enc = new TextEncoder();
const CAPS: ZstdDecodeCaps = { maxOutputBytes: 10 * 1024 * 1024, maxWindowBytes: 8 * 1024 * 1024, maxRatio: 1000, ratioGraceBytes: 1024 * 1024 };

function hasZstdCli(): boolean {
  try {
    execFileSync('zstd', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The source text of fixtures/archives/gen-zstd.sh, rebuilt with the same loop. */
function fixtureSource(): Uint8Array {
  let s = '';
  for (let i = 0; i < 600; i++) s += `{"id":"n${i}","type":"fact","content":"fact number ${i} about the auth service","activation":1.0},\n`;
  return enc.encode(s);
}

function pseudoRandom(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** A frame header + blocks + optional checksum, built by hand. */
function frame(fhd: number, headerRest: number[], blocks: number[][], checksum?: number[]): Uint8Array {
  return Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, fhd, ...headerRest, ...blocks.flat(), ...(checksum ?? [])]);
}
function blockHeader(last: boolean, type: number, size: number): number[] {
  const v = (size << 3) | (type << 1) | (last ? 1 : 0);
  return [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff];
}

describe('XXH64', () => {
  it('matches the published vectors', () => {
    expect(new Xxh64().digestHex()).toBe('ef46db3751d8e999');
    expect(new Xxh64().update(enc.encode('abc')).digestHex()).toBe('44bc2cf5ad770999');
  });

  it('gives the same digest for any chunking', () => {
    const data = pseudoRandom(1000);
    const whole = new Xxh64().update(data).digestHex();
    for (const step of [1, 7, 31, 32, 33, 100]) {
      const h = new Xxh64();
      for (let i = 0; i < data.length; i += step) h.update(data.subarray(i, i + step));
      expect(h.digestHex()).toBe(whole);
    }
  });
});

describe('frames from the zstd CLI (fixtures/archives/gen-zstd.sh)', () => {
  const source = fixtureSource();
  it('the rebuilt source is the one the fixtures were made from', () => {
    const want = readFileSync(FIXTURES + 'SOURCE.sha256', 'utf8').split(' ')[0];
    expect(createHash('sha256').update(source).digest('hex')).toBe(want);
  });
  for (const name of ['source.19-check.zst', 'source.3-nocheck.zst', 'source.3-nosize.zst']) {
    it(`decodes ${name} (compressed blocks; checksum verified when present)`, () => {
      const frameBytes = new Uint8Array(readFileSync(FIXTURES + name));
      expectSameBytes(decompressZstd(frameBytes, CAPS), source);
    });
  }

  it('a flipped checksum byte in a real frame: E_ARCHIVE', async () => {
    const f = new Uint8Array(readFileSync(FIXTURES + 'source.19-check.zst'));
    expect(inspectZstdFrame(f).hasChecksum).toBe(true);
    f[f.length - 1] ^= 0xff;
    const err = await expectCode(() => decompressZstd(f, CAPS), 'E_ARCHIVE');
    expect(err.message).toMatch(/checksum/);
  });

  it('a real frame under a cap below its size: E_TOO_LARGE before decoding (declared size)', async () => {
    const f = new Uint8Array(readFileSync(FIXTURES + 'source.19-check.zst'));
    const err = await expectCode(() => decompressZstd(f, { ...CAPS, maxOutputBytes: 1000 }), 'E_TOO_LARGE');
    expect(err.message).toMatch(/declared/);
  });

  it('a real frame without content size under a small cap: E_TOO_LARGE while decoding', async () => {
    const f = new Uint8Array(readFileSync(FIXTURES + 'source.3-nosize.zst'));
    let delivered = 0;
    const err = await expectCode(
      () => decodeZstdFrame(f, { ...CAPS, maxOutputBytes: 1000 }, (c) => (delivered += c.length)),
      'E_TOO_LARGE',
    );
    expect(err.message).toMatch(/decoded/);
    expect(delivered).toBeLessThanOrEqual(1000);
  });
});

describe('encodeZstdFrame (raw + RLE blocks)', () => {
  const cases: Array<[string, Uint8Array]> = [
    ['empty', new Uint8Array(0)],
    ['1 byte', Uint8Array.of(7)],
    ['255 bytes', pseudoRandom(255)],
    ['256 bytes (2-byte size field)', pseudoRandom(256)],
    ['65791 bytes (largest 2-byte size)', pseudoRandom(65791)],
    ['65792 bytes (4-byte size field)', pseudoRandom(65792)],
    ['300 KiB random (several blocks)', pseudoRandom(300 * 1024)],
    ['runs and noise', Uint8Array.from({ length: 400_000 }, (_, i) => (i % 50_000 < 30_000 ? 0 : (i * 31) & 0xff))],
  ];
  for (const [what, data] of cases) {
    it(`round-trips ${what}`, () => {
      const f = encodeZstdFrame(data);
      const info = inspectZstdFrame(f);
      expect(info.contentSize).toBe(data.length);
      expect(info.hasChecksum).toBe(true);
      expectSameBytes(decompressZstd(f, CAPS), data);
    });
  }

  it('is deterministic and shrinks long runs', () => {
    const zeros = new Uint8Array(1024 * 1024);
    const a = encodeZstdFrame(zeros);
    expectSameBytes(a, encodeZstdFrame(zeros));
    expect(a.length).toBeLessThan(100);
  });

  it.skipIf(!hasZstdCli())('its frames decode with the reference zstd CLI', () => {
    // The CLI decodes concatenated frames to the concatenation of their contents: one process.
    const frames = Buffer.concat(cases.map(([, data]) => encodeZstdFrame(data)));
    const out = execFileSync('zstd', ['-d', '-c', '-q'], { input: frames, maxBuffer: 1 << 24 });
    expectSameBytes(new Uint8Array(out), new Uint8Array(Buffer.concat(cases.map(([, data]) => data))));
  });
});

describe('hostile frames', () => {
  it('a 13-byte-class bomb: RLE blocks without content size stop at the cap + one block', async () => {
    // Window 1 MiB, no content size; 8192 RLE blocks of 128 KiB = 1 GiB from ~32 KiB.
    const blocks: number[][] = [];
    for (let i = 0; i < 8192; i++) blocks.push([...blockHeader(i === 8191, 1, 128 * 1024), 0]);
    const bomb = frame(0x00, [(10 << 3) | 0], blocks);
    let delivered = 0;
    const before = process.memoryUsage().rss;
    const t0 = Date.now();
    await expectCode(() => decodeZstdFrame(bomb, CAPS, (c) => (delivered += c.length)), 'E_TOO_LARGE');
    expect(delivered).toBeLessThanOrEqual(CAPS.maxOutputBytes);
    expect(Date.now() - t0).toBeLessThan(10_000); // generous: the point is "stops", not speed
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('a frame declaring 1 GiB is refused before decoding', async () => {
    const fcs = 1024 * 1024 * 1024;
    const f = frame(0x80 | 0x20, [fcs & 0xff, (fcs >>> 8) & 0xff, (fcs >>> 16) & 0xff, fcs >>> 24], [[...blockHeader(true, 1, 16), 0]]);
    const err = await expectCode(() => decompressZstd(f, CAPS), 'E_TOO_LARGE');
    expect(err.message).toMatch(/declared/);
  });

  it('a frame asking for a 2 GiB window is refused before the decoder allocates it', async () => {
    const f = frame(0x00, [(31 - 10) << 3], [[...blockHeader(true, 1, 16), 0]]);
    const err = await expectCode(() => decompressZstd(f, CAPS), 'E_TOO_LARGE');
    expect(err.message).toMatch(/window/);
  });

  it('a frame whose content size lies (declares 10, RLE block gives 100)', async () => {
    const f = frame(0x20, [10], [[...blockHeader(true, 1, 100), 0]]);
    await expectCode(() => decompressZstd(f, CAPS), 'E_ARCHIVE');
    const g = frame(0x00 | 0x40, [(10 << 3), 10 - 10, 0], [[...blockHeader(true, 1, 100), 0]]);
    // FCS flag 1 (2 bytes, +256) declares 256 bytes; 100 produced.
    await expectCode(() => decompressZstd(g, CAPS), 'E_ARCHIVE_SIZE_MISMATCH');
  });

  it('dictionaries, reserved bits and block types, trailing bytes and skippable frames are refused', async () => {
    const raw = [...blockHeader(true, 0, 3), 1, 2, 3];
    await expectCode(() => decompressZstd(frame(0x20 | 0x01, [9, 3], [raw]), CAPS), 'E_ARCHIVE'); // dict id 9
    await expectCode(() => decompressZstd(frame(0x20 | 0x08, [3], [raw]), CAPS), 'E_ARCHIVE'); // reserved bit
    await expectCode(() => decompressZstd(frame(0x20, [3], [[...blockHeader(true, 3, 3), 1, 2, 3]]), CAPS), 'E_ARCHIVE');
    const ok = frame(0x20, [3], [raw]);
    expect(decompressZstd(ok, CAPS)).toEqual(Uint8Array.of(1, 2, 3));
    await expectCode(() => decompressZstd(Uint8Array.from([...ok, 0]), CAPS), 'E_ARCHIVE');
    const skippable = Uint8Array.from([0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0, ...ok]);
    await expectCode(() => decompressZstd(skippable, CAPS), 'E_ARCHIVE');
    await expectCode(() => decompressZstd(ok.subarray(0, ok.length - 1), CAPS), 'E_ARCHIVE');
  });

  it('a checksum mismatch in our own frame', async () => {
    const f = encodeZstdFrame(enc.encode('hello zstd'));
    f[f.length - 2] ^= 0x10;
    await expectCode(() => decompressZstd(f, CAPS), 'E_ARCHIVE');
  });

  it('the ratio cap applies to zstd output after the grace', async () => {
    const f = encodeZstdFrame(new Uint8Array(4 * 1024 * 1024));
    const err = await expectCode(() => decompressZstd(f, { ...CAPS, maxRatio: 1000 }), 'E_TOO_LARGE');
    expect(err.message).toMatch(/ratio/);
  });
});

it('fixtures directory exists (generated by fixtures/archives/gen-zstd.sh)', () => {
  expect(existsSync(FIXTURES + 'source.19-check.zst')).toBe(true);
});
