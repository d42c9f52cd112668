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
type NativeHasher = { update(d: Uint8Array): unknown; digest(enc: 'hex'): string; digest(): Uint8Array };

/** An incremental SHA-256: `update` with bytes, then `digestHex` once. */
export interface Sha256Stream {
  update(data: Uint8Array): void;
  /** Lowercase hex; the stream cannot be used afterwards. */
  digestHex(): string;
}

let nativeCreate: (() => NativeHasher) | undefined;

function probeNative(): NativeDigest | undefined {
  try {
    const crypto = nodeBuiltin<{
      createHash: (alg: string) => { update(d: Uint8Array | string, enc?: string): { digest(enc: string): string } };
      hash: (alg: string, data: Uint8Array | string, enc: 'hex') => string;
    }>('node:crypto');
    const createHash = crypto?.createHash;
    if (typeof createHash !== 'function') return undefined;
    nativeCreate = () => createHash('sha256') as unknown as NativeHasher;
    // One-shot `crypto.hash` (Node ≥ 20.12): no Hash object per call, strings hashed as UTF-8 —
    // the same digest, several times cheaper for the many short texts of a pack receipt.
    const oneShot = crypto?.hash;
    if (typeof oneShot === 'function') return (data) => oneShot.call(crypto, 'sha256', data, 'hex');
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
