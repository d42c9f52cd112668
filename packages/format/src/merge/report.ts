/**
 * The merge report (spec/merge.md §9): additions, updates and removals relative to a previous
 * merged graph, plus what the merge itself merged, dropped and found in conflict.
 */
import { CtxpkgError } from '../errors.js';
import type { MergeConflict, MergedEdge, MergedGraph, MergedNode } from '../graph-types.js';
import type { EdgeRef } from './edges.js';

export interface MergeReport {
  nodes_added: string[];
  nodes_updated: string[];
  nodes_removed: string[];
  nodes_superseded: string[];
  edges_added: EdgeRef[];
  edges_merged: EdgeRef[];
  edges_removed: EdgeRef[];
  edges_dropped: Array<EdgeRef & { package: string }>;
  supersedes_dropped: Array<{ package: string; node: string; target: string }>;
  conflicts: MergeConflict[];
}

const edgeKey = (e: EdgeRef): string => `${e.from}\u0000${e.to}\u0000${e.type}`;
const ref = (e: EdgeRef): EdgeRef => ({ from: e.from, to: e.to, type: e.type });

function checkPrevious(p: unknown): MergedGraph {
  const g = p as { nodes?: unknown; edges?: unknown };
  if (typeof p !== 'object' || p === null || !Array.isArray(g.nodes) || !Array.isArray(g.edges)) {
    throw new CtxpkgError('E_STRUCTURE', 'previous: not a merged graph (nodes and edges arrays expected)', { details: { path: 'previous' } });
  }
  (g.nodes as unknown[]).forEach((n, i) => {
    if (typeof (n as { id?: unknown })?.id !== 'string') throw new CtxpkgError('E_STRUCTURE', `previous.nodes[${i}].id: must be a string`);
  });
  (g.edges as unknown[]).forEach((e, i) => {
    const x = e as Partial<EdgeRef>;
    if (typeof x?.from !== 'string' || typeof x.to !== 'string' || typeof x.type !== 'string') {
      throw new CtxpkgError('E_STRUCTURE', `previous.edges[${i}]: from, to and type must be strings`);
    }
  });
  return p as MergedGraph;
}

/** Build the report; `nodes` and `edges` are the sorted output lists. */
export function buildReport(
  nodes: readonly MergedNode[],
  edges: readonly MergedEdge[],
  parts: Pick<MergeReport, 'edges_merged' | 'edges_dropped' | 'supersedes_dropped' | 'conflicts'>,
  previousValue: unknown,
): MergeReport {
  const report: MergeReport = {
    nodes_added: [],
    nodes_updated: [],
    nodes_removed: [],
    nodes_superseded: nodes.filter((n) => n.superseded_by !== undefined).map((n) => n.id),
    edges_added: [],
    edges_merged: parts.edges_merged,
    edges_removed: [],
    edges_dropped: parts.edges_dropped,
    supersedes_dropped: parts.supersedes_dropped,
    conflicts: parts.conflicts,
  };
  if (previousValue === undefined) {
    report.nodes_added = nodes.map((n) => n.id);
    // Every edge is new: the list is built on first read (it is as long as the graph's edge list,
    // and callers without a previous graph rarely read it). JSON.stringify reads it like a field.
    let added: EdgeRef[] | undefined;
    Object.defineProperty(report, 'edges_added', {
      enumerable: true,
      configurable: true,
      get: () => (added ??= edges.map(ref)),
      set: (v: EdgeRef[]) => {
        added = v;
      },
    });
    return report;
  }
  const previous = checkPrevious(previousValue);
  const before = new Map<string, string>();
  for (const n of previous.nodes) before.set(n.id, JSON.stringify(n));
  const now = new Set<string>();
  for (const n of nodes) {
    now.add(n.id);
    const old = before.get(n.id);
    if (old === undefined) report.nodes_added.push(n.id);
    else if (old !== JSON.stringify(n)) report.nodes_updated.push(n.id);
  }
  report.nodes_removed = [...before.keys()].filter((id) => !now.has(id)).sort();
  const beforeEdges = new Map(previous.edges.map((e) => [edgeKey(e), e] as const));
  const nowEdges = new Set<string>();
  for (const e of edges) {
    const k = edgeKey(e);
    nowEdges.add(k);
    if (!beforeEdges.has(k)) report.edges_added.push(ref(e));
  }
  report.edges_removed = [...beforeEdges.keys()]
    .filter((k) => !nowEdges.has(k))
    .sort()
    .map((k) => ref(beforeEdges.get(k)!));
  return report;
}
