/**
 * zstd frames inside the ZIP form (spec/archive.md §3 "zstd"): reading with `fzstd` under an
 * output cap that is checked against the frame header before decoding and enforced on every
 * decoded block, with the content checksum verified; writing as a standards-compliant frame
 * (RFC 8878) made of raw and RLE blocks — valid zstd that needs no entropy coder — unless the
 * caller injects a real compressor (e.g. Node ≥ 22.15 `zlib.zstdCompressSync`).
 *
 * An entry holds exactly one frame: no skippable frames, no dictionaries, no trailing bytes.
 */
import { Decompress } from 'fzstd';
import { concatBytes } from '../bytes.js';
import { CtxpkgError } from '../errors.js';
import { Xxh64 } from './xxhash64.js';

const MAGIC = 0xfd2fb528;
const BLOCK_MAX = 128 * 1024;

/** What the frame header says (all sizes in bytes). */
export interface ZstdFrameInfo {
  /** Declared decompressed size, when the header carries one (untrusted). */
  contentSize?: number;
  /** The window the decoder must keep (the content size for single-segment frames). */
  windowSize: number;
  singleSegment: boolean;
  hasChecksum: boolean;
  /** Offset of the first block header. */
  headerLength: number;
  /** Offset of the checksum (== frame length when there is none). */
  blocksEnd: number;
}

/** Limits for one decode. */
export interface ZstdDecodeCaps {
  /** Most bytes this frame may produce (the per-entry and remaining total cap). */
  maxOutputBytes: number;
  /** Largest window a non-single-segment frame may ask for. */
  maxWindowBytes: number;
  /** produced / frame length may not exceed this once `ratioGraceBytes` have been produced. */
  maxRatio: number;
  ratioGraceBytes: number;
}

function bad(where: string, why: string): CtxpkgError {
  return new CtxpkgError('E_ARCHIVE', `${where}: invalid zstd frame: ${why}`, {
    hint: 'a .zst entry must hold exactly one zstd frame without dictionary (spec/archive.md §3)',
  });
}

function readLE(b: Uint8Array, o: number, n: number): number {
  let v = 0;
  for (let i = n - 1; i >= 0; i--) v = v * 256 + b[o + i]!;
  return v;
}

/**
 * Parse and walk a frame without decoding it: header fields, block headers and the end.
 * Throws `E_ARCHIVE` for a bad magic, reserved bits, a dictionary id, a reserved block type,
 * oversized blocks, truncation or trailing bytes.
 */
export function inspectZstdFrame(frame: Uint8Array, where = 'zstd'): ZstdFrameInfo {
  if (frame.length < 6 || readLE(frame, 0, 4) !== MAGIC) throw bad(where, 'missing zstd magic number');
  const fhd = frame[4]!;
  const fcsFlag = fhd >> 6;
  const singleSegment = ((fhd >> 5) & 1) === 1;
  if (fhd & 0x08) throw bad(where, 'reserved header bit set');
  const hasChecksum = ((fhd >> 2) & 1) === 1;
  const dictFlag = fhd & 3;
  let p = 5;
  let windowSize = 0;
  if (!singleSegment) {
    const wd = frame[p++]!;
    const base = 2 ** (10 + (wd >> 3));
    windowSize = base + (base / 8) * (wd & 7);
  }
  const dictBytes = [0, 1, 2, 4][dictFlag]!;
  if (p + dictBytes > frame.length) throw bad(where, 'truncated header');
  if (dictBytes && readLE(frame, p, dictBytes) !== 0) throw bad(where, 'dictionaries are not supported');
  p += dictBytes;
  const fcsBytes = fcsFlag === 0 ? (singleSegment ? 1 : 0) : [0, 2, 4, 8][fcsFlag]!;
  if (p + fcsBytes > frame.length) throw bad(where, 'truncated header');
  let contentSize: number | undefined;
  if (fcsBytes) {
    if (fcsBytes === 8 && (frame[p + 7]! !== 0 || frame[p + 6]! > 0x1f)) throw bad(where, 'content size beyond 2^53');
    contentSize = readLE(frame, p, fcsBytes) + (fcsBytes === 2 ? 256 : 0);
  }
  p += fcsBytes;
  if (singleSegment) windowSize = contentSize!;
  const headerLength = p;
  const blockMax = Math.min(windowSize, BLOCK_MAX);
  for (;;) {
    if (p + 3 > frame.length) throw bad(where, 'truncated block header');
    const bh = frame[p]! | (frame[p + 1]! << 8) | (frame[p + 2]! << 16);
    p += 3;
    const last = bh & 1;
    const type = (bh >> 1) & 3;
    const size = bh >>> 3;
    if (type === 3) throw bad(where, 'reserved block type');
    if (size > blockMax) {
      throw bad(where, `block of ${size} bytes exceeds the block maximum ${blockMax}`);
    }
    p += type === 1 ? 1 : size;
    if (p > frame.length) throw bad(where, 'truncated block');
    if (last) break;
  }
  const blocksEnd = p;
  const end = blocksEnd + (hasChecksum ? 4 : 0);
  if (end > frame.length) throw bad(where, 'truncated checksum');
  if (end < frame.length) throw bad(where, `${frame.length - end} bytes after the frame (one frame per entry)`);
  return { ...(contentSize !== undefined ? { contentSize } : {}), windowSize, singleSegment, hasChecksum, headerLength, blocksEnd };
}

function tooLarge(where: string, what: string, limit: number): CtxpkgError {
  return new CtxpkgError('E_TOO_LARGE', `${where}: ${what} exceeds the limit of ${limit} bytes`, {
    hint: 'the archive limits are in spec/archive.md §6; callers may raise them for large packages',
    details: { limit },
  });
}

function sizeLie(where: string, declared: number, actual: number, qualifier: string): CtxpkgError {
  return new CtxpkgError('E_ARCHIVE_SIZE_MISMATCH', `${where}: zstd frame declares ${declared} bytes but decodes to ${qualifier}${actual}`, {
    details: { declared, actual },
  });
}

/**
 * Decode one frame, passing each decoded block to `onChunk` after the caps accepted it.
 * Before decoding: the declared content size and the window are checked against the caps.
 * During decoding: the running output is checked per block (`E_TOO_LARGE` as soon as it passes
 * `maxOutputBytes`, so at most one block — 128 KiB — is produced beyond the cap, and never kept).
 * Output beyond a declared content size stops the decode at once, and a shorter output fails at
 * the end (`E_ARCHIVE_SIZE_MISMATCH`). After: the
 * XXH64 checksum matches when present (`E_ARCHIVE`). Returns the decoded length in bytes.
 */
export function decodeZstdFrame(
  frame: Uint8Array,
  caps: ZstdDecodeCaps,
  onChunk: (chunk: Uint8Array) => void,
  where = 'zstd',
): number {
  const info = inspectZstdFrame(frame, where);
  if (info.contentSize !== undefined && info.contentSize > caps.maxOutputBytes) {
    throw tooLarge(where, `declared zstd content size ${info.contentSize}`, caps.maxOutputBytes);
  }
  if (info.singleSegment ? info.windowSize > caps.maxOutputBytes : info.windowSize > caps.maxWindowBytes) {
    throw tooLarge(where, `zstd window ${info.windowSize}`, info.singleSegment ? caps.maxOutputBytes : caps.maxWindowBytes);
  }
  const hash = info.hasChecksum ? new Xxh64() : undefined;
  let produced = 0;
  const decoder = new Decompress((chunk) => {
    produced += chunk.length;
    if (info.contentSize !== undefined && produced > info.contentSize) throw sizeLie(where, info.contentSize, produced, 'at least ');
    if (produced > caps.maxOutputBytes) throw tooLarge(where, 'decoded zstd output', caps.maxOutputBytes);
    if (produced > caps.ratioGraceBytes && produced > caps.maxRatio * frame.length) {
      throw tooLarge(where, `zstd compression ratio above ${caps.maxRatio}:1 (output)`, Math.floor(caps.maxRatio * frame.length));
    }
    if (chunk.length === 0) return;
    hash?.update(chunk);
    onChunk(chunk);
  });
  try {
    decoder.push(frame, true); // fzstd consumes the checksum bytes itself; inspect() ruled out trailing data
  } catch (err) {
    if (err instanceof CtxpkgError) throw err;
    throw bad(where, `corrupt data (${err instanceof Error ? err.message : String(err)})`);
  }
  if (info.contentSize !== undefined && produced !== info.contentSize) throw sizeLie(where, info.contentSize, produced, '');
  if (hash) {
    const [, lo] = hash.digestParts();
    const stored = readLE(frame, info.blocksEnd, 4);
    if (stored !== lo) {
      throw new CtxpkgError('E_ARCHIVE', `${where}: zstd content checksum mismatch`, {
        hint: 'the compressed data is corrupt or was altered',
        details: { expected: stored.toString(16).padStart(8, '0'), actual: lo.toString(16).padStart(8, '0') },
      });
    }
  }
  return produced;
}

/** Decode a whole frame into one buffer (see `decodeZstdFrame` for caps and errors). */
export function decompressZstd(frame: Uint8Array, caps: ZstdDecodeCaps, where = 'zstd'): Uint8Array {
  const chunks: Uint8Array[] = [];
  const n = decodeZstdFrame(frame, caps, (c) => chunks.push(c), where);
  return concatBytes(chunks, n);
}

/** Runs at least this long become RLE blocks in `encodeZstdFrame`. */
const MIN_RUN = 32;

/**
 * Encode `data` as one zstd frame of raw and RLE blocks (RFC 8878 §3.1.1.2: Block_Type 0 and
 * 1), with single-segment header, the content size, and the XXH64 content checksum. Any
 * conforming decoder (zstd CLI, libzstd, fzstd) reads it. Output size ≈ input + 3 bytes per
 * 128 KiB + 14; runs of ≥ 32 equal bytes shrink to 4 bytes per 128 KiB. Deterministic.
 */
export function encodeZstdFrame(data: Uint8Array): Uint8Array {
  const n = data.length;
  const header: number[] = [0x28, 0xb5, 0x2f, 0xfd];
  // Frame_Header_Descriptor: single segment (bit 5), checksum (bit 2), FCS field size flag.
  let fcsFlag: number;
  let fcs: number[];
  if (n < 256) {
    fcsFlag = 0;
    fcs = [n];
  } else if (n < 65536 + 256) {
    fcsFlag = 1;
    fcs = [(n - 256) & 0xff, (n - 256) >>> 8];
  } else if (n <= 0xffffffff) {
    fcsFlag = 2;
    fcs = [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24];
  } else {
    fcsFlag = 3;
    fcs = [];
    let v = n;
    for (let i = 0; i < 8; i++) {
      fcs.push(v % 256);
      v = Math.floor(v / 256);
    }
  }
  header.push((fcsFlag << 6) | (1 << 5) | (1 << 2), ...fcs);

  const parts: Uint8Array[] = [Uint8Array.from(header)];
  let total = header.length;
  const blocks: Array<{ type: 0 | 1; start: number; size: number }> = [];
  const pushSpan = (type: 0 | 1, start: number, size: number): void => {
    for (let o = 0; o < size; o += BLOCK_MAX) blocks.push({ type, start: start + o, size: Math.min(BLOCK_MAX, size - o) });
  };
  let rawStart = 0;
  let i = 0;
  while (i < n) {
    let j = i + 1;
    const b = data[i];
    while (j < n && data[j] === b) j++;
    if (j - i >= MIN_RUN) {
      pushSpan(0, rawStart, i - rawStart);
      pushSpan(1, i, j - i);
      rawStart = j;
    }
    i = j;
  }
  pushSpan(0, rawStart, n - rawStart);
  if (blocks.length === 0) blocks.push({ type: 0, start: 0, size: 0 });
  blocks.forEach((blk, k) => {
    const last = k === blocks.length - 1 ? 1 : 0;
    const bh = (blk.size << 3) | (blk.type << 1) | last;
    const head = Uint8Array.of(bh & 0xff, (bh >>> 8) & 0xff, (bh >>> 16) & 0xff);
    parts.push(head);
    const body = blk.type === 0 ? data.subarray(blk.start, blk.start + blk.size) : Uint8Array.of(data[blk.start]!);
    parts.push(body);
    total += 3 + body.length;
  });
  const [, lo] = new Xxh64().update(data).digestParts();
  parts.push(Uint8Array.of(lo & 0xff, (lo >>> 8) & 0xff, (lo >>> 16) & 0xff, lo >>> 24));
  total += 4;
  return concatBytes(parts, total);
}
