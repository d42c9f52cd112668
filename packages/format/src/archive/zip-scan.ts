/**
 * Our own parse of a ZIP's end record, central directory and local headers, done over the raw
 * bytes before any entry is inflated (spec/archive.md §5 "Reader checks").
 *
 * yauzl trusts the central directory and reads local headers only for their lengths; this scan
 * closes the gaps the issue and ADVERSARIAL HB-13/14/16 list: local names that differ from the
 * central directory, overlapping or hidden entry data, ZIP64, encryption, unsupported methods,
 * declared sizes above the caps and alternate (Info-ZIP Unicode) names. Pure: bytes in, values out.
 */
import { CtxpkgError } from '../errors.js';
import type { ArchiveLimits } from './limits.js';

/** One central-directory entry, cross-checked against its local header. */
export interface ScannedEntry {
  /** Position in the central directory (0-based). */
  index: number;
  /** The raw name bytes (identical in the central directory and the local header). */
  nameBytes: Uint8Array;
  /** General purpose bit flags (central directory). */
  flags: number;
  /** 0 = stored, 8 = deflate. */
  method: number;
  crc32: number;
  /** Bytes of stored data (declared; verified while reading). */
  compressedSize: number;
  /** Bytes after inflating (declared; verified while reading). */
  uncompressedSize: number;
  versionMadeBy: number;
  externalAttributes: number;
  localHeaderOffset: number;
  /** Offset of the first data byte. */
  dataStart: number;
  /** Offset just past this entry's record (data + data descriptor if any). */
  recordEnd: number;
}

export interface ScannedZip {
  entries: ScannedEntry[];
  centralDirectoryOffset: number;
}

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_EOCD = 0x06054b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const SIG_DATA_DESCRIPTOR = 0x08074b50;
const FLAG_ENCRYPTED = 0x0001;
const FLAG_DATA_DESCRIPTOR = 0x0008;
const FLAG_STRONG_ENCRYPTION = 0x0040;
const EXTRA_ZIP64 = 0x0001;
const EXTRA_UNICODE_PATH = 0x7075;

function archiveError(message: string, details?: Record<string, unknown>): CtxpkgError {
  return new CtxpkgError('E_ARCHIVE', message, {
    hint: 'the file is not a well-formed ctxpkg ZIP archive (spec/archive.md §5)',
    ...(details ? { details } : {}),
  });
}

function u16(b: Uint8Array, o: number): number {
  return b[o]! | (b[o + 1]! << 8);
}
function u32(b: Uint8Array, o: number): number {
  return (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Extra-field ids of a central or local extra block; throws `E_ARCHIVE` when malformed. */
function extraFieldIds(extra: Uint8Array, where: string): number[] {
  const ids: number[] = [];
  let i = 0;
  while (i < extra.length) {
    if (i + 4 > extra.length) throw archiveError(`${where}: truncated extra field`);
    const id = u16(extra, i);
    const size = u16(extra, i + 2);
    if (i + 4 + size > extra.length) throw archiveError(`${where}: extra field overruns its block`);
    ids.push(id);
    i += 4 + size;
  }
  return ids;
}

/** Locate the end-of-central-directory record; the comment must run exactly to the end. */
function findEndRecord(bytes: Uint8Array): number {
  const min = Math.max(0, bytes.length - 22 - 0xffff);
  for (let i = bytes.length - 22; i >= min; i--) {
    if (u32(bytes, i) !== SIG_EOCD) continue;
    if (i + 22 + u16(bytes, i + 20) === bytes.length) return i;
  }
  throw archiveError('no ZIP end-of-central-directory record (truncated file or trailing bytes)');
}

/**
 * Scan `bytes` as a ZIP archive and check its structure.
 *
 * Shape: returns the entries in central-directory order. Sizes are in bytes.
 * Rules (spec/archive.md §5): single disk, no ZIP64, no encryption, methods 0/8 only; records are
 * contiguous from offset 0 (local header, data, optional data descriptor), followed directly by
 * the central directory and the end record — so no two entries overlap and no bytes hide
 * between them; each local header repeats the central name byte for byte, the method and (unless
 * a data descriptor is used) CRC-32 and sizes; stored entries declare equal sizes; declared
 * sizes respect `limits` (`maxEntries`, `maxEntryBytes`, `maxTotalBytes`, `maxRatio` after
 * `ratioGraceBytes`, `maxArchiveBytes`). The reader then holds every entry to its declared size
 * while inflating, so these caps bound what is actually produced.
 *
 * Throws `E_ARCHIVE` (structure), `E_ARCHIVE_SIZE_MISMATCH` (header sizes disagree),
 * `E_ARCHIVE_UNSAFE_PATH` (an Info-ZIP Unicode alternate name), `E_TOO_LARGE` (caps).
 */
export function scanZip(bytes: Uint8Array, limits: ArchiveLimits): ScannedZip {
  if (bytes.length > limits.maxArchiveBytes) {
    throw new CtxpkgError('E_TOO_LARGE', `archive is ${bytes.length} bytes; the limit is ${limits.maxArchiveBytes}`, {
      details: { size: bytes.length, limit: limits.maxArchiveBytes },
    });
  }
  if (bytes.length < 22) throw archiveError('file is too short to be a ZIP archive');
  const eocd = findEndRecord(bytes);
  if (eocd >= 20 && u32(bytes, eocd - 20) === SIG_ZIP64_LOCATOR) {
    throw archiveError('ZIP64 archives are not supported (spec/archive.md §2)');
  }
  const disk = u16(bytes, eocd + 4);
  const cdDisk = u16(bytes, eocd + 6);
  const entriesOnDisk = u16(bytes, eocd + 8);
  const entryCount = u16(bytes, eocd + 10);
  const cdSize = u32(bytes, eocd + 12);
  const cdOffset = u32(bytes, eocd + 16);
  if (disk !== 0 || cdDisk !== 0 || entriesOnDisk !== entryCount) {
    throw archiveError('multi-disk ZIP archives are not supported');
  }
  if (entryCount > limits.maxEntries) {
    throw new CtxpkgError('E_TOO_LARGE', `archive has ${entryCount} entries; the limit is ${limits.maxEntries}`, {
      details: { entries: entryCount, limit: limits.maxEntries },
    });
  }
  if (cdOffset + cdSize !== eocd) {
    throw archiveError('central directory does not end where the end record begins (hidden or missing bytes)', {
      centralDirectoryOffset: cdOffset,
      centralDirectorySize: cdSize,
      endRecordOffset: eocd,
    });
  }

  const entries: ScannedEntry[] = [];
  let p = cdOffset;
  let declaredTotal = 0;
  for (let index = 0; index < entryCount; index++) {
    if (p + 46 > eocd || u32(bytes, p) !== SIG_CENTRAL) {
      throw archiveError(`central directory record ${index} is missing or malformed`);
    }
    const flags = u16(bytes, p + 8);
    const method = u16(bytes, p + 10);
    const crc32 = u32(bytes, p + 16);
    const compressedSize = u32(bytes, p + 20);
    const uncompressedSize = u32(bytes, p + 24);
    const n = u16(bytes, p + 28);
    const m = u16(bytes, p + 30);
    const k = u16(bytes, p + 32);
    const startDisk = u16(bytes, p + 34);
    const end = p + 46 + n + m + k;
    if (end > eocd) throw archiveError(`central directory record ${index} overruns the directory`);
    const nameBytes = bytes.subarray(p + 46, p + 46 + n);
    const where = `entry ${index}`;
    const ids = extraFieldIds(bytes.subarray(p + 46 + n, p + 46 + n + m), where);
    if (ids.includes(EXTRA_UNICODE_PATH)) {
      throw new CtxpkgError('E_ARCHIVE_UNSAFE_PATH', `${where}: carries an alternate (Info-ZIP Unicode) name`, {
        hint: 'entry names must be given once, in the name field, as UTF-8',
      });
    }
    if (ids.includes(EXTRA_ZIP64) || compressedSize === 0xffffffff || uncompressedSize === 0xffffffff) {
      throw archiveError(`${where}: ZIP64 entries are not supported`);
    }
    if (startDisk !== 0) throw archiveError(`${where}: multi-disk entry`);
    if (flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION)) throw archiveError(`${where}: encrypted entries are not supported`);
    if (method !== 0 && method !== 8) {
      throw archiveError(`${where}: compression method ${method} is not supported (use stored or deflate)`);
    }
    if (method === 0 && compressedSize !== uncompressedSize) {
      throw new CtxpkgError(
        'E_ARCHIVE_SIZE_MISMATCH',
        `${where}: stored entry declares ${compressedSize} stored but ${uncompressedSize} uncompressed bytes`,
      );
    }
    if (uncompressedSize > limits.maxEntryBytes) {
      throw new CtxpkgError(
        'E_TOO_LARGE',
        `${where}: declares ${uncompressedSize} uncompressed bytes; the per-entry limit is ${limits.maxEntryBytes}`,
        { details: { declared: uncompressedSize, limit: limits.maxEntryBytes } },
      );
    }
    if (uncompressedSize > limits.ratioGraceBytes && uncompressedSize > limits.maxRatio * Math.max(1, compressedSize)) {
      throw new CtxpkgError(
        'E_TOO_LARGE',
        `${where}: declares a compression ratio above ${limits.maxRatio}:1 (${uncompressedSize} from ${compressedSize} bytes)`,
        { details: { declared: uncompressedSize, stored: compressedSize, maxRatio: limits.maxRatio } },
      );
    }
    declaredTotal += uncompressedSize;
    if (declaredTotal > limits.maxTotalBytes) {
      throw new CtxpkgError(
        'E_TOO_LARGE',
        `archive declares more than ${limits.maxTotalBytes} uncompressed bytes in total`,
        { details: { limit: limits.maxTotalBytes } },
      );
    }
    entries.push({
      index,
      nameBytes,
      flags,
      method,
      crc32,
      compressedSize,
      uncompressedSize,
      versionMadeBy: u16(bytes, p + 4),
      externalAttributes: u32(bytes, p + 38),
      localHeaderOffset: u32(bytes, p + 42),
      dataStart: 0,
      recordEnd: 0,
    });
    p = end;
  }
  if (p !== eocd) throw archiveError('central directory has bytes after its last record');

  checkLocalRecords(bytes, entries, cdOffset);
  return { entries, centralDirectoryOffset: cdOffset };
}

/** Cross-check every local header and require the records to tile [0, cdOffset) exactly. */
function checkLocalRecords(bytes: Uint8Array, entries: ScannedEntry[], cdOffset: number): void {
  const byOffset = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  let expected = 0;
  for (const e of byOffset) {
    const where = `entry ${e.index}`;
    const o = e.localHeaderOffset;
    if (o !== expected) {
      throw archiveError(
        o < expected
          ? `${where}: its data overlaps another entry (offset ${o} < ${expected})`
          : `${where}: ${o - expected} unexplained bytes before its local header`,
        { offset: o, expected },
      );
    }
    if (o + 30 > cdOffset || u32(bytes, o) !== SIG_LOCAL) throw archiveError(`${where}: local header missing`);
    const flags = u16(bytes, o + 6);
    const method = u16(bytes, o + 8);
    const n = u16(bytes, o + 26);
    const m = u16(bytes, o + 28);
    const dataStart = o + 30 + n + m;
    if (dataStart > cdOffset) throw archiveError(`${where}: local header overruns the data area`);
    if (!sameBytes(bytes.subarray(o + 30, o + 30 + n), e.nameBytes)) {
      throw new CtxpkgError('E_ARCHIVE_UNSAFE_PATH', `${where}: local header name differs from the central directory`, {
        hint: 'the two names of an entry must be identical; this is a header-confusion attack pattern',
      });
    }
    const localIds = extraFieldIds(bytes.subarray(o + 30 + n, dataStart), `${where} (local)`);
    if (localIds.includes(EXTRA_UNICODE_PATH) || localIds.includes(EXTRA_ZIP64)) {
      throw archiveError(`${where}: local header carries a ZIP64 or alternate-name field`);
    }
    if (method !== e.method || (flags & FLAG_DATA_DESCRIPTOR) !== (e.flags & FLAG_DATA_DESCRIPTOR)) {
      throw archiveError(`${where}: local header method or flags differ from the central directory`);
    }
    let recordEnd = dataStart + e.compressedSize;
    if (e.flags & FLAG_DATA_DESCRIPTOR) {
      // Local CRC/sizes may be zero; the descriptor after the data must match the directory.
      const d = recordEnd;
      const hasSig = d + 4 <= cdOffset && u32(bytes, d) === SIG_DATA_DESCRIPTOR;
      const q = hasSig ? d + 4 : d;
      if (q + 12 > cdOffset) throw archiveError(`${where}: data descriptor missing`);
      checkTriple(where, 'data descriptor', u32(bytes, q), u32(bytes, q + 4), u32(bytes, q + 8), e);
      recordEnd = q + 12;
    } else {
      checkTriple(where, 'local header', u32(bytes, o + 14), u32(bytes, o + 18), u32(bytes, o + 22), e);
    }
    if (recordEnd > cdOffset) throw archiveError(`${where}: data overruns the central directory`);
    e.dataStart = dataStart;
    e.recordEnd = recordEnd;
    expected = recordEnd;
  }
  if (expected !== cdOffset) {
    throw archiveError(`${cdOffset - expected} unexplained bytes before the central directory`);
  }
}

function checkTriple(where: string, what: string, crc: number, csize: number, usize: number, e: ScannedEntry): void {
  if (csize !== e.compressedSize || usize !== e.uncompressedSize) {
    throw new CtxpkgError('E_ARCHIVE_SIZE_MISMATCH', `${where}: ${what} sizes differ from the central directory`, {
      details: {
        central: { compressed: e.compressedSize, uncompressed: e.uncompressedSize },
        [what]: { compressed: csize, uncompressed: usize },
      },
    });
  }
  if (crc !== e.crc32) throw archiveError(`${where}: ${what} CRC-32 differs from the central directory`);
}
