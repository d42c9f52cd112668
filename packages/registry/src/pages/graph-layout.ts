/**
 * Layout of a package's knowledge graph for the graph page (spec/registry.md §15). Pure and
 * deterministic: the same graph gives the same picture, in whole pixels.
 *
 * Two pictures, chosen by size:
 * - **nodes** (at most `NODE_LIMIT` nodes, or a focused cluster): one labelled box per node,
 *   one arrow per (from, to, type), coloured by type, placed by `@dagrejs/dagre` (layered, left
 *   to right; nodes and edges fed in a fixed order).
 * - **clusters** (larger graphs): one box per source file's top-level section (plus one for the
 *   file's own top-level nodes; one box per file when there would be more than `MAX_CLUSTERS`),
 *   holding one small square per member node, on a grid inside one band per file (see
 *   `layoutClusters`). Edges between boxes are merged per type and carry their count. A
 *   1,000-node package fits about one screen, and every node is still one linked square.
 *
 * A package is hostile input, so the layout's input is bounded: at most `FOCUS_LIMIT` nodes or
 * `MAX_CLUSTERS` groups, and at most `MAX_EDGE_LINES` edge lines (those carrying the most edges).
 */
import dagre from '@dagrejs/dagre';
import type { ContextEdge, ContextGraph, ContextNode } from '@ctxpkg/format';
import { ancestry, sectionTitle } from './tree.js';

export const NODE_LIMIT = 80;
export const MAX_CLUSTERS = 150;
/** Most nodes drawn one by one in a focused cluster. */
export const FOCUS_LIMIT = 250;
/**
 * Most edge lines handed to the layout (after merging duplicates): the layout's cost grows with
 * edges and the ranks they span, and a package is hostile input. The rest are counted, not drawn.
 */
export const MAX_EDGE_LINES = 400;
/** Most node squares in a clusters picture; past it each group draws its share and counts the rest. */
export const MAX_DOTS = 2_000;

const NODE_W = 210;
const NODE_H = 34;
const LABEL_CHARS = 30;
const DOT = 10;
const DOT_GAP = 4;
const DOTS_PER_ROW = 13;
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
  /** Member nodes drawn (all of them unless the graph has more than `MAX_DOTS` nodes). */
  dots: Dot[];
  /** Member nodes in all. */
  size: number;
}

/** A source file's band in the clusters picture (top-left corner). */
export interface Band {
  title: string;
  /** Nodes of the file. */
  count: number;
  x: number;
  y: number;
  w: number;
  h: number;
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
  /** Source-file bands around the clusters (clusters picture only). */
  bands: Band[];
  edges: EdgeLine[];
  /** Nodes left out of a focused picture past `FOCUS_LIMIT`. */
  omitted: number;
  /** Edges not drawn past `MAX_EDGE_LINES` lines (each merged line counts its edges). */
  edgesOmitted: number;
}

interface Merged {
  from: string;
  to: string;
  type: string;
  count: number;
}

/**
 * Merge edges per (from, to, type) after mapping their ends with `end` (undefined drops an edge,
 * as do loops), in first-seen order; keep the `MAX_EDGE_LINES` lines with the most edges (ties in
 * that order). Returns the kept lines in first-seen order and how many edges were dropped.
 */
function mergeEdges(edges: readonly ContextEdge[], end: (id: string) => string | undefined): { lines: Merged[]; omitted: number } {
  const merged = new Map<string, Merged & { first: number }>();
  edges.forEach((e) => {
    const a = end(e.from);
    const b = end(e.to);
    if (a === undefined || b === undefined || a === b) return;
    const k = JSON.stringify([a, b, e.type]);
    const m = merged.get(k);
    if (m) m.count++;
    else merged.set(k, { from: a, to: b, type: e.type, count: 1, first: merged.size });
  });
  const all = [...merged.values()];
  const kept = all.length <= MAX_EDGE_LINES ? all : all.slice().sort((x, y) => y.count - x.count || x.first - y.first).slice(0, MAX_EDGE_LINES).sort((x, y) => x.first - y.first);
  const omitted = all.reduce((n, m) => n + m.count, 0) - kept.reduce((n, m) => n + m.count, 0);
  return { lines: kept.map(({ from, to, type, count }) => ({ from, to, type, count })), omitted };
}

/** One line of a node's text, at most `n` characters (with `…` when cut). */
export function shortText(s: string, n: number): string {
  const line = s.replace(/\s+/g, ' ').trim();
  const chars = [...line];
  return chars.length <= n ? line : `${chars.slice(0, n - 1).join('')}…`;
}

const round = (v: number): number => Math.round(v);

/**
 * Which cluster each node belongs to, and each cluster's title and file (see the module doc).
 * Past `MAX_CLUSTERS` files (with `byFileOnly`), the files after the first `MAX_CLUSTERS - 1`
 * (by path) share one group, `f:*`. Linear in the graph.
 */
export function clusterOf(graph: ContextGraph, byFileOnly = false): { keyOf: Map<string, string>; info: Map<string, { title: string; file: string | null }> } {
  const byId = new Map(graph.nodes.map((n) => [n.id, n] as const));
  const where = ancestry(graph);
  const keyOf = new Map<string, string>();
  const info = new Map<string, { title: string; file: string | null }>();
  const files = [...new Set(graph.nodes.map((n) => where.get(n.id)!.file ?? ''))].sort();
  const crowded = byFileOnly && files.length > MAX_CLUSTERS ? new Set(files.slice(MAX_CLUSTERS - 1)) : new Set<string>();
  for (const n of graph.nodes) {
    const a = where.get(n.id)!;
    const file = a.file;
    let key = `f:${file ?? ''}`;
    let title = file ?? '(no source file)';
    const below = a.below === null ? undefined : byId.get(a.below);
    if (crowded.has(file ?? '')) {
      key = 'f:*';
      title = `${crowded.size} more files`;
    } else if (!byFileOnly && below?.type === 'section') {
      key = `s:${below.id}`;
      title = sectionTitle(below);
    }
    keyOf.set(n.id, key);
    if (!info.has(key)) info.set(key, { title, file: key === 'f:*' ? null : file });
  }
  return { keyOf, info };
}

function layoutNodes(graph: ContextGraph, nodes: ContextNode[]): GraphPicture {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 12, ranksep: 60, marginx: 10, marginy: 10 });
  g.setDefaultEdgeLabel(() => ({}));
  const ids = new Set(nodes.map((n) => n.id));
  for (const n of nodes) g.setNode(n.id, { width: NODE_W, height: NODE_H });
  const { lines: edges, omitted } = mergeEdges(graph.edges, (id) => (ids.has(id) ? id : undefined));
  // Edges go in last first: dagre then orders each rank top to bottom in source order.
  for (let i = edges.length - 1; i >= 0; i--) g.setEdge(edges[i].from, edges[i].to, {}, String(i));
  dagre.layout(g);
  const boxes: NodeBox[] = nodes.map((n) => {
    const p = g.node(n.id);
    return { id: n.id, type: n.type, label: shortText(n.content, LABEL_CHARS), x: round(p.x! - NODE_W / 2), y: round(p.y! - NODE_H / 2), w: NODE_W, h: NODE_H };
  });
  const lines: EdgeLine[] = edges.map((e, i) => ({
    type: e.type,
    count: e.count,
    points: (g.edge(e.from, e.to, String(i)).points ?? []).map((p: Point) => ({ x: round(p.x), y: round(p.y) })),
  }));
  const gl = g.graph();
  return { mode: 'nodes', width: round(gl.width ?? 0), height: round(gl.height ?? 0), nodes: boxes, clusters: [], bands: [], edges: lines, omitted: 0, edgesOmitted: omitted };
}

/** The clustering the clusters picture uses: by top-level section, or by file past `MAX_CLUSTERS`. */
function pictureClusters(graph: ContextGraph): ReturnType<typeof clusterOf> {
  const c = clusterOf(graph);
  return c.info.size > MAX_CLUSTERS ? clusterOf(graph, true) : c;
}

/** Width of every group box: room for `DOTS_PER_ROW` squares. */
const BOX_W = Math.max(CLUSTER_MIN_W, CLUSTER_PAD * 2 + DOTS_PER_ROW * (DOT + DOT_GAP) - DOT_GAP);
const GAP = 16;
const BAND_HEAD = 30;
const BAND_PAD = 10;
const MARGIN = 10;
/** Widest clusters picture, px: the page's content column, so a picture needs no sideways scrolling. */
const PICTURE_W = 1140;
const COLS = Math.max(1, Math.floor((PICTURE_W - 2 * MARGIN - 2 * BAND_PAD + GAP) / (BOX_W + GAP)));

function boxHeight(dots: number): number {
  return CLUSTER_HEAD + CLUSTER_PAD + Math.max(1, Math.ceil(dots / DOTS_PER_ROW)) * (DOT + DOT_GAP) - DOT_GAP;
}

/** The point where the segment from the centre of `r` towards `to` leaves `r`. */
function border(r: { x: number; y: number; w: number; h: number }, to: Point): Point {
  const cx = r.x + r.w / 2;
  const cy = r.y + r.h / 2;
  const dx = to.x - cx;
  const dy = to.y - cy;
  if (dx === 0 && dy === 0) return { x: round(cx), y: round(cy) };
  const t = Math.min(dx === 0 ? Infinity : r.w / 2 / Math.abs(dx), dy === 0 ? Infinity : r.h / 2 / Math.abs(dy));
  return { x: round(cx + dx * t), y: round(cy + dy * t) };
}

const lineOf = (n: ContextNode): number => n.line_start ?? Number.MAX_SAFE_INTEGER;

/**
 * The clusters picture: one band per source file (sorted by path; nodes without a file, then the
 * crowded `f:*` group, last), holding its groups in source order on a grid of `COLS` columns —
 * the file's own top-level nodes first. Membership is the layout, so `contains` edges inside a
 * band are not drawn; every other edge between groups is one straight arrow per (from, to, type)
 * with its count.
 */
function layoutClusters(graph: ContextGraph): GraphPicture {
  const { keyOf, info } = pictureClusters(graph);
  const index = new Map(graph.nodes.map((n, i) => [n, i] as const));
  const members = new Map<string, ContextNode[]>();
  for (const n of graph.nodes) {
    const k = keyOf.get(n.id)!;
    let list = members.get(k);
    if (!list) members.set(k, (list = []));
    list.push(n);
  }
  for (const list of members.values()) list.sort((a, b) => lineOf(a) - lineOf(b) || index.get(a)! - index.get(b)!);
  const share = (k: string): number => {
    const n = members.get(k)!.length;
    return graph.nodes.length <= MAX_DOTS ? n : Math.min(n, Math.ceil((n * MAX_DOTS) / graph.nodes.length));
  };
  // Bands: clusters grouped by file; a band's clusters in source order, its file-level group first.
  const bandOf = (k: string): string => (k === 'f:*' ? '\u{10FFFF}*' : info.get(k)!.file ?? '\u{10FFFF}');
  const bandKeys = new Map<string, string[]>();
  for (const k of members.keys()) {
    const b = bandOf(k);
    let list = bandKeys.get(b);
    if (!list) bandKeys.set(b, (list = []));
    list.push(k);
  }
  const first = (k: string) => members.get(k)![0];
  const bands: Band[] = [];
  const clusters: ClusterBox[] = [];
  const boxOf = new Map<string, ClusterBox>();
  let y = MARGIN;
  let width = 0;
  for (const b of [...bandKeys.keys()].sort()) {
    const keys = bandKeys.get(b)!.sort((p, q) => Number(q.startsWith('f:')) - Number(p.startsWith('f:')) || lineOf(first(p)) - lineOf(first(q)) || index.get(first(p))! - index.get(first(q))!);
    const top = y;
    let rowY = y + BAND_HEAD;
    let cols = 0;
    for (let r = 0; r < keys.length; r += COLS) {
      const row = keys.slice(r, r + COLS);
      const h = Math.max(...row.map((k) => boxHeight(share(k))));
      row.forEach((k, c) => {
        const x = MARGIN + BAND_PAD + c * (BOX_W + GAP);
        const dots: Dot[] = members.get(k)!.slice(0, share(k)).map((n, i) => ({
          id: n.id,
          type: n.type,
          label: shortText(n.content, 60),
          x: x + CLUSTER_PAD + (i % DOTS_PER_ROW) * (DOT + DOT_GAP),
          y: rowY + CLUSTER_HEAD + Math.floor(i / DOTS_PER_ROW) * (DOT + DOT_GAP),
        }));
        const i = info.get(k)!;
        const title = k === 'f:*' ? i.title : k.startsWith('f:') ? 'Top level' : i.title;
        const box: ClusterBox = { key: k, title, file: i.file, x, y: rowY, w: BOX_W, h: boxHeight(share(k)), dots, size: members.get(k)!.length };
        clusters.push(box);
        boxOf.set(k, box);
      });
      cols = Math.max(cols, row.length);
      rowY += h + GAP;
    }
    const title = b === '\u{10FFFF}*' ? info.get('f:*')!.title : b === '\u{10FFFF}' ? '(no source file)' : b;
    // Wide enough for its title (about 8 px per character plus the node count), within the picture.
    const w = Math.min(PICTURE_W - 2 * MARGIN, Math.max(BAND_PAD * 2 + cols * (BOX_W + GAP) - GAP, [...title].length * 8 + 130));
    bands.push({ title, count: keys.reduce((n, k) => n + members.get(k)!.length, 0), x: MARGIN, y: top, w, h: rowY - GAP + BAND_PAD - top });
    width = Math.max(width, MARGIN * 2 + w);
    y = rowY - GAP + BAND_PAD + GAP * 2;
  }
  // Edges between groups, merged per (from, to, type); `contains` inside one band is the band itself.
  const { lines, omitted } = mergeEdges(
    graph.edges.filter((e) => e.type !== 'contains' || bandOf(keyOf.get(e.from) ?? '') !== bandOf(keyOf.get(e.to) ?? '')),
    (id) => keyOf.get(id),
  );
  const edges: EdgeLine[] = lines.map((e) => {
    const a = boxOf.get(e.from)!;
    const z = boxOf.get(e.to)!;
    const ca = { x: a.x + a.w / 2, y: a.y + a.h / 2 };
    const cz = { x: z.x + z.w / 2, y: z.y + z.h / 2 };
    return { type: e.type, count: e.count, points: [border(a, cz), border(z, ca)] };
  });
  return { mode: 'clusters', width: round(width), height: round(y - GAP * 2 + MARGIN), nodes: [], clusters, bands, edges, omitted: 0, edgesOmitted: omitted };
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
