/**
 * Step 1 of reading a package: decode the container into its parts — the manifest JSON text,
 * the content JSON text, their strict parses and (ZIP form) the blobs. Step 2
 * (`package-verify.ts`) verifies the parts identically for both forms, so converting JSON ↔ ZIP
 * keeps integrity and signature valid (spec/format.md §1, spec/archive.md).
 */
import { isZipBytes, readArchiveParts } from './archive/index.js';
import { BUNDLE_BLOBS_MEMBER, decodeBundleBlobs } from './archive/bundle-blobs.js';
import type { ArchiveLimits } from './archive/limits.js';
import { CtxpkgError } from './errors.js';
import { fastParseDocument } from './json/fast.js';
import { fastParseBytes } from './json/fast-bytes.js';
import { parseJsonDocument, parseStrictJson, RawNumber, type JsonValue } from './json/parse.js';
import { decodeUtf8Strict } from './json/utf8.js';
import { utf8ByteLength } from './json/text.js';
import { integerKeysOf } from './schema/decode.js';
import { PACKAGE_CONTENT } from './schema/content-tables.js';
import { MANIFEST } from './schema/manifest-tables.js';

/** Keys holding integers anywhere in a package: the fast parser must see integer literals there. */
const INTEGER_KEYS = integerKeysOf([MANIFEST, PACKAGE_CONTENT]);

const UTF8 = new TextDecoder();

/** The package file limit: 10 MiB (10,485,760 bytes), checked before parsing (FORMAT-FACTS §1.1). */
export const MAX_PACKAGE_BYTES = 10 * 1024 * 1024;

/** The decoded parts of a package, independent of its container form. */
export interface PackageParts {
  form: 'json' | 'zip';
  /** The manifest value's text, as stored or (JSON bundle read by the byte fast path) compacted. */
  manifestText: string;
  /** The content value's text, as stored or already compacted (`contentCompacted`); integrity covers its compacted form. */
  contentText: string;
  /** Strict parse of the manifest (numbers as `RawNumber`, or plain when `plainNumbers`). */
  manifestRaw: JsonValue;
  /** Strict parse of the content (numbers as `RawNumber`, or plain when `plainNumbers`). */
  contentRaw: JsonValue;
  /** True when the parts came from the fast parser (plain numbers, integer literals guaranteed). */
  plainNumbers: boolean;
  /** The UTF-8 bytes of `contentText`, when already at hand (a view into the file or its compacted copy). */
  contentBytes?: Uint8Array;
  /** True when `contentBytes` are already compacted (`compactJsonBytes`): the integrity hashes them as they are. */
  contentCompacted?: boolean;
  /** Blob bytes by blob_ref (`sha256-<hex>`), hash-checked: the ZIP form's, or a JSON bundle's `blobs` member. */
  blobs?: Map<string, Uint8Array>;
}

export interface ContainerOptions {
  /** Size cap in bytes (default `MAX_PACKAGE_BYTES`). */
  maxBytes?: number;
  /** Caps for the ZIP form (spec/archive.md §6). */
  archiveLimits?: Partial<ArchiveLimits>;
}

function isObject(v: JsonValue | undefined): v is { [k: string]: JsonValue } {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof RawNumber);
}

function structure(message: string, hint?: string): CtxpkgError {
  return new CtxpkgError('E_STRUCTURE', message, hint ? { hint } : {});
}

/**
 * The JSON bundle: one UTF-8 JSON object with the members `manifest` and `content` (objects)
 * and, optionally, `blobs` (spec/archive.md §4.4, decoded under the archive caps `limits`;
 * `parts.blobs` is set only when the member is present). Strict parse rules: `json/parse.ts`.
 */
export function decodeJsonBundle(bytes: Uint8Array, limits?: Partial<ArchiveLimits>): PackageParts {
  // The byte fast path (json/fast-bytes.ts) validates and compacts in one pass and parses the
  // compacted text; anything it does not take goes to the text path below, which decodes
  // strictly and gives the precise error.
  const fb = fastParseBytes(bytes, INTEGER_KEYS);
  if (!fb) return decodeJsonBundleText(bytes, limits);
  checkBundleRoot(fb.value);
  const span = (k: string) => fb.compactSpans.get(k);
  const bytesOf = (sp: { start: number; end: number }) => fb.compact.subarray(sp.start, sp.end);
  const mIn = fb.inputSpans.get('manifest')!;
  const cIn = fb.inputSpans.get('content')!;
  const bSpan = span(BUNDLE_BLOBS_MEMBER);
  return bundleParts(fb.value, {
    manifestBytes: bytesOf(span('manifest')!),
    contentBytes: bytesOf(span('content')!),
    // The blob limits count the member texts as stored (spec/archive.md §6), not compacted.
    storedTextBytes: mIn.end - mIn.start + (cIn.end - cIn.start),
    blobsText: bSpan ? UTF8.decode(bytesOf(bSpan)) : undefined,
    plainNumbers: true,
    contentCompacted: true,
  }, limits);
}

/**
 * The parts of a checked bundle root: the member texts as UTF-8 views, the blobs decoded under
 * `limits` (`storedTextBytes`: the manifest and content texts' size as stored; `blobsText`: the
 * blobs member's text), the content text decoded on first access.
 */
function bundleParts(
  root: { [k: string]: JsonValue; manifest: { [k: string]: JsonValue }; content: { [k: string]: JsonValue } },
  t: { manifestBytes: Uint8Array; contentBytes: Uint8Array; storedTextBytes: number; blobsText: string | undefined; plainNumbers: boolean; contentCompacted: boolean },
  limits: Partial<ArchiveLimits> | undefined,
): PackageParts {
  const blobs = root[BUNDLE_BLOBS_MEMBER] !== undefined ? decodeBundleBlobs(root[BUNDLE_BLOBS_MEMBER], t.storedTextBytes, limits, t.blobsText) : undefined;
  const contentBytes = t.contentBytes;
  const parts = {
    form: 'json' as const,
    manifestText: UTF8.decode(t.manifestBytes),
    manifestRaw: root.manifest,
    contentRaw: root.content,
    plainNumbers: t.plainNumbers,
    contentBytes,
    ...(t.contentCompacted ? { contentCompacted: true } : {}),
    ...(blobs ? { blobs } : {}),
  };
  let contentText: string | undefined;
  Object.defineProperty(parts, 'contentText', { enumerable: true, get: () => (contentText ??= UTF8.decode(contentBytes)) });
  return parts as PackageParts;
}

/** The root checks of a JSON bundle (members `manifest`, `content`, optionally `blobs`). */
function checkBundleRoot(root: JsonValue): asserts root is { [k: string]: JsonValue; manifest: { [k: string]: JsonValue }; content: { [k: string]: JsonValue } } {
  if (!isObject(root)) throw structure('a .ctxpkg JSON bundle must be an object {"manifest": …, "content": …}');
  for (const k of Object.keys(root)) {
    if (k !== 'manifest' && k !== 'content' && k !== BUNDLE_BLOBS_MEMBER) {
      throw structure(`unexpected top-level member ${JSON.stringify(k)} (a bundle has "manifest", "content" and optionally "blobs")`);
    }
  }
  if (!isObject(root.manifest)) throw structure('the bundle has no "manifest" object');
  if (!isObject(root.content)) throw structure('the bundle has no "content" object');
}

/** `decodeJsonBundle` through the decoded text: strict UTF-8, then the text fast path or the strict parser. */
function decodeJsonBundleText(bytes: Uint8Array, limits?: Partial<ArchiveLimits>): PackageParts {
  const text = decodeUtf8Strict(bytes);
  const fast = fastParseDocument(text, INTEGER_KEYS, { fromUtf8: true });
  const doc = fast ?? parseJsonDocument(text, { rawNumbers: true });
  const root = doc.value;
  checkBundleRoot(root);
  const m = doc.memberSpans.get('manifest')!;
  const c = doc.memberSpans.get('content')!;
  // Byte offsets of the content value: count UTF-8 bytes of the text around it (the manifest
  // usually comes first and is small).
  // Texts are decoded from the bytes (not sliced from `text`, which would keep the whole
  // decoded document alive); the content text only on demand.
  const cStart = utf8ByteLength(text, 0, c.start);
  const cEnd = bytes.length - utf8ByteLength(text, c.end, text.length);
  const mStart = utf8ByteLength(text, 0, m.start);
  const mEnd = mStart + utf8ByteLength(text, m.start, m.end);
  const bSpan = doc.memberSpans.get(BUNDLE_BLOBS_MEMBER);
  return bundleParts(root, {
    manifestBytes: bytes.subarray(mStart, mEnd),
    contentBytes: bytes.subarray(cStart, cEnd),
    storedTextBytes: mEnd - mStart + (cEnd - cStart),
    blobsText: bSpan ? text.slice(bSpan.start, bSpan.end) : undefined,
    plainNumbers: fast !== undefined,
    contentCompacted: false,
  }, limits);
}

/**
 * Decode either form. Throws `E_TOO_LARGE` (before any parsing), `E_INVALID_JSON`,
 * `E_DUPLICATE_KEY`, `E_FORBIDDEN_KEY`, `E_JSON_DEPTH`, `E_STRUCTURE`, and for the ZIP form
 * every archive code of spec/archive.md.
 */
export async function decodePackageParts(bytes: Uint8Array, opts: ContainerOptions = {}): Promise<PackageParts> {
  const max = opts.maxBytes ?? MAX_PACKAGE_BYTES;
  if (bytes.length > max) {
    throw new CtxpkgError('E_TOO_LARGE', `the package is ${bytes.length} bytes, above the limit of ${max} bytes`, {
      details: { size: bytes.length, limit: max },
    });
  }
  if (!isZipBytes(bytes)) return decodeJsonBundle(bytes, opts.archiveLimits);
  const parts = await readArchiveParts(bytes, opts.archiveLimits);
  // The byte fast path (json/fast-bytes.ts) on both entries: it accepts only what the strict
  // parser accepts, with the same values, and hands over the compacted content that the
  // integrity covers. When it declines either entry, both take the strict parser, which gives
  // the precise error (one `plainNumbers` for both parts).
  const fm = fastParseBytes(parts.manifestBytes, INTEGER_KEYS);
  const fc = fm ? fastParseBytes(parts.contentBytes, INTEGER_KEYS) : undefined;
  const manifestRaw = fm && fc ? fm.value : parseStrictJson(parts.manifestText, { rawNumbers: true });
  const contentRaw = fm && fc ? fc.value : parseStrictJson(parts.contentText, { rawNumbers: true });
  if (!isObject(manifestRaw)) throw structure('the archive manifest must be a JSON object');
  if (!isObject(contentRaw)) throw structure('the archive content must be a JSON object');
  const common = { form: 'zip' as const, manifestRaw, contentRaw, blobs: parts.blobs };
  const out: Omit<PackageParts, 'manifestText' | 'contentText'> =
    fm && fc ? { ...common, plainNumbers: true, contentBytes: fc.compact, contentCompacted: true } : { ...common, plainNumbers: false, contentBytes: parts.contentBytes };
  // The texts as the archive's getters: decoded only if asked for.
  Object.defineProperty(out, 'manifestText', { enumerable: true, get: () => parts.manifestText });
  Object.defineProperty(out, 'contentText', { enumerable: true, get: () => parts.contentText });
  return out as PackageParts;
}
