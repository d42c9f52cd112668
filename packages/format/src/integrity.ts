/**
 * Package integrity (FORMAT-FACTS §0.2–0.3, §3): what the writer stores in `manifest.integrity`
 * and what the reader recomputes from the writer's own content text.
 *
 * - `content_hash` = lowercase hex SHA-256 of the UTF-8 bytes of the compacted content text;
 * - `byte_size`    = the UTF-8 byte length of that compacted text;
 * - `sha256`       = lowercase hex SHA-256 of `"{name}:{version}:{content_hash}"`.
 * Comparison is exact string equality: uppercase hex in a manifest is a mismatch.
 */
import { createSha256, sha256Hex, utf8 } from './hash.js';
import { compactJsonBytesNative, streamCompactJsonBytes } from './json/text.js';

/** The three integrity values of a package. */
export interface Integrity {
  /** 64 lowercase hex characters. */
  sha256: string;
  /** 64 lowercase hex characters. */
  content_hash: string;
  /** UTF-8 bytes of the compacted content text (u64, > 0). */
  byte_size: number;
}

/** `integrity.sha256` = hex(SHA-256("{name}:{version}:{contentHash}")). */
export function packageSha256(name: string, version: string, contentHash: string): string {
  return sha256Hex(`${name}:${version}:${contentHash}`);
}

/**
 * Integrity of a package whose compacted content text (see `compactJsonText`) is
 * `compactContentText` (a string, or its UTF-8 bytes). Pure; throws nothing.
 */
export function computeIntegrity(name: string, version: string, compactContentText: string | Uint8Array): Integrity {
  const bytes = typeof compactContentText === 'string' ? utf8(compactContentText) : compactContentText;
  const content_hash = sha256Hex(bytes);
  return { sha256: packageSha256(name, version, content_hash), content_hash, byte_size: bytes.length };
}

/**
 * Integrity of a package from the UTF-8 bytes of its content value exactly as stored (any
 * whitespace): compacts (`compactJsonBytes` rule) while hashing, without building the
 * compacted text. Same result as `computeIntegrity(name, version, compactJsonText(text))`.
 */
export function computeIntegrityOfContentBytes(name: string, version: string, contentBytes: Uint8Array): Integrity {
  if (contentBytes.length <= NATIVE_COMPACT_MAX_BYTES) {
    // Small texts (the usual package): compact with the native regular-expression engine — the
    // byte loop below would mostly run unoptimized in a short-lived process.
    const compact = compactJsonBytesNative(contentBytes);
    if (compact) return computeIntegrity(name, version, compact);
  }
  const h = createSha256();
  const byte_size = streamCompactJsonBytes(contentBytes, (chunk) => h.update(chunk));
  const content_hash = h.digestHex();
  return { sha256: packageSha256(name, version, content_hash), content_hash, byte_size };
}

/**
 * `computeIntegrity` of a compacted content text given as UTF-8 pieces in order (e.g. a
 * serializer's output chunks), hashed one piece after another without joining them.
 */
export function computeIntegrityOfPieces(name: string, version: string, pieces: readonly Uint8Array[]): Integrity {
  const h = createSha256();
  let byte_size = 0;
  for (const p of pieces) {
    h.update(p);
    byte_size += p.length;
  }
  const content_hash = h.digestHex();
  return { sha256: packageSha256(name, version, content_hash), content_hash, byte_size };
}

/** Up to this many content bytes, `computeIntegrityOfContentBytes` compacts natively (256 KiB). */
const NATIVE_COMPACT_MAX_BYTES = 256 * 1024;

/** One integrity field that does not match: `expected` is the manifest's value, `found` the recomputed one. */
export interface IntegrityMismatch {
  field: 'content_hash' | 'sha256' | 'byte_size';
  expected: string | number | undefined;
  found: string | number;
}

/**
 * Compare a manifest's claimed integrity with the recomputed one, in the reference's order
 * (content_hash, sha256, byte_size), reporting every mismatch. `sha256` is recomputed from the
 * recomputed content hash, as the reference does (FORMAT-FACTS §3.2 step 3).
 */
export function compareIntegrity(claimed: Partial<Record<keyof Integrity, unknown>>, computed: Integrity): IntegrityMismatch[] {
  const out: IntegrityMismatch[] = [];
  const as = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? v : undefined);
  if (claimed.content_hash !== computed.content_hash) out.push({ field: 'content_hash', expected: as(claimed.content_hash), found: computed.content_hash });
  if (claimed.sha256 !== computed.sha256) out.push({ field: 'sha256', expected: as(claimed.sha256), found: computed.sha256 });
  if (claimed.byte_size !== computed.byte_size) out.push({ field: 'byte_size', expected: as(claimed.byte_size), found: computed.byte_size });
  return out;
}
