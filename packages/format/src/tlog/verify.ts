/**
 * What a client checks against a registry's log (spec/transparency.md §5), as pure functions over
 * injected tile fetchers: that a new checkpoint extends the one it saw before (no fork, no
 * rollback), that it is fresh enough (no freeze), and that an entry is in a checkpoint's tree.
 */
import { CtxpkgError } from '../errors.js';
import { bytesToHex } from '../hex.js';
import { describeCheckpoint, type Checkpoint } from './checkpoint.js';
import { consistencyProof, leafHash, verifyConsistency, verifyInclusion } from './merkle.js';
import { computeFromTiles, type TileFetcher } from './tiles.js';

/** A checkpoint as a client stores it: the tree head and, when known, the signed note. */
export type SeenCheckpoint = Pick<Checkpoint, 'origin' | 'size' | 'rootHash'> & { note?: string };

function both(prev: SeenCheckpoint, next: SeenCheckpoint): Record<string, unknown> {
  return {
    previous: { origin: prev.origin, size: prev.size, root: bytesToHex(prev.rootHash), ...(prev.note ? { note: prev.note } : {}) },
    received: { origin: next.origin, size: next.size, root: bytesToHex(next.rootHash), ...(next.note ? { note: next.note } : {}) },
  };
}

function inconsistent(what: string, prev: SeenCheckpoint, next: SeenCheckpoint, cause?: unknown): CtxpkgError {
  return new CtxpkgError(
    'E_LOG_INCONSISTENT',
    `${what}\n  seen before: ${describeCheckpoint(prev)}\n  now served:  ${describeCheckpoint(next)}` +
      (prev.note ? `\n--- checkpoint seen before ---\n${prev.note}` : '') +
      (next.note ? `\n--- checkpoint now served ---\n${next.note}` : ''),
    {
      hint: 'the registry showed you a history that contradicts one it showed you before: do not install from it; keep both checkpoints as evidence and tell its operator',
      details: both(prev, next),
      ...(cause !== undefined ? { cause } : {}),
    },
  );
}

/**
 * Check that `next` (a verified checkpoint) extends `prev` (the last one this client accepted for
 * the same log): a larger tree needs a consistency proof, computed from the log's tiles at
 * `next.size` and verified against both roots; the same size needs the same root; a smaller tree is
 * a rollback. Throws `E_LOG_INCONSISTENT` (message and details carry both checkpoints) for a fork or
 * a rollback; a tile that cannot be fetched propagates its own error.
 */
export async function checkConsistent(prev: SeenCheckpoint, next: SeenCheckpoint, fetchTile: TileFetcher): Promise<void> {
  if (prev.origin !== next.origin) throw inconsistent('the log changed its origin', prev, next);
  if (next.size < prev.size) throw inconsistent(`the registry served an older tree (size ${next.size} after ${prev.size}): a rollback`, prev, next);
  if (next.size === prev.size) {
    if (bytesToHex(next.rootHash) !== bytesToHex(prev.rootHash)) throw inconsistent(`two different trees of size ${next.size}: the log forked`, prev, next);
    return;
  }
  if (prev.size === 0) return;
  const proof = await computeFromTiles(next.size, fetchTile, (read) => consistencyProof(prev.size, next.size, read));
  try {
    verifyConsistency(prev.size, next.size, prev.rootHash, next.rootHash, proof);
  } catch (e) {
    throw inconsistent(`the tree of size ${next.size} does not extend the tree of size ${prev.size}: the log forked`, prev, next, e);
  }
}

/** How old a checkpoint is and whether that is more than allowed. */
export interface CheckpointFreshness {
  /** Seconds between the checkpoint's newest signed timestamp and `now` (negative: from the future). */
  age: number | null;
  stale: boolean;
}

/**
 * Freshness of a checkpoint whose newest verified timestamp is `timestamp` (POSIX seconds), at
 * `now` (POSIX seconds), against `maxAge` seconds. A checkpoint without a timestamp is stale.
 */
export function checkpointFreshness(timestamp: number | undefined, now: number, maxAge: number): CheckpointFreshness {
  if (timestamp === undefined) return { age: null, stale: true };
  const age = now - timestamp;
  return { age, stale: age > maxAge };
}

/**
 * Verify that `entry` (the exact entry bytes) is leaf `index` of the tree of checkpoint `cp`, with
 * an inclusion proof. Throws `E_LOG_PROOF` when it is not.
 */
export function verifyEntryInclusion(entry: Uint8Array, index: number, proof: readonly Uint8Array[], cp: Pick<Checkpoint, 'size' | 'rootHash'>): void {
  verifyInclusion(index, cp.size, leafHash(entry), proof, cp.rootHash);
}
