import { describe, expect, it } from 'vitest';
import { deflateRawSync } from 'node:zlib';
import { INFLATER, fflateInflater, type RawInflater } from './inflate.js';

const text = new TextEncoder().encode('{"context_graph":{"nodes":[]}}\n'.repeat(2000));

describe('inflate backends', () => {
  it('uses native zlib on this runtime (Node ≥ 20.16 getBuiltinModule)', () => {
    expect(INFLATER.name).toBe('node');
  });

  for (const inflater of [INFLATER, fflateInflater] as RawInflater[]) {
    describe(inflater.name, () => {
      it('inflates exactly, including empty input data', () => {
        expect(inflater.inflate(new Uint8Array(deflateRawSync(text)), text.length)).toEqual(text);
        expect(inflater.inflate(new Uint8Array(deflateRawSync(new Uint8Array(0))), 0)).toEqual(new Uint8Array(0));
      });

      it('stops at the limit while inflating (10 MiB of zeros, limit 100 bytes)', () => {
        const bomb = new Uint8Array(deflateRawSync(new Uint8Array(10 * 1024 * 1024)));
        expect(inflater.inflate(bomb, 100)).toEqual({ kind: 'over-limit' });
        expect(inflater.inflate(new Uint8Array(deflateRawSync(Uint8Array.of(1))), 0)).toEqual({ kind: 'over-limit' });
      });

      it('gives exactly the data at the limit, refuses one byte past it, at every buffer-size boundary', () => {
        // The node backend inflates into one buffer of limit + 1 bytes (min 64); sizes around
        // zlib's smallest chunk, the Buffer pool's slab halves and zlib's default chunk.
        for (const size of [0, 1, 62, 63, 64, 65, 4095, 4096, 4097, 8191, 8192, 16383, 16384, 16385, 100_000]) {
          const data = Uint8Array.from({ length: size }, (_, i) => (i * 31 + (i >> 7)) & 0xff);
          const d = new Uint8Array(deflateRawSync(data));
          expect(inflater.inflate(d, size), `size ${size}`).toEqual(data);
          expect(inflater.inflate(d, size + 1), `size ${size}, limit + 1`).toEqual(data);
          if (size > 0) expect(inflater.inflate(d, size - 1), `size ${size}, limit − 1`).toEqual({ kind: 'over-limit' });
        }
      });

      it('returns arrays that later calls do not overwrite', () => {
        const a = Uint8Array.from({ length: 300 }, (_, i) => i & 0xff);
        const b = new Uint8Array(300).fill(0xee);
        const outA = inflater.inflate(new Uint8Array(deflateRawSync(a)), 300) as Uint8Array;
        for (let i = 0; i < 50; i++) inflater.inflate(new Uint8Array(deflateRawSync(b)), 300);
        expect(outA).toEqual(a);
      });

      it('reports corrupt and truncated data', () => {
        const d = new Uint8Array(deflateRawSync(text));
        expect((inflater.inflate(d.subarray(0, d.length >> 1), text.length) as { kind: string }).kind).toBe('corrupt');
        const garbage = Uint8Array.from({ length: 64 }, (_, i) => (i * 97 + 13) & 0xff);
        expect((inflater.inflate(garbage, 1 << 20) as { kind: string }).kind).toBe('corrupt');
      });
    });
  }
});
