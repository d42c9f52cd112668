/**
 * The C2SP tlog-tiles layout (c2sp.org/tlog-tiles): tile and entry-bundle paths, which tile holds
 * which hash, entry bundles, and proofs computed from fetched tiles.
 *
 * A tile at level L, index N is the sequence of the Merkle hashes at tree level 8·L with indexes
 * `N·256 … N·256+W−1`; full tiles are 256 hashes (8,192 bytes), the rightmost tile of a level is
 * partial (`.p/W`, 1 ≤ W ≤ 255) and is named by the tree size it belongs to. Entry bundles are
 * the log entries of one level-0 tile, each prefixed by its length as a big-endian uint16.
 */
import { CtxpkgError } from '../errors.js';
import { HASH_SIZE, nodeHash, type SubtreeReader } from './merkle.js';

/** Tree levels spanned by one tile. */
export const TILE_HEIGHT = 8;
/** Hashes in a full tile (2^TILE_HEIGHT). */
export const TILE_WIDTH = 256;
/** The largest log entry an entry bundle can carry (uint16 length prefix), in bytes. */
export const MAX_ENTRY_BYTES = 65535;

/** One hash tile: `level` 0–63, `index` ≥ 0, `width` 1–256 (256 = full). */
export interface Tile {
  level: number;
  index: number;
  width: number;
}

/** A parsed tile path: a hash tile, or the entry bundle of level-0 tile `index`. */
export type TilePath = ({ kind: 'hash' } & Tile) | { kind: 'entries'; index: number; width: number };

/** `N` as zero-padded three-digit path elements, all but the last prefixed with `x` (1234067 → `x001/x234/067`). */
export function tileIndexPath(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0) throw new CtxpkgError('E_USAGE', `tile index must be a non-negative safe integer, got ${String(index)}`);
  const parts: string[] = [];
  let n = index;
  do {
    parts.unshift(String(n % 1000).padStart(3, '0'));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return parts.map((p, i) => (i < parts.length - 1 ? 'x' + p : p)).join('/');
}

function widthSuffix(width: number): string {
  if (!Number.isInteger(width) || width < 1 || width > TILE_WIDTH) throw new CtxpkgError('E_USAGE', `tile width must be 1–256, got ${String(width)}`);
  return width === TILE_WIDTH ? '' : `.p/${width}`;
}

/** The path of a hash tile relative to the log prefix: `tile/<L>/<N>[.p/<W>]`. */
export function tilePath(tile: Tile): string {
  if (!Number.isInteger(tile.level) || tile.level < 0 || tile.level > 63) throw new CtxpkgError('E_USAGE', `tile level must be 0–63, got ${String(tile.level)}`);
  return `tile/${tile.level}/${tileIndexPath(tile.index)}${widthSuffix(tile.width)}`;
}

/** The path of the entry bundle of level-0 tile `index` with `width` entries: `tile/entries/<N>[.p/<W>]`. */
export function entryBundlePath(index: number, width: number): string {
  return `tile/entries/${tileIndexPath(index)}${widthSuffix(width)}`;
}

const TILE_PATH_RE = /^tile\/(entries|0|[1-9][0-9]?)\/((?:x[0-9]{3}\/){0,5}[0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/;

/**
 * Parse a tile or entry-bundle path (relative to the log prefix, no leading slash). Returns
 * `null` for anything the layout does not define: a level above 63, an index element without its
 * `x` or with leading digits missing, a partial width outside 1–255, an index beyond 2^53.
 * Linear time (one anchored regex without nested repetition).
 */
export function parseTilePath(path: string): TilePath | null {
  const m = TILE_PATH_RE.exec(path);
  if (!m) return null;
  const index = Number(m[2]!.replace(/x/g, '').replace(/\//g, ''));
  if (!Number.isSafeInteger(index)) return null;
  const width = m[3] === undefined ? TILE_WIDTH : Number(m[3]);
  if (width > 255 && m[3] !== undefined) return null;
  if (m[1] === 'entries') return { kind: 'entries', index, width };
  const level = Number(m[1]);
  if (level > 63) return null;
  return { kind: 'hash', level, index, width };
}

/**
 * The width of hash tile (`level`, `index`) in the tree of `treeSize` leaves: 256 for a full
 * tile, 1–255 for the rightmost partial one, 0 when the tile does not exist at that size.
 */
export function tileWidthAt(level: number, index: number, treeSize: number): number {
  const available = Math.floor(treeSize / TILE_WIDTH ** level); // hashes at tree level 8·level
  const w = available - index * TILE_WIDTH;
  return w <= 0 ? 0 : Math.min(w, TILE_WIDTH);
}

/**
 * Where the complete subtree (`level`, `index`) lives in the tiles of a tree of `treeSize`
 * leaves: the tile, and the `count` consecutive hashes from `offset` whose Merkle hash it is.
 * Throws `E_USAGE` when the subtree is not complete at that size.
 */
export function tileForSubtree(level: number, index: number, treeSize: number): { tile: Tile; offset: number; count: number } {
  const span = 2 ** level;
  if ((index + 1) * span > treeSize) throw new CtxpkgError('E_USAGE', `subtree ${level}/${index} is not complete in a tree of size ${treeSize}`);
  const tileLevel = Math.floor(level / TILE_HEIGHT);
  const count = 2 ** (level - tileLevel * TILE_HEIGHT);
  const start = index * count; // index among the hashes at tree level 8·tileLevel
  const tileIndex = Math.floor(start / TILE_WIDTH);
  return {
    tile: { level: tileLevel, index: tileIndex, width: tileWidthAt(tileLevel, tileIndex, treeSize) },
    offset: start - tileIndex * TILE_WIDTH,
    count,
  };
}

/** The Merkle hash of `count` (a power of two) consecutive hashes of `tile` from `offset`. */
export function hashTileRange(tile: Uint8Array, offset: number, count: number): Uint8Array {
  let level: Uint8Array[] = [];
  for (let i = 0; i < count; i++) level.push(tile.subarray((offset + i) * HASH_SIZE, (offset + i + 1) * HASH_SIZE));
  while (level.length > 1) {
    const up: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) up.push(nodeHash(level[i]!, level[i + 1]!));
    level = up;
  }
  return level[0]!;
}

/** Fetches the bytes of one hash tile (`width` × 32 bytes); may reject. */
export type TileFetcher = (tile: Tile) => Promise<Uint8Array>;

/**
 * Run `compute` (a pure proof or tree-hash computation over a `SubtreeReader`) against the tiles
 * of the tree of `treeSize` leaves: a first pass records which subtrees it reads, the tiles that
 * hold them are fetched once each (in parallel), then `compute` runs on their hashes. Tiles are
 * not trusted: the caller verifies what `compute` returns against signed checkpoints (a forged tile
 * makes the proof fail). Subtree hashes are memoized for the run, so proving many entries of one
 * tree costs about two hashes per leaf. Throws `E_LOG_PROOF` when a fetched tile has the wrong length.
 */
export async function computeFromTiles<T>(treeSize: number, fetchTile: TileFetcher, compute: (read: SubtreeReader) => T): Promise<T> {
  const needed = new Map<string, Tile>();
  const zero = new Uint8Array(HASH_SIZE);
  compute((level, index) => {
    const { tile } = tileForSubtree(level, index, treeSize);
    needed.set(tilePath(tile), tile);
    return zero;
  });
  const bytes = new Map<string, Uint8Array>();
  await Promise.all(
    [...needed].map(async ([path, tile]) => {
      const b = await fetchTile(tile);
      if (b.length !== tile.width * HASH_SIZE) {
        throw new CtxpkgError('E_LOG_PROOF', `log tile ${path} has ${b.length} bytes, expected ${tile.width * HASH_SIZE}`);
      }
      bytes.set(path, b);
    }),
  );
  const memo = new Map<string, Uint8Array>(); // subtrees above a tile's bottom row cost up to 255 hashes
  return compute((level, index) => {
    const { tile, offset, count } = tileForSubtree(level, index, treeSize);
    if (count === 1) return bytes.get(tilePath(tile))!.subarray(offset * HASH_SIZE, (offset + 1) * HASH_SIZE);
    const key = `${level}/${index}`;
    let h = memo.get(key);
    if (!h) memo.set(key, (h = hashTileRange(bytes.get(tilePath(tile))!, offset, count)));
    return h;
  });
}

/** An entry bundle: each entry prefixed by its length as a big-endian uint16. Throws `E_TOO_LARGE` for an entry over 65,535 bytes. */
export function encodeEntryBundle(entries: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const e of entries) {
    if (e.length > MAX_ENTRY_BYTES) throw new CtxpkgError('E_TOO_LARGE', `a log entry is at most ${MAX_ENTRY_BYTES} bytes, got ${e.length}`);
    total += 2 + e.length;
  }
  const out = new Uint8Array(total);
  let o = 0;
  for (const e of entries) {
    out[o++] = e.length >> 8;
    out[o++] = e.length & 255;
    out.set(e, o);
    o += e.length;
  }
  return out;
}

/** The entries of a bundle, in order. Throws `E_LOG_PROOF` for a truncated bundle. */
export function decodeEntryBundle(bundle: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let o = 0;
  while (o < bundle.length) {
    if (o + 2 > bundle.length) throw new CtxpkgError('E_LOG_PROOF', 'entry bundle is truncated (length prefix)');
    const n = (bundle[o]! << 8) | bundle[o + 1]!;
    o += 2;
    if (o + n > bundle.length) throw new CtxpkgError('E_LOG_PROOF', 'entry bundle is truncated (entry)');
    out.push(bundle.subarray(o, o + n));
    o += n;
  }
  return out;
}
