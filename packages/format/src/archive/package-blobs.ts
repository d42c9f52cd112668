/**
 * The blobs of a package in either form (spec/archive.md §4.3, §4.4), for shells that keep
 * blobs in content-addressed stores next to the original artifact bytes: the ZIP form's
 * `blobs/` entries or the JSON bundle's top-level `blobs` member.
 */
import { CtxpkgError } from '../errors.js';
import { parseStrictJson } from '../json/parse.js';
import { extractTopLevelMemberText } from '../json/text.js';
import { decodeUtf8Strict } from '../json/utf8.js';
import { BUNDLE_BLOBS_MEMBER, decodeBundleBlobs } from './bundle-blobs.js';
import type { ArchiveLimits } from './limits.js';
import { BLOB_REF_RE } from './names.js';
import { isZipBytes, listArchiveBlobRefs, readArchive } from './reader.js';

const MEMBER_KEY = new TextEncoder().encode(`"${BUNDLE_BLOBS_MEMBER}"`);
const ESCAPE_U = new TextEncoder().encode('\\u');

/** True when `needle` occurs in `bytes`. */
function contains(bytes: Uint8Array, needle: Uint8Array): boolean {
  const first = needle[0]!;
  outer: for (let i = bytes.indexOf(first); i >= 0 && i + needle.length <= bytes.length; i = bytes.indexOf(first, i + 1)) {
    for (let k = 1; k < needle.length; k++) if (bytes[i + k] !== needle[k]) continue outer;
    return true;
  }
  return false;
}

/**
 * A cheap pre-check: false only when `bytes` cannot hold a member that decodes to `blobs`. The
 * strict reader (`readPackage`) decodes keys, so `"\u0062lobs"` is that member too; any such
 * spelling contains a `\u` escape, so both byte sequences are looked for (H7).
 */
function mayHaveBlobsMember(bytes: Uint8Array): boolean {
  return contains(bytes, MEMBER_KEY) || contains(bytes, ESCAPE_U);
}

/** The `blobs` member's text of a JSON bundle, or undefined when it has none. */
function bundleBlobsMember(bytes: Uint8Array): { text: string; value: unknown } | undefined {
  if (!mayHaveBlobsMember(bytes)) return undefined;
  const text = extractTopLevelMemberText(decodeUtf8Strict(bytes), BUNDLE_BLOBS_MEMBER);
  if (text === undefined) return undefined;
  return { text, value: parseStrictJson(text) };
}

/**
 * The blob names (`sha256-<hex>`, sorted) a package carries, without decoding or hashing any
 * blob: from the central directory of the ZIP form (`listArchiveBlobRefs`), or from the keys of
 * a JSON bundle's `blobs` member (none when it has no such member). For bytes verified before
 * (a store artifact re-hashed against its lockfile entry). Throws the archive codes of
 * `listArchiveBlobRefs`, JSON parse codes, `E_STRUCTURE`/`E_BLOB` for a malformed member.
 */
export function listPackageBlobRefs(bytes: Uint8Array, limits?: Partial<ArchiveLimits>): string[] {
  if (isZipBytes(bytes)) return listArchiveBlobRefs(bytes, limits);
  const member = bundleBlobsMember(bytes);
  if (!member) return [];
  const v = member.value;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new CtxpkgError('E_STRUCTURE', 'the bundle member "blobs" must be an object {"sha256-<hex>": "<base64>"}');
  }
  const names = Object.keys(v).sort();
  const bad = names.find((n) => !BLOB_REF_RE.test(n));
  if (bad !== undefined) throw new CtxpkgError('E_BLOB', `blob name ${JSON.stringify(bad)} is not sha256-<64 lowercase hex>`);
  return names;
}

/**
 * Every blob a package carries, decoded and hash-checked, by name (sorted): `readArchive` for
 * the ZIP form, `decodeBundleBlobs` for a JSON bundle (empty map without a `blobs` member).
 * Caps of spec/archive.md §6 (`limits`). Throws the codes of those two functions.
 */
export async function readPackageBlobs(bytes: Uint8Array, limits?: Partial<ArchiveLimits>): Promise<Map<string, Uint8Array>> {
  if (isZipBytes(bytes)) return (await readArchive(bytes, { ...(limits ? { limits } : {}), keepBlobs: true })).blobs;
  const member = bundleBlobsMember(bytes);
  if (!member) return new Map();
  // The rest of the file bounds the two texts, which count toward the total cap.
  return decodeBundleBlobs(member.value as never, Math.max(0, bytes.length - member.text.length), limits, member.text);
}
