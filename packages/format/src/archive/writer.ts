/**
 * Writing the ZIP form (spec/archive.md §2 layout, §3 zstd, §7 reproducibility) with yazl.
 *
 * Deterministic: same input → same bytes. Entries are written in a fixed order (`ctxpkg.json`,
 * `content.json`, `rebuild.json`, then blobs sorted by name), every entry has the DOS timestamp
 * 1980-01-01 00:00:00 and no extended-timestamp field, Unix mode 0100644, the UTF-8 name flag
 * and no comments; JSON entries and plain blobs are deflated (level 6, Node's zlib), `.zst`
 * entries are stored. The texts are written byte for byte as given (UTF-8): the writer never
 * re-serializes, so the content hash of `contentText` is what the manifest claims.
 */
import type yazl from 'yazl';
import { CtxpkgError } from '../errors.js';
import { sha256Hex } from '../hash.js';
import { hasLoneSurrogate } from '../json/strings.js';
import { resolveLimits, type ArchiveLimits } from './limits.js';
import { BLOB_DIR, BLOB_REF_RE, CONTENT_ENTRY, MANIFEST_ENTRY, REBUILD_ENTRY, ZSTD_SUFFIX } from './names.js';
import { readArchive } from './reader.js';
import { decompressZstd, encodeZstdFrame } from './zstd.js';

/**
 * A zstd compressor to inject (the format core cannot import `node:zlib`). It must return one
 * zstd frame without dictionary whose window is at most the reader's `maxZstdWindowBytes`
 * (8 MiB by default: zstd levels ≤ 19). On Node ≥ 22.15 the CLI passes
 * `(b) => zlib.zstdCompressSync(b, { params: { [ZSTD_c_checksumFlag]: 1 } })`.
 */
export type ZstdCompressor = (bytes: Uint8Array) => Uint8Array | Promise<Uint8Array>;

/** What goes into an archive. */
export interface ArchiveInput {
  /** The manifest JSON text (`ctxpkg.json`). */
  manifestText: string;
  /** The content JSON text (`content.json`): the integrity hashes cover its compacted form. */
  contentText: string;
  /** Blob bytes by blob_ref `sha256-<64 hex>`. */
  blobs?: ReadonlyMap<string, Uint8Array>;
  /** Optional `rebuild.json` text (informative, unsigned). */
  rebuildText?: string;
}

export interface WriteArchiveOptions {
  /** Which entries become `.zst` frames: none (default), the blobs, or every entry. */
  zstd?: 'none' | 'blobs' | 'all';
  /** Compressor for `.zst` entries; default `encodeZstdFrame` (raw/RLE blocks, valid zstd). */
  zstdCompressor?: ZstdCompressor;
  /** The reader limits the archive must satisfy (default `DEFAULT_ARCHIVE_LIMITS`). */
  limits?: Partial<ArchiveLimits>;
}

/** 1980-01-01 00:00:00 local time: yazl converts with local-time getters, so the DOS fields are zero-based in every time zone. */
const FIXED_MTIME = new Date(1980, 0, 1, 0, 0, 0);
const FILE_MODE = 0o100644;
const encoder = new TextEncoder();

function textBytes(text: string, what: string): Uint8Array {
  if (typeof text !== 'string') throw new CtxpkgError('E_USAGE', `${what} must be a string`);
  if (hasLoneSurrogate(text)) {
    throw new CtxpkgError('E_INVALID_JSON', `${what} contains a lone UTF-16 surrogate, which UTF-8 cannot carry`);
  }
  return encoder.encode(text);
}

function toBuffer(b: Uint8Array): Buffer {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/**
 * Build the ZIP bytes of a package. Validates first: blob keys are `sha256-<64 hex>` and match
 * their bytes (`E_BLOB`); texts are well-formed (`E_INVALID_JSON`); entry count and sizes fit the
 * limits (`E_TOO_LARGE`); an injected compressor's frame decodes back to its input (`E_ARCHIVE`).
 * Finally the result is read back with `readArchive` under the same limits, so the writer never
 * returns an archive a reader refuses (e.g. `E_TOO_LARGE` for an entry above `maxRatio`).
 */
export async function writeArchive(input: ArchiveInput, options: WriteArchiveOptions = {}): Promise<Uint8Array> {
  const limits = resolveLimits(options.limits);
  const mode = options.zstd ?? 'none';
  const files: Array<{ name: string; data: Uint8Array; zstd: boolean }> = [];
  const fixed: Array<[string, string | undefined]> = [
    [MANIFEST_ENTRY, input.manifestText],
    [CONTENT_ENTRY, input.contentText],
    [REBUILD_ENTRY, input.rebuildText],
  ];
  for (const [name, text] of fixed) {
    if (text === undefined && name === REBUILD_ENTRY) continue;
    files.push({ name, data: textBytes(text as string, name), zstd: mode === 'all' });
  }
  const blobs = [...(input.blobs ?? new Map<string, Uint8Array>()).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [key, data] of blobs) {
    if (!BLOB_REF_RE.test(key)) {
      throw new CtxpkgError('E_BLOB', `blob key ${JSON.stringify(key)} is not sha256-<64 lowercase hex>`);
    }
    const digest = `sha256-${sha256Hex(data)}`;
    if (digest !== key) {
      throw new CtxpkgError('E_BLOB', `blob ${key} has SHA-256 ${digest}`, { details: { expected: key, found: digest } });
    }
    files.push({ name: BLOB_DIR + key, data, zstd: mode !== 'none' });
  }
  if (files.length > limits.maxEntries) {
    throw new CtxpkgError('E_TOO_LARGE', `${files.length} entries exceed the limit of ${limits.maxEntries}`);
  }
  let total = 0;
  for (const f of files) {
    total += f.data.length;
    if (f.data.length > limits.maxEntryBytes || total > limits.maxTotalBytes) {
      throw new CtxpkgError('E_TOO_LARGE', `${f.name}: the package exceeds the archive size limits`, {
        hint: 'raise the limits for large packages (spec/archive.md §6)',
        details: { entry: f.name, size: f.data.length, maxEntryBytes: limits.maxEntryBytes, maxTotalBytes: limits.maxTotalBytes },
      });
    }
  }

  const stored: Array<{ name: string; data: Uint8Array; compress: boolean }> = [];
  for (const f of files) {
    if (!f.zstd) {
      stored.push({ name: f.name, data: f.data, compress: true });
      continue;
    }
    const frame = options.zstdCompressor ? await options.zstdCompressor(f.data) : encodeZstdFrame(f.data);
    if (options.zstdCompressor) checkInjectedFrame(frame, f.data, limits, f.name);
    stored.push({ name: f.name + ZSTD_SUFFIX, data: frame, compress: false });
  }

  // yazl loads on first use (importing the format core stays cheap; bench/install).
  const { default: yazlLib } = await import('yazl');
  const zip = new yazlLib.ZipFile();
  for (const s of stored) {
    // `forceDosTimestamp` (yazl ≥ 2.5) is missing from @types/yazl.
    const entryOptions = { mtime: FIXED_MTIME, mode: FILE_MODE, compress: s.compress, forceDosTimestamp: true };
    zip.addBuffer(toBuffer(s.data), s.name, entryOptions as Partial<yazl.Options>);
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) chunks.push(chunk);
  const out = Buffer.concat(chunks);
  const bytes = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  // Never hand out an archive that a reader with the same limits refuses (e.g. a ratio cap).
  await readArchive(bytes, { limits, keepBlobs: false });
  return bytes;
}

function checkInjectedFrame(frame: Uint8Array, original: Uint8Array, limits: ArchiveLimits, name: string): void {
  if (!(frame instanceof Uint8Array)) throw new CtxpkgError('E_ARCHIVE', `${name}: the zstd compressor returned no bytes`);
  let back: Uint8Array;
  try {
    back = decompressZstd(
      frame,
      {
        maxOutputBytes: original.length,
        maxWindowBytes: limits.maxZstdWindowBytes,
        maxRatio: Number.POSITIVE_INFINITY,
        ratioGraceBytes: 0,
      },
      name,
    );
  } catch (err) {
    throw new CtxpkgError('E_ARCHIVE', `${name}: the injected zstd compressor produced a frame this reader refuses`, {
      hint: 'use one frame, no dictionary, window ≤ maxZstdWindowBytes (spec/archive.md §3)',
      cause: err,
    });
  }
  if (back.length !== original.length || back.some((b, i) => b !== original[i])) {
    throw new CtxpkgError('E_ARCHIVE', `${name}: the injected zstd compressor's frame does not decode to its input`);
  }
}
