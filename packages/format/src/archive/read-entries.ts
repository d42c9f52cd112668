/**
 * Reads the data of the layout entries (spec/archive.md §5 step 7, §6; ADVERSARIAL HB-16).
 *
 * 1. yauzl (`lazyEntries`, `validateEntrySizes`, `strictFileNames`) walks the central directory
 *    as a second, independent parser; every entry it reports must agree with our own scan
 *    (`zip-scan.ts`: name, sizes, local-header offset) or the archive is refused.
 * 2. Each entry's data is the slice our scan validated (records tile the file, so slices never
 *    overlap); it is inflated with `INFLATER` under an output limit equal to the declared size,
 *    which the scan already held to the per-entry, total and ratio caps — so a cap is enforced
 *    while inflating, and an entry producing more than it declares stops right there
 *    (`E_ARCHIVE_SIZE_MISMATCH`). CRC-32 is verified (yauzl does not), `.zst` entries are decoded
 *    under the remaining caps (`zstd.ts`).
 *
 * yauzl's own read streams are not used for the data: they cost a zlib handle and three streams
 * per entry (measured ~0.1–1 ms each), which is seconds for 10k blobs (bench/archive).
 * The event loop is yielded to every ~8 MiB so a large archive does not stall a server.
 */
import yauzl from 'yauzl';
import { CtxpkgError, isCtxpkgError } from '../errors.js';
import { crc32 } from './crc32.js';
import { INFLATER } from './inflate.js';
import type { ArchiveLimits } from './limits.js';
import type { LayoutEntry } from './names.js';
import { decodeZstdFrame } from './zstd.js';
import type { ScannedEntry } from './zip-scan.js';

/** Receives the final (inflated and, for `.zst` entries, zstd-decoded) bytes of one entry. */
export interface EntryConsumer {
  chunk(bytes: Uint8Array): void;
  /** Called once after the last chunk; may throw a `CtxpkgError` (e.g. a blob hash mismatch). */
  end(): void;
}

const YIELD_EVERY_BYTES = 8 * 1024 * 1024;

/** Let pending I/O run: `setImmediate` where the runtime has it (no 1 ms clamp), else a timer. */
function yieldToEventLoop(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (f: () => void) => unknown }).setImmediate;
  return new Promise((r) => (immediate ? immediate(r) : setTimeout(r, 0)));
}

/**
 * yauzl's reader over our bytes. yauzl's own buffer reader answers every read through
 * `setImmediate` — two event-loop turns per entry, ~0.2 s for 10k entries on a busy loop; this
 * one copies and answers in a microtask. Only `read` is used: entry data is never streamed
 * through yauzl (see the module comment), so yauzl's `_readStreamForRange` is never reached.
 */
class BytesReader extends yauzl.RandomAccessReader {
  constructor(private readonly bytes: Uint8Array) {
    super();
  }
  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null, n?: number) => void): void {
    const end = Math.min(position + length, this.bytes.length);
    const n = Math.max(0, end - position);
    if (n > 0) buffer.set(this.bytes.subarray(position, end), offset);
    queueMicrotask(() => callback(null, n));
  }
}

/**
 * Walk the central directory with yauzl and compare each entry with our scan.
 * Rejects `E_ARCHIVE` on any yauzl error or disagreement.
 */
export function crossCheckWithYauzl(bytes: Uint8Array, scanned: ScannedEntry[], names: readonly string[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    let zipfile: yauzl.ZipFile | undefined;
    const fail = (why: string, cause?: unknown): void => {
      if (settled) return;
      settled = true;
      zipfile?.close();
      reject(new CtxpkgError('E_ARCHIVE', `the ZIP directory does not read consistently: ${why}`, cause ? { cause } : {}));
    };
    yauzl.fromRandomAccessReader(
      new BytesReader(bytes),
      bytes.length,
      { lazyEntries: true, validateEntrySizes: true, strictFileNames: true, decodeStrings: true, autoClose: true },
      (err, zf) => {
        if (err || !zf) return fail(err instanceof Error ? err.message : 'unreadable', err);
        zipfile = zf;
        let index = 0;
        zf.on('error', (e: unknown) => fail(e instanceof Error ? e.message : String(e), e));
        zf.on('entry', (entry: yauzl.Entry) => {
          if (settled) return;
          const scan = scanned[index];
          if (
            !scan ||
            entry.fileName !== names[index] ||
            entry.compressedSize !== scan.compressedSize ||
            entry.uncompressedSize !== scan.uncompressedSize ||
            entry.relativeOffsetOfLocalHeader !== scan.localHeaderOffset
          ) {
            return fail(`entry ${index} differs between the ZIP reader and the structure scan`);
          }
          index++;
          zf.readEntry();
        });
        zf.on('end', () => {
          if (settled) return;
          if (index !== scanned.length) return fail(`the ZIP reader saw ${index} of ${scanned.length} entries`);
          settled = true;
          resolve();
        });
        zf.readEntry();
      },
    );
  });
}

function wrap(err: unknown, name: string): CtxpkgError {
  if (isCtxpkgError(err)) return err as CtxpkgError;
  return new CtxpkgError('E_ARCHIVE', `${name}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}

/** Inflate (or take, when stored) one entry's bytes; exactly `uncompressedSize` bytes or a throw. */
function entryBytes(bytes: Uint8Array, e: ScannedEntry, name: string): Uint8Array {
  const raw = bytes.subarray(e.dataStart, e.dataStart + e.compressedSize);
  if (e.method === 0) return raw; // the scan checked compressed == uncompressed size
  const out = INFLATER.inflate(raw, e.uncompressedSize);
  if (!(out instanceof Uint8Array)) {
    if (out.kind === 'over-limit') {
      throw new CtxpkgError('E_ARCHIVE_SIZE_MISMATCH', `${name}: inflates to more than the ${e.uncompressedSize} bytes its headers declare`, {
        hint: 'the archive declares sizes that its data does not have; it is corrupt or hostile',
        details: { entry: name, declared: e.uncompressedSize },
      });
    }
    throw new CtxpkgError('E_ARCHIVE', `${name}: corrupt deflate data (${out.message})`);
  }
  if (out.length !== e.uncompressedSize) {
    throw new CtxpkgError('E_ARCHIVE_SIZE_MISMATCH', `${name}: inflates to ${out.length} bytes, its headers declare ${e.uncompressedSize}`, {
      details: { entry: name, declared: e.uncompressedSize, actual: out.length },
    });
  }
  return out;
}

/**
 * Read the entries listed in `layout` (a subset of `scanned`, all entries in central-directory
 * order; `names[i]` is entry i's decoded name) and feed each one's final bytes to
 * `consumerFor(entry)`. Throws (rejects) `E_ARCHIVE`, `E_ARCHIVE_SIZE_MISMATCH`, `E_TOO_LARGE`,
 * or what a consumer throws.
 */
export async function readLayoutEntries(
  bytes: Uint8Array,
  scanned: ScannedEntry[],
  names: readonly string[],
  layout: LayoutEntry[],
  limits: ArchiveLimits,
  consumerFor: (entry: LayoutEntry) => EntryConsumer,
): Promise<void> {
  await crossCheckWithYauzl(bytes, scanned, names);
  let total = 0;
  let sinceYield = 0;
  for (const le of layout) {
    const e = le.entry;
    try {
      const data = entryBytes(bytes, e, le.name);
      if (crc32(data) !== e.crc32) {
        throw new CtxpkgError('E_ARCHIVE', `${le.name}: CRC-32 mismatch (data is corrupt)`, {
          details: { expected: e.crc32.toString(16).padStart(8, '0'), actual: crc32(data).toString(16).padStart(8, '0') },
        });
      }
      const consumer = consumerFor(le);
      if (le.zstd) {
        total += decodeZstdFrame(
          data,
          {
            maxOutputBytes: Math.min(limits.maxEntryBytes, limits.maxTotalBytes - total),
            maxWindowBytes: limits.maxZstdWindowBytes,
            maxRatio: limits.maxRatio,
            ratioGraceBytes: limits.ratioGraceBytes,
          },
          (c) => consumer.chunk(c),
          le.name,
        );
      } else {
        total += data.length; // within maxTotalBytes: the scan held the declared sizes to it
        consumer.chunk(data);
      }
      consumer.end();
    } catch (err) {
      throw wrap(err, le.name);
    }
    sinceYield += e.uncompressedSize;
    if (sinceYield >= YIELD_EVERY_BYTES) {
      sinceYield = 0;
      await yieldToEventLoop();
    }
  }
}
