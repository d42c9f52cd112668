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
export function conformanceIssues(level: number, graph: ContextGraph | undefined, rawGraph?: unknown): Issue[] {
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
  // Duplicate (from, to, type) triples are found by number: node index × node count + node index,
  // times the number of edge types, plus the type's index (exact below 2^53, and a small integer
  // — cheap to hash — in the usual graph; string keys otherwise or for ends that are not nodes).
  // Equal strings always map to equal numbers.
  const index = new Map<string, number>();
  // backwards, so the first node of a repeated id keeps its index
  for (let i = graph.nodes.length - 1; i >= 0; i--) index.set(graph.nodes[i]!.id, i);
  const types = new Map<string, number>();
  for (const e of graph.edges) if (!types.has(e.type)) types.set(e.type, types.size);
  const n = graph.nodes.length;
  const m = types.size;
  const numeric = n * n * m < Number.MAX_SAFE_INTEGER;
  const seen = new Set<number | string>();
  graph.edges.forEach((e, i) => {
    const f = index.get(e.from);
    const t = index.get(e.to);
    // An end that is not a node here must be another package's node, named by a qualified id
    // (resolution order of spec/merge.md §2: a local id wins over the qualified reading).
    const fq = f === undefined && parseQualifiedRef(e.from) !== undefined;
    const tq = t === undefined && parseQualifiedRef(e.to) !== undefined;
    if (f === undefined && !fq) add(`.edges[${i}].from`, `edge end ${JSON.stringify(e.from)} is neither a node of this graph nor a qualified id @ns/name#<id>`);
    if (t === undefined && !tq) add(`.edges[${i}].to`, `edge end ${JSON.stringify(e.to)} is neither a node of this graph nor a qualified id @ns/name#<id>`);
    if (fq && tq) add(`.edges[${i}]`, `edge (${e.from}, ${e.to}) has no end in this graph`);
    const ty = types.get(e.type)!;
    const k = numeric && f !== undefined && t !== undefined ? (f * n + t) * m + ty : `${e.from}\u0000${e.to}\u0000${e.type}`;
    const before = seen.size;
    if (seen.add(k).size === before) add(`.edges[${i}]`, `duplicate edge (${e.from}, ${e.to}, ${e.type})`);
  });
  if (level < 3) return issues;
  const rawNodes = (rawGraph as { nodes?: unknown[] } | undefined)?.nodes;
  const rawEdges = (rawGraph as { edges?: unknown[] } | undefined)?.edges;
  const inUnit = (x: number) => x >= 0 && x <= 1;
  graph.nodes.forEach((n, i) => {
    if (rawNodes && !hasKey(rawNodes[i], 'activation')) add(`.nodes[${i}].activation`, 'activation must be written explicitly');
    if (!inUnit(n.activation)) add(`.nodes[${i}].activation`, `activation ${n.activation} is outside [0, 1]`);
    if (n.confidence !== undefined && !inUnit(n.confidence)) add(`.nodes[${i}].confidence`, `confidence ${n.confidence} is outside [0, 1]`);
    if (n.decay_half_life_days !== undefined && n.decay_half_life_days < 1) add(`.nodes[${i}].decay_half_life_days`, 'decay_half_life_days must be at least 1');
  });
  graph.edges.forEach((e, i) => {
    if (rawEdges && !hasKey(rawEdges[i], 'weight')) add(`.edges[${i}].weight`, 'weight must be written explicitly');
    if (!inUnit(e.weight)) add(`.edges[${i}].weight`, `weight ${e.weight} is outside [0, 1]`);
  });
  return issues;
}
