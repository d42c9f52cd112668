import { describe, expect, it } from 'vitest';
import { ed25519PublicKey } from '../ed25519.js';
import { bytesToHex } from '../hex.js';
import { formatCheckpoint, logVerifierKey, openCheckpoint, parseCheckpoint, signCheckpoint } from './checkpoint.js';
import { EMPTY_TREE_HASH, leafHash, memoryReader, treeHash } from './merkle.js';
import { SIG_COSIGNATURE_V1, parseVerifierKey, signatureLine, verifierOf } from './note.js';
import { checkConsistent, checkpointFreshness } from './verify.js';
import { TILE_WIDTH, type Tile } from './tiles.js';
import { concatBytes } from '../bytes.js';

const SPEC_TEXT = 'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';

describe('checkpoint text (c2sp.org/tlog-checkpoint)', () => {
  it('parses the spec example and writes it back byte for byte', () => {
    const cp = parseCheckpoint(SPEC_TEXT);
    expect(cp.origin).toBe('example.com/behind-the-sofa');
    expect(cp.size).toBe(20852163);
    expect(bytesToHex(cp.rootHash)).toBe('0ac5186a91863e8e1d90c808014aa89bf5da8e3ee1d9f07630f0378f68f1ab62');
    expect(formatCheckpoint(cp)).toBe(SPEC_TEXT);
  });
  it('keeps extension lines and refuses malformed text with E_NOTE', () => {
    expect(parseCheckpoint(SPEC_TEXT + 'ext one\n').extensions).toEqual(['ext one']);
    for (const bad of [
      'o\n1\n',
      '\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n',
      'o\n01\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n',
      'o\n-1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n',
      'o\n99999999999999999\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n',
      'o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I\n',
      'o\n1\nAAAA\n',
      SPEC_TEXT + '\n',
      SPEC_TEXT.slice(0, -1),
    ]) {
      expect(() => parseCheckpoint(bad), JSON.stringify(bad)).toThrow(expect.objectContaining({ code: 'E_NOTE' }));
    }
  });
});

describe('signed checkpoints', () => {
  const seed = new Uint8Array(32).fill(3);
  const logKey = ed25519PublicKey(seed);
  const origin = 'registry.example/log';
  const cp = { origin, size: 5, rootHash: leafHash(new Uint8Array([1])), extensions: [] };
  const witness = { name: 'witness.example/w1', type: SIG_COSIGNATURE_V1, seed: new Uint8Array(32).fill(9) };

  it('carries a log signature and a dated log cosignature; opening reports the time', async () => {
    const note = signCheckpoint(cp, seed, 1700000000);
    expect(note.split('\n— ').length).toBe(3);
    const o = await openCheckpoint(note, { origin, logKey });
    expect(o).toMatchObject({ origin, size: 5, timestamp: 1700000000, witnessed: [] });
    expect(parseVerifierKey(logVerifierKey(origin, logKey)).publicKey).toEqual(logKey);
  });
  it('refuses another key (E_LOG_KEY), another origin (E_NOTE), a missing witness (E_WITNESS)', async () => {
    const note = signCheckpoint(cp, seed, 1);
    await expect(openCheckpoint(note, { origin, logKey: ed25519PublicKey(new Uint8Array(32).fill(4)) })).rejects.toMatchObject({ code: 'E_LOG_KEY' });
    const other = signCheckpoint({ ...cp, origin: 'evil.example/log' }, seed, 1);
    await expect(openCheckpoint(other, { origin, logKey })).rejects.toMatchObject({ code: 'E_LOG_KEY' });
    await expect(openCheckpoint(note, { origin, logKey, witnesses: [verifierOf(witness)] })).rejects.toMatchObject({ code: 'E_WITNESS' });
  });
  it('accepts a witness cosignature and takes the newest timestamp', async () => {
    const note = signCheckpoint(cp, seed, 100);
    const withW = note + signatureLine(formatCheckpoint(cp), witness, 200) + '\n';
    const o = await openCheckpoint(withW, { origin, logKey, witnesses: [verifierOf(witness)] });
    expect(o.witnessed).toEqual(['witness.example/w1']);
    expect(o.timestamp).toBe(200);
  });
});

describe('a client checking a new checkpoint against the one it saw', () => {
  const mk = (labels: string[]) => labels.map((l) => leafHash(new TextEncoder().encode(l)));
  const honest = mk(Array.from({ length: 300 }, (_, i) => `e${i}`));
  const tilesOf = (leaves: Uint8Array[]) => {
    const read = memoryReader(leaves);
    return async (t: Tile) => {
      const out: Uint8Array[] = [];
      for (let i = 0; i < t.width; i++) out.push(read(8 * t.level, t.index * TILE_WIDTH + i));
      return concatBytes(out);
    };
  };
  const head = (leaves: Uint8Array[], n: number) => ({ origin: 'o', size: n, rootHash: treeHash(n, memoryReader(leaves)) });

  it('accepts a tree that extends the one seen', async () => {
    await checkConsistent(head(honest, 10), head(honest, 300), tilesOf(honest));
    await checkConsistent(head(honest, 0), head(honest, 3), tilesOf(honest));
    await checkConsistent(head(honest, 256), head(honest, 256), tilesOf(honest));
  });
  it('catches a fork: a history that rewrote an entry the client has seen', async () => {
    const forked = [...honest];
    forked[5] = leafHash(new TextEncoder().encode('a different artifact'));
    const err = await checkConsistent(head(honest, 10), head(forked, 300), tilesOf(forked)).catch((e) => e);
    expect(err).toMatchObject({ code: 'E_LOG_INCONSISTENT' });
    expect(err.message).toMatch(/forked/);
    expect(err.message).toContain(bytesToHex(head(honest, 10).rootHash));
    expect(err.message).toContain(bytesToHex(head(forked, 300).rootHash));
    await expect(checkConsistent(head(honest, 10), head(forked, 10), tilesOf(forked))).rejects.toThrow(/two different trees of size 10/);
  });
  it('catches a rollback to an older tree', async () => {
    await expect(checkConsistent(head(honest, 20), head(honest, 19), tilesOf(honest))).rejects.toThrow(/older tree \(size 19 after 20\)/);
  });
  it('judges freshness from the newest signed timestamp', () => {
    expect(checkpointFreshness(1000, 1000 + 3600, 86400)).toEqual({ age: 3600, stale: false });
    expect(checkpointFreshness(1000, 1000 + 86401, 86400)).toEqual({ age: 86401, stale: true });
    expect(checkpointFreshness(undefined, 5, 86400).stale).toBe(true);
    expect(EMPTY_TREE_HASH.length).toBe(32);
  });
});
