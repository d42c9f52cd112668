/**
 * Choosing which candidates fit the byte budget (spec/pack.md "Budget"). Exact: every size is
 * the UTF-8 byte count of the piece the renderer will emit.
 *
 * size(selection) = frame(nb) + Σ header bytes of the distinct groups the selected candidates
 *                   belong to + Σ block sizes + separator · (blocks − 1)
 * where a group is whatever the renderer writes once before the first of its members (Markdown:
 * the package, source file and heading headers; render.ts), and `nb` is the number of
 * non-pinned candidates left out (shown in the frame's omission summary; the frame never grows
 * when `nb` shrinks). Taking a candidate costs its block, the separator, and the headers of its
 * groups not yet opened.
 *
 * 1. Pinned candidates are all taken. If `size(pinned only)` exceeds the budget the compiler
 *    refuses with `E_BUDGET` — a pack is never emitted without a pinned node.
 * 1b. Focus pass (only with `--focus`): the candidates the focus names (`focused`: scoped to the
 *    focus path, or matching the focus words), in the total order, are taken while they fit —
 *    before any section share, so a focus is never crowded out by the shares of unrelated
 *    sections or by the group headers it has to open.
 * 1c. Package pass (only with two or more packages): the remaining bytes are shared across the
 *    packages by water-filling on their needs (`packages.need`: the sum of their candidates'
 *    lower bounds and group headers; `waterFill`) — a package needing less than an equal share
 *    gets all it needs, the rest is split equally among the others. Each package spends its share
 *    by the section split below (over its own candidates), then what is left of it on its
 *    candidates in the total order. So a small package never loses an item to a big one
 *    (new-user trial 2, finding 2); what a package cannot use goes to the passes below.
 *    Trusted packages first (`packages.trusted`, spec/pack.md §4 1c, §11 "Trust"): when some
 *    packages are the project's own instructions and some are not, the trusted ones share the
 *    bytes first, and the others share what they leave — so installing an untrusted package
 *    never takes bytes from the team's own rules while those still need them.
 * 2. Section pass: the bytes still left are split across the non-empty sections by weight
 *    (`splitBudget`: floor, then largest remainder, ties in section order). In each section, in
 *    the total order, a candidate is taken when its cost fits what is left of the section's
 *    share; otherwise it is skipped and the next one is tried.
 * 3. Pool pass: bytes left over anywhere are shared: all untaken candidates, in the total order,
 *    are taken while the exact size stays within the budget; repeated until nothing changes.
 * 4. Completion: when every candidate still untaken fits *together* — the frame's omission
 *    summary shrinks to "none" only once the last one is taken, so a pass that takes them one
 *    at a time can miss it — they are all taken. So a budget equal to the size of the full pack
 *    always delivers everything ("exact fit").
 * Greedy skip, never greedy stop: a candidate that does not fit never ends a pass — every later
 * (smaller) candidate is still considered. A pass ends only when it reaches the end of the order
 * or the bytes left (plus what the frame could still shrink) are fewer than `minBlockBytes`.
 * To keep large graphs cheap, a candidate whose *lower bound* (`lowerBoundAt`: computed from
 * field lengths, no rendering, no freshness check) already exceeds the bytes left is skipped
 * without being rendered; only candidates that may fit are rendered and measured exactly.
 *
 * Chains: a candidate with `after(h) ≥ 0` (the next list item of a node budgeted by its items,
 * or the next node of its heading section) is taken only after that one; so a list is delivered
 * from its lead-in on and a section from its top, in source order. A later list item of a node
 * (`continuation`) does not count in the frame's omission count: the node counts once.
 * Notes: a candidate may belong to a note (`noteAt`: the "k of N items here" line of its heading
 * section), written when some but not all of the note's members are taken; its bytes
 * (`noteBytes(key, k, N)`) are paid, grown and finally refunded as members are taken, so the
 * size stays exact.
 *
 * Candidates are handles; each section's non-pinned candidates come as a sequence in the total
 * order that may be produced lazily (`LazyOrder`), and the pool pass walks the total order by
 * merging the section sequences — so only the candidates a pass actually reaches are ordered,
 * and only those whose lower bound fits are rendered and measured.
 *
 * Early stop (exact): a pass over a sequence with a `minBound` stops reading it once the bytes it
 * may still spend are fewer than `minBound + separator + noteFloor`, where `noteFloor` (≤ 0) is
 * the smallest change of note bytes taking any candidate could make now (a note none of whose
 * members is taken costs `noteBytes(key, 1, N) ≥ 0` more; an open note changes by
 * `noteBytes(t + 1) − noteBytes(t)`, which is negative when it completes). Every later candidate
 * costs at least that much (its block ≥ its bound ≥ `minBound`, group headers ≥ 0), and nothing
 * changes while nothing is taken, so the rest of the pass would take nothing: stopping gives the
 * same selection as reading to the end (property test in select.test.ts).
 *
 * Bounded walk (exact): a sequence that lists its `members` (disjoint handle arrays, in any
 * order) is not read in full. Each pass reads only the members whose lower bound is at most
 * `room − separator − noteFloor` (the same floor as above) at the moment the walk reaches them,
 * in the total order: each member array is sorted once by bound (numbers, no comparator), a
 * member joins a small heap in the total order when the threshold first reaches its bound, and a
 * member that joins behind the walk's position (its bound fitted only after a take refunded note
 * bytes) is passed over, as the full walk passed it then. Every member left unread costs more
 * than the room at the point the full walk would have read it, and reading it changes nothing
 * (`costWithin` answers "does not fit" before any rendering), so the picks and their order are
 * those of the full walk (property tests in select.test.ts). A 32 KiB pack of the 50k-node bench
 * graph asks the cost of ~600 candidates instead of ~17k, and its order compares ~185k pairs
 * instead of ~327k (the heaps of the whole sequences are never built).
 */
import { CtxpkgError } from '../errors.js';
import { splitBudget } from './budget.js';
import { isRadixKey, RadixScratch, stableOrder } from './radix.js';
import { SECTIONS, type SectionName } from './types.js';

/** Handles of one section in the total order: `at(k)` is the k-th (-1 past the end). */
export interface OrderedSequence {
  readonly length: number;
  at(k: number): number;
  /**
   * A lower bound of `lowerBoundAt(h)` over every handle `h` of the sequence (optional): a pass
   * stops reading the sequence once a candidate of this size could not fit (see "Early stop").
   */
  readonly minBound?: number;
  /**
   * The sequence's handles as disjoint arrays in any order (optional; never modified): with
   * them a pass reads only the handles whose lower bound may fit (see "Bounded walk").
   */
  readonly members?: readonly Int32Array[];
}

/** The `members` of the union of `parts` (`undefined` when a part lists none). */
export function unionMembers(parts: readonly OrderedSequence[]): Int32Array[] | undefined {
  const out: Int32Array[] = [];
  for (const p of parts) {
    if (p.members === undefined) return undefined;
    for (const m of p.members) out.push(m);
  }
  return out;
}

/**
 * The least `minBound` of `parts` (`Infinity` when there are none; `undefined` when a part has
 * no bound): a bound of every handle of their union, for the early stop.
 */
export function leastMinBound(parts: readonly OrderedSequence[]): number | undefined {
  let bound: number | undefined = Number.POSITIVE_INFINITY;
  for (const p of parts) bound = bound === undefined || p.minBound === undefined ? undefined : Math.min(bound, p.minBound);
  return bound;
}

/** The candidates as handles `0 … count-1` (no per-candidate objects for large graphs). */
export interface SelectCandidates {
  count: number;
  /** The pinned candidates, in the total order. */
  pinned: readonly number[];
  /** Non-pinned candidates the focus names, in the total order (pass 1b; empty without a focus). */
  focused?: OrderedSequence;
  /** The non-pinned candidates of each section (`pinned` excluded), each in the total order. */
  sections: ReadonlyMap<SectionName, OrderedSequence>;
  /** The total order (negative: `a` first); merges the sections in the pool pass. */
  compare(a: number, b: number): number;
  sectionOf(h: number): SectionName;
  /**
   * The groups of `h`, outermost first: a key and the UTF-8 bytes of the group's header (written
   * once, before its first member). Called lazily, only for candidates whose bound fits.
   */
  groupsAt(h: number): ReadonlyArray<{ key: string; bytes: number }>;
  /** UTF-8 bytes of the rendered block (called lazily, at most once per candidate). */
  sizeAt(h: number): number;
  /**
   * A cheap lower bound of `sizeAt(h)` (no rendering; at most once per candidate). A candidate
   * whose bound does not fit is skipped unrendered. Default: `sizeAt`.
   */
  lowerBoundAt?(h: number): number;
  /** The candidate that must be taken before `h` (-1 or absent: none). */
  after?(h: number): number;
  /** True when `h` is a later list item of a node (taking it delivers no further node). */
  continuation?(h: number): boolean;
  /** The partial-delivery note `h` belongs to: its key and how many candidates it counts. */
  noteAt?(h: number): { key: string; members: number } | undefined;
  /** UTF-8 bytes of a note when `taken` of its `members` are taken (0 for none or all). */
  noteBytes?(key: string, taken: number, members: number): number;
  /** Packages (pass 1c), in package-name order. */
  packages?: {
    /** Non-pinned candidates of each package: by section, and all of them; each in the total order. */
    sequences: ReadonlyArray<{ bySection: ReadonlyMap<SectionName, OrderedSequence>; all: OrderedSequence }>;
    /** A lower bound of the bytes each package needs (sum of its candidates' lower bounds). */
    need: readonly number[];
    /** Which packages are trusted (the project's own instructions): they share the bytes first. Absent: none. */
    trusted?: readonly boolean[];
    /** The trusted packages' candidates merged, in the total order (given with `trusted`). */
    trustedAll?: OrderedSequence;
  };
}

/** Share of the bytes left after pins and focus that pass 1c spreads across packages: all of them. */
export const PACKAGE_FLOOR = { num: 1, den: 1 } as const;

/**
 * Water-filling: `pool` bytes across buckets of the given `need`s — each bucket gets at most its
 * need; ascending by need (ties in index order), each takes `min(need, floor(left / buckets
 * left))`. Integers; the shares sum to at most `pool`.
 */
export function waterFill(pool: number, need: readonly number[]): number[] {
  const order = need.map((_, i) => i).sort((a, b) => (need[a] as number) - (need[b] as number) || a - b);
  const share = new Array<number>(need.length).fill(0);
  let left = pool;
  order.forEach((i, k) => {
    const s = Math.min(need[i] as number, Math.floor(left / (order.length - k)));
    share[i] = s;
    left -= s;
  });
  return share;
}

export interface SelectOptions {
  maxBytes: number;
  separatorSize: number;
  /** Bytes of prefix + suffix when `nb` non-pinned candidates are left out. */
  frameSize: (nb: number) => number;
  weights: Readonly<Record<SectionName, number>>;
  /**
   * A lower bound of every block's size. Scanning stops once fewer bytes than this are left
   * (counting what the frame could still shrink), so large graphs render only what can fit.
   */
  minBlockBytes: number;
}

/** `costWithin`'s "does not fit" (a cost may be negative when it completes a note). */
const NO = Number.NEGATIVE_INFINITY;

let earlyStop = true;
/**
 * Turn the early stop (module docstring) off or on — for tests that compare the selection with
 * and without it. Returns the previous setting.
 */
export function setSelectEarlyStop(on: boolean): boolean {
  const was = earlyStop;
  earlyStop = on;
  return was;
}

let scanFrom = 0.5;
/**
 * The share of the members (0 … 1): when more than this share fits the threshold of a pass's
 * first read, the pass reads its sequence in order instead of a bounded walk (`reader` in
 * `selectWithinBudget`), until its threshold falls so far that this share no longer fits — each
 * walk would push nearly all of them into a heap again, where the sequences' orders are built
 * once (a corpus-shaped 50k graph: ~71k pushes and ~2.0M comparisons a render in its pool
 * passes; the bench graph's section pass pushed ~55k members to take 10). For tests, which set 0
 * (read in order when any member fits) and Infinity (always walk). Returns the previous setting.
 */
export function setWalkScanFrom(share: number): number {
  const was = scanFrom;
  scanFrom = share;
  return was;
}

let rebuildFrom = 64;
/**
 * The least heap size at which a bounded walk considers rebuilding its heap (`BoundedWalk`) —
 * for tests, which set it low so their small inputs rebuild too. Returns the previous setting.
 */
export function setWalkRebuildFrom(n: number): number {
  const was = rebuildFrom;
  rebuildFrom = n;
  return was;
}

/**
 * The smallest of a changing set of keyed numbers (the next-member deltas of the open notes): a
 * binary min-heap with lazy deletion — `set` pushes the key's new value, `min` drops entries
 * whose value is no longer current. O(log n) per change.
 */
class KeyedMin {
  private readonly current = new Map<string, number>();
  private readonly values: number[] = [];
  private readonly keys: string[] = [];

  set(key: string, value: number | undefined): void {
    if (value === undefined) {
      this.current.delete(key);
      return;
    }
    this.current.set(key, value);
    let i = this.values.length;
    this.values.push(value);
    this.keys.push(key);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if ((this.values[p] as number) <= value) break;
      this.values[i] = this.values[p] as number;
      this.keys[i] = this.keys[p] as string;
      i = p;
    }
    this.values[i] = value;
    this.keys[i] = key;
  }

  /** The smallest current value (`Infinity` when empty). */
  min(): number {
    for (;;) {
      if (this.values.length === 0) return Number.POSITIVE_INFINITY;
      const v = this.values[0] as number;
      if (this.current.get(this.keys[0] as string) === v) return v;
      this.pop();
    }
  }

  private pop(): void {
    const lastV = this.values.pop() as number;
    const lastK = this.keys.pop() as string;
    const n = this.values.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && (this.values[r] as number) < (this.values[l] as number) ? r : l;
      if ((this.values[c] as number) >= lastV) break;
      this.values[i] = this.values[c] as number;
      this.keys[i] = this.keys[c] as string;
      i = c;
    }
    this.values[i] = lastV;
    this.keys[i] = lastK;
  }
}

const EMPTY_HEAP = new Int32Array(0);

/** One member array sorted by lower bound: handles and their bounds, ascending. */
interface ByBound {
  handles: Int32Array;
  bounds: Float64Array;
}

/**
 * `handles` sorted by `bound` (ascending; equal bounds in array order): by `stableOrder` (radix.ts,
 * no comparator) when every bound is an integer in 0 … 2^31 − 1, else with a comparator. Was a
 * Float64Array of `bound · 2^21 + index` and its `sort()`: ~20 µs for 200 handles, ~250 arrays a
 * cold render of the bench graph. `scratch` holds the bounds and positions while sorting.
 */
function sortByBound(handles: Int32Array, bound: (h: number) => number, scratch: RadixScratch): ByBound {
  const n = handles.length;
  const b = scratch.numbers(n);
  let plain = true;
  for (let j = 0; j < n; j++) {
    const v = bound(handles[j] as number);
    b[j] = v;
    if (!isRadixKey(v)) plain = false;
  }
  const out: ByBound = { handles: new Int32Array(n), bounds: new Float64Array(n) };
  if (!plain) {
    const idx = Array.from(handles, (_, j) => j).sort((x, y) => (b[x] as number) - (b[y] as number) || x - y);
    idx.forEach((j, k) => {
      out.handles[k] = handles[j] as number;
      out.bounds[k] = b[j] as number;
    });
    return out;
  }
  const [order, tmp] = scratch.pair(n);
  stableOrder(b, n, order, tmp);
  for (let k = 0; k < n; k++) {
    const j = order[k] as number;
    out.handles[k] = handles[j] as number;
    out.bounds[k] = b[j] as number;
  }
  return out;
}

/** Every member's bound of `lists`, ascending (one array; no comparator when all are `isRadixKey`). */
function everyBound(lists: readonly ByBound[], scratch: RadixScratch): Float64Array {
  let n = 0;
  for (const l of lists) n += l.bounds.length;
  const all = new Float64Array(n);
  n = 0;
  for (const l of lists) {
    all.set(l.bounds, n);
    n += l.bounds.length;
  }
  let plain = true;
  for (let i = 0; i < n && plain; i++) plain = isRadixKey(all[i] as number);
  if (!plain) return all.sort();
  const [order, tmp] = scratch.pair(n);
  stableOrder(all, n, order, tmp);
  const sorted = new Float64Array(n);
  for (let k = 0; k < n; k++) sorted[k] = all[order[k] as number] as number;
  return sorted;
}

/**
 * A bounded walk (module docstring) over member arrays already sorted by bound: `next(t)` is the
 * next handle in the total order, after the last one it returned, whose bound is at most `t`
 * (-1: none). Members join a binary heap in the total order when `t` first reaches their bound;
 * one that joins behind the walk's position, or whose bound exceeds `t` when it comes up, is
 * passed over. When `t` has fallen so far that most of the heap's members are above it (a pass
 * whose first takes used most of its share), the heap is rebuilt from the members at most `t`
 * that lie ahead of the walk's position; a member dropped so joins again if `t` rises.
 */
class BoundedWalk {
  private readonly at: Int32Array;
  /**
   * The heap, `heap[0 … n)`: a typed array with room for every member (one is in it at most
   * once), made on first use — not an array grown by push, whose copies filled the young
   * generation (~1.7 MB a cold render of the 50k bench graph, sampling heap profiler).
   */
  private heap: Int32Array = EMPTY_HEAP;
  private n = 0;
  private admitted = Number.NEGATIVE_INFINITY;
  private last = -1;
  /** Number of members (of all lists). */
  readonly size: number;
  /** List visits spent by `count` searching list by list (see there). */
  private searched = 0;

  constructor(
    private readonly lists: readonly ByBound[],
    private readonly bound: (h: number) => number,
    private readonly cmp: (a: number, b: number) => number,
    /** Every member's bound, ascending (`everyBound` of the lists; the caller keeps one per member set). */
    private readonly every: () => Float64Array,
  ) {
    this.at = new Int32Array(lists.length);
    let n = 0;
    for (let i = 0; i < lists.length; i++) n += (lists[i] as ByBound).bounds.length;
    this.size = n;
  }

  next(t: number): number {
    if (t > this.admitted) this.admit(t);
    else if (t < this.admitted && this.n >= rebuildFrom && 2 * this.count(t) < this.n) this.rebuild(t);
    while (this.n > 0) {
      const h = this.pop();
      if (this.last >= 0 && this.cmp(h, this.last) < 0) continue;
      this.last = h;
      if (this.bound(h) <= t) return h;
    }
    return -1;
  }

  /** Push the members whose bound is at most `t` not pushed yet. */
  private admit(t: number): void {
    this.admitted = t;
    const heap = this.room();
    const from = this.n;
    let n = from;
    for (let i = 0; i < this.lists.length; i++) {
      const l = this.lists[i] as ByBound;
      let k = this.at[i] as number;
      while (k < l.bounds.length && (l.bounds[k] as number) <= t) heap[n++] = l.handles[k++] as number;
      this.at[i] = k;
    }
    this.n = n;
    this.settle(from);
  }

  /**
   * Restore the heap after `heap[from … n)` were appended: sifted up one by one, or — when they
   * are more than the heap held (a pass's first threshold admits most members) — the whole array
   * heapified bottom-up (fewer comparisons). The order of pops is the same either way: the
   * comparator is a total order.
   */
  private settle(from: number): void {
    const heap = this.heap;
    const n = this.n;
    if (n - from > from) {
      for (let i = (n >> 1) - 1; i >= 0; i--) this.down(i, heap[i] as number, n);
      return;
    }
    for (let j = from; j < n; j++) this.up(j, heap[j] as number);
  }

  /**
   * The number of members whose bound is at most `t` (any `t`). For `t` below `admitted` this is
   * how many members pushed so far have a bound at most `t` (read ones included: an upper bound
   * of those in the heap): every list's pushed members are exactly those with a bound at most
   * `admitted` (`admit` and `rebuild` both leave `at[i]` there). Searched list by list while those
   * searches have visited fewer lists than there are members, then in every member's bound,
   * sorted once (`every`): a pass of few lists asks a few times, where sorting every bound cost
   * more (the 50k bench graph sorted ~100k bounds a render); a search per list at every read of a
   * pool walk over ~3,000 heading sections of a corpus-shaped graph made ~10^8 list visits.
   */
  count(t: number): number {
    if (this.searched + this.lists.length <= this.size) {
      this.searched += this.lists.length;
      let n = 0;
      for (let i = 0; i < this.lists.length; i++) {
        const b = (this.lists[i] as ByBound).bounds;
        n += this.upTo(b, t, b.length);
      }
      return n;
    }
    const all = this.every();
    return this.upTo(all, t, all.length);
  }

  /**
   * The number of members whose bound is at most `t` when `t` is above every threshold the walk
   * has had (a `next(t)` would push the ones among them not pushed yet); 0 otherwise.
   */
  admitting(t: number): number {
    return t <= this.admitted ? 0 : this.count(t);
  }

  /**
   * Start (a walk not read yet) where a reading in the total order stopped, after handle `last`
   * (-1: none) at threshold `t`: its heap holds the members at most `t` ahead of `last`, so the
   * walk returns what that reading would have returned next and not refused by bound.
   */
  resume(last: number, t: number): void {
    this.last = last;
    for (let i = 0; i < this.lists.length; i++) this.at[i] = (this.lists[i] as ByBound).bounds.length;
    this.rebuild(t);
  }

  /** The number of `bounds[0 … end)` at most `t` (binary search: they are ascending). */
  private upTo(bounds: Float64Array, t: number, end: number): number {
    let lo = 0;
    let hi = end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((bounds[mid] as number) <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The heap anew: the members at most `t` ahead of the walk's position; the others join again when `t` reaches them. */
  private rebuild(t: number): void {
    const heap = this.room();
    let n = 0;
    this.admitted = t;
    for (let i = 0; i < this.lists.length; i++) {
      const l = this.lists[i] as ByBound;
      const k = this.upTo(l.bounds, t, this.at[i] as number);
      for (let j = 0; j < k; j++) {
        const h = l.handles[j] as number;
        if (this.last < 0 || this.cmp(h, this.last) > 0) heap[n++] = h;
      }
      this.at[i] = k;
    }
    this.n = n;
    this.settle(0);
  }

  /** The heap's array, made on first use. */
  private room(): Int32Array {
    if (this.heap.length < this.size) this.heap = new Int32Array(this.size);
    return this.heap;
  }

  /** Move `h` up from slot `i` to its place. */
  private up(i: number, h: number): void {
    const heap = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.cmp(heap[p] as number, h) <= 0) break;
      heap[i] = heap[p] as number;
      i = p;
    }
    heap[i] = h;
  }

  /** Put `x` into slot `i` and move it down to its place in `heap[0 … n)`. */
  private down(i: number, x: number, n: number): void {
    const heap = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.cmp(heap[r] as number, heap[l] as number) < 0 ? r : l;
      if (this.cmp(heap[c] as number, x) >= 0) break;
      heap[i] = heap[c] as number;
      i = c;
    }
    heap[i] = x;
  }

  private pop(): number {
    const heap = this.heap;
    const top = heap[0] as number;
    const n = --this.n;
    if (n > 0) this.down(0, heap[n] as number, n);
    return top;
  }
}

/**
 * Select candidates. Returns a flag per handle and the exact total size in bytes. Throws
 * `E_BUDGET` when the mandatory structure plus pinned nodes do not fit.
 */
export function selectWithinBudget(cands: SelectCandidates, o: SelectOptions): { selected: Uint8Array; total: number } {
  const selected = new Uint8Array(cands.count);
  const sizes = new Int32Array(cands.count).fill(-1);
  const bounds = new Int32Array(cands.count).fill(-1);
  const boundOf = (h: number): number => {
    if (!cands.lowerBoundAt) return sizeOf(h);
    let v = bounds[h] as number;
    if (v < 0) {
      v = cands.lowerBoundAt(h);
      bounds[h] = v;
    }
    return v;
  };
  const sizeOf = (h: number): number => {
    let v = sizes[h] as number;
    if (v < 0) {
      v = cands.sizeAt(h);
      sizes[h] = v;
    }
    return v;
  };
  const open = new Set<string>();
  /** Header bytes of the groups of `h` not opened yet. */
  const headers = (h: number): number => {
    let n = 0;
    for (const g of cands.groupsAt(h)) if (!open.has(g.key)) n += g.bytes;
    return n;
  };
  const openGroups = (h: number): void => {
    for (const g of cands.groupsAt(h)) open.add(g.key);
  };
  // Notes: how many members of each note are taken so far.
  const noteTaken = new Map<string, number>();
  const noteDelta = (h: number): number => {
    const n = cands.noteAt?.(h);
    if (!n || !cands.noteBytes) return 0;
    const t = noteTaken.get(n.key) ?? 0;
    return cands.noteBytes(n.key, t + 1, n.members) - cands.noteBytes(n.key, t, n.members);
  };
  const noteMembers = new Map<string, number>();
  // The next-member delta of each open note (some but not all members taken), for the early stop.
  const openDelta = new KeyedMin();
  const countNote = (h: number): void => {
    const n = cands.noteAt?.(h);
    if (!n) return;
    const t = (noteTaken.get(n.key) ?? 0) + 1;
    noteTaken.set(n.key, t);
    noteMembers.set(n.key, n.members);
    if (earlyStop && cands.noteBytes) openDelta.set(n.key, t < n.members ? cands.noteBytes(n.key, t + 1, n.members) - cands.noteBytes(n.key, t, n.members) : undefined);
  };
  let blocks = 0;
  let body = 0;
  for (const h of cands.pinned) {
    selected[h] = 1;
    body += headers(h) + sizeOf(h) + (blocks > 0 ? o.separatorSize : 0) + noteDelta(h);
    countNote(h);
    openGroups(h);
    blocks++;
  }
  /** 1 when taking `h` delivers one more node (a list's later items only complete one). */
  const counts = (h: number): number => (cands.continuation && cands.continuation(h) ? 0 : 1);
  let nb = cands.count - cands.pinned.length;
  if (cands.continuation) for (let h = 0; h < cands.count; h++) if (!selected[h] && cands.continuation(h)) nb--;
  const frameMemo = new Map<number, number>();
  const frame = (n: number): number => {
    let v = frameMemo.get(n);
    if (v === undefined) {
      v = o.frameSize(n);
      frameMemo.set(n, v);
    }
    return v;
  };
  const required = frame(nb) + body;
  if (required > o.maxBytes) {
    const k = cands.pinned.length;
    const what = k > 0 ? `the pack's frame (its header; with the pinned nodes' groups and the untrusted fence they need) and its ${k} pinned ${k === 1 ? 'node' : 'nodes'}` : `the pack's frame alone (its header)`;
    throw new CtxpkgError('E_BUDGET', `${what} need ${required} bytes, more than the budget of ${o.maxBytes}; the smallest budget that works is ${required} bytes`, {
      hint: k > 0 ? `raise the budget to at least ${required} bytes, or unpin nodes ("context.pins" in ctxpkg.json)` : `raise the budget to at least ${required} bytes`,
      details: { required_bytes: required, max_bytes: o.maxBytes, pinned: k },
    });
  }
  let total = required;
  /**
   * The exact cost of `h` (block, separator, unopened group headers) when at most `room` bytes
   * are available (negative when it completes a note), or `NO` — without computing its groups or rendering it — when its lower bound
   * already exceeds them.
   */
  const costWithin = (h: number, room: number): number => {
    const pred = cands.after ? cands.after(h) : -1;
    if (pred >= 0 && !selected[pred]) return NO;
    const sep = (blocks > 0 ? o.separatorSize : 0) + noteDelta(h);
    if (boundOf(h) + sep > room) return NO;
    const e = sep + headers(h);
    if (boundOf(h) + e > room) return NO;
    return sizeOf(h) + e;
  };
  /** Bytes the frame shrinks by when `h` is taken (≤ 0). */
  const shrink = (h: number): number => (counts(h) ? frame(nb - 1) - frame(nb) : 0);
  const take = (h: number, bytes: number): void => {
    selected[h] = 1;
    countNote(h);
    openGroups(h);
    blocks++;
    total += bytes + shrink(h);
    nb -= counts(h);
  };
  /** Nothing more can fit: fewer bytes left than any block, even if the frame shrank fully. */
  const exhausted = (): boolean => o.maxBytes - total + (frame(nb) - frame(0)) < o.minBlockBytes;
  /**
   * Early stop (module docstring): true when no candidate of `seq` can cost `room` bytes or
   * fewer now — its bound, the separator and the smallest note change (≤ 0) already exceed it.
   */
  const beyond = (room: number, seq: OrderedSequence | undefined): boolean => {
    if (!earlyStop || seq === undefined || seq.minBound === undefined) return false;
    return room < seq.minBound + (blocks > 0 ? o.separatorSize : 0) + Math.min(0, openDelta.min());
  };
  /** The most room any candidate can have in the focus and pool passes: the frame may shrink by one node's count. */
  const roomMax = (): number => o.maxBytes - total + (nb > 0 ? Math.max(0, frame(nb) - frame(nb - 1)) : 0);
  /**
   * The largest lower bound a candidate may have and still cost at most `room` bytes now (the
   * early stop's floor: separator and the smallest note change, module docstring).
   */
  const threshold = (room: number): number => room - (blocks > 0 ? o.separatorSize : 0) - Math.min(0, openDelta.min());
  // Scratch of the bound sorts (radix.ts), reused by all of them.
  const scratch = new RadixScratch();
  // Member arrays sorted by bound, once each (pass 1c, 2 and 3 read the same arrays).
  const sortedOf = new Map<Int32Array, ByBound>();
  // Every member's bound of a sequence, ascending (a walk's `admitting`), once per member set.
  const everyOf = new Map<readonly Int32Array[], Float64Array>();
  /**
   * The handles a pass reads from `seq`, one per call, in the total order: `next(t)` — with `t`
   * the pass's `threshold` at that moment — is a bounded walk over its members when the sequence
   * lists them (module docstring), else simply its next handle (-1: the end).
   */
  const reader = (seq: OrderedSequence, inOrder?: () => () => number): ((t: number) => number) => {
    const members = earlyStop && cands.lowerBoundAt ? seq.members : undefined;
    if (members === undefined) {
      let k = 0;
      return () => seq.at(k++);
    }
    const lists = members.map((m) => {
      let l = sortedOf.get(m);
      if (l === undefined) sortedOf.set(m, (l = sortByBound(m, boundOf, scratch)));
      return l;
    });
    const every = (): Float64Array => {
      let all = everyOf.get(members);
      if (all === undefined) everyOf.set(members, (all = everyBound(lists, scratch)));
      return all;
    };
    const walk = new BoundedWalk(lists, boundOf, cands.compare, every);
    if (inOrder === undefined) return (t) => walk.next(t);
    // A pass given the sequence's order decides at its first read, when its threshold is at its
    // highest but for note refunds: when most members fit, it reads in that order instead — the
    // same handles the walk would return, and the ones it would pass over, which cost more than
    // the room. The orders are built once (a LazyOrder keeps its prefix) and shared by every pass
    // that reads them, where each walk would push them all into a heap again. Once the threshold
    // has fallen so far that no longer most members fit (the pass's takes used most of its
    // bytes), it walks on from the last handle read (`resume`): reading on in order would refuse
    // nearly every handle it reads.
    const fitsMost = (t: number): boolean => walk.count(t) > scanFrom * walk.size;
    let read: ((t: number) => number) | undefined;
    const walkOn = (x: number): number => walk.next(x);
    return (t) => {
      if (read === undefined) {
        // Nothing is admitted before the first read: `count(t)` is what `admitting(t)` would say.
        if (fitsMost(t)) {
          const ordered = inOrder();
          let checked = t;
          let last = -1;
          read = (x) => {
            if (x < checked) {
              checked = x;
              if (!fitsMost(x)) {
                walk.resume(last, x);
                read = walkOn;
                return walk.next(x);
              }
            }
            const h = ordered();
            if (h >= 0) last = h;
            return h;
          };
        } else read = walkOn;
      }
      return read(t);
    };
  };
  /** The sequence's handles in its order, one per call (-1: the end). */
  const inOrderOf =
    (seq: OrderedSequence) =>
    (): (() => number) => {
      let k = 0;
      return () => seq.at(k++);
    };

  // 1b. Focus pass.
  const focused = cands.focused;
  if (focused) {
    const next = reader(focused);
    while (!beyond(roomMax(), focused)) {
      const h = next(threshold(roomMax()));
      if (h < 0) break;
      if (selected[h]) continue;
      if (exhausted()) break;
      const room = o.maxBytes - total - shrink(h);
      const bytes = costWithin(h, room);
      if (bytes !== NO && bytes <= room) take(h, bytes);
    }
  }

  /**
   * Take candidates of `seq` in its order (greedy skip) while their cost fits `room` bytes and
   * the budget; returns the bytes of `room` left. The stop test comes before each read: a
   * sequence never read is never ordered (LazyOrder).
   */
  const spend = (seq: OrderedSequence, room: number): number => {
    let left = room;
    const next = reader(seq, inOrderOf(seq));
    while (left >= o.minBlockBytes && !exhausted() && !beyond(left, seq)) {
      const h = next(threshold(left));
      if (h < 0) break;
      if (selected[h]) continue;
      const bytes = costWithin(h, left);
      if (bytes !== NO && bytes <= left && total + bytes + shrink(h) <= o.maxBytes) {
        left -= bytes;
        take(h, bytes);
      }
    }
    return left;
  };
  /**
   * Split `bytes` across the sections present in `bySection` by weight and take, in each, the
   * candidates in the total order whose cost fits the rest of its share (greedy skip). Returns the
   * bytes of the split it did not spend.
   */
  const sectionShares = (bytes: number, bySection: ReadonlyMap<SectionName, OrderedSequence>): number => {
    const present = SECTIONS.filter((s) => (bySection.get(s)?.length ?? 0) > 0);
    if (present.length === 0 || bytes <= 0) return bytes;
    const shares = splitBudget(bytes, present.map((s) => [s, o.weights[s] ?? 0] as const));
    let unspent = 0;
    for (const s of present) unspent += Math.max(0, spend(bySection.get(s) as OrderedSequence, shares.get(s) as number));
    return unspent;
  };

  // 1c. Package pass: a fair share per package (water-filled on their needs), spent by the
  // section shares of that package.
  const pk = cands.packages;
  // The packages in tiers: the trusted ones, then the others (one tier when all or none are
  // trusted); each tier water-fills the bytes the tiers before it left.
  const tiersOf = (p: NonNullable<typeof pk>): number[][] => {
    const all = p.sequences.map((_, i) => i);
    const t = p.trusted;
    if (t === undefined || all.every((i) => t[i] === true) || all.every((i) => t[i] !== true)) return [all];
    return [all.filter((i) => t[i] === true), all.filter((i) => t[i] !== true)];
  };
  const tiers = pk && pk.sequences.length > 1 ? tiersOf(pk) : [];
  tiers.forEach((tier, t) => {
    if (!pk || o.maxBytes <= total) return;
    const pool = Math.floor(((o.maxBytes - total) * PACKAGE_FLOOR.num) / PACKAGE_FLOOR.den);
    const tierShares = waterFill(pool, tier.map((i) => pk.need[i] as number));
    tier.forEach((i, k) => {
      const seqs = pk.sequences[i] as (typeof pk.sequences)[number];
      // The package's section shares, then what they left of its share in its total order.
      spend(seqs.all, sectionShares(tierShares[k] as number, seqs.bySection));
    });
    // The trusted tier, before the others: what its shares left (a need is a lower bound) goes
    // to its candidates in the total order, so an untrusted package gets only what the team's
    // own rules cannot use. Repeated until nothing changes, as the pool pass is: a candidate
    // whose section predecessor (`after`) is taken later in a pass can only be taken on the next
    // (new-user trial 2 of 2026-12-07, finding 1: the vendor's tier took the bytes of such an item).
    if (t === 0 && tiers.length > 1 && pk.trustedAll) {
      for (let before = -1; before !== total; ) {
        before = total;
        spend(pk.trustedAll, o.maxBytes - total);
      }
    }
  });

  // 2. Section pass over the bytes left.
  const present = SECTIONS.filter((s) => (cands.sections.get(s)?.length ?? 0) > 0);
  if (o.maxBytes > total) sectionShares(o.maxBytes - total, cands.sections);

  // 3. Pool pass over the total order (the sections merged), until a fixed point.
  const seqs = present.map((s) => cands.sections.get(s) as OrderedSequence);
  // The pool pass reads all sections: its early stop uses the smallest of their bounds.
  const poolBound = seqs.length > 0 ? leastMinBound(seqs) : undefined;
  const poolMembers = unionMembers(seqs);
  // Without members: the sections merged, the smallest next handle of any of them first.
  const pool: OrderedSequence = {
    length: 0,
    at: () => -1,
    ...(poolBound === undefined ? {} : { minBound: poolBound }),
    ...(poolMembers === undefined ? {} : { members: poolMembers }),
  };
  const merged = (): (() => number) => {
    const cursor = seqs.map(() => 0);
    return () => {
      let best = -1;
      let from = -1;
      for (let i = 0; i < seqs.length; i++) {
        const h = (seqs[i] as OrderedSequence).at(cursor[i] as number);
        if (h >= 0 && (best < 0 || cands.compare(h, best) < 0)) {
          best = h;
          from = i;
        }
      }
      if (best >= 0) cursor[from]++;
      return best;
    };
  };
  for (let changed = true; changed; ) {
    changed = false;
    const next = earlyStop && cands.lowerBoundAt && poolMembers !== undefined ? reader(pool, merged) : merged();
    for (;;) {
      if (beyond(roomMax(), pool)) break;
      const best = next(threshold(roomMax()));
      if (best < 0) break;
      if (selected[best]) continue;
      if (exhausted()) break;
      const room = o.maxBytes - total - shrink(best);
      const bytes = costWithin(best, room);
      if (bytes !== NO && bytes <= room) {
        take(best, bytes);
        changed = true;
      }
    }
  }
  /** Bytes of every note written now (all are refunded when every candidate is taken). */
  const noteRefund = (): number => {
    if (!cands.noteBytes || !cands.noteAt) return 0;
    let n = 0;
    for (const [key, t] of noteTaken) n += cands.noteBytes(key, t, noteMembers.get(key) ?? t);
    return n;
  };
  // 4. Completion: all the rest at once, when together they fit (checked on lower bounds first,
  // stopping as soon as the bound sum exceeds the room, so large graphs render nothing here).
  if (nb > 0 || blocks < cands.count) {
    // The notes written now are refunded once every candidate is taken.
    const refund = noteRefund();
    const room = o.maxBytes - total + frame(nb) - frame(0) + refund;
    let bound = 0;
    const rest: number[] = [];
    for (let h = 0; h < cands.count && bound <= room; h++) {
      if (selected[h]) continue;
      rest.push(h);
      bound += boundOf(h);
    }
    if (bound <= room) {
      // The sum does not depend on the order: each group header is counted once.
      let need = 0;
      const opened = new Set(open);
      let k = blocks;
      for (const h of rest) {
        for (const g of cands.groupsAt(h)) if (!opened.has(g.key)) {
          opened.add(g.key);
          need += g.bytes;
        }
        need += sizeOf(h) + (k++ > 0 ? o.separatorSize : 0);
        if (need > room) break;
      }
      if (need <= room) {
        for (const h of rest) selected[h] = 1;
        total += need - refund + frame(0) - frame(nb);
        nb = 0;
      }
    }
  }
  return { selected, total };
}
