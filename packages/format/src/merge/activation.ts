/**
 * Supersession, temporal decay and the one-step activation propagation (spec/merge.md §5–§7),
 * over node indices (nodes.ts) and the sorted edges with their end indices (edges.ts).
 */
import type { MergedEdge } from '../graph-types.js';
import { parseTimestamp, type ParsedTimestamp } from '../json/timestamp.js';
import { lookupQualified, type NodeTable } from './nodes.js';

/** β of spec §7: how much of a neighbour's activation one edge of weight 1 passes on. */
export const PROPAGATION_FACTOR = 0.1;

const SECONDS_PER_DAY = 86_400;

const clamp01 = (x: number): number => (x < 0 ? 0 : x > 1 ? 1 : x);

export interface SupersedeResult {
  /** Target index → sorted unique superseder ids. */
  supersededBy: Map<number, string[]>;
  dropped: Array<{ package: string; node: string; target: string }>;
}

/** Who supersedes whom: node `supersedes` fields and `supersedes` edges (spec §5). */
export function collectSupersession(table: NodeTable, edges: readonly MergedEdge[], ends: Int32Array): SupersedeResult {
  const by = new Map<number, Set<number>>();
  const dropped: SupersedeResult['dropped'] = [];
  const add = (s: number, t: number) => {
    if (s === t) return;
    let set = by.get(t);
    if (!set) by.set(t, (set = new Set()));
    set.add(s);
  };
  table.nodes.forEach((n, i) => {
    if (n.supersedes === undefined) return;
    const t = lookupQualified(table, n.supersedes);
    if (t >= 0) add(i, t);
    else dropped.push({ package: n.package, node: n.id, target: n.supersedes });
  });
  for (let i = 0; i < edges.length; i++) if (edges[i]!.type === 'supersedes') add(ends[2 * i]!, ends[2 * i + 1]!);
  const supersededBy = new Map<number, string[]>();
  for (const [t, set] of by) supersededBy.set(t, [...set].map((s) => table.nodes[s]!.id).sort());
  dropped.sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
  return { supersededBy, dropped };
}

/** Decay factors of spec §6, caching parsed `created_at` texts. */
function decayer(now: ParsedTimestamp): (createdAt: string | undefined, half: number | undefined) => number {
  const cache = new Map<string, ParsedTimestamp | null>();
  return (createdAt, half) => {
    if (createdAt === undefined || half === undefined || half <= 0) return 1;
    let created = cache.get(createdAt);
    if (created === undefined) cache.set(createdAt, (created = parseTimestamp(createdAt) ?? null));
    if (created === null) return 1;
    const seconds = now.epochSeconds - created.epochSeconds + (now.nanos - created.nanos) / 1e9;
    const ageDays = Math.max(0, Math.trunc(seconds / SECONDS_PER_DAY));
    return ageDays === 0 ? 1 : Math.pow(0.5, ageDays / half);
  };
}

/**
 * Final activations: decay (when `now` is given), then one propagation step over the sorted
 * `edges`, then 0 for superseded nodes. Appends `superseded_by` and `disputed` last, so every
 * node keeps the output field order.
 */
export function applyActivation(
  table: NodeTable,
  edges: readonly MergedEdge[],
  ends: Int32Array,
  supersededBy: Map<number, string[]>,
  disputed: ReadonlySet<number>,
  now: ParsedTimestamp | undefined,
): void {
  const nodes = table.nodes;
  const decay = now ? decayer(now) : undefined;
  const a0 = new Float64Array(nodes.length);
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    const base = decay ? n.activation * decay(n.created_at, n.decay_half_life_days) : n.activation;
    a0[i] = supersededBy.has(i) ? 0 : clamp01(base);
  }
  const keep = new Float64Array(nodes.length).fill(1);
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i]!;
    const from = ends[2 * i]!;
    const to = ends[2 * i + 1]!;
    if (from === to || e.type === 'contradicts' || e.type === 'supersedes') continue;
    const u = a0[from]!;
    if (u !== 0) keep[to]! *= 1 - PROPAGATION_FACTOR * clamp01(e.weight) * u;
  }
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    const by = supersededBy.get(i);
    n.activation = by ? 0 : Math.min(1, a0[i]! + (1 - a0[i]!) * (1 - keep[i]!));
    if (by) n.superseded_by = by;
    if (disputed.has(i)) n.disputed = true;
  }
}
