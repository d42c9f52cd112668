/**
 * Rules and derived values of `content.context_graph` (FORMAT-FACTS §5.1; spec/format.md §6).
 *
 * Always enforced: `format` is `ctxpkg-graph-v2`; node ids are unique; id, type and edge ends
 * are non-empty; activation, weight and confidence are finite. (The reference checks none of
 * these; its builder never violates them.) Level-specific rules are in `conformance.ts`.
 */
import type { Issue } from './errors.js';
import type { ContextGraph } from './graph-types.js';
import type { GraphSummary } from './manifest.js';
import { parseTimestamp } from './json/timestamp.js';

/** The only graph format this version reads and writes. */
export const GRAPH_FORMAT_V2 = 'ctxpkg-graph-v2';

/**
 * Node id → index of the first node with that id in `nodes` (a later node repeating an id is a
 * duplicate, which `graphIssues` reports). Built once per rule run and shared by `graphIssues` and
 * `conformanceIssues` (`contentRuleIssues`), which both need it.
 */
export function nodeIndexOf(nodes: readonly { id: string }[]): Map<string, number> {
  const index = new Map<string, number>();
  // backwards, so the first node of a repeated id keeps its index
  for (let i = nodes.length - 1; i >= 0; i--) index.set(nodes[i]!.id, i);
  return index;
}

/**
 * Structural problems of a graph (paths under `content.context_graph`, code `E_CONTENT`, at most
 * 100). `index`: `nodeIndexOf(g.nodes)` when the caller has it.
 */
export function graphIssues(g: ContextGraph, index: ReadonlyMap<string, number> = nodeIndexOf(g.nodes)): Issue[] {
  const issues: Issue[] = [];
  const add = (path: string, message: string) =>
    issues.length < 100 && issues.push({ path: `content.context_graph${path}`, code: 'E_CONTENT', message });
  if (g.format !== GRAPH_FORMAT_V2) add('.format', `graph format must be "${GRAPH_FORMAT_V2}", got ${JSON.stringify(g.format)}`);
  const nodes = g.nodes;
  // The index holds one entry per distinct id: fewer entries than nodes means a repeated id,
  // and every node after the first of its id is reported.
  const repeats = index.size !== nodes.length;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    if (n.id === '') add(`.nodes[${i}].id`, 'node id must not be empty');
    else if (repeats && index.get(n.id) !== i) add(`.nodes[${i}].id`, `duplicate node id ${JSON.stringify(n.id)}`);
    if (n.type === '') add(`.nodes[${i}].type`, 'node type must not be empty');
  }
  const edges = g.edges;
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i]!;
    if (e.from === '' || e.to === '') add(`.edges[${i}]`, 'edge ends must not be empty');
    if (e.type === '') add(`.edges[${i}].type`, 'edge type must not be empty');
  }
  return issues;
}

/**
 * The reference's `ContextGraph::summary()`: counts, sorted unique node types, arithmetic mean
 * of activation (0.0 for an empty graph, always present) and the latest `created_at` as
 * freshness (absent when no node has one). Timestamps compare as instants; the latest is
 * reported in its written spelling. `activation` maps each value first (the writer passes its
 * 15-digit rounding, so the mean is over the values it writes).
 */
export function graphSummary(g: ContextGraph, activation: (a: number) => number = (a) => a): GraphSummary {
  const types = new Set<string>();
  for (const n of g.nodes) types.add(n.type);
  const node_types = [...types].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let sum = 0;
  for (const n of g.nodes) sum += activation(n.activation ?? 1);
  const out: GraphSummary = {
    node_count: g.nodes.length,
    edge_count: g.edges.length,
    node_types,
    activation_mean: g.nodes.length === 0 ? 0 : sum / g.nodes.length,
  };
  let best: { s: number; n: number; text: string } | undefined;
  for (const n of g.nodes) {
    if (!n.created_at) continue;
    const t = parseTimestamp(n.created_at);
    if (!t) continue;
    if (!best || t.epochSeconds > best.s || (t.epochSeconds === best.s && t.nanos > best.n)) {
      best = { s: t.epochSeconds, n: t.nanos, text: n.created_at };
    }
  }
  if (best) out.freshness = best.text;
  return out;
}
