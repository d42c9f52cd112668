/**
 * Streams the data of the layout entries out of a ZIP buffer with yauzl, enforcing the caps on
 * the bytes actually produced (spec/archive.md §5–6, ADVERSARIAL HB-16): each chunk is counted
 * as it arrives and the stream is destroyed as soon as a cap is passed, so an entry never
 * produces more than its cap plus one zlib chunk (16 KiB ≤ the 64 KiB slack of HB-16).
 * CRC-32 is verified (yauzl does not), zstd entries are decoded under the remaining caps.
 *
 * yauzl runs with `lazyEntries`, `validateEntrySizes` and `strictFileNames`; every entry it
 * reports is cross-checked against our own scan (`zip-scan.ts`) before its data is opened.
 * All failures reject the returned promise once with a `CtxpkgError`; later events are ignored.
 */
import yauzl from 'yauzl';
import { CtxpkgError, isCtxpkgError } from '../errors.js';
import { crc32Update } from './crc32.js';
import type { ArchiveLimits } from './limits.js';
import type { LayoutEntry } from './names.js';
import { concatBytes, decodeZstdFrame } from './zstd.js';
import type { ScannedEntry } from './zip-scan.js';

/** Receives the final (inflated and, for `.zst` entries, zstd-decoded) bytes of one entry. */
export interface EntryConsumer {
  chunk(bytes: Uint8Array): void;
  /** Called once after the last chunk; may throw a `CtxpkgError` (e.g. a blob hash mismatch). */
  end(): void;
}

function tooLarge(name: string, what: string, limit: number): CtxpkgError {
  return new CtxpkgError('E_TOO_LARGE', `${name}: ${what} exceeds the limit of ${limit} bytes`, {
    hint: 'the archive limits are in spec/archive.md §6; callers may raise them for large packages',
    details: { entry: name, limit },
  });
}

/** Map an error from yauzl or zlib to a stable code. */
function mapError(err: unknown, name: string): CtxpkgError {
  if (isCtxpkgError(err)) return err as CtxpkgError;
  const message = err instanceof Error ? err.message : String(err);
  if (/too many bytes|not enough bytes|size mismatch/i.test(message)) {
    return new CtxpkgError('E_ARCHIVE_SIZE_MISMATCH', `${name}: entry size differs from its header (${message})`, {
      hint: 'the archive declares sizes that its data does not have; it is corrupt or hostile',
      cause: err,
    });
  }
  return new CtxpkgError('E_ARCHIVE', `${name}: unreadable ZIP data (${message})`, { cause: err });
}

type YauzlEntry = yauzl.Entry;

/**
 * Read the entries listed in `layout` (a subset of `scanned`, which is all entries in
 * central-directory order) and feed each one's final bytes to `consumerFor(entry)`.
 * `totalBudget` tracks the `maxTotalBytes` cap across entries.
 * Throws (rejects) `E_TOO_LARGE`, `E_ARCHIVE_SIZE_MISMATCH`, `E_ARCHIVE`, or what a consumer throws.
 */
export function readLayoutEntries(
  bytes: Uint8Array,
  scanned: ScannedEntry[],
  layout: LayoutEntry[],
  limits: ArchiveLimits,
  consumerFor: (entry: LayoutEntry) => EntryConsumer,
): Promise<void> {
  const byIndex = new Map<number, LayoutEntry>(layout.map((l) => [l.entry.index, l]));
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let total = 0;

  return new Promise<void>((resolve, reject) => {
    let settled = false;
    let zipfile: yauzl.ZipFile | undefined;
    let current: { destroy(): void } | undefined;
    const fail = (err: unknown, name: string): void => {
      if (settled) return;
      settled = true;
      try {
        current?.destroy();
      } catch {
        // already destroyed
      }
      zipfile?.close();
      reject(mapError(err, name));
    };

    const onEntry = (entry: YauzlEntry, index: number): void => {
      const scan = scanned[index];
      const le = byIndex.get(index);
      const name = le?.name ?? entry.fileName;
      if (
        !scan ||
        entry.compressedSize !== scan.compressedSize ||
        entry.uncompressedSize !== scan.uncompressedSize ||
        entry.relativeOffsetOfLocalHeader !== scan.localHeaderOffset ||
        (le !== undefined && entry.fileName !== le.name)
      ) {
        fail(new CtxpkgError('E_ARCHIVE', `entry ${index}: the ZIP reader and the structure scan disagree`), name);
        return;
      }
      if (!le) {
        zipfile!.readEntry(); // the `blobs/` directory entry: no data
        return;
      }
      zipfile!.openReadStream(entry, (err, stream) => {
        if (settled) return;
        if (err || !stream) return fail(err ?? new Error('no stream'), name);
        current = stream;
        streamEntry(le, stream, name);
      });
    };

    const streamEntry = (le: LayoutEntry, stream: NodeJS.ReadableStream & { destroy(): void }, name: string): void => {
      const scan = le.entry;
      const zipCap = Math.min(limits.maxEntryBytes, le.zstd ? limits.maxEntryBytes : limits.maxTotalBytes - total);
      const consumer = le.zstd ? undefined : consumerFor(le);
      const frameChunks: Uint8Array[] = [];
      let produced = 0;
      let crc = 0;
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        produced += chunk.length;
        if (produced > zipCap) {
          return fail(tooLarge(name, 'inflated size', zipCap), name);
        }
        if (produced > limits.ratioGraceBytes && produced > limits.maxRatio * Math.max(1, scan.compressedSize)) {
          return fail(tooLarge(name, `compression ratio above ${limits.maxRatio}:1 (output)`, limits.maxRatio * scan.compressedSize), name);
        }
        const view = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        crc = crc32Update(crc, view);
        try {
          if (consumer) consumer.chunk(view);
          else frameChunks.push(view);
        } catch (e) {
          fail(e, name);
        }
      });
      stream.on('error', (e: unknown) => fail(e, name));
      stream.on('end', () => {
        if (settled) return;
        current = undefined;
        try {
          if (produced !== scan.uncompressedSize) {
            throw new CtxpkgError('E_ARCHIVE_SIZE_MISMATCH', `${name}: produced ${produced} bytes, header says ${scan.uncompressedSize}`);
          }
          if (crc !== scan.crc32) {
            throw new CtxpkgError('E_ARCHIVE', `${name}: CRC-32 mismatch (data is corrupt)`, {
              details: { expected: scan.crc32.toString(16), actual: crc.toString(16) },
            });
          }
          if (consumer) {
            total += produced;
            consumer.end();
          } else {
            const frame = concatBytes(frameChunks, produced);
            frameChunks.length = 0;
            const zc = consumerFor(le);
            const decoded = decodeZstdFrame(
              frame,
              {
                maxOutputBytes: Math.min(limits.maxEntryBytes, limits.maxTotalBytes - total),
                maxWindowBytes: limits.maxZstdWindowBytes,
                maxRatio: limits.maxRatio,
                ratioGraceBytes: limits.ratioGraceBytes,
              },
              (c) => zc.chunk(c),
              name,
            );
            total += decoded;
            zc.end();
          }
        } catch (e) {
          return fail(e, name);
        }
        zipfile!.readEntry();
      });
    };

    yauzl.fromBuffer(
      buffer,
      { lazyEntries: true, validateEntrySizes: true, strictFileNames: true, decodeStrings: true },
      (err, zf) => {
        if (err || !zf) return fail(err ?? new Error('no zip file'), 'archive');
        zipfile = zf;
        let index = 0;
        zf.on('error', (e: unknown) => fail(e, 'archive'));
        zf.on('entry', (entry: YauzlEntry) => {
          if (settled) return;
          onEntry(entry, index++);
        });
        zf.on('end', () => {
          if (settled) return;
          if (index !== scanned.length) return fail(new CtxpkgError('E_ARCHIVE', 'ZIP reader stopped early'), 'archive');
          settled = true;
          resolve();
        });
        zf.readEntry();
      },
    );
  });
}
