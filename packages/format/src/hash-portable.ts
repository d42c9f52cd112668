/**
 * The portable SHA-256 backend of hash.ts: `@noble/hashes` (pure JS), for runtimes that do not
 * hand out `node:crypto` synchronously (browsers, Deno, Node < 20.16). hash.ts imports this
 * module only there, so a Node process never loads `@noble/hashes` for hashing (issue 16 item 3:
 * ~5 ms of every `ctxpkg render`/`sync` start-up); tests and the format index import it directly.
 */
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from './hex.js';

const encoder = new TextEncoder();

/** Portable SHA-256 (lowercase hex, 64 characters) via @noble/hashes; strings are hashed as UTF-8. */
export function sha256HexPortable(data: Uint8Array | string): string {
  return bytesToHex(nobleSha256(typeof data === 'string' ? encoder.encode(data) : data));
}

/** Portable SHA-256 (32 bytes) of the concatenation of `parts`, without copying them. */
export function sha256BytesPortable(parts: readonly Uint8Array[]): Uint8Array {
  const h = nobleSha256.create();
  for (const p of parts) h.update(p);
  return h.digest();
}

/** A portable incremental SHA-256: `update` with bytes, then `digestHex` once (lowercase hex). */
export function createSha256Portable(): { update(data: Uint8Array): void; digestHex(): string } {
  const h = nobleSha256.create();
  return { update: (d) => void h.update(d), digestHex: () => bytesToHex(h.digest()) };
}
