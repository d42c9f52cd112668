/**
 * Reading the ZIP form of a package (spec/archive.md §2–§6): structure scan, name and type
 * checks, capped streaming inflate, zstd decode and blob hash check. Bytes in, texts and blob
 * bytes out; the manifest and content texts are returned raw so that the package reader
 * verifies them exactly as for a JSON bundle (FORMAT-FACTS §3: integrity is over the content text).
 */
import { CtxpkgError } from '../errors.js';
import { sha256Hex } from '../hash.js';
import { resolveLimits, type ArchiveLimits } from './limits.js';
import { classifyEntries, type LayoutEntry } from './names.js';
import type { EntryConsumer } from './read-entries.js';
import { concatBytes } from '../bytes.js';
import { scanZip } from './zip-scan.js';

/** The four ZIP signatures a package archive may start with: a local header, or (empty) an end record. */
const LOCAL_MAGIC = [0x50, 0x4b, 0x03, 0x04];

/**
 * True when `bytes` start like a ZIP archive (`PK\x03\x04`, a local file header). A JSON bundle
 * starts with `{` (after optional whitespace), so the two forms never collide. Pure, no throw.
 * Source: spec/archive.md §1 "Detection".
 */
export function isZipBytes(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && LOCAL_MAGIC.every((b, i) => bytes[i] === b);
}

/** What `readArchive` returns. Texts are the entries' UTF-8 decoded bytes, unchanged. */
export interface ArchiveContents {
  /** `ctxpkg.json`: the manifest JSON text. */
  manifestText: string;
  /** `content.json`: the content JSON text (the integrity hashes cover its compacted form). */
  contentText: string;
  /** `rebuild.json` when present (informative; not covered by integrity or signature). */
  rebuildText?: string;
  /**
   * Blob bytes by blob_ref (`sha256-<hex>`), sorted by key; empty when `keepBlobs` is false.
   * Stored (uncompressed) blobs are views into the input bytes: copy them to outlive its mutation.
   */
  blobs: Map<string, Uint8Array>;
  /** Every blob: key → decoded size in bytes, sorted by key. Hashes already verified. */
  blobSizes: Map<string, number>;
}

export interface ReadArchiveOptions {
  limits?: Partial<ArchiveLimits>;
  /**
   * Keep blob bytes in the result (default true). With false, each blob is hashed and dropped,
   * so memory beyond the input stays bounded by one entry (`maxEntryBytes`) plus the texts.
   */
  keepBlobs?: boolean;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decodeText(bytes: Uint8Array, name: string): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new CtxpkgError('E_ARCHIVE', `${name} is not valid UTF-8`, { hint: 'JSON entries must be UTF-8 (spec/archive.md §2)' });
  }
}

/**
 * Read and check a ZIP-form package. Every check of spec/archive.md §5 runs; caps of §6 apply
 * (`limits` overrides the defaults). Each blob's SHA-256 must equal its name (`E_BLOB`); whether
 * the graph references exactly these blobs is `verifyBlobs`' job (it needs the parsed content).
 *
 * Throws (rejects) `E_ARCHIVE`, `E_ARCHIVE_UNSAFE_PATH`, `E_ARCHIVE_ENTRY_TYPE`,
 * `E_ARCHIVE_DUPLICATE_ENTRY`, `E_ARCHIVE_SIZE_MISMATCH`, `E_TOO_LARGE`, `E_BLOB`, `E_USAGE` (bad limits).
 */
export async function readArchive(bytes: Uint8Array, options: ReadArchiveOptions = {}): Promise<ArchiveContents> {
  const limits = resolveLimits(options.limits);
  const keepBlobs = options.keepBlobs ?? true;
  const scanned = scanZip(bytes, limits);
  const { layout, names } = classifyEntries(scanned.entries);
  const texts = new Map<string, string>();
  const blobBytes = new Map<string, Uint8Array>();
  const blobSizes = new Map<string, number>();

  const consumerFor = (le: LayoutEntry): EntryConsumer => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    return {
      chunk(c) {
        chunks.push(c);
        size += c.length;
      },
      end() {
        const data = concatBytes(chunks, size);
        chunks.length = 0;
        if (le.kind === 'blob') {
          const digest = `sha256-${sha256Hex(data)}`;
          if (digest !== le.key) {
            throw new CtxpkgError('E_BLOB', `${le.name}: content hash is ${digest}, not the name`, {
              hint: 'a blob entry must be named after the SHA-256 of its (decoded) bytes (spec/archive.md §4)',
              details: { entry: le.name, expected: le.key, found: digest },
            });
          }
          blobSizes.set(le.key, size);
          if (keepBlobs) blobBytes.set(le.key, data);
        } else {
          texts.set(le.kind, decodeText(data, le.name));
        }
      },
    };
  };
  // The entry reader (yauzl cross-check, inflate backends) loads on first use, so importing the
  // format core stays cheap for callers that never read a ZIP (bench/install).
  const { readLayoutEntries } = await import('./read-entries.js');
  await readLayoutEntries(bytes, scanned.entries, names, layout, limits, consumerFor);

  const sortMap = <V>(m: Map<string, V>): Map<string, V> =>
    new Map([...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const rebuildText = texts.get('rebuild');
  return {
    manifestText: texts.get('manifest')!,
    contentText: texts.get('content')!,
    ...(rebuildText !== undefined ? { rebuildText } : {}),
    blobs: sortMap(blobBytes),
    blobSizes: sortMap(blobSizes),
  };
}

/**
 * The blob_refs (`sha256-<hex>`, sorted) named by the entries of a ZIP-form package, from the
 * central directory alone: checks 1–6 of spec/archive.md §5 run (structure, names, types,
 * duplicates, layout; caps of §6), but no entry data is read, so blob hashes are **not** checked.
 * For bytes verified before — a store artifact re-hashed against its lockfile entry — this tells
 * which blobs belong to it without inflating anything. Not a ZIP (`isZipBytes` false) → `[]`.
 * Throws the archive codes of §5 steps 1–6 (`E_ARCHIVE*`, `E_TOO_LARGE`).
 */
export function listArchiveBlobRefs(bytes: Uint8Array, limits?: Partial<ArchiveLimits>): string[] {
  if (!isZipBytes(bytes)) return [];
  const scanned = scanZip(bytes, resolveLimits(limits));
  const { layout } = classifyEntries(scanned.entries);
  return layout
    .filter((le) => le.kind === 'blob')
    .map((le) => le.key)
    .sort();
}

/**
 * The archive layer's contract with the package reader (`readPackage`/`verifyPackage`): the raw
 * manifest JSON text, the raw content JSON text and the blobs (hash-checked) of a ZIP-form
 * package. See `readArchive` for checks, caps (`limits`, spec/archive.md §6) and error codes.
 */
export async function readArchiveParts(
  bytes: Uint8Array,
  limits?: Partial<ArchiveLimits>,
): Promise<{ manifestText: string; contentText: string; blobs: Map<string, Uint8Array> }> {
  const r = await readArchive(bytes, { ...(limits ? { limits } : {}), keepBlobs: true });
  return { manifestText: r.manifestText, contentText: r.contentText, blobs: r.blobs };
}
