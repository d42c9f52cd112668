/**
 * Conformance levels 1–3, validated for real when a manifest claims one (spec/format.md §7).
 * The reference never checks them (FORMAT-FACTS §5.3); ctxpkg does, with these exact rules:
 *
 * - Any claimed level: the package is v2 (checked in the manifest rules) and carries
 *   `content.context_graph`.
 * - Level 1 "Basic": nodes only — `edges` is empty.
 * - Level 2 "Graph": every edge's `from` and `to` name a node of this graph or is a well-formed
 *   qualified reference to another package's node (`@ns/name#<local id>`, `qualified-ref.ts`;
 *   spec/merge.md §2 — such an end can only be checked at merge time, where an absent node makes
 *   the edge dangling: dropped and reported), and at least one end of each edge is a node of
 *   this graph; no two edges share (from, to, type). (`supersedes` may name a node outside the
 *   package and is not checked.)
 * - Level 3 "Cognitive": level 2, plus `activation` written explicitly on every node and
 *   `weight` on every edge, every activation, weight and confidence within [0, 1], and every
 *   `decay_half_life_days` ≥ 1.
 */
import type { Issue } from './errors.js';
import type { ContextGraph } from './graph-types.js';
import { nodeIndexOf } from './graph.js';
import { parseQualifiedRef } from './qualified-ref.js';

function hasKey(v: unknown, key: string): boolean {
  return v !== null && typeof v === 'object' && Object.prototype.hasOwnProperty.call(v, key);
}

/**
 * The level-3 presence rule alone, on the parsed (not yet decoded) graph: `activation` written on
 * every node and `weight` on every edge (`E_CONFORMANCE`).
 */
export function explicitValueIssues(rawGraph: unknown): Issue[] {
  const issues: Issue[] = [];
  const g = rawGraph as { nodes?: unknown; edges?: unknown } | undefined;
  const check = (list: unknown, what: string, key: string) => {
    if (!Array.isArray(list)) return;
    list.forEach((x, i) => {
      if (issues.length < 100 && x !== null && typeof x === 'object' && !hasKey(x, key)) {
        issues.push({ path: `content.context_graph.${what}[${i}].${key}`, code: 'E_CONFORMANCE', message: `level 3: ${key} must be written explicitly` });
      }
    });
  };
  check(g?.nodes, 'nodes', 'activation');
  check(g?.edges, 'edges', 'weight');
  return issues;
}

/**
 * Problems of `graph` against the claimed `level` (`E_CONFORMANCE`, paths under `content.`).
 * `rawGraph` is the parsed JSON of the graph (for the level-3 "written explicitly" rule); when
 * absent, presence is not checked. Levels outside 1–3 are reported by the manifest rules.
 */
export function conformanceIssues(level: number, graph: ContextGraph | undefined, rawGraph?: unknown, index?: ReadonlyMap<string, number>): Issue[] {
  const issues: Issue[] = [];
  const add = (path: string, message: string) =>
    issues.length < 100 && issues.push({ path: `content.context_graph${path}`, code: 'E_CONFORMANCE', message: `level ${level}: ${message}` });
  if (level < 1 || level > 3) return issues;
  if (!graph) {
    issues.push({ path: 'content.context_graph', code: 'E_CONFORMANCE', message: `conformance_level ${level} requires content.context_graph` });
    return issues;
  }
  if (level === 1) {
    if (graph.edges.length > 0) add('.edges', `a level-1 graph has no edges, found ${graph.edges.length}`);
    return issues;
  }
  const ids = index ?? nodeIndexOf(graph.nodes);
  const edges = graph.edges;
  const count = edges.length;
  // Each end's node index (-1: not a node of this graph) and each edge's type number.
  const from = new Int32Array(count);
  const to = new Int32Array(count);
  const type = new Int32Array(count);
  const types = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const e = edges[i]!;
    from[i] = ids.get(e.from) ?? -1;
    to[i] = ids.get(e.to) ?? -1;
    let ty = types.get(e.type);
    if (ty === undefined) types.set(e.type, (ty = types.size));
    type[i] = ty;
  }
  const repeated = repeatedEdges(edges, graph.nodes.length, types.size, from, to, type);
  for (let i = 0; i < count; i++) {
    const e = edges[i]!;
    const f = from[i]!;
    const t = to[i]!;
    // An end that is not a node here must be another package's node, named by a qualified id
    // (resolution order of spec/merge.md §2: a local id wins over the qualified reading).
    const fq = f < 0 && parseQualifiedRef(e.from) !== undefined;
    const tq = t < 0 && parseQualifiedRef(e.to) !== undefined;
    if (f < 0 && !fq) add(`.edges[${i}].from`, `edge end ${JSON.stringify(e.from)} is neither a node of this graph nor a qualified id @ns/name#<id>`);
    if (t < 0 && !tq) add(`.edges[${i}].to`, `edge end ${JSON.stringify(e.to)} is neither a node of this graph nor a qualified id @ns/name#<id>`);
    if (fq && tq) add(`.edges[${i}]`, `edge (${e.from}, ${e.to}) has no end in this graph`);
    if (repeated[i]) add(`.edges[${i}]`, `duplicate edge (${e.from}, ${e.to}, ${e.type})`);
  }
  if (level < 3) return issues;
  const rawNodes = (rawGraph as { nodes?: unknown[] } | undefined)?.nodes;
  const rawEdges = (rawGraph as { edges?: unknown[] } | undefined)?.edges;
  const inUnit = (x: number) => x >= 0 && x <= 1;
  const nodes = graph.nodes;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    if (rawNodes && !hasKey(rawNodes[i], 'activation')) add(`.nodes[${i}].activation`, 'activation must be written explicitly');
    if (!inUnit(n.activation)) add(`.nodes[${i}].activation`, `activation ${n.activation} is outside [0, 1]`);
    if (n.confidence !== undefined && !inUnit(n.confidence)) add(`.nodes[${i}].confidence`, `confidence ${n.confidence} is outside [0, 1]`);
    if (n.decay_half_life_days !== undefined && n.decay_half_life_days < 1) add(`.nodes[${i}].decay_half_life_days`, 'decay_half_life_days must be at least 1');
  }
  for (let i = 0; i < count; i++) {
    const e = edges[i]!;
    if (rawEdges && !hasKey(rawEdges[i], 'weight')) add(`.edges[${i}].weight`, 'weight must be written explicitly');
    if (!inUnit(e.weight)) add(`.edges[${i}].weight`, `weight ${e.weight} is outside [0, 1]`);
  }
  return issues;
}

/**
 * Which edges repeat an earlier edge's (from, to, type) (1 = a repeat; the first of each triple
 * is 0). `from`/`to`: node indices of the ends (-1 for an end that is not a node here), `type`:
 * type numbers (`types` distinct), `nodes`: node count. Edges with both ends in the graph are
 * grouped by their `from` node (a counting sort, stable in edge order) and compared within the
 * group — by pairs in a small group, by a set of `to × types + type` in a large one; the others
 * (qualified ends) by a set of their strings. Linear in the edge count (plus the node count).
 */
function repeatedEdges(edges: readonly { from: string; to: string; type: string }[], nodes: number, types: number, from: Int32Array, to: Int32Array, type: Int32Array): Uint8Array {
  const count = edges.length;
  const out = new Uint8Array(count);
  const start = new Int32Array(nodes + 1);
  let other: Set<string> | undefined;
  for (let i = 0; i < count; i++) {
    if (from[i]! >= 0 && to[i]! >= 0) start[from[i]! + 1]!++;
    else {
      const k = `${edges[i]!.from}\u0000${edges[i]!.to}\u0000${edges[i]!.type}`;
      other ??= new Set();
      const before = other.size;
      if (other.add(k).size === before) out[i] = 1;
    }
  }
  for (let v = 0; v < nodes; v++) start[v + 1]! += start[v]!;
  const order = new Int32Array(start[nodes]!);
  const fill = start.slice(0, nodes);
  for (let i = 0; i < count; i++) if (from[i]! >= 0 && to[i]! >= 0) order[fill[from[i]!]!++] = i;
  for (let v = 0; v < nodes; v++) {
    const s = start[v]!;
    const e = start[v + 1]!;
    if (e - s < 2) continue;
    if (e - s <= 16) {
      for (let a = s + 1; a < e; a++) {
        const i = order[a]!;
        for (let b = s; b < a; b++) {
          const j = order[b]!;
          if (to[j] === to[i] && type[j] === type[i]) {
            out[i] = 1;
            break;
          }
        }
      }
    } else {
      // to × types + type < nodes × types: exact in a double for any graph that fits in memory
      const seen = new Set<number>();
      for (let a = s; a < e; a++) {
        const i = order[a]!;
        const before = seen.size;
        if (seen.add(to[i]! * types + type[i]!).size === before) out[i] = 1;
      }
    }
  }
  return out;
}
