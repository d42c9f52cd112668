/**
 * Heading paths: where a node sits in its source file's outline (spec/pack.md §8 "Layout").
 *
 * The importers (spec/format.md §16) write one `section` node per heading (and a root section per
 * file, id `<file_path>`, content its H1 or the path) with `contains` edges from each section to
 * what it holds. A node's heading path is the chain of `section` nodes reached by following
 * `contains` edges backwards, outermost first; non-section containers on the way (a list item
 * holding a nested item) are passed through. When a node has several parents a section parent
 * wins, then the smallest id (deterministic); the walk through non-section containers stops after 64
 * steps. A path is its innermost section's container's path plus that section, whatever node is
 * asked first (a merged graph is package data: it may hold `contains` cycles or nest sections
 * deeper than any Markdown file): a cycle of sections is cut at its smallest id (that section is
 * outermost), and a path keeps its outermost 16 sections.
 *
 * Pure; built once per graph and answered per node id.
 */
import type { MergedGraph, MergedNode } from '../graph-types.js';
import { redactSecrets, surelyClean } from '../secrets.js';
import { computeScopes } from './scope.js';

/** `text` as a header may show it: each secret `scanSecrets` finds replaced by `[REDACTED:<kind>]`. */
function shown(text: string): string {
  return surelyClean(text) ? text : redactSecrets(text).text;
}

/**
 * One enclosing section of a node: its id, title (first line of its content) and provenance —
 * title and file path with their secrets redacted (`redactSecrets`), as every header shows them.
 */
export interface SectionRef {
  /** Qualified id of the section node. */
  id: string;
  /** First line of the section's content, trimmed, secrets redacted (package text; renderers escape it). */
  title: string;
  file_path?: string;
  line_start?: number;
  line_end?: number;
  /** Scope globs of the section itself (sorted; empty: everywhere). */
  scope: readonly string[];
}

const MAX_DEPTH = 16;

/**
 * A resolver of heading paths: `(id) → SectionRef[]` (outermost first; empty when the node is in
 * no section). `scopes` is `computeScopes(graph)` (passed in so callers compute it once).
 * Chains are shared, frozen arrays (one per innermost section), so callers may memoize per heading
 * path by identity; callers must not mutate them.
 */
export function sectionPathResolver(graph: Pick<MergedGraph, 'nodes' | 'edges'>, scopes: ReadonlyMap<string, readonly string[]>): (id: string) => readonly SectionRef[] {
  const byId = new Map<string, MergedNode>();
  const { nodes, edges } = graph;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i] as MergedNode;
    if (n.type === 'section') byId.set(n.id, n);
  }
  // The container of each node: its smallest section parent, else its smallest other parent (a
  // nested list item of an older package sits in its parent item, which sits in a section).
  // Usually every node has one `contains` edge at most: then the map is filled with one `set`
  // per edge, and only a graph where some node has several parents is read again with the rule.
  let parent = new Map<string, string>();
  let contains = 0;
  for (let k = 0; k < edges.length; k++) {
    const e = edges[k] as MergedGraph['edges'][number];
    if (e.type !== 'contains' || e.from === e.to) continue;
    contains++;
    parent.set(e.to, e.from);
  }
  if (parent.size !== contains) {
    parent = new Map<string, string>();
    for (let k = 0; k < edges.length; k++) {
      const e = edges[k] as MergedGraph['edges'][number];
      if (e.type !== 'contains' || e.from === e.to) continue;
      const cur = parent.get(e.to);
      const isSection = byId.has(e.from);
      if (cur === undefined || (isSection && !byId.has(cur)) || (isSection === byId.has(cur) && e.from < cur)) parent.set(e.to, e.from);
    }
  }
  const refs = new Map<string, SectionRef>();
  const refOf = (id: string): SectionRef => {
    let r = refs.get(id);
    if (!r) {
      const n = byId.get(id) as MergedNode;
      // The title and path are written as headers and provenance of the section's items (never
      // screened as a node: a section is not delivered), so secrets in them are redacted here,
      // for every reader of heading paths (spec/pack.md §3, §9).
      r = { id, title: shown((n.content.split('\n')[0] ?? '').trim()), scope: scopes.get(id) ?? [] };
      if (n.file_path !== undefined) r.file_path = shown(n.file_path);
      if (n.line_start !== undefined) r.line_start = n.line_start;
      if (n.line_end !== undefined) r.line_end = n.line_end;
      refs.set(id, r);
    }
    return r;
  };
  // One shared, frozen chain per section (ending with it): every node in a section gets the same
  // array, so callers can memoize per heading path by identity.
  const EMPTY: readonly SectionRef[] = Object.freeze([]);
  const chains = new Map<string, readonly SectionRef[]>();
  /** The nearest section containing `id` (walking through non-section containers), or undefined. */
  const nearestSection = (id: string): string | undefined => {
    // A bounded walk (a cycle of non-section containers ends after 64 steps): no allocation.
    for (let p = parent.get(id), steps = 0; p !== undefined && p !== id && steps < 4 * MAX_DEPTH; p = parent.get(p), steps++) {
      if (byId.has(p)) return p;
    }
    return undefined;
  };
  // Sections whose container link is cut: the smallest id of each `contains` cycle of sections
  // (found by the first walk that meets the cycle; every walk into it meets the same cycle, so
  // the cut does not depend on which node is asked first).
  const cut = new Set<string>();
  const chainOf = (section: string): readonly SectionRef[] => {
    const known = chains.get(section);
    if (known) return known;
    // Walk out to a section whose chain is known, or to the outermost one (no container, or the
    // cut section of a cycle), then build the chains inwards and memoize each. Each chain is its
    // container's chain plus the section — so every section has one depth whatever is asked
    // first — and a chain keeps its outermost MAX_DEPTH sections (deeper sections share their
    // MAX_DEPTH-th ancestor's chain). Linear: every section is walked once.
    const trail: string[] = [];
    const at = new Map<string, number>();
    let s: string | undefined = section;
    while (s !== undefined && !chains.has(s)) {
      const seen = at.get(s);
      if (seen !== undefined) {
        let smallest = trail[seen] as string;
        for (let k = seen + 1; k < trail.length; k++) if ((trail[k] as string) < smallest) smallest = trail[k] as string;
        cut.add(smallest);
        trail.length = (at.get(smallest) as number) + 1;
        s = undefined;
        break;
      }
      at.set(s, trail.length);
      trail.push(s);
      s = cut.has(s) ? undefined : nearestSection(s);
    }
    let chain: readonly SectionRef[] = s !== undefined ? (chains.get(s) as readonly SectionRef[]) : EMPTY;
    for (let k = trail.length - 1; k >= 0; k--) {
      const id = trail[k] as string;
      chain = chain.length >= MAX_DEPTH ? chain : Object.freeze([...chain, refOf(id)]);
      chains.set(id, chain);
    }
    return chains.get(section) ?? EMPTY;
  };
  // Consecutive nodes usually share their section: its chain is reused without a lookup.
  let lastSection: string | undefined;
  let lastChain: readonly SectionRef[] = EMPTY;
  return (id) => {
    const s = nearestSection(id);
    if (s === undefined) return EMPTY;
    if (s !== lastSection) {
      lastChain = chainOf(s);
      lastSection = s;
    }
    return lastChain;
  };
}

/**
 * A resolver of a node's position in its `followed_by` chain (0 for a node no edge of that type
 * points to). Importers write `followed_by` edges between consecutive nodes that share their
 * source lines (the pieces of a run-on legacy line), so the output order (render.ts
 * `compareOutput`) keeps their source order. When several edges point to a node the smallest
 * `from` wins; chains stop on a cycle or after 10,000 steps.
 */
export function sequenceResolver(graph: Pick<MergedGraph, 'edges'>): (id: string) => number {
  const prev = new Map<string, string>();
  const edges = graph.edges;
  for (let k = 0; k < edges.length; k++) {
    const e = edges[k] as MergedGraph['edges'][number];
    if (e.type !== 'followed_by' || e.from === e.to) continue;
    const cur = prev.get(e.to);
    if (cur === undefined || e.from < cur) prev.set(e.to, e.from);
  }
  const memo = new Map<string, number>();
  return (id) => {
    if (prev.size === 0) return 0;
    const known = memo.get(id);
    if (known !== undefined) return known;
    const seen = new Set<string>([id]);
    let n = 0;
    for (let p = prev.get(id); p !== undefined && !seen.has(p) && n < 10_000; p = prev.get(p)) {
      seen.add(p);
      n++;
    }
    memo.set(id, n);
    return n;
  };
}

/**
 * The structure of one graph that every compilation of it needs — node scopes
 * (`computeScopes`), heading paths (`sectionPathResolver`) and the heading index (focus.ts) —
 * built once and remembered per graph (the MCP server and `ctxpkg sync` compile the same graph
 * many times). `sectionsAt(i)` is the heading path of `nodes[i]`, by position (no id lookup once
 * known). Callers must not mutate what it returns.
 */
export interface GraphStructure {
  scopes: ReadonlyMap<string, readonly string[]>;
  sectionsOf: (id: string) => readonly SectionRef[];
  sectionsAt: (i: number) => readonly SectionRef[];
  /** Built on first use (`make` is called once with this structure's `sectionsOf`). */
  lazy<T>(key: string, make: (sectionsOf: (id: string) => readonly SectionRef[]) => T): T;
}

/**
 * What a `GraphStructure` was built from: every node's id and type, the other fields of the
 * structural nodes (`section`, `scope`) and every edge's endpoints and type — compared by
 * identity (`===` on strings is by value), so a graph changed in place is rebuilt, never
 * answered from the memo.
 */
interface Fingerprint {
  edges: MergedGraph['edges'];
  ids: string[];
  types: string[];
  structural: Array<{ i: number; content: string; package: string; file_path: string | undefined; line_start: number | undefined; line_end: number | undefined }>;
  from: string[];
  to: string[];
  etype: string[];
}

function fingerprintOf(graph: Pick<MergedGraph, 'nodes' | 'edges'>): Fingerprint {
  const { nodes, edges } = graph;
  const ids = new Array<string>(nodes.length);
  const types = new Array<string>(nodes.length);
  const structural: Fingerprint['structural'] = [];
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i] as MergedNode;
    ids[i] = n.id;
    types[i] = n.type;
    if (n.type === 'section' || n.type === 'scope') structural.push({ i, content: n.content, package: n.package, file_path: n.file_path, line_start: n.line_start, line_end: n.line_end });
  }
  const from = new Array<string>(edges.length);
  const to = new Array<string>(edges.length);
  const etype = new Array<string>(edges.length);
  for (let k = 0; k < edges.length; k++) {
    const e = edges[k] as MergedGraph['edges'][number];
    from[k] = e.from;
    to[k] = e.to;
    etype[k] = e.type;
  }
  return { edges, ids, types, structural, from, to, etype };
}

function sameGraph(f: Fingerprint, graph: Pick<MergedGraph, 'nodes' | 'edges'>): boolean {
  const { nodes, edges } = graph;
  if (f.edges !== edges || f.ids.length !== nodes.length || f.from.length !== edges.length) return false;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i] as MergedNode;
    if (n.id !== f.ids[i] || n.type !== f.types[i]) return false;
  }
  for (const s of f.structural) {
    const n = nodes[s.i] as MergedNode;
    if (n.content !== s.content || n.package !== s.package || n.file_path !== s.file_path || n.line_start !== s.line_start || n.line_end !== s.line_end) return false;
  }
  for (let k = 0; k < edges.length; k++) {
    const e = edges[k] as MergedGraph['edges'][number];
    if (e.from !== f.from[k] || e.to !== f.to[k] || e.type !== f.etype[k]) return false;
  }
  return true;
}

/** A node array seen once, whose structure was not remembered (see `graphStructure`). */
const SEEN = 'seen' as const;
const structures = new WeakMap<readonly MergedNode[], { f: Fingerprint; s: GraphStructure } | typeof SEEN>();

/**
 * The structure of `graph` (see `GraphStructure`), remembered per node array while the graph's
 * structure is unchanged (checked on every call: one identity comparison per node and edge).
 * Remembered from the second call with the same node array on: a graph compiled once (`ctxpkg
 * render`) does not pay for the fingerprint (a copy of every node's id and type and every edge's
 * ends) that only a later call could use; the MCP server and `ctxpkg sync` build it on their
 * second compilation.
 */
export function graphStructure(graph: Pick<MergedGraph, 'nodes' | 'edges'>): GraphStructure {
  const known = structures.get(graph.nodes);
  if (known !== undefined && known !== SEEN && sameGraph(known.f, graph)) return known.s;
  if (known === undefined) {
    structures.set(graph.nodes, SEEN);
    return buildStructure(graph, graph.nodes.map((n) => n.id));
  }
  const f = fingerprintOf(graph);
  const s = buildStructure(graph, f.ids);
  structures.set(graph.nodes, { f, s });
  return s;
}

/** The structure of `graph`; `ids[i]` is the id of `nodes[i]`. */
function buildStructure(graph: Pick<MergedGraph, 'nodes' | 'edges'>, ids: readonly string[]): GraphStructure {
  const scopes = computeScopes(graph);
  const sectionsOf = sectionPathResolver(graph, scopes);
  const byIndex: Array<readonly SectionRef[] | undefined> = new Array(ids.length);
  const made = new Map<string, unknown>();
  const s: GraphStructure = {
    scopes,
    sectionsOf,
    sectionsAt: (i) => (byIndex[i] ??= sectionsOf(ids[i] as string)),
    lazy: <T>(key: string, make: (so: (id: string) => readonly SectionRef[]) => T): T => {
      if (!made.has(key)) made.set(key, make(sectionsOf));
      return made.get(key) as T;
    },
  };
  return s;
}
