/**
 * SHA-256 for the format core. Two interchangeable backends with identical output:
 * - `node`: the runtime's native digest, when the runtime hands out `node:crypto` synchronously
 *   (Node ≥ 20.16 `process.getBuiltinModule`). This is a feature probe only — no I/O, no import of
 *   `process` — and about 9× faster than the portable backend on 10 MiB (bench/format).
 * - `noble`: `@noble/hashes` (pure JS, hash-portable.ts), used everywhere else (browsers, Deno,
 *   older Node). It is imported only there (top-level `await import`): loading it costs ~5 ms of
 *   every CLI start-up that never uses it (issue 16 item 3).
 */
import { nodeBuiltin } from './builtin.js';

type NativeDigest = (data: Uint8Array | string) => string;
/** The native digest of a string as a 32-character latin1 string (one character per byte). */
type NativeLatin1 = (text: string) => string;
type NativeHasher = { update(d: Uint8Array): unknown; digest(enc: 'hex'): string; digest(): Uint8Array };

/** An incremental SHA-256: `update` with bytes, then `digestHex` once. */
export interface Sha256Stream {
  update(data: Uint8Array): void;
  /** Lowercase hex; the stream cannot be used afterwards. */
  digestHex(): string;
}

let nativeCreate: (() => NativeHasher) | undefined;
let nativeLatin1: NativeLatin1 | undefined;

function probeNative(): NativeDigest | undefined {
  try {
    const crypto = nodeBuiltin<{
      createHash: (alg: string) => { update(d: Uint8Array | string, enc?: string): { digest(enc: string): string } };
      hash: (alg: string, data: Uint8Array | string, enc: 'hex' | 'latin1') => string;
    }>('node:crypto');
    const createHash = crypto?.createHash;
    if (typeof createHash !== 'function') return undefined;
    nativeCreate = () => createHash('sha256') as unknown as NativeHasher;
    // One-shot `crypto.hash` (Node ≥ 20.12): no Hash object per call, strings hashed as UTF-8 —
    // the same digest, several times cheaper for the many short texts of a pack receipt.
    const oneShot = crypto?.hash;
    if (typeof oneShot === 'function') {
      nativeLatin1 = (text) => oneShot.call(crypto, 'sha256', text, 'latin1');
      return (data) => oneShot.call(crypto, 'sha256', data, 'hex');
    }
    nativeLatin1 = (text) => createHash('sha256').update(text, 'utf8').digest('latin1');
    return (data) => (typeof data === 'string' ? createHash('sha256').update(data, 'utf8') : createHash('sha256').update(data)).digest('hex');
  } catch {
    return undefined;
  }
}

const native = probeNative();
const encoder = new TextEncoder();
const portable = native ? undefined : await import('./hash-portable.js');

/** Which backend `sha256Hex` uses in this runtime. */
export const SHA256_BACKEND: 'node' | 'noble' = native ? 'node' : 'noble';

/**
 * Lowercase hex SHA-256 of `data` (strings are hashed as their UTF-8 bytes). 64 characters.
 * Source of the encoding rule: FORMAT-FACTS §3.1 (`hex_encode` is lowercase).
 */
export function sha256Hex(data: Uint8Array | string): string {
  return native ? native(data) : (portable as typeof import('./hash-portable.js')).sha256HexPortable(data);
}

/**
 * Write the 32-byte SHA-256 digest of `text` (hashed as its UTF-8 bytes, like `sha256Hex`) into
 * `out[offset .. offset + 32)`. For callers that keep many digests as bytes in one arena
 * (`pack/digests.ts`) instead of one 64-character hex string each: the native backend hands the
 * digest out in its smallest form, a 32-character latin1 string (one character per byte, ~48
 * bytes of heap against ~80 for hex), read here and dropped at once; the portable one gives bytes.
 * Throws `RangeError` when `out` has fewer than `offset + 32` bytes.
 */
export function sha256Into(text: string, out: Uint8Array, offset: number): void {
  if (offset < 0 || offset + 32 > out.length) throw new RangeError(`sha256Into: no room for 32 bytes at ${offset} of ${out.length}`);
  if (nativeLatin1) {
    const d = nativeLatin1(text);
    for (let k = 0; k < 32; k++) out[offset + k] = d.charCodeAt(k);
    return;
  }
  out.set((portable as typeof import('./hash-portable.js')).sha256BytesPortable([encoder.encode(text)]), offset);
}

/**
 * The 32-byte SHA-256 digest of the concatenation of `parts` (no copy of the parts is made).
 * Same backend choice as `sha256Hex`; used by the transparency log (RFC 6962 leaf and node hashes).
 */
export function sha256Bytes(...parts: Uint8Array[]): Uint8Array {
  if (nativeCreate) {
    const h = nativeCreate();
    for (const p of parts) h.update(p);
    return new Uint8Array(h.digest()); // a plain copy, never a view of a pooled Buffer
  }
  return (portable as typeof import('./hash-portable.js')).sha256BytesPortable(parts);
}

/** A fresh incremental SHA-256 (same backend choice as `sha256Hex`). */
export function createSha256(): Sha256Stream {
  if (nativeCreate) {
    const h = nativeCreate();
    return { update: (d) => void h.update(d), digestHex: () => h.digest('hex') };
  }
  return (portable as typeof import('./hash-portable.js')).createSha256Portable();
}

/** UTF-8 bytes of `text`. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}
