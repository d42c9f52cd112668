/**
 * Edge contributions, shared-edge merging and contradictions (spec/merge.md §4).
 */
import type { MergeConflict, MergedEdge, MergedNode } from '../graph-types.js';
import { qualify } from './nodes.js';
import type { Input } from './validate.js';

/** u32 max: saturation point of summed coactivations. */
export const MAX_COACTIVATIONS = 4_294_967_295;

export interface EdgeRef {
  from: string;
  to: string;
  type: string;
}

interface Acc {
  from: string;
  to: string;
  type: string;
  weight: number;
  /** All weights, kept only once a second contribution arrives. */
  weights: number[] | null;
  coactivations: number;
  metadata: string | undefined;
  metadataPackage: string | undefined;
  packages: string[];
}

export interface EdgeResult {
  /** Sorted by (from, to, type). */
  edges: MergedEdge[];
  /** Edges with two or more contributions. */
  merged: EdgeRef[];
  dropped: Array<EdgeRef & { package: string }>;
  /** Sorted by (from, to, package). */
  conflicts: MergeConflict[];
}

const present = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

/**
 * Merge every input edge whose ends exist into one edge per (from, to, type); mark the ends of
 * cross-package `contradicts` edges disputed. Inputs must be sorted by package.
 */
export function buildEdges(inputs: readonly Input[], localIds: Map<string, Set<string>>, nodes: Map<string, MergedNode>): EdgeResult {
  const acc = new Map<string, Acc>();
  const dropped: Array<EdgeRef & { package: string }> = [];
  for (const input of inputs) {
    const pkg = input.package;
    const ids = localIds.get(pkg)!;
    for (const e of input.graph.edges) {
      const from = qualify(pkg, e.from, ids);
      const to = qualify(pkg, e.to, ids);
      if (!nodes.has(from) || !nodes.has(to)) {
        dropped.push({ package: pkg, from, to, type: e.type });
        continue;
      }
      const key = `${from}\u0000${to}\u0000${e.type}`;
      const weight = present(e.weight) ? e.weight : 1.0;
      const co = present(e.coactivations) ? e.coactivations : 0;
      const a = acc.get(key);
      if (a === undefined) {
        acc.set(key, { from, to, type: e.type, weight, weights: null, coactivations: Math.min(co, MAX_COACTIVATIONS), metadata: e.metadata ?? undefined, metadataPackage: present(e.metadata) ? pkg : undefined, packages: [pkg] });
        continue;
      }
      (a.weights ??= [a.weight]).push(weight);
      a.coactivations = Math.min(a.coactivations + co, MAX_COACTIVATIONS);
      if (present(e.metadata) && (a.metadata === undefined || (a.metadataPackage === pkg && e.metadata < a.metadata))) {
        a.metadata = e.metadata;
        a.metadataPackage = pkg;
      }
      if (a.packages[a.packages.length - 1] !== pkg) a.packages.push(pkg);
    }
  }
  const keys = [...acc.keys()].sort();
  const edges: MergedEdge[] = new Array(keys.length);
  const merged: EdgeRef[] = [];
  const conflicts: MergeConflict[] = [];
  for (let i = 0; i < keys.length; i++) {
    const a = acc.get(keys[i]!)!;
    let weight = a.weight;
    if (a.weights !== null) {
      const ws = a.weights.sort((x, y) => x - y);
      let sum = 0;
      for (const w of ws) sum += w;
      weight = sum / ws.length;
      merged.push({ from: a.from, to: a.to, type: a.type });
    }
    const edge = { from: a.from, to: a.to, type: a.type, weight } as MergedEdge;
    if (a.coactivations > 0) edge.coactivations = a.coactivations;
    if (a.metadata !== undefined) edge.metadata = a.metadata;
    edge.packages = a.packages;
    edges[i] = edge;
    if (a.type === 'contradicts') {
      const f = nodes.get(a.from)!;
      const t = nodes.get(a.to)!;
      if (f.package !== t.package) {
        f.disputed = true;
        t.disputed = true;
        for (const p of a.packages) conflicts.push({ from: a.from, to: a.to, package: p });
      }
    }
  }
  conflicts.sort((x, y) => cmp3(x.from, x.to, x.package, y.from, y.to, y.package));
  dropped.sort((x, y) => cmp3(x.package, x.from, x.to, y.package, y.from, y.to) || (x.type < y.type ? -1 : x.type > y.type ? 1 : 0));
  return { edges, merged, dropped, conflicts };
}

function cmp3(a1: string, a2: string, a3: string, b1: string, b2: string, b3: string): number {
  if (a1 !== b1) return a1 < b1 ? -1 : 1;
  if (a2 !== b2) return a2 < b2 ? -1 : 1;
  if (a3 !== b3) return a3 < b3 ? -1 : 1;
  return 0;
}
