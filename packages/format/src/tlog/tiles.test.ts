import { describe, expect, it } from 'vitest';
import { concatBytes } from '../bytes.js';
import { bytesToHex } from '../hex.js';
import { consistencyProof, inclusionProof, leafHash, memoryReader, treeHash, verifyConsistency, verifyInclusion, type SubtreeReader } from './merkle.js';
import {
  TILE_WIDTH,
  computeFromTiles,
  decodeEntryBundle,
  encodeEntryBundle,
  entryBundlePath,
  parseTilePath,
  tileIndexPath,
  tilePath,
  tileWidthAt,
  type Tile,
} from './tiles.js';

describe('tile paths (c2sp.org/tlog-tiles)', () => {
  it('encodes indexes as x-prefixed three-digit elements', () => {
    expect(tileIndexPath(1234067)).toBe('x001/x234/067');
    expect(tileIndexPath(0)).toBe('000');
    expect(tileIndexPath(999)).toBe('999');
    expect(tileIndexPath(1000)).toBe('x001/000');
    expect(tilePath({ level: 0, index: 1234067, width: 256 })).toBe('tile/0/x001/x234/067');
    expect(tilePath({ level: 2, index: 3, width: 5 })).toBe('tile/2/003.p/5');
    expect(entryBundlePath(1, 112)).toBe('tile/entries/001.p/112');
    expect(entryBundlePath(273, 256)).toBe('tile/entries/273');
  });
  it('parses exactly the paths it writes', () => {
    expect(parseTilePath('tile/4/0/001')).toBeNull(); // "0/001" is not one index
    expect(parseTilePath('tile/4/001.p/5')).toEqual({ kind: 'hash', level: 4, index: 1, width: 5 });
    expect(parseTilePath('tile/3/x123/x456/078')).toEqual({ kind: 'hash', level: 3, index: 123456078, width: 256 });
    expect(parseTilePath('tile/entries/x001/000')).toEqual({ kind: 'entries', index: 1000, width: 256 });
    for (const bad of [
      'tile/3/5/123/456/078',
      'tile/3/-1/123/456/078',
      'tile/1/data/x003/x057/500',
      'tile/64/000',
      'tile/00/000',
      'tile/0/1',
      'tile/0/000.p/0',
      'tile/0/000.p/256',
      'tile/0/000.p/012',
      'tile/0/x000',
      '/tile/0/000',
      'tile/0/000/',
      'tile/0/x999/x999/x999/x999/x999/999',
    ]) {
      expect(parseTilePath(bad), bad).toBeNull();
    }
    for (const t of [
      { level: 0, index: 0, width: 1 },
      { level: 5, index: 987654321, width: 256 },
      { level: 63, index: 12, width: 255 },
    ] satisfies Tile[]) {
      expect(parseTilePath(tilePath(t))).toEqual({ kind: 'hash', ...t });
    }
  });
  it('a tree of 70,000 leaves has the tiles the spec lists', () => {
    // 273 full level-0 tiles, a partial one of width 112, one full level-1 tile, a partial level-1
    // tile of width 17, a partial level-2 tile of width 1.
    expect(tileWidthAt(0, 272, 70000)).toBe(256);
    expect(tileWidthAt(0, 273, 70000)).toBe(112);
    expect(tileWidthAt(0, 274, 70000)).toBe(0);
    expect(tileWidthAt(1, 0, 70000)).toBe(256);
    expect(tileWidthAt(1, 1, 70000)).toBe(17);
    expect(tileWidthAt(2, 0, 70000)).toBe(1);
    expect(tileWidthAt(3, 0, 70000)).toBe(0);
    // "a tree of size 256 will be represented by a full level 0 tile and a partial level 1 tile of width 1"
    expect(tileWidthAt(0, 0, 256)).toBe(256);
    expect(tileWidthAt(1, 0, 256)).toBe(1);
  });
});

describe('proofs from tiles', () => {
  const N = 70000;
  const leaves = Array.from({ length: N }, (_, i) => leafHash(new TextEncoder().encode(`entry ${i}`)));
  const read: SubtreeReader = memoryReader(leaves);
  // A log's tile server: the hashes at tree level 8·L, straight from the tree.
  const fetched: string[] = [];
  const fetchTile = async (t: Tile) => {
    fetched.push(tilePath(t));
    const hashes: Uint8Array[] = [];
    for (let i = 0; i < t.width; i++) hashes.push(read(8 * t.level, t.index * TILE_WIDTH + i));
    return concatBytes(hashes);
  };

  it('gives the same root, inclusion and consistency proofs as the tree itself, fetching few tiles', async () => {
    for (const [m, n] of [
      [1, 2],
      [255, 256],
      [256, 257],
      [1000, 65536],
      [65536, 70000],
      [12345, 69999],
      [69999, 70000],
    ] as const) {
      fetched.length = 0;
      const p = await computeFromTiles(n, fetchTile, (r) => consistencyProof(m, n, r));
      expect(p.map(bytesToHex)).toEqual(consistencyProof(m, n, read).map(bytesToHex));
      verifyConsistency(m, n, treeHash(m, read), treeHash(n, read), p);
      expect(new Set(fetched).size).toBe(fetched.length); // each tile once
      expect(fetched.length).toBeLessThanOrEqual(6);
    }
    const root = await computeFromTiles(N, fetchTile, (r) => treeHash(N, r));
    expect(root).toEqual(treeHash(N, read));
    const ip = await computeFromTiles(N, fetchTile, (r) => inclusionProof(4242, N, r));
    verifyInclusion(4242, N, leaves[4242]!, ip, root);
  });

  it('a forged tile makes the proof fail verification', async () => {
    const forged = async (t: Tile) => {
      const b = (await fetchTile(t)).slice();
      b[b.length - 1]! ^= 1;
      return b;
    };
    const p = await computeFromTiles(N, forged, (r) => consistencyProof(1000, N, r));
    expect(() => verifyConsistency(1000, N, treeHash(1000, read), treeHash(N, read), p)).toThrow(expect.objectContaining({ code: 'E_LOG_PROOF' }));
  });

  it('refuses a tile of the wrong length', async () => {
    const short = async (t: Tile) => (await fetchTile(t)).subarray(32);
    await expect(computeFromTiles(N, short, (r) => treeHash(N, r))).rejects.toMatchObject({ code: 'E_LOG_PROOF' });
  });
});

describe('entry bundles', () => {
  it('round-trips uint16 length-prefixed entries', () => {
    const entries = ['a', '', 'ctxpkg-log v1\nyank @acme/kb 1.0.0\n'].map((s) => new TextEncoder().encode(s));
    const b = encodeEntryBundle(entries);
    expect(Array.from(b.subarray(0, 3))).toEqual([0, 1, 97]);
    expect(decodeEntryBundle(b)).toEqual(entries);
  });
  it('refuses truncated bundles and oversized entries', () => {
    expect(() => decodeEntryBundle(new Uint8Array([0]))).toThrow(/truncated/);
    expect(() => decodeEntryBundle(new Uint8Array([0, 5, 1]))).toThrow(/truncated/);
    expect(() => encodeEntryBundle([new Uint8Array(65536)])).toThrow(expect.objectContaining({ code: 'E_TOO_LARGE' }));
  });
});
