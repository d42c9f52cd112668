/**
 * Merkle tree hashing and proofs of RFC 6962 §2.1 / RFC 9162 §2.1 (SHA-256), as used by
 * C2SP tlog-checkpoint and tlog-tiles.
 *
 * - leaf hash `SHA-256(0x00 ‖ entry)`, interior node `SHA-256(0x01 ‖ left ‖ right)`, the empty
 *   tree's hash `SHA-256("")`;
 * - proofs are *generated* over a `SubtreeReader` — the hash of any complete subtree
 *   (`level`, `index`) covering leaves `[index·2^level, (index+1)·2^level)` — so the same code
 *   serves a registry reading its stored hashes, a client reading tiles and a test holding an
 *   array of leaves;
 * - proofs are *verified* with the algorithms of RFC 9162 §2.1.3.2 (inclusion) and §2.1.4.2
 *   (consistency), written with arithmetic instead of bit operations so that every tree size up
 *   to 2^53 − 1 is handled exactly.
 *
 * Hashes are 32-byte `Uint8Array`s; sizes and indexes are non-negative safe integers.
 */
import { CtxpkgError } from '../errors.js';
import { sha256Bytes } from '../hash.js';
import { bytesToHex as hex } from '../hex.js';

/** Bytes in one hash (SHA-256). */
export const HASH_SIZE = 32;

const LEAF_PREFIX = new Uint8Array([0]);
const NODE_PREFIX = new Uint8Array([1]);

/** The root hash of the empty tree: SHA-256 of the empty string (RFC 6962 §2.1). */
export const EMPTY_TREE_HASH: Uint8Array = sha256Bytes();

/** RFC 6962 leaf hash of one log entry: `SHA-256(0x00 ‖ entry)`. */
export function leafHash(entry: Uint8Array): Uint8Array {
  return sha256Bytes(LEAF_PREFIX, entry);
}

/** RFC 6962 interior node hash: `SHA-256(0x01 ‖ left ‖ right)`. */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256Bytes(NODE_PREFIX, left, right);
}

/**
 * The hash of the complete subtree at `level` (0 = leaves) and `index`: the tree over leaves
 * `[index·2^level, (index+1)·2^level)`. A reader must only be asked for subtrees that are complete
 * in the tree it serves; it may throw (any error propagates).
 */
export type SubtreeReader = (level: number, index: number) => Uint8Array;

/** True when `n` is a non-negative safe integer. */
function isCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

function usage(message: string): CtxpkgError {
  return new CtxpkgError('E_USAGE', message);
}

/** The largest power of two strictly below `n` (n ≥ 2), as RFC 6962 §2.1 splits a tree. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** log2 of a power of two `p` (exact for p ≤ 2^53). */
function log2(p: number): number {
  let l = 0;
  while (p > 1) {
    p /= 2;
    l++;
  }
  return l;
}

/**
 * MTH(D[start:end]) for a range that RFC 6962's recursion produces (start a multiple of the
 * smallest power of two ≥ end − start, end > start): the complete subtrees of the range, largest
 * first, hashed from the right.
 */
export function rangeHash(start: number, end: number, read: SubtreeReader): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = start;
  let left = end - start;
  // Powers of two in `left`, descending; each one is an aligned complete subtree at `at`.
  let p = 1;
  while (p * 2 <= left) p *= 2;
  for (; p >= 1 && left > 0; p /= 2) {
    if (p <= left) {
      const level = log2(p);
      parts.push(read(level, at / p));
      at += p;
      left -= p;
    }
  }
  let h = parts[parts.length - 1]!;
  for (let i = parts.length - 2; i >= 0; i--) h = nodeHash(parts[i]!, h);
  return h;
}

/** The root hash of the tree of `size` leaves (`EMPTY_TREE_HASH` for 0). Throws `E_USAGE` for a bad size. */
export function treeHash(size: number, read: SubtreeReader): Uint8Array {
  if (!isCount(size)) throw usage(`tree size must be a non-negative safe integer, got ${String(size)}`);
  return size === 0 ? EMPTY_TREE_HASH : rangeHash(0, size, read);
}

/**
 * The inclusion proof of leaf `index` in the tree of `size` leaves (RFC 6962 §2.1.1 PATH): the
 * sibling hashes from the leaf upwards, `⌈log2 size⌉` hashes at most. Throws `E_USAGE` when
 * `index ≥ size`.
 */
export function inclusionProof(index: number, size: number, read: SubtreeReader): Uint8Array[] {
  if (!isCount(index) || !isCount(size) || index >= size) {
    throw usage(`no inclusion proof for leaf ${String(index)} in a tree of size ${String(size)}`);
  }
  const out: Uint8Array[] = [];
  const path = (a: number, b: number): void => {
    if (b - a === 1) return;
    const k = splitPoint(b - a);
    if (index < a + k) {
      path(a, a + k);
      out.push(rangeHash(a + k, b, read));
    } else {
      path(a + k, b);
      out.push(rangeHash(a, a + k, read));
    }
  };
  path(0, size);
  return out;
}

/**
 * The consistency proof from the tree of `oldSize` leaves to the tree of `newSize` leaves
 * (RFC 6962 §2.1.2 PROOF / SUBPROOF). Empty when `oldSize` is 0 or equals `newSize`. Throws
 * `E_USAGE` when `oldSize > newSize`.
 */
export function consistencyProof(oldSize: number, newSize: number, read: SubtreeReader): Uint8Array[] {
  if (!isCount(oldSize) || !isCount(newSize) || oldSize > newSize) {
    throw usage(`no consistency proof from tree size ${String(oldSize)} to ${String(newSize)}`);
  }
  const out: Uint8Array[] = [];
  if (oldSize === 0 || oldSize === newSize) return out;
  const sub = (m: number, a: number, b: number, complete: boolean): void => {
    if (m === b - a) {
      if (!complete) out.push(rangeHash(a, b, read));
      return;
    }
    const k = splitPoint(b - a);
    if (m <= k) {
      sub(m, a, a + k, complete);
      out.push(rangeHash(a + k, b, read));
    } else {
      sub(m - k, a + k, b, false);
      out.push(rangeHash(a, a + k, read));
    }
  };
  sub(oldSize, 0, newSize, true);
  return out;
}

/**
 * The complete-subtree hashes that appending leaf `index` (with hash `leaf`) to a tree of
 * `index` leaves creates: the leaf itself at level 0, then each parent the new leaf completes
 * (read from `read` for the left siblings). A registry stores them so every later proof is a few
 * reads. On average two hashes per leaf.
 */
export function appendedSubtrees(index: number, leaf: Uint8Array, read: SubtreeReader): Array<{ level: number; index: number; hash: Uint8Array }> {
  if (!isCount(index)) throw usage(`leaf index must be a non-negative safe integer, got ${String(index)}`);
  const out = [{ level: 0, index, hash: leaf }];
  let level = 0;
  let i = index;
  let h = leaf;
  while (i % 2 === 1) {
    h = nodeHash(read(level, i - 1), h);
    level++;
    i = (i - 1) / 2;
    out.push({ level, index: i, hash: h });
  }
  return out;
}

/** One complete subtree: its level (0 = a leaf), index at that level, and hash. */
export interface StoredSubtree {
  level: number;
  index: number;
  hash: Uint8Array;
}

/**
 * The complete subtrees a tree of `size` leaves decomposes into, left to right (the largest
 * first): one per 1-bit of `size`. Their hashes — the tree's *frontier* — are all an append needs.
 */
export function frontierNodes(size: number): Array<{ level: number; index: number }> {
  if (!isCount(size)) throw usage(`tree size must be a non-negative safe integer, got ${String(size)}`);
  const out: Array<{ level: number; index: number }> = [];
  let at = 0;
  let p = 1;
  while (p * 2 <= size) p *= 2;
  for (; p >= 1; p /= 2) {
    if (at + p <= size) {
      out.push({ level: log2(p), index: at / p });
      at += p;
    }
  }
  return out;
}

/**
 * Append `leaves` (leaf hashes) to the tree of `size` leaves whose frontier hashes (in
 * `frontierNodes(size)` order) are `frontier`. Returns every complete subtree the append creates
 * (to store: each leaf, then each parent it completes), the new frontier and the new root.
 * Throws `E_USAGE` when `frontier` does not have one hash per 1-bit of `size`.
 */
export function appendLeaves(
  size: number,
  frontier: readonly Uint8Array[],
  leaves: readonly Uint8Array[],
): { stored: StoredSubtree[]; size: number; frontier: Uint8Array[]; root: Uint8Array } {
  const nodes = frontierNodes(size);
  if (nodes.length !== frontier.length) throw usage(`a tree of size ${size} has ${nodes.length} frontier hashes, got ${frontier.length}`);
  const stack: StoredSubtree[] = nodes.map((n, i) => ({ ...n, hash: frontier[i]! }));
  const stored: StoredSubtree[] = [];
  let n = size;
  for (const leaf of leaves) {
    let top: StoredSubtree = { level: 0, index: n, hash: leaf };
    stored.push(top);
    while (stack.length > 0 && stack[stack.length - 1]!.level === top.level) {
      const left = stack.pop()!;
      top = { level: top.level + 1, index: left.index / 2, hash: nodeHash(left.hash, top.hash) };
      stored.push(top);
    }
    stack.push(top);
    n++;
  }
  let root = EMPTY_TREE_HASH;
  if (stack.length > 0) {
    root = stack[stack.length - 1]!.hash;
    for (let i = stack.length - 2; i >= 0; i--) root = nodeHash(stack[i]!.hash, root);
  }
  return { stored, size: n, frontier: stack.map((s) => s.hash), root };
}

/**
 * A `SubtreeReader` over an in-memory list of leaf hashes (complete subtrees memoized). For
 * tests, tools and small logs; a registry reads stored hashes instead.
 */
export function memoryReader(leaves: readonly Uint8Array[]): SubtreeReader {
  const memo = new Map<string, Uint8Array>();
  const read: SubtreeReader = (level, index) => {
    const width = 2 ** level;
    if ((index + 1) * width > leaves.length) throw usage(`subtree ${level}/${index} is not complete in a tree of ${leaves.length} leaves`);
    if (level === 0) return leaves[index]!;
    const key = `${level}/${index}`;
    let h = memo.get(key);
    if (!h) {
      h = nodeHash(read(level - 1, index * 2), read(level - 1, index * 2 + 1));
      memo.set(key, h);
    }
    return h;
  };
  return read;
}

function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== HASH_SIZE || b.length !== HASH_SIZE) return false;
  let d = 0;
  for (let i = 0; i < HASH_SIZE; i++) d |= a[i]! ^ b[i]!;
  return d === 0;
}

/** True when `a` and `b` are the same 32-byte hash. */
export function hashesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return sameHash(a, b);
}

function proofError(message: string, details?: Record<string, unknown>): CtxpkgError {
  return new CtxpkgError('E_LOG_PROOF', message, details ? { details } : {});
}

/**
 * The root hash that an inclusion proof yields for `leaf` at `index` in a tree of `size`
 * (RFC 9162 §2.1.3.2 steps 1–4). Throws `E_LOG_PROOF` when the proof has the wrong shape
 * (too short, too long, a hash that is not 32 bytes, `index ≥ size`).
 */
export function rootFromInclusionProof(index: number, size: number, leaf: Uint8Array, proof: readonly Uint8Array[]): Uint8Array {
  if (!isCount(index) || !isCount(size) || index >= size) throw proofError(`leaf index ${String(index)} is outside a tree of size ${String(size)}`);
  if (leaf.length !== HASH_SIZE || proof.some((p) => p.length !== HASH_SIZE)) throw proofError('inclusion proof hashes must be 32 bytes');
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) throw proofError('inclusion proof is too long');
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn /= 2;
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) throw proofError('inclusion proof is too short');
  return r;
}

/**
 * Verify that `leaf` is leaf `index` of the tree of `size` whose root is `root`
 * (RFC 9162 §2.1.3.2). Throws `E_LOG_PROOF` (with `details.expected`/`found` root hex) when not.
 */
export function verifyInclusion(index: number, size: number, leaf: Uint8Array, proof: readonly Uint8Array[], root: Uint8Array): void {
  const got = rootFromInclusionProof(index, size, leaf, proof);
  if (!sameHash(got, root)) {
    throw proofError(`inclusion proof of leaf ${index} does not lead to the root of tree size ${size}`, {
      expected: hex(root),
      found: hex(got),
    });
  }
}

/**
 * Verify that the tree of `oldSize` leaves with root `oldRoot` is a prefix of the tree of
 * `newSize` leaves with root `newRoot` (RFC 9162 §2.1.4.2, plus its trivial cases: an empty old
 * tree is consistent with anything and needs an empty proof; equal sizes need equal roots and an
 * empty proof). Throws `E_LOG_PROOF` when not (also for `oldSize > newSize`).
 */
export function verifyConsistency(oldSize: number, newSize: number, oldRoot: Uint8Array, newRoot: Uint8Array, proof: readonly Uint8Array[]): void {
  if (!isCount(oldSize) || !isCount(newSize) || oldSize > newSize) throw proofError(`tree size ${String(oldSize)} cannot be a prefix of tree size ${String(newSize)}`);
  if (proof.some((p) => p.length !== HASH_SIZE)) throw proofError('consistency proof hashes must be 32 bytes');
  if (oldSize === 0) {
    if (proof.length !== 0) throw proofError('a consistency proof from the empty tree must be empty');
    return;
  }
  if (oldSize === newSize) {
    if (proof.length !== 0) throw proofError('a consistency proof between equal tree sizes must be empty');
    if (!sameHash(oldRoot, newRoot)) throw proofError(`two different roots for tree size ${oldSize}`, { expected: hex(oldRoot), found: hex(newRoot) });
    return;
  }
  if (proof.length === 0) throw proofError('consistency proof is empty');
  // Step 2: when oldSize is a power of two, the old root itself starts the path.
  let path = proof;
  let isPow2 = oldSize;
  while (isPow2 % 2 === 0) isPow2 /= 2;
  if (isPow2 === 1) path = [oldRoot, ...proof];
  let fn = oldSize - 1;
  let sn = newSize - 1;
  while (fn % 2 === 1) {
    fn = (fn - 1) / 2;
    sn = Math.floor(sn / 2);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (let i = 1; i < path.length; i++) {
    const c = path[i]!;
    if (sn === 0) throw proofError('consistency proof is too long');
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn /= 2;
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) throw proofError('consistency proof is too short');
  if (!sameHash(fr, oldRoot)) throw proofError(`consistency proof does not lead to the root of tree size ${oldSize}`, { expected: hex(oldRoot), found: hex(fr) });
  if (!sameHash(sr, newRoot)) throw proofError(`consistency proof does not lead to the root of tree size ${newSize}`, { expected: hex(newRoot), found: hex(sr) });
}
