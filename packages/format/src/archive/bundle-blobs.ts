/**
 * Blobs carried by a JSON bundle (spec/archive.md §4.4): the top-level member
 *
 * ```
 * "blobs": { "sha256-<64 lowercase hex>": "<base64 of the blob's bytes>", … }
 * ```
 *
 * next to `manifest` and `content`. The reference ignores unknown top-level members (serde has
 * no `deny_unknown_fields`; its integrity reader takes the first `content` member's text,
 * FORMAT-FACTS §1.1, §3.2), so it still reads and verifies such a bundle; it just does not see
 * the blobs. The member is outside the hashed `content`, exactly like a ZIP blob entry: each
 * blob is bound to the signed content through its name, which must equal the SHA-256 of its
 * decoded bytes and be a node's `blob_ref` (spec/archive.md §4).
 *
 * Encoding: RFC 4648 §4 base64, standard alphabet, `=` padding, no line breaks or whitespace,
 * canonical (the unused low bits of the last character are zero) — one spelling per byte string,
 * so JSON ↔ ZIP conversion is byte-identical both ways. The writer orders blobs by name.
 *
 * Caps (the archive reader's, spec/archive.md §6), all checked on the encoded lengths before
 * anything is decoded: blob count ≤ `maxEntries − 2` (the archive needs its two text entries
 * too), each decoded blob ≤ `maxEntryBytes`, all decoded blobs plus the two texts ≤
 * `maxTotalBytes` (`E_TOO_LARGE`). The bundle file itself is held to 10 MiB before parsing.
 */
import { CtxpkgError, errorFromIssues, type Issue } from '../errors.js';
import { sha256Hex } from '../hash.js';
import { RawNumber, type JsonValue } from '../json/parse.js';
import { resolveLimits, type ArchiveLimits } from './limits.js';
import { BLOB_REF_RE } from './names.js';

/** The top-level member of a JSON bundle that carries blobs. */
export const BUNDLE_BLOBS_MEMBER = 'blobs';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;
const B64_RE = /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Base64 (standard alphabet, padded, no line breaks) of `bytes`. */
export function encodeBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  let chunk = '';
  const n = bytes.length;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    chunk += ALPHABET[v >> 18]! + ALPHABET[(v >> 12) & 63]! + ALPHABET[(v >> 6) & 63]! + ALPHABET[v & 63]!;
    if (chunk.length >= 1 << 16) {
      parts.push(chunk);
      chunk = '';
    }
  }
  if (i < n) {
    const v = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8);
    chunk += ALPHABET[v >> 18]! + ALPHABET[(v >> 12) & 63]! + (i + 1 < n ? ALPHABET[(v >> 6) & 63]! : '=') + '=';
  }
  parts.push(chunk);
  return parts.join('');
}

/** Decoded length in bytes of canonical-shaped base64 `s` (length a multiple of 4). */
function decodedLength(s: string): number {
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  return (s.length / 4) * 3 - pad;
}

/**
 * Decode strict canonical base64 (see module comment). Throws `E_BLOB` naming `what` for any
 * other spelling (whitespace, URL alphabet, missing padding, non-zero trailing bits).
 */
export function decodeBase64Strict(s: string, what: string): Uint8Array {
  if (s.length % 4 !== 0 || !B64_RE.test(s)) {
    throw new CtxpkgError('E_BLOB', `${what} is not canonical base64 (standard alphabet, "=" padding, no whitespace)`);
  }
  const out = new Uint8Array(decodedLength(s));
  let o = 0;
  for (let i = 0; i < s.length; i += 4) {
    const a = LOOKUP[s.charCodeAt(i)]!;
    const b = LOOKUP[s.charCodeAt(i + 1)]!;
    const c = s[i + 2] === '=' ? -1 : LOOKUP[s.charCodeAt(i + 2)]!;
    const d = s[i + 3] === '=' ? -1 : LOOKUP[s.charCodeAt(i + 3)]!;
    out[o++] = (a << 2) | (b >> 4);
    if (c < 0) {
      if (b & 15) throw new CtxpkgError('E_BLOB', `${what} is not canonical base64 (non-zero bits before the padding)`);
      break;
    }
    out[o++] = ((b & 15) << 4) | (c >> 2);
    if (d < 0) {
      if (c & 3) throw new CtxpkgError('E_BLOB', `${what} is not canonical base64 (non-zero bits before the padding)`);
      break;
    }
    out[o++] = ((c & 3) << 6) | d;
  }
  return out;
}

function tooLarge(message: string, details: Record<string, unknown>): CtxpkgError {
  return new CtxpkgError('E_TOO_LARGE', message, {
    hint: 'the caps of the ZIP form apply to blobs in a JSON bundle too (spec/archive.md §6)',
    details,
  });
}

/**
 * Decode and check the `blobs` member of a JSON bundle: an object mapping blob names to base64
 * strings. `textBytes` is the UTF-8 size of the manifest and content texts (they count toward
 * `maxTotalBytes`, as in an archive). Returns blob bytes by name, sorted by name.
 *
 * Throws `E_STRUCTURE` (not an object, a value not a string), `E_TOO_LARGE` (caps, before any
 * decoding), `E_BLOB` (a name not `sha256-<64 lowercase hex>`, non-canonical base64, bytes that
 * do not hash to the name — every naming and hash problem listed in `details.issues`).
 * With `rawText` (the member's JSON text as written), any backslash escape is `E_BLOB`: names and
 * base64 never need one, so each blob has exactly one spelling and JSON → ZIP → JSON is
 * byte-identical (spec/archive.md §4.4).
 * Whether the graph references exactly these blobs is `checkBlobRefs`' job.
 */
export function decodeBundleBlobs(value: JsonValue, textBytes: number, limits?: Partial<ArchiveLimits>, rawText?: string): Map<string, Uint8Array> {
  if (rawText !== undefined && rawText.includes('\\')) {
    throw new CtxpkgError('E_BLOB', 'the bundle member "blobs" uses a JSON escape; blob names and base64 are written without escapes', {
      hint: 'rewrite the bundle with `ctxpkg convert` (spec/archive.md §4.4)',
    });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof RawNumber) {
    throw new CtxpkgError('E_STRUCTURE', 'the bundle member "blobs" must be an object {"sha256-<hex>": "<base64>"}');
  }
  const lim = resolveLimits(limits);
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length > lim.maxEntries - 2) {
    throw tooLarge(`the bundle carries ${entries.length} blobs, above the limit of ${lim.maxEntries - 2}`, { count: entries.length, limit: lim.maxEntries - 2 });
  }
  const issues: Issue[] = [];
  let total = textBytes;
  for (const [name, b64] of entries) {
    if (typeof b64 !== 'string') throw new CtxpkgError('E_STRUCTURE', `blobs.${name} must be a base64 string`);
    if (!BLOB_REF_RE.test(name)) issues.push({ path: `blobs.${name}`, code: 'E_BLOB', message: `blob name ${JSON.stringify(name)} is not sha256-<64 lowercase hex>` });
    const size = b64.length % 4 === 0 ? decodedLength(b64) : Math.floor((b64.length * 3) / 4);
    if (size > lim.maxEntryBytes) {
      throw tooLarge(`blob ${name} is ${size} bytes, above the per-blob limit of ${lim.maxEntryBytes}`, { blob: name, size, limit: lim.maxEntryBytes });
    }
    total += size;
  }
  if (total > lim.maxTotalBytes) {
    throw tooLarge(`the bundle's blobs and texts are ${total} bytes, above the total limit of ${lim.maxTotalBytes}`, { size: total, limit: lim.maxTotalBytes });
  }
  if (issues.length) throw errorFromIssues(issues);
  const out = new Map<string, Uint8Array>();
  for (const [name, b64] of entries) {
    let bytes: Uint8Array;
    try {
      bytes = decodeBase64Strict(b64 as string, `blobs.${name}`);
    } catch (e) {
      issues.push({ path: `blobs.${name}`, code: 'E_BLOB', message: (e as Error).message });
      continue;
    }
    const digest = `sha256-${sha256Hex(bytes)}`;
    if (digest !== name) {
      issues.push({ path: `blobs.${name}`, code: 'E_BLOB', message: `blob ${name} hashes to ${digest}`, details: { expected: name, found: digest } });
      continue;
    }
    out.set(name, bytes);
  }
  if (issues.length) throw errorFromIssues(issues);
  return out;
}

/**
 * The `blobs` member's value as pretty JSON text at one level of indentation (the layout of
 * `archiveToJsonBundle`): `{`, one `"name": "base64"` line per blob sorted by name, `}`.
 * Names must be blob_refs (the caller has verified the blobs).
 */
export function bundleBlobsText(blobs: ReadonlyMap<string, Uint8Array>): string {
  const names = [...blobs.keys()].sort();
  return `{\n${names.map((n) => `    "${n}": "${encodeBase64(blobs.get(n)!)}"`).join(',\n')}\n  }`;
}

/** Bytes `bundleBlobsText(blobs)` takes (ASCII), computed from the sizes alone (no encoding). */
export function bundleBlobsTextBytes(sizes: Iterable<[string, number]>): number {
  let total = 6; // "{\n" and "\n  }"
  let count = 0;
  for (const [name, size] of sizes) {
    total += 10 + name.length + 4 * Math.ceil(size / 3); // 4 spaces, "name": "base64"
    count++;
  }
  return total + 2 * Math.max(0, count - 1); // ",\n" between lines
}
