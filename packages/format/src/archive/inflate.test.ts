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

      it('reports corrupt and truncated data', () => {
        const d = new Uint8Array(deflateRawSync(text));
        expect((inflater.inflate(d.subarray(0, d.length >> 1), text.length) as { kind: string }).kind).toBe('corrupt');
        const garbage = Uint8Array.from({ length: 64 }, (_, i) => (i * 97 + 13) & 0xff);
        expect((inflater.inflate(garbage, 1 << 20) as { kind: string }).kind).toBe('corrupt');
      });
    });
  }
});
