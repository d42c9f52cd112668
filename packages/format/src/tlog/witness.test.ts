import { describe, expect, it } from 'vitest';
import { ed25519PublicKey } from '../ed25519.js';
import { formatCheckpoint, openCheckpoint, signCheckpoint } from './checkpoint.js';
import { consistencyProof, leafHash, memoryReader, treeHash } from './merkle.js';
import { SIG_COSIGNATURE_V1, verifierOf } from './note.js';
import { formatAddCheckpoint, parseAddCheckpoint, witnessAddCheckpoint, type WitnessTree } from './witness.js';

describe('the add-checkpoint witness (c2sp.org/tlog-witness)', () => {
  const origin = 'registry.example/log';
  const seed = new Uint8Array(32).fill(1);
  const logs = new Map([[origin, ed25519PublicKey(seed)]]);
  const signer = { name: 'witness.example/w', type: SIG_COSIGNATURE_V1, seed: new Uint8Array(32).fill(2) };
  const leaves = Array.from({ length: 50 }, (_, i) => leafHash(new Uint8Array([i])));
  const read = memoryReader(leaves);
  const cp = (n: number, ts = 10) => signCheckpoint({ origin, size: n, rootHash: treeHash(n, read), extensions: [] }, seed, ts);
  const state = new Map<string, WitnessTree>();
  const submit = (old: number, n: number, proof = consistencyProof(old, n, read), note = cp(n)) =>
    witnessAddCheckpoint(formatAddCheckpoint({ oldSize: old, proof, checkpoint: note }), { logs, last: (o) => state.get(o) ?? null, signer, now: 1234 });

  it('cosigns a first checkpoint, then only consistent extensions of it', async () => {
    const a = await submit(0, 10);
    expect(a.status).toBe(200);
    state.set(origin, a.next!);
    const withCosig = cp(10) + a.body;
    const opened = await openCheckpoint(withCosig, { origin, logKey: logs.get(origin)!, witnesses: [verifierOf(signer)] });
    expect(opened.witnessed).toEqual(['witness.example/w']);
    expect(opened.timestamp).toBe(1234);

    const b = await submit(10, 30);
    expect(b.status).toBe(200);
    state.set(origin, b.next!);
    expect(state.get(origin)!.size).toBe(30);
  });
  it('answers the statuses the spec names', async () => {
    state.set(origin, { size: 30, rootHash: treeHash(30, read) });
    expect(await submit(10, 40)).toMatchObject({ status: 409, body: '30\n', contentType: 'text/x.tlog.size' });
    expect((await submit(30, 40, [leaves[0]!])).status).toBe(422);
    expect((await submit(40, 30, [])).status).toBe(400);
    const forked = signCheckpoint({ origin, size: 40, rootHash: leafHash(new Uint8Array([99])), extensions: [] }, seed, 1);
    expect((await submit(30, 40, consistencyProof(30, 40, read), forked)).status).toBe(422);
    const otherKey = signCheckpoint({ origin, size: 40, rootHash: treeHash(40, read), extensions: [] }, new Uint8Array(32).fill(8), 1);
    expect((await submit(30, 40, consistencyProof(30, 40, read), otherKey)).status).toBe(403);
    const unknown = signCheckpoint({ origin: 'other.example/log', size: 40, rootHash: treeHash(40, read), extensions: [] }, seed, 1);
    expect((await submit(30, 40, consistencyProof(30, 40, read), unknown)).status).toBe(404);
    expect((await witnessAddCheckpoint('garbage', { logs, last: () => null, signer, now: 1 })).status).toBe(400);
    expect(state.get(origin)!.size).toBe(30);
  });
  it('round-trips the request body', () => {
    const body = formatAddCheckpoint({ oldSize: 3, proof: consistencyProof(3, 7, read), checkpoint: cp(7) });
    const back = parseAddCheckpoint(body);
    expect(back.oldSize).toBe(3);
    expect(back.proof).toEqual(consistencyProof(3, 7, read));
    expect(back.checkpoint).toBe(cp(7));
    expect(formatCheckpoint({ origin, size: 7, rootHash: treeHash(7, read), extensions: [] })).toBe(cp(7).split('\n\n')[0] + '\n');
  });
});
