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
import type { ContextGraph, ContextNode } from '@ctxpkg/format';

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

/** Longest heading path kept per node (the innermost titles; `…` stands first when cut). */
export const MAX_HEADINGS = 8;

/**
 * Child → parent along `contains` edges between existing nodes: the first edge naming a child
 * wins, loops are ignored, and where parents form a cycle the cycle's edge that comes last in
 * the graph is dropped — so every chain ends. Linear in nodes plus edges (a package is hostile
 * input: a chain of 50,000 `contains` edges must not cost 50,000²).
 */
export function containsParents(graph: ContextGraph): Map<string, string> {
  const ids = new Set(graph.nodes.map((n) => n.id));
  const parent = new Map<string, string>();
  const order = new Map<string, number>();
  graph.edges.forEach((e, i) => {
    if (e.type !== 'contains' || e.from === e.to || !ids.has(e.from) || !ids.has(e.to) || parent.has(e.to)) return;
    parent.set(e.to, e.from);
    order.set(e.to, i);
  });
  // Each node has at most one parent: walk each chain once; a walk that meets its own path found a cycle.
  const state = new Map<string, 1 | 2>();
  for (const n of graph.nodes) {
    const path: string[] = [];
    let cur: string | undefined = n.id;
    while (cur !== undefined && !state.has(cur)) {
      state.set(cur, 1);
      path.push(cur);
      cur = parent.get(cur);
    }
    if (cur !== undefined && state.get(cur) === 1) {
      const cycle = path.slice(path.indexOf(cur));
      const last = cycle.reduce((a, b) => (order.get(b)! > order.get(a)! ? b : a));
      parent.delete(last);
    }
    for (const p of path) state.set(p, 2);
  }
  return parent;
}

/** Where a node sits, from its `contains` ancestors (`ancestry`). */
export interface Ancestry {
  /** Ancestors, not counting a file root (0: directly under the file). */
  depth: number;
  /** Titles of the enclosing sections, outermost first, file root excluded; at most `MAX_HEADINGS`. */
  headingPath: string[];
  /** The nearest `file_path` up the chain (the node's own first). */
  file: string | null;
  /** The outermost ancestor (the node itself when it has no parent). */
  top: string;
  /** The ancestor just below `top` on the chain (the node itself when its parent is `top`); null for `top` itself. */
  below: string | null;
}

/** A file root: a parentless section whose id is its own file path (the Markdown and JSON importers write one per file). */
function isFileRoot(n: ContextNode, parent: Map<string, string>): boolean {
  return n.type === 'section' && typeof n.file_path === 'string' && n.id === n.file_path && !parent.has(n.id);
}

/** The ancestry of every node, computed once per node (linear). */
export function ancestry(graph: ContextGraph, parent = containsParents(graph)): Map<string, Ancestry> {
  const byId = new Map(graph.nodes.map((n) => [n.id, n] as const));
  const out = new Map<string, Ancestry>();
  for (const n of graph.nodes) {
    const pending: ContextNode[] = [];
    let cur: ContextNode | undefined = n;
    while (cur && !out.has(cur.id)) {
      pending.push(cur);
      const p = parent.get(cur.id);
      cur = p === undefined ? undefined : byId.get(p);
    }
    for (let i = pending.length - 1; i >= 0; i--) {
      const node = pending[i];
      const pid = parent.get(node.id);
      if (pid === undefined) {
        out.set(node.id, { depth: 0, headingPath: [], file: node.file_path ?? null, top: node.id, below: null });
        continue;
      }
      const pa = out.get(pid)!;
      const pn = byId.get(pid)!;
      const root = isFileRoot(pn, parent);
      let headingPath = root ? [] : pn.type === 'section' ? [...pa.headingPath, sectionTitle(pn)] : pa.headingPath;
      if (headingPath.length > MAX_HEADINGS) headingPath = ['…', ...headingPath.slice(-(MAX_HEADINGS - 1))];
      out.set(node.id, {
        depth: root ? 0 : pa.depth + 1,
        headingPath,
        file: node.file_path ?? pa.file,
        top: pa.top,
        below: pa.below ?? node.id,
      });
    }
  }
  return out;
}

/** Source order: by first line (nodes without lines after those with), then graph order. */
function sourceOrder(a: { node: ContextNode; index: number }, b: { node: ContextNode; index: number }): number {
  const la = a.node.line_start ?? Number.MAX_SAFE_INTEGER;
  const lb = b.node.line_start ?? Number.MAX_SAFE_INTEGER;
  return la - lb || a.index - b.index;
}

/**
 * Build the tree of a graph. Files are sorted by path (the group without a path last); items
 * keep source order. Deterministic: the same graph gives the same tree. Linear apart from sorting.
 */
export function buildTree(graph: ContextGraph): TreeFile[] {
  const parent = containsParents(graph);
  const where = ancestry(graph, parent);
  const groups = new Map<string | null, Array<{ node: ContextNode; index: number }>>();
  graph.nodes.forEach((node, index) => {
    const f = where.get(node.id)!.file;
    let g = groups.get(f);
    if (!g) groups.set(f, (g = []));
    g.push({ node, index });
  });
  const files = [...groups.keys()].sort((a, b) => (a === null ? 1 : b === null ? -1 : a < b ? -1 : a > b ? 1 : 0));
  return files.map((path) => {
    const members = groups.get(path)!.slice().sort(sourceOrder);
    const root = members.find((m) => m.node.id === path && isFileRoot(m.node, parent))?.node ?? null;
    const scopes: ContextNode[] = [];
    const items: TreeItem[] = [];
    for (const { node } of members) {
      if (node === root) continue;
      if (node.type === 'scope') {
        scopes.push(node);
        continue;
      }
      const a = where.get(node.id)!;
      items.push({ node, depth: Math.min(a.depth, MAX_DEPTH), headingPath: a.headingPath });
    }
    return { path, title: root ? sectionTitle(root) : null, rootId: root?.id ?? null, scopes, items };
  });
}

/** Node counts per type, most frequent first, then by type name. */
export function typeCounts(graph: ContextGraph): Array<{ type: string; count: number }> {
  const m = new Map<string, number>();
  for (const n of graph.nodes) m.set(n.type, (m.get(n.type) ?? 0) + 1);
  return [...m].map(([type, count]) => ({ type, count })).sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}
