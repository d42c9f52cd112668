/**
 * Layout of a package's knowledge graph for the graph page (spec/registry.md "Pages"). Pure and
 * deterministic: positions come from `@dagrejs/dagre` (layered layout, left to right) fed with
 * nodes and edges in a fixed order, rounded to whole pixels.
 *
 * Two pictures, chosen by size:
 * - **nodes** (at most `NODE_LIMIT` nodes, or a focused cluster): one labelled box per node,
 *   one arrow per edge, coloured by type.
 * - **clusters** (larger graphs): one box per source file's top-level section (the file itself
 *   for blocks directly under it; one box per file when there would be more than
 *   `MAX_CLUSTERS`), holding one small square per member node. Edges between boxes are merged
 *   per type and carry their count; edges inside a box are left out. A 1,000-node package stays
 *   readable and small, and every node is still one linked square.
 */
import dagre from '@dagrejs/dagre';
import type { ContextGraph, ContextNode } from '@ctxpkg/format';
import { containsParents, sectionTitle } from './tree.js';

export const NODE_LIMIT = 80;
export const MAX_CLUSTERS = 150;
/** Most nodes drawn one by one in a focused cluster. */
export const FOCUS_LIMIT = 250;

const NODE_W = 210;
const NODE_H = 34;
const LABEL_CHARS = 30;
const DOT = 10;
const DOT_GAP = 4;
const DOTS_PER_ROW = 14;
const CLUSTER_PAD = 10;
const CLUSTER_HEAD = 38;
const CLUSTER_MIN_W = 200;

export interface Point {
  x: number;
  y: number;
}

/** A node drawn as a labelled box (nodes picture); x, y is the top-left corner. */
export interface NodeBox {
  id: string;
  type: string;
  label: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A member square of a cluster (top-left corner). */
export interface Dot {
  id: string;
  type: string;
  /** A short text for the tooltip. */
  label: string;
  x: number;
  y: number;
}

/** A cluster box (clusters picture); x, y is the top-left corner. */
export interface ClusterBox {
  key: string;
  title: string;
  file: string | null;
  x: number;
  y: number;
  w: number;
  h: number;
  dots: Dot[];
}

export interface EdgeLine {
  type: string;
  /** Edges merged into this line (1 in the nodes picture). */
  count: number;
  points: Point[];
}

export interface GraphPicture {
  mode: 'nodes' | 'clusters';
  width: number;
  height: number;
  nodes: NodeBox[];
  clusters: ClusterBox[];
  edges: EdgeLine[];
  /** Nodes left out of a focused picture past `FOCUS_LIMIT`. */
  omitted: number;
}

/** One line of a node's text, at most `n` characters (with `…` when cut). */
export function shortText(s: string, n: number): string {
  const line = s.replace(/\s+/g, ' ').trim();
  const chars = [...line];
  return chars.length <= n ? line : `${chars.slice(0, n - 1).join('')}…`;
}

const round = (v: number): number => Math.round(v);

/** Which cluster each node belongs to, and each cluster's title and file (see the module doc). */
export function clusterOf(graph: ContextGraph, byFileOnly = false): { keyOf: Map<string, string>; info: Map<string, { title: string; file: string | null }> } {
  const byId = new Map(graph.nodes.map((n) => [n.id, n] as const));
  const parent = containsParents(graph);
  const keyOf = new Map<string, string>();
  const info = new Map<string, { title: string; file: string | null }>();
  for (const n of graph.nodes) {
    // Walk up to the outermost ancestor; the top-level section is the one just below it.
    const chain: ContextNode[] = [n];
    for (let p = parent.get(n.id); p !== undefined; p = parent.get(p)) chain.push(byId.get(p)!);
    const top = chain[chain.length - 1];
    const file = chain.find((c) => typeof c.file_path === 'string')?.file_path ?? null;
    let key = `f:${file ?? ''}`;
    let title = file ?? '(no source file)';
    if (!byFileOnly && chain.length >= 2) {
      const sec = chain[chain.length - 2];
      if (sec.type === 'section') {
        key = `s:${sec.id}`;
        title = sectionTitle(sec);
      }
    }
    keyOf.set(n.id, key);
    if (!info.has(key)) info.set(key, { title, file });
  }
  return { keyOf, info };
}

function layoutNodes(graph: ContextGraph, nodes: ContextNode[]): GraphPicture {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 12, ranksep: 60, marginx: 10, marginy: 10 });
  g.setDefaultEdgeLabel(() => ({}));
  const ids = new Set(nodes.map((n) => n.id));
  for (const n of nodes) g.setNode(n.id, { width: NODE_W, height: NODE_H });
  const edges = graph.edges.filter((e) => ids.has(e.from) && ids.has(e.to) && e.from !== e.to);
  // Edges go in last first: dagre then orders each rank top to bottom in source order.
  for (let i = edges.length - 1; i >= 0; i--) g.setEdge(edges[i].from, edges[i].to, {}, String(i));
  dagre.layout(g);
  const boxes: NodeBox[] = nodes.map((n) => {
    const p = g.node(n.id);
    return { id: n.id, type: n.type, label: shortText(n.content, LABEL_CHARS), x: round(p.x! - NODE_W / 2), y: round(p.y! - NODE_H / 2), w: NODE_W, h: NODE_H };
  });
  const lines: EdgeLine[] = edges.map((e, i) => ({
    type: e.type,
    count: 1,
    points: (g.edge(e.from, e.to, String(i)).points ?? []).map((p: Point) => ({ x: round(p.x), y: round(p.y) })),
  }));
  const gl = g.graph();
  return { mode: 'nodes', width: round(gl.width ?? 0), height: round(gl.height ?? 0), nodes: boxes, clusters: [], edges: lines, omitted: 0 };
}

function clusterSize(members: number): { width: number; height: number } {
  const cols = Math.min(members, DOTS_PER_ROW);
  const rows = Math.ceil(members / DOTS_PER_ROW);
  return {
    width: Math.max(CLUSTER_MIN_W, CLUSTER_PAD * 2 + cols * (DOT + DOT_GAP) - DOT_GAP),
    height: CLUSTER_HEAD + CLUSTER_PAD + rows * (DOT + DOT_GAP) - DOT_GAP,
  };
}

/** The clustering the clusters picture uses: by top-level section, or by file past `MAX_CLUSTERS`. */
function pictureClusters(graph: ContextGraph): ReturnType<typeof clusterOf> {
  const c = clusterOf(graph);
  return c.info.size > MAX_CLUSTERS ? clusterOf(graph, true) : c;
}

function layoutClusters(graph: ContextGraph): GraphPicture {
  const { keyOf, info } = pictureClusters(graph);
  const members = new Map<string, ContextNode[]>();
  for (const n of graph.nodes) {
    const k = keyOf.get(n.id)!;
    let list = members.get(k);
    if (!list) members.set(k, (list = []));
    list.push(n);
  }
  const keys = [...members.keys()];
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 16, ranksep: 70, marginx: 10, marginy: 10 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const k of keys) g.setNode(k, clusterSize(members.get(k)!.length));
  // Merge edges between clusters per (from, to, type), in first-seen order.
  const merged = new Map<string, { from: string; to: string; type: string; count: number }>();
  for (const e of graph.edges) {
    const a = keyOf.get(e.from);
    const b = keyOf.get(e.to);
    if (a === undefined || b === undefined || a === b) continue;
    const k = JSON.stringify([a, b, e.type]);
    const m = merged.get(k);
    if (m) m.count++;
    else merged.set(k, { from: a, to: b, type: e.type, count: 1 });
  }
  const list = [...merged.values()];
  for (let i = list.length - 1; i >= 0; i--) g.setEdge(list[i].from, list[i].to, {}, String(i));
  dagre.layout(g);
  const clusters: ClusterBox[] = keys.map((k) => {
    const p = g.node(k);
    const x = round(p.x! - p.width / 2);
    const y = round(p.y! - p.height / 2);
    const dots: Dot[] = members.get(k)!.map((n, i) => ({
      id: n.id,
      type: n.type,
      label: shortText(n.content, 60),
      x: x + CLUSTER_PAD + (i % DOTS_PER_ROW) * (DOT + DOT_GAP),
      y: y + CLUSTER_HEAD + Math.floor(i / DOTS_PER_ROW) * (DOT + DOT_GAP),
    }));
    const i = info.get(k)!;
    return { key: k, title: i.title, file: i.file, x, y, w: p.width, h: p.height, dots };
  });
  const edges: EdgeLine[] = list.map((e, i) => ({
    type: e.type,
    count: e.count,
    points: (g.edge(e.from, e.to, String(i)).points ?? []).map((p: Point) => ({ x: round(p.x), y: round(p.y) })),
  }));
  const gl = g.graph();
  return { mode: 'clusters', width: round(gl.width ?? 0), height: round(gl.height ?? 0), nodes: [], clusters, edges, omitted: 0 };
}

/**
 * The cluster key under which the clusters picture of `graph` draws node `id` (the `focus` that
 * draws it one by one), or undefined when the whole graph is drawn node by node.
 */
export function focusOf(graph: ContextGraph, id: string): string | undefined {
  return graph.nodes.length <= NODE_LIMIT ? undefined : pictureClusters(graph).keyOf.get(id);
}

/**
 * The picture of a graph: nodes when it has at most `NODE_LIMIT` nodes, clusters otherwise.
 * With `focus` (a cluster key from a clusters picture), the nodes of that cluster only, at most
 * `FOCUS_LIMIT` of them in graph order (`omitted` counts the rest); an unknown key gives null.
 */
export function layoutGraph(graph: ContextGraph, focus?: string): GraphPicture | null {
  if (focus !== undefined) {
    const { keyOf } = pictureClusters(graph);
    const nodes = graph.nodes.filter((n) => keyOf.get(n.id) === focus);
    if (nodes.length === 0) return null;
    const pic = layoutNodes(graph, nodes.slice(0, FOCUS_LIMIT));
    return { ...pic, omitted: Math.max(0, nodes.length - FOCUS_LIMIT) };
  }
  return graph.nodes.length <= NODE_LIMIT ? layoutNodes(graph, graph.nodes) : layoutClusters(graph);
}
