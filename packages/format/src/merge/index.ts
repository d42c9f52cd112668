/**
 * `mergeGraphs`: the deterministic merge of the installed packages' knowledge graphs into the
 * project graph (spec/merge.md, the normative rules; FORMAT-FACTS §6 for the reference's
 * order-dependent `merge_graphs`, which this replaces). Pure.
 */
import { CtxpkgError } from '../errors.js';
import type { MergedGraph, MergeInput } from '../graph-types.js';
import { parseTimestamp } from '../json/timestamp.js';
import { applyActivation, collectSupersession } from './activation.js';
import { buildEdges } from './edges.js';
import { buildNodes } from './nodes.js';
import { buildReport, type MergeReport } from './report.js';
import { normalizeInputs } from './validate.js';

export { PROPAGATION_FACTOR } from './activation.js';
export { MAX_COACTIVATIONS, type EdgeRef } from './edges.js';
export type { MergeReport } from './report.js';

export interface MergeOptions {
  /** RFC 3339 "now" for temporal decay (spec §6); without it nothing decays. */
  now?: string;
  /** The previous merged graph: only the report's added/updated/removed lists use it (§9). */
  previous?: MergedGraph;
}

/**
 * Merge a set of package graphs (spec/merge.md §1–§8).
 *
 * - `inputs`: installed packages; order and duplicates do not matter (identical inputs count once).
 * - Returns the merged graph (nodes sorted by qualified id `@ns/name#local`, edges by
 *   (from, to, type), conflicts by (from, to, package)) and the report (§9), all sorted.
 * - Same input set → byte-identical `JSON.stringify(graph)`.
 * - The result shares input strings, and edges contributed by one package share one frozen
 *   `packages` array per package: treat the result as read-only (copy before mutating).
 *
 * Throws (before merging anything): `E_INVALID_NAME` (package name), `E_STRUCTURE` (malformed
 * input or previous graph, with the path), `E_CONFLICT` (two versions of one package, or one
 * identity with two graphs), `E_USAGE` (`now` is not RFC 3339).
 */
export function mergeGraphs(inputs: readonly MergeInput[], opts: MergeOptions = {}): { graph: MergedGraph; report: MergeReport } {
  let now;
  if (opts.now !== undefined) {
    now = typeof opts.now === 'string' ? parseTimestamp(opts.now) : undefined;
    if (!now) throw new CtxpkgError('E_USAGE', `mergeGraphs: now must be an RFC 3339 timestamp, got ${JSON.stringify(opts.now)}`);
  }
  const set = normalizeInputs(inputs);
  const table = buildNodes(set);
  const order = table.order;
  const rank = new Int32Array(order.length);
  for (let r = 0; r < order.length; r++) rank[order[r]!] = r;
  const edgeResult = buildEdges(set, table, rank);
  const sup = collectSupersession(table, edgeResult.edges, edgeResult.ends);
  applyActivation(table, edgeResult.edges, edgeResult.ends, sup.supersededBy, edgeResult.disputed, now);
  const nodes = Array.from(order, (i) => table.nodes[i]!);
  const graph: MergedGraph = {
    format: 'ctxpkg-merged-v1',
    inputs: set.map((i) => ({ package: i.package, version: i.version, content_hash: i.content_hash })),
    nodes,
    edges: edgeResult.edges,
    conflicts: edgeResult.conflicts,
  };
  const report = buildReport(
    nodes,
    edgeResult.edges,
    { edges_merged: edgeResult.merged, edges_dropped: edgeResult.dropped, supersedes_dropped: sup.dropped, conflicts: edgeResult.conflicts },
    opts.previous,
  );
  return { graph, report };
}
