/**
 * Supersession, temporal decay and the one-step activation propagation (spec/merge.md §5–§7).
 */
import type { MergedEdge, MergedNode } from '../graph-types.js';
import { parseTimestamp, type ParsedTimestamp } from '../json/timestamp.js';

/** β of spec §7: how much of a neighbour's activation one edge of weight 1 passes on. */
export const PROPAGATION_FACTOR = 0.1;

const SECONDS_PER_DAY = 86_400;

const clamp01 = (x: number): number => (x < 0 ? 0 : x > 1 ? 1 : x);

export interface SupersedeResult {
  /** target id → sorted unique superseder ids. */
  supersededBy: Map<string, string[]>;
  dropped: Array<{ package: string; node: string; target: string }>;
}

/** Who supersedes whom: node `supersedes` fields and `supersedes` edges (spec §5). */
export function collectSupersession(nodes: Map<string, MergedNode>, edges: readonly MergedEdge[]): SupersedeResult {
  const by = new Map<string, Set<string>>();
  const dropped: SupersedeResult['dropped'] = [];
  const add = (s: string, t: string) => {
    if (s === t) return;
    let set = by.get(t);
    if (!set) by.set(t, (set = new Set()));
    set.add(s);
  };
  for (const n of nodes.values()) {
    if (n.supersedes === undefined) continue;
    if (nodes.has(n.supersedes)) add(n.id, n.supersedes);
    else dropped.push({ package: n.package, node: n.id, target: n.supersedes });
  }
  for (const e of edges) if (e.type === 'supersedes') add(e.from, e.to);
  const supersededBy = new Map<string, string[]>();
  for (const [t, set] of by) supersededBy.set(t, [...set].sort());
  dropped.sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
  return { supersededBy, dropped };
}

/** The decay factor of spec §6, or 1 when the node does not decay. */
function decayFactor(n: MergedNode, now: ParsedTimestamp): number {
  const half = n.decay_half_life_days;
  if (n.created_at === undefined || half === undefined || half <= 0) return 1;
  const created = parseTimestamp(n.created_at);
  if (!created) return 1;
  const seconds = now.epochSeconds - created.epochSeconds + (now.nanos - created.nanos) / 1e9;
  const ageDays = Math.max(0, Math.trunc(seconds / SECONDS_PER_DAY));
  return ageDays === 0 ? 1 : Math.pow(0.5, ageDays / half);
}

/**
 * Final activations: decay (when `now` is given), then one propagation step over `edges`
 * (sorted), then 0 for superseded nodes. Writes `activation`, `superseded_by` and keeps
 * `disputed` last, so every node keeps the output field order.
 */
export function applyActivation(
  ordered: readonly MergedNode[],
  edges: readonly MergedEdge[],
  supersededBy: Map<string, string[]>,
  now: ParsedTimestamp | undefined,
): void {
  const index = new Map<string, number>();
  const a0 = new Float64Array(ordered.length);
  for (let i = 0; i < ordered.length; i++) {
    const n = ordered[i]!;
    index.set(n.id, i);
    const base = now ? n.activation * decayFactor(n, now) : n.activation;
    a0[i] = supersededBy.has(n.id) ? 0 : clamp01(base);
  }
  const keep = new Float64Array(ordered.length).fill(1);
  for (const e of edges) {
    if (e.type === 'contradicts' || e.type === 'supersedes' || e.from === e.to) continue;
    const u = a0[index.get(e.from)!]!;
    if (u === 0) continue;
    const v = index.get(e.to)!;
    keep[v]! *= 1 - PROPAGATION_FACTOR * clamp01(e.weight) * u;
  }
  for (let i = 0; i < ordered.length; i++) {
    const n = ordered[i]!;
    const by = supersededBy.get(n.id);
    n.activation = by ? 0 : Math.min(1, a0[i]! + (1 - a0[i]!) * (1 - keep[i]!));
    if (by || n.disputed) {
      const disputed = n.disputed;
      delete n.disputed;
      if (by) n.superseded_by = by;
      if (disputed) n.disputed = true;
    }
  }
}
