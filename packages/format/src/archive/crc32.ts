/**
 * CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) as used by ZIP (APPNOTE 4.4.7).
 * yauzl does not check entry CRCs; the reader does (spec/archive.md §5). The runtime's native
 * zlib `crc32` when available, else a portable slicing-by-8 implementation (same results).
 */
import { nodeBuiltin } from '../builtin.js';

const TABLES: Uint32Array[] = (() => {
  const t0 = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t0[n] = c >>> 0;
  }
  const tables = [t0];
  for (let i = 1; i < 8; i++) {
    const prev = tables[i - 1]!;
    const t = new Uint32Array(256);
    for (let n = 0; n < 256; n++) t[n] = (prev[n]! >>> 8) ^ t0[prev[n]! & 0xff]!;
    tables.push(t);
  }
  return tables;
})();

/**
 * Continue a CRC-32 over `bytes` in portable JS (slicing-by-8). Start with `crc = 0`; the
 * return value is the finished CRC of everything fed so far (unsigned 32-bit), so calls chain.
 */
export function crc32UpdatePortable(crc: number, bytes: Uint8Array): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES as [
    Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array,
  ];
  let c = ~crc >>> 0;
  let i = 0;
  const n = bytes.length;
  const end8 = n - (n % 8);
  while (i < end8) {
    const a = (c ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24))) >>> 0;
    c =
      t7[a & 0xff]! ^
      t6[(a >>> 8) & 0xff]! ^
      t5[(a >>> 16) & 0xff]! ^
      t4[a >>> 24]! ^
      t3[bytes[i + 4]!]! ^
      t2[bytes[i + 5]!]! ^
      t1[bytes[i + 6]!]! ^
      t0[bytes[i + 7]!]!;
    i += 8;
  }
  while (i < n) c = t0[(c ^ bytes[i++]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

type NativeCrc = (data: Uint8Array, value: number) => number;

/** The runtime's zlib `crc32` (Node ≥ 20.15) via a feature probe, as in `hash.ts`; no import. */
function probeNative(): NativeCrc | undefined {
  try {
    const zlib = nodeBuiltin<{ crc32: NativeCrc }>('node:zlib');
    return typeof zlib?.crc32 === 'function' ? zlib.crc32 : undefined;
  } catch {
    return undefined;
  }
}

const native = probeNative();

/** Which implementation `crc32Update` uses in this runtime (native is ~4× faster). */
export const CRC32_BACKEND: 'node' | 'portable' = native ? 'node' : 'portable';

/** Continue a CRC-32 over `bytes` (same contract as `crc32UpdatePortable`). */
export function crc32Update(crc: number, bytes: Uint8Array): number {
  return native ? native(bytes, crc) >>> 0 : crc32UpdatePortable(crc, bytes);
}

/** CRC-32 of `bytes` (unsigned 32-bit). */
export function crc32(bytes: Uint8Array): number {
  return crc32Update(0, bytes);
}
