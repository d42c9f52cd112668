/**
 * Edge contributions, shared-edge merging and contradictions (spec/merge.md §4). Ends are node
 * indices (nodes.ts); accumulators are columns of typed arrays found through a `PairTable`
 * (one chain per (from, to) over the edge types), and the output is sorted by node rank.
 */
import type { MergeConflict, MergedEdge } from '../graph-types.js';
import { qualify, resolveRef, type NodeTable } from './nodes.js';
import { PairTable } from './pair-table.js';
import type { Input } from './validate.js';

/** u32 max: saturation point of summed coactivations. */
export const MAX_COACTIVATIONS = 4_294_967_295;

export interface EdgeRef {
  from: string;
  to: string;
  type: string;
}

export interface EdgeResult {
  /** Sorted by (from, to, type). */
  edges: MergedEdge[];
  /** Node indices of each edge's ends, parallel to `edges`: [from0, to0, from1, to1, …]. */
  ends: Int32Array;
  /** Edges with two or more contributions. */
  merged: EdgeRef[];
  dropped: Array<EdgeRef & { package: string }>;
  /** Sorted by (from, to, package). */
  conflicts: MergeConflict[];
  /** Node indices of the ends of cross-package `contradicts` edges. */
  disputed: Set<number>;
}

const present = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;
const WEIGHTS = 1;
const PACKAGES = 2;
const METADATA = 4;
const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Accumulated contributions, one column per field, indexed by accumulator number. */
class Columns {
  readonly from: Int32Array;
  readonly to: Int32Array;
  readonly next: Int32Array;
  readonly weight: Float64Array;
  readonly co: Float64Array;
  /** Index (in the sorted inputs) of the first contributing package. */
  readonly firstPackage: Int32Array;
  /** Bit set per accumulator: WEIGHTS, PACKAGES, METADATA (which sparse maps hold an entry). */
  readonly flags: Uint8Array;
  readonly type: string[] = [];
  /** The chosen metadata and its package, for accumulators that have any. */
  readonly metadata = new Map<number, { pkg: string; text: string }>();
  /** All contributing packages (sorted), for accumulators with several. */
  readonly packages = new Map<number, string[]>();
  /** All weights of accumulators with several contributions. */
  readonly weights = new Map<number, number[]>();
  length = 0;

  constructor(capacity: number) {
    this.from = new Int32Array(capacity);
    this.to = new Int32Array(capacity);
    this.next = new Int32Array(capacity);
    this.weight = new Float64Array(capacity);
    this.co = new Float64Array(capacity);
    this.firstPackage = new Int32Array(capacity);
    this.flags = new Uint8Array(capacity);
  }
}

/**
 * Merge every input edge whose ends exist into one edge per (from, to, type), and record the ends
 * of cross-package `contradicts` edges. `rank[i]` is node i's position in output order.
 */
export function buildEdges(inputs: readonly Input[], table: NodeTable, rank: Int32Array): EdgeResult {
  let total = 0;
  for (const input of inputs) total += input.graph.edges.length;
  const c = new Columns(total);
  const pairs = new PairTable(total);
  const dropped: Array<EdgeRef & { package: string }> = [];
  for (let p = 0; p < inputs.length; p++) {
    const input = inputs[p]!;
    const pkg = input.package;
    const local = table.local.get(pkg)!;
    for (const e of input.graph.edges) {
      const from = resolveRef(table, local, e.from);
      const to = resolveRef(table, local, e.to);
      if (from < 0 || to < 0) {
        dropped.push({ package: pkg, from: qualify(pkg, e.from, local), to: qualify(pkg, e.to, local), type: e.type });
        continue;
      }
      const weight = present(e.weight) ? e.weight : 1.0;
      const co = present(e.coactivations) ? e.coactivations : 0;
      const slot = pairs.slotOf(from, to);
      const head = pairs.valueAt(slot);
      let a = head;
      while (a >= 0 && c.type[a] !== e.type) a = c.next[a]!;
      if (a < 0) {
        a = c.length++;
        c.from[a] = from;
        c.to[a] = to;
        c.next[a] = head;
        c.weight[a] = weight;
        c.co[a] = Math.min(co, MAX_COACTIVATIONS);
        c.firstPackage[a] = p;
        c.type.push(e.type);
        if (present(e.metadata)) {
          c.metadata.set(a, { pkg, text: e.metadata });
          c.flags[a]! |= METADATA;
        }
        pairs.setAt(slot, from, to, a);
        continue;
      }
      const ws = c.weights.get(a);
      if (ws) ws.push(weight);
      else c.weights.set(a, [c.weight[a]!, weight]);
      c.flags[a]! |= WEIGHTS;
      c.co[a] = Math.min(c.co[a]! + co, MAX_COACTIVATIONS);
      if (present(e.metadata)) {
        const meta = c.metadata.get(a);
        if (meta === undefined) c.metadata.set(a, { pkg, text: e.metadata });
        else if (meta.pkg === pkg && e.metadata < meta.text) meta.text = e.metadata;
        c.flags[a]! |= METADATA;
      }
      const first = inputs[c.firstPackage[a]!]!.package;
      const ps = c.packages.get(a);
      if (ps === undefined) {
        if (first !== pkg) {
          c.packages.set(a, [first, pkg]);
          c.flags[a]! |= PACKAGES;
        }
      } else if (ps[ps.length - 1] !== pkg) ps.push(pkg);
    }
  }
  return output(c, inputs, table, rank, dropped);
}

/** A merged edge in output field order; coactivations omitted when 0, metadata when absent. */
function makeEdge(from: string, to: string, type: string, weight: number, co: number, metadata: string | undefined, packages: string[]): MergedEdge {
  if (co > 0) {
    return metadata === undefined ? { from, to, type, weight, coactivations: co, packages } : { from, to, type, weight, coactivations: co, metadata, packages };
  }
  return metadata === undefined ? { from, to, type, weight, packages } : { from, to, type, weight, metadata, packages };
}

/**
 * Accumulator numbers in output order: by rank of `from`, then rank of `to` (two stable counting
 * sorts, linear), then type (only within the rare groups with equal ends).
 */
function sortedOrder(c: Columns, rank: Int32Array, n: number): Int32Array {
  const byTo = countingSort(c.length, (a) => rank[c.to[a]!]!, n, null);
  const order = countingSort(c.length, (a) => rank[c.from[a]!]!, n, byTo);
  let start = 0;
  for (let i = 1; i <= order.length; i++) {
    const same = i < order.length && c.from[order[i]!] === c.from[order[start]!] && c.to[order[i]!] === c.to[order[start]!];
    if (same) continue;
    if (i - start > 1) {
      const group = Array.from(order.subarray(start, i)).sort((x, y) => cmpStr(c.type[x]!, c.type[y]!));
      order.set(group, start);
    }
    start = i;
  }
  return order;
}

/** Stable counting sort of `input` (or 0…len−1) by `key(a)` in [0, n). */
function countingSort(len: number, key: (a: number) => number, n: number, input: Int32Array | null): Int32Array {
  const counts = new Int32Array(n + 1);
  for (let i = 0; i < len; i++) counts[key(input ? input[i]! : i) + 1]!++;
  for (let k = 0; k < n; k++) counts[k + 1]! += counts[k]!;
  const out = new Int32Array(len);
  for (let i = 0; i < len; i++) {
    const a = input ? input[i]! : i;
    out[counts[key(a)]!++] = a;
  }
  return out;
}

function output(c: Columns, inputs: readonly Input[], table: NodeTable, rank: Int32Array, dropped: EdgeResult['dropped']): EdgeResult {
  const idx = sortedOrder(c, rank, table.nodes.length);
  // Edges contributed by one package share one frozen `packages` array per package.
  const single: Array<string[] | undefined> = new Array(inputs.length);
  const edges: MergedEdge[] = new Array(c.length);
  const ends = new Int32Array(2 * c.length);
  const merged: EdgeRef[] = [];
  const conflicts: MergeConflict[] = [];
  const disputed = new Set<number>();
  for (let i = 0; i < c.length; i++) {
    const a = idx[i]!;
    const flags = c.flags[a]!;
    const from = table.nodes[c.from[a]!]!;
    const to = table.nodes[c.to[a]!]!;
    const type = c.type[a]!;
    let weight = c.weight[a]!;
    if (flags & WEIGHTS) {
      const ws = c.weights.get(a)!.sort((x, y) => x - y);
      let sum = 0;
      for (const w of ws) sum += w;
      weight = sum / ws.length;
      merged.push({ from: from.id, to: to.id, type });
    }
    let list: string[];
    if (flags & PACKAGES) list = c.packages.get(a)!;
    else {
      const p = c.firstPackage[a]!;
      list = single[p] ??= Object.freeze([inputs[p]!.package]) as string[];
    }
    edges[i] = makeEdge(from.id, to.id, type, weight, c.co[a]!, flags & METADATA ? c.metadata.get(a)!.text : undefined, list);
    ends[2 * i] = c.from[a]!;
    ends[2 * i + 1] = c.to[a]!;
    if (type === 'contradicts' && from.package !== to.package) {
      disputed.add(c.from[a]!);
      disputed.add(c.to[a]!);
      for (const p of list) conflicts.push({ from: from.id, to: to.id, package: p });
    }
  }
  dropped.sort((x, y) => cmpStr(x.package, y.package) || cmpStr(x.from, y.from) || cmpStr(x.to, y.to) || cmpStr(x.type, y.type));
  return { edges, ends, merged, dropped, conflicts, disputed };
}
