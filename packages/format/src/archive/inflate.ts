/**
 * Raw DEFLATE (RFC 1951) decoding of one ZIP entry under a hard output limit, enforced while
 * inflating (spec/archive.md §5 step 7, ADVERSARIAL HB-16).
 *
 * Two interchangeable backends, chosen once by a feature probe (the same pattern as `hash.ts`;
 * no import of `process` or of node modules, no I/O):
 * - `node`: the runtime's zlib (`process.getBuiltinModule('node:zlib')`, Node ≥ 20.16),
 *   `inflateRawSync` with `maxOutputLength`: zlib stops as soon as its output passes the limit
 *   (at most one output chunk beyond it: one byte for a limit under 64 MiB, whose output goes
 *   into one buffer of `limit + 1` bytes, else 16 KiB).
 * - `fflate`: pure JS (browsers, Deno, older Node): the compressed data is pushed in 512-byte
 *   pieces and the output counted per piece; it stops at the first piece whose output passes the
 *   limit (≤ 512 × 1032 bytes ≈ 516 KiB beyond it, deflate's ratio ceiling).
 */
import { concatBytes } from '../bytes.js';
import { Inflate } from 'fflate';
import { nodeBuiltin } from '../builtin.js';

/** Why `inflateLimited` gave up. */
export type InflateFailure = { kind: 'over-limit' } | { kind: 'corrupt'; message: string };

export interface RawInflater {
  readonly name: 'node' | 'fflate';
  /** Inflate `data`; the output may not exceed `limit` bytes. */
  inflate(data: Uint8Array, limit: number): Uint8Array | InflateFailure;
}

type NodeZlib = {
  inflateRawSync(data: Uint8Array, opts: { maxOutputLength: number; chunkSize: number }): Uint8Array;
};

/**
 * The largest output buffer the node backend sizes to the limit up front (bytes). Up to it, zlib
 * inflates into one buffer of `limit + 1` bytes: the result is a view of it (no 16 KiB chunks
 * joined by a copy, no chunk mostly unused behind a small entry that the caller keeps), and one
 * byte more than allowed still fits, so output past the limit is seen (`maxOutputLength`).
 * Above it, zlib's default chunks.
 */
const WHOLE_OUTPUT_MAX = 64 * 1024 * 1024;
/** zlib's smallest chunk (`zlib.constants.Z_MIN_CHUNK`). */
const MIN_CHUNK = 64;

function probeNode(): RawInflater | undefined {
  try {
    const zlib = nodeBuiltin<NodeZlib>('node:zlib') as NodeZlib | undefined;
    if (typeof zlib?.inflateRawSync !== 'function') return undefined;
    return {
      name: 'node',
      inflate(data, limit) {
        try {
          // maxOutputLength must be ≥ 1; a 0-byte limit is checked on the result.
          const chunkSize = limit < WHOLE_OUTPUT_MAX ? Math.max(MIN_CHUNK, limit + 1) : 16 * 1024;
          const out = zlib.inflateRawSync(data, { maxOutputLength: Math.max(1, limit), chunkSize });
          if (out.length > limit) return { kind: 'over-limit' };
          return new Uint8Array(out.buffer, out.byteOffset, out.byteLength); // a plain view, not a Buffer
        } catch (err) {
          const code = (err as { code?: string }).code;
          if (code === 'ERR_BUFFER_TOO_LARGE') return { kind: 'over-limit' };
          return { kind: 'corrupt', message: err instanceof Error ? err.message : String(err) };
        }
      },
    };
  } catch {
    return undefined;
  }
}

const PIECE = 512;
const OVER = Symbol('over-limit');

/** The pure-JS backend (exported for tests; `INFLATER` picks the fastest available). */
export const fflateInflater: RawInflater = {
  name: 'fflate',
  inflate(data, limit) {
    const chunks: Uint8Array[] = [];
    let produced = 0;
    const inflater = new Inflate((chunk) => {
      produced += chunk.length;
      if (produced > limit) throw OVER;
      chunks.push(chunk);
    });
    try {
      if (data.length === 0) inflater.push(data, true);
      for (let o = 0; o < data.length; o += PIECE) {
        inflater.push(data.subarray(o, o + PIECE), o + PIECE >= data.length);
      }
    } catch (err) {
      if (err === OVER) return { kind: 'over-limit' };
      return { kind: 'corrupt', message: err instanceof Error ? err.message : String(err) };
    }
    return concatBytes(chunks, produced);
  },
};

/** The backend in use: native zlib when the runtime hands it out, else fflate. */
export const INFLATER: RawInflater = probeNode() ?? fflateInflater;
