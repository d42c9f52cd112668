/**
 * Reading the ZIP form of a package (spec/archive.md §2–§6): structure scan, name and type
 * checks, capped streaming inflate, zstd decode and blob hash check. Bytes in, texts and blob
 * bytes out; the manifest and content texts are returned raw so that the package reader
 * verifies them exactly as for a JSON bundle (FORMAT-FACTS §3: integrity is over the content text).
 */
import { CtxpkgError } from '../errors.js';
import { sha256Hex } from '../hash.js';
import { isWellFormedUtf8 } from '../json/utf8.js';
import { resolveLimits, type ArchiveLimits } from './limits.js';
import { classifyEntries, type LayoutEntry } from './names.js';
import type { EntryConsumer } from './read-entries.js';
import { concatBytes } from '../bytes.js';
import { scanZip } from './zip-scan.js';

/**
 * `m` with its keys in ascending code-unit order: `m` itself when they are already (the writer
 * stores blobs sorted, so a package's blobs arrive in order), else a sorted copy.
 */
function sortedByKey<V>(m: Map<string, V>): Map<string, V> {
  let prev: string | undefined;
  for (const k of m.keys()) {
    if (prev !== undefined && !(prev < k)) return new Map([...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    prev = k;
  }
  return m;
}

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

/** What `readArchive` returns. Texts are the entries' UTF-8 decoded bytes, unchanged (decoded on first access). */
export interface ArchiveContents {
  /** `ctxpkg.json`: the manifest JSON text. */
  manifestText: string;
  /** `content.json`: the content JSON text (the integrity hashes cover its compacted form). */
  contentText: string;
  /** The UTF-8 bytes of `manifestText` (the entry's decoded data). */
  manifestBytes: Uint8Array;
  /** The UTF-8 bytes of `contentText` (the entry's decoded data). */
  contentBytes: Uint8Array;
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

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const BLOB_PREFIX = 'sha256-';

/** Define `key` on `target` as an enumerable, memoized getter: the text of `bytes` (well-formed UTF-8, checked). */
function lazyText(target: object, key: string, bytes: Uint8Array): void {
  let text: string | undefined;
  Object.defineProperty(target, key, { enumerable: true, configurable: true, get: () => (text ??= decoder.decode(bytes)) });
}

/**
 * Collects one entry's chunks and hands the whole to `take` at the end (one chunk, the usual
 * case for a deflated or stored entry, is handed over as it is).
 */
class EntryBytes implements EntryConsumer {
  private first: Uint8Array | undefined;
  private more: Uint8Array[] | undefined;
  private size = 0;
  constructor(
    private readonly le: LayoutEntry,
    private readonly take: (le: LayoutEntry, data: Uint8Array) => void,
  ) {}
  chunk(c: Uint8Array): void {
    if (this.first === undefined) this.first = c;
    else (this.more ??= [this.first]).push(c);
    this.size += c.length;
  }
  end(): void {
    const data = this.more ? concatBytes(this.more, this.size) : (this.first ?? new Uint8Array(0));
    this.first = this.more = undefined;
    this.take(this.le, data);
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
  const textBytes = new Map<string, Uint8Array>();
  const blobBytes = new Map<string, Uint8Array>();
  const blobSizes = new Map<string, number>();

  /** The final bytes of one entry: checked, then kept by kind. */
  const take = (le: LayoutEntry, data: Uint8Array): void => {
    if (le.kind === 'blob') {
      const hex = sha256Hex(data);
      // le.key is `sha256-` + 64 hex: compare without building the digest's name.
      if (le.key.length !== BLOB_PREFIX.length + hex.length || !le.key.endsWith(hex)) {
        const digest = `${BLOB_PREFIX}${hex}`;
        throw new CtxpkgError('E_BLOB', `${le.name}: content hash is ${digest}, not the name`, {
          hint: 'a blob entry must be named after the SHA-256 of its (decoded) bytes (spec/archive.md §4)',
          details: { entry: le.name, expected: le.key, found: digest },
        });
      }
      blobSizes.set(le.key, data.length);
      if (keepBlobs) blobBytes.set(le.key, data);
    } else {
      // Checked here, in entry order, as the text is complete; decoded on first access.
      if (!isWellFormedUtf8(data)) {
        throw new CtxpkgError('E_ARCHIVE', `${le.name} is not valid UTF-8`, { hint: 'JSON entries must be UTF-8 (spec/archive.md §2)' });
      }
      textBytes.set(le.kind, data);
    }
  };
  const consumerFor = (le: LayoutEntry): EntryConsumer => new EntryBytes(le, take);
  // The entry reader (yauzl cross-check, inflate backends) loads on first use, so importing the
  // format core stays cheap for callers that never read a ZIP (bench/install).
  const { readLayoutEntries } = await import('./read-entries.js');
  await readLayoutEntries(bytes, scanned.entries, names, layout, limits, consumerFor);

  const manifestBytes = textBytes.get('manifest')!;
  const contentBytes = textBytes.get('content')!;
  const rebuildBytes = textBytes.get('rebuild');
  const result = {
    manifestBytes,
    contentBytes,
    blobs: sortedByKey(blobBytes),
    blobSizes: sortedByKey(blobSizes),
  };
  lazyText(result, 'manifestText', manifestBytes);
  lazyText(result, 'contentText', contentBytes);
  if (rebuildBytes) lazyText(result, 'rebuildText', rebuildBytes);
  return result as ArchiveContents;
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
 * manifest and content JSON texts and their UTF-8 bytes (as stored in the entries) and the blobs
 * (hash-checked) of a ZIP-form package. See `readArchive` for checks, caps (`limits`,
 * spec/archive.md §6) and error codes.
 */
export async function readArchiveParts(
  bytes: Uint8Array,
  limits?: Partial<ArchiveLimits>,
): Promise<{ manifestText: string; contentText: string; manifestBytes: Uint8Array; contentBytes: Uint8Array; blobs: Map<string, Uint8Array> }> {
  // The texts stay getters (decoded on first access): the package reader parses the bytes.
  return readArchive(bytes, { ...(limits ? { limits } : {}), keepBlobs: true });
}
