/**
 * Candidates in the total order, produced on demand (spec/pack.md §4–§5). A pack of a few KiB
 * takes a few hundred of tens of thousands of candidates, so the compiler does not sort them all:
 * each section's candidates sit in a binary heap (built in O(n)), and `at(k)` pops them into a
 * sorted prefix only as far as the selection looks — O(n + k log n) instead of O(n log n), and
 * the comparator runs on numbers in typed arrays, not on per-candidate objects. A sequence also
 * lists its handles (`members`), so the selection can walk only those whose lower bound may fit
 * (select.ts "Bounded walk") without building the heap at all.
 *
 * Handles are indices into the `CandidateKeys` arrays. The order is the total order of
 * `order.ts` (`compareKeys`): pinned, focus, priority, force, size class, type rank, activation, position
 * in its file, package, id.
 */
import type { MergedNode } from '../graph-types.js';
import { leastMinBound, unionMembers, type OrderedSequence } from './select.js';

/** Order keys of the candidates, one slot per handle. */
export interface CandidateKeys {
  nodes: readonly MergedNode[];
  pinned: Uint8Array;
  focus: Float64Array;
  priority: Float64Array;
  /** Force of the text (`forceOf`, order key 3b). */
  force: Uint8Array;
  /** 1 for an oversize item (`isOversize`). */
  big: Uint8Array;
  rank: Int32Array;
  activation: Float64Array;
  /** Position among the candidates of its source file (`order.ts` key 7). */
  pos: Int32Array;
  /**
   * `packedKey(pinned, force, big, rank)` of each handle, set by a caller whose focus scores and
   * priorities are all 0 (then `handleComparator` compares it); absent otherwise.
   */
  packed?: Float64Array;
}

/** Allocate keys for `n` candidates (filled by the caller). */
export function candidateKeys(nodes: readonly MergedNode[]): CandidateKeys {
  const n = nodes.length;
  return { nodes, pinned: new Uint8Array(n), focus: new Float64Array(n), priority: new Float64Array(n), force: new Uint8Array(n), big: new Uint8Array(n), rank: new Int32Array(n), activation: new Float64Array(n), pos: new Int32Array(n) };
}

/**
 * Order keys 1, 3b, 4 and 5 (pinned, force, size class, type rank) as one number whose ascending
 * order is theirs in turn: `(1 − pinned)·2^42 + (255 − force)·2^33 + big·2^32 + (rank + 2^31)`
 * (`force` 0 … 255, `rank` a 32-bit integer: exact, below 2^43).
 */
export function packedKey(pinned: number, force: number, big: number, rank: number): number {
  return (pinned ? 0 : 4398046511104) + (255 - force) * 8589934592 + (big ? 4294967296 : 0) + (rank + 2147483648);
}

/**
 * The total-order comparator over handles (negative: `a` first; only the sign means anything);
 * equal only for `a === b` (ids are unique). Reads `k` as it is when called: fill the keys first.
 *
 * With `k.packed` (the caller's promise: every focus score and priority is 0 — no `--focus`, no
 * policy `priorities`, the usual render — and `packed[h]` is `packedKey` of the handle's keys)
 * it compares that one number, then activation, position, package and id as
 * `handleComparatorGeneric` does: the same sign for every pair (property test in
 * lazy-order.test.ts), with one array read per handle instead of up to seven for most pairs
 * (the selection's heaps compare ~300k pairs of a 50k-node graph).
 */
export function handleComparator(k: CandidateKeys): (a: number, b: number) => number {
  const packed = k.packed;
  if (packed === undefined) return handleComparatorGeneric(k);
  const rest = lastKeys(k);
  return (a, b) => {
    const ca = packed[a] as number;
    const cb = packed[b] as number;
    if (ca !== cb) return ca - cb;
    return rest(a, b);
  };
}

/** The keys after the type rank, shared by both comparators: activation (higher first), position in the file, package, id. */
function lastKeys(k: CandidateKeys): (a: number, b: number) => number {
  const { nodes, activation, pos } = k;
  return (a, b) => {
    const aa = activation[a] as number;
    const ab = activation[b] as number;
    if (aa !== ab) return ab - aa;
    const la = pos[a] as number;
    const lb = pos[b] as number;
    if (la !== lb) return la - lb;
    const na = nodes[a] as MergedNode;
    const nb = nodes[b] as MergedNode;
    if (na.package !== nb.package) return na.package < nb.package ? -1 : 1;
    return na.id < nb.id ? -1 : na.id > nb.id ? 1 : 0;
  };
}

/** `handleComparator` without its packed keys: every key read in turn (any focus scores and priorities). */
export function handleComparatorGeneric(k: CandidateKeys): (a: number, b: number) => number {
  const { pinned, focus, priority, force, big, rank } = k;
  const rest = lastKeys(k);
  return (a, b) => {
    if (pinned[a] !== pinned[b]) return pinned[a] ? -1 : 1;
    const fa = focus[a] as number;
    const fb = focus[b] as number;
    if (fa !== fb) return fb - fa;
    const pa = priority[a] as number;
    const pb = priority[b] as number;
    if (pa !== pb) return pb - pa;
    if (force[a] !== force[b]) return (force[b] as number) - (force[a] as number);
    if (big[a] !== big[b]) return big[a] ? 1 : -1;
    const ra = rank[a] as number;
    const rb = rank[b] as number;
    if (ra !== rb) return ra - rb;
    return rest(a, b);
  };
}

/** A sequence of handles in the total order, materialized lazily. */
export class LazyOrder implements OrderedSequence {
  /** The handles as given (`OrderedSequence.members`; never modified). */
  readonly members: readonly Int32Array[];
  private heap: Int32Array;
  private size: number;
  private readonly sorted: number[] = [];
  /** Whether the heap is built (on the first `at`: a sequence never read costs no comparisons). */
  private built = false;

  /**
   * `handles` is kept as the sequence's `members` and not modified (the heap is a copy, made on
   * the first `at`: a selection that walks the members by bound never builds it). `minBound`: a
   * lower bound of the selection's `lowerBoundAt` over these handles, if the caller knows one
   * (`OrderedSequence.minBound`).
   */
  constructor(
    handles: Int32Array,
    private readonly cmp: (a: number, b: number) => number,
    readonly minBound?: number,
  ) {
    this.members = [handles];
    this.heap = handles;
    this.size = handles.length;
  }

  /** Number of handles in the sequence. */
  get length(): number {
    return this.sorted.length + this.size;
  }

  /** How many handles are materialized (positions `0 … materialized-1` are final). */
  get materialized(): number {
    return this.sorted.length;
  }

  /** The handle at position `k` of the order, or -1 past the end. */
  at(k: number): number {
    if (!this.built) {
      this.built = true;
      this.heap = this.heap.slice();
      for (let i = (this.size >> 1) - 1; i >= 0; i--) this.down(i);
    }
    while (this.sorted.length <= k && this.size > 0) this.sorted.push(this.pop());
    return k < this.sorted.length ? (this.sorted[k] as number) : -1;
  }

  private pop(): number {
    const h = this.heap;
    const top = h[0] as number;
    this.size--;
    if (this.size > 0) {
      h[0] = h[this.size] as number;
      this.down(0);
    }
    return top;
  }

  private down(i: number): void {
    const h = this.heap;
    const n = this.size;
    const x = h[i] as number;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.cmp(h[r] as number, h[l] as number) < 0 ? r : l;
      if (this.cmp(h[c] as number, x) >= 0) break;
      h[i] = h[c] as number;
      i = c;
    }
    h[i] = x;
  }
}

/**
 * The union of disjoint sequences in the same total order, merged on demand: `at(k)` takes the
 * smallest of the parts' next handles (the comparator is total, so the result is the order of
 * the union — what a `LazyOrder` over all their handles would give, without a heap of its own).
 * The parts' next handles sit in a binary heap, so a read costs O(log parts) comparisons (a
 * section's sequence merges one part per package).
 */
export class MergedOrder implements OrderedSequence {
  readonly length: number;
  /** The smallest of the parts' `minBound`s (undefined when a part has none). */
  readonly minBound?: number;
  /** The parts' members (undefined when a part lists none). */
  readonly members?: readonly Int32Array[];
  /** Next position to read in each part. */
  private readonly cursor: Int32Array;
  /** Each part's next handle (-1: exhausted). */
  private readonly head: Int32Array;
  /** Indices of the parts with a next handle, a min-heap by that handle. */
  private readonly heap: Int32Array;
  private size = 0;
  private started = false;
  private readonly sorted: number[] = [];

  constructor(
    private readonly parts: readonly OrderedSequence[],
    private readonly cmp: (a: number, b: number) => number,
  ) {
    let n = 0;
    for (const p of parts) n += p.length;
    const bound = leastMinBound(parts);
    this.length = n;
    if (bound !== undefined) this.minBound = bound;
    const members = unionMembers(parts);
    if (members !== undefined) this.members = members;
    this.cursor = new Int32Array(parts.length);
    this.head = new Int32Array(parts.length);
    this.heap = new Int32Array(parts.length);
  }

  /** The handle at position `k` of the order, or -1 past the end. */
  at(k: number): number {
    if (!this.started) {
      // Read the parts' first handles only when the merge is first read.
      this.started = true;
      for (let i = 0; i < this.parts.length; i++) {
        const h = (this.parts[i] as OrderedSequence).at(0);
        this.head[i] = h;
        if (h >= 0) this.heap[this.size++] = i;
      }
      for (let i = (this.size >> 1) - 1; i >= 0; i--) this.down(i);
    }
    while (this.sorted.length <= k && this.size > 0) {
      const i = this.heap[0] as number;
      this.sorted.push(this.head[i] as number);
      const next = (this.parts[i] as OrderedSequence).at(++this.cursor[i]);
      this.head[i] = next;
      if (next < 0) {
        this.size--;
        if (this.size > 0) this.heap[0] = this.heap[this.size] as number;
      }
      if (this.size > 0) this.down(0);
    }
    return k < this.sorted.length ? (this.sorted[k] as number) : -1;
  }

  private down(at: number): void {
    const heap = this.heap;
    const head = this.head;
    const n = this.size;
    const x = heap[at] as number;
    let i = at;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.cmp(head[heap[r] as number] as number, head[heap[l] as number] as number) < 0 ? r : l;
      if (this.cmp(head[heap[c] as number] as number, head[x] as number) >= 0) break;
      heap[i] = heap[c] as number;
      i = c;
    }
    heap[i] = x;
  }
}
