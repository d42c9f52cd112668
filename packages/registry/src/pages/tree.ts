/**
 * The content of a package as a readable tree (spec/registry.md "Pages"): source file → heading
 * path → nodes in source order, with each file's scope patterns. Pure: a graph in, a tree out.
 *
 * The shape comes from the graph itself, not from parsing ids: a node's parent is the node whose
 * `contains` edge points at it (the Markdown and JSON importers write these edges: file root →
 * section → block → nested list item), its file is its `file_path` (or its parent's), and `scope`
 * nodes are the file's scope patterns (frontmatter globs, joined by `applies_to` edges). A graph
 * without `contains` edges or file paths (a hand-written or reference-written package) still
 * renders: every node is then a top-level item of one "(no source file)" group, in graph order.
 */
import type { ContextEdge, ContextGraph, ContextNode } from '@ctxpkg/format';

/** One node in the tree. */
export interface TreeItem {
  node: ContextNode;
  /** Nesting below the file (0: directly under it), capped at `MAX_DEPTH` for display. */
  depth: number;
  /** Titles of the enclosing sections, outermost first (the file's root section excluded). */
  headingPath: string[];
}

/** One source file of the package. */
export interface TreeFile {
  /** `file_path` of its nodes; null for nodes that carry none. */
  path: string | null;
  /** The root section's text when the file has one (`# Title` of a Markdown file), else null. */
  title: string | null;
  /** Id of the root section node (shown as the file header, not as an item), if any. */
  rootId: string | null;
  /** Scope patterns of the file (`scope` nodes), in source order. */
  scopes: ContextNode[];
  /** Every other node of the file in source order. */
  items: TreeItem[];
}

export const MAX_DEPTH = 8;

/** The first line of a section's text, without Markdown heading marks: its title. */
export function sectionTitle(node: ContextNode): string {
  const first = node.content.split('\n', 1)[0] ?? '';
  return first.replace(/^#{1,6}[ \t]+/, '').trim() || node.id;
}

/**
 * Child → parent along `contains` edges between existing nodes (the first edge naming a child
 * wins; an edge that would close a cycle is ignored), so every chain ends.
 */
export function containsParents(graph: ContextGraph): Map<string, string> {
  const ids = new Set(graph.nodes.map((n) => n.id));
  const parent = new Map<string, string>();
  const reaches = (from: string, target: string): boolean => {
    for (let cur: string | undefined = from, steps = 0; cur !== undefined && steps <= ids.size; cur = parent.get(cur), steps++) {
      if (cur === target) return true;
    }
    return false;
  };
  for (const e of graph.edges) {
    if (e.type !== 'contains' || e.from === e.to || !ids.has(e.from) || !ids.has(e.to) || parent.has(e.to)) continue;
    if (reaches(e.from, e.to)) continue;
    parent.set(e.to, e.from);
  }
  return parent;
}

function fileOf(node: ContextNode, byId: Map<string, ContextNode>, parent: Map<string, string>): string | null {
  for (let cur: ContextNode | undefined = node; cur; cur = byId.get(parent.get(cur.id) ?? '')) {
    if (typeof cur.file_path === 'string') return cur.file_path;
  }
  return null;
}

/** Source order: by first line (nodes without lines after those with), then graph order. */
function sourceOrder(a: { node: ContextNode; index: number }, b: { node: ContextNode; index: number }): number {
  const la = a.node.line_start ?? Number.MAX_SAFE_INTEGER;
  const lb = b.node.line_start ?? Number.MAX_SAFE_INTEGER;
  return la - lb || a.index - b.index;
}

/**
 * Build the tree of a graph. Files are sorted by path (the group without a path last); items
 * keep source order. Deterministic: the same graph gives the same tree.
 */
export function buildTree(graph: ContextGraph): TreeFile[] {
  const byId = new Map(graph.nodes.map((n) => [n.id, n] as const));
  const parent = containsParents(graph);
  const groups = new Map<string | null, Array<{ node: ContextNode; index: number }>>();
  graph.nodes.forEach((node, index) => {
    const f = fileOf(node, byId, parent);
    let g = groups.get(f);
    if (!g) groups.set(f, (g = []));
    g.push({ node, index });
  });
  const files = [...groups.keys()].sort((a, b) => (a === null ? 1 : b === null ? -1 : a < b ? -1 : a > b ? 1 : 0));
  return files.map((path) => {
    const members = groups.get(path)!.slice().sort(sourceOrder);
    // The file's root: a parentless section whose id is the file path (Markdown and JSON importers).
    const root = members.find((m) => m.node.type === 'section' && m.node.id === path && !parent.has(m.node.id))?.node ?? null;
    const scopes: ContextNode[] = [];
    const items: TreeItem[] = [];
    for (const { node } of members) {
      if (node === root) continue;
      if (node.type === 'scope') {
        scopes.push(node);
        continue;
      }
      const headingPath: string[] = [];
      let depth = 0;
      for (let p = parent.get(node.id); p !== undefined && p !== root?.id; p = parent.get(p)) {
        const pn = byId.get(p)!;
        depth++;
        if (pn.type === 'section') headingPath.unshift(sectionTitle(pn));
      }
      items.push({ node, depth: Math.min(depth, MAX_DEPTH), headingPath });
    }
    return { path, title: root ? sectionTitle(root) : null, rootId: root?.id ?? null, scopes, items };
  });
}

/** Edges of a graph touching `id`, split into outgoing and incoming (graph order). */
export function edgesOf(graph: ContextGraph, id: string): { out: ContextEdge[]; in: ContextEdge[] } {
  return { out: graph.edges.filter((e) => e.from === id), in: graph.edges.filter((e) => e.to === id) };
}

/** Node counts per type, most frequent first, then by type name. */
export function typeCounts(graph: ContextGraph): Array<{ type: string; count: number }> {
  const m = new Map<string, number>();
  for (const n of graph.nodes) m.set(n.type, (m.get(n.type) ?? 0) + 1);
  return [...m].map(([type, count]) => ({ type, count })).sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}
