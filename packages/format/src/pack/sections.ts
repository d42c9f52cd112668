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
 * Pure; built once per graph over numbered ids (id-table.ts) and answered per node id, or per
 * node position (`graphStructure`).
 */
import type { MergedGraph, MergedNode } from '../graph-types.js';
import { redactSecrets, surelyClean } from '../secrets.js';
import { IdTable, idHash, ownEdge } from './id-table.js';

/** `text` as a header may show it: each secret `scanSecrets` finds replaced by `[REDACTED:<kind>]`. */
function shown(text: string): string {
  return surelyClean(text) ? text : redactSecrets(text).text;
}

/**
 * The title of a section node as every reader of headings gets it (`SectionRef.title`, the
 * headers of a pack, focus matching and the labels of partial-section notes, focus.ts): the first
 * line of its content, trimmed, each secret replaced by `[REDACTED:<kind>]` (spec/pack.md §3, §9).
 */
export function sectionTitle(content: string): string {
  const nl = content.indexOf('\n');
  return shown((nl < 0 ? content : content.slice(0, nl)).trim());
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
  const o = outlineOf(graph, scopes);
  return (id) => {
    const v = o.table.get(id);
    return v < 0 ? EMPTY : o.pathOf(v);
  };
}

const EMPTY: readonly SectionRef[] = Object.freeze([]);

/**
 * The heading paths and scopes of one graph by number: every node id, every end of a `contains`
 * edge and (when no `scopes` map is given) the source of every `applies_to` edge that applies a
 * glob is a vertex of `table` (id-table.ts; the nodes' ids first, in node order), `canon[i]` is
 * the vertex of `nodes[i]`, `pathOf(v)` the heading path of vertex `v` (the rule of the module
 * docstring) and `scopeOf(v)` its scope globs (`computeScopes`' rule: undefined when unscoped) —
 * over `Int32Array`s: no id string is hashed by V8. A section's `scope` is `scopes.get(id)` when
 * a map is given (read once per section), else `scopeOf`.
 */
interface Outline {
  table: IdTable;
  canon: Int32Array;
  pathOf: (v: number) => readonly SectionRef[];
  scopeOf: (v: number) => readonly string[] | undefined;
}

/**
 * Numbers every node id in node order (`canon[i]`: the vertex of `nodes[i]`; the last `section`
 * node of each vertex in `sectionNode`). A function of its own, as `numberEdges`: V8 optimizes
 * a long loop by on-stack replacement, which compiles the whole function around it — with a
 * second loop that has not run yet, that code deoptimizes on reaching it and the function is
 * compiled again (bench/render, one cold render: numberGraph with both loops was compiled three
 * times).
 */
function numberNodes(nodes: readonly MergedNode[], table: IdTable, canon: Int32Array, sectionNode: Int32Array): void {
  const n = nodes.length;
  const ids = new Array<string>(BLOCK);
  const hashes = new Int32Array(BLOCK);
  for (let b = 0; b < n; b += BLOCK) {
    const e = b + BLOCK < n ? b + BLOCK : n;
    touched ^= gather(nodes, b, e, ids);
    for (let j = 0; j < e - b; j++) hashes[j] = idHash(ids[j] as string);
    touched ^= table.touch(hashes, e - b);
    for (let i = b; i < e; i++) {
      const v = table.addHashed(ids[i - b] as string, hashes[i - b] as number);
      canon[i] = v;
      if ((nodes[i] as MergedNode).type === 'section') sectionNode[v] = i;
    }
  }
}

/**
 * The numbering passes read node ids and edge ends in blocks of this many: first every string of
 * a block (`gather`, short independent steps, so the CPU fetches the scattered strings of a freshly
 * parsed graph at once), then hash and number them from the cache. Hashing each id as it was reached
 * (one long dependent computation per string) fetched them one by one: 50k node ids of the bench
 * graph took ~190 ns each, against ~40 ns for edge ends that lie side by side.
 */
const BLOCK = 64;
/** Where the touching reads of the block passes go (a module variable, so they are not optimized away). */
let touched = 0;

/** `ids[0 … e − b)` := the ids of `nodes[b … e)`, each string's last code unit read (see `BLOCK`). */
function gather(nodes: readonly MergedNode[], b: number, e: number, ids: string[]): number {
  let t = 0;
  for (let i = b; i < e; i++) {
    const id = (nodes[i] as MergedNode).id;
    ids[i - b] = id;
    t ^= id.charCodeAt(id.length - 1);
  }
  return t;
}

/**
 * Numbers the ends of the `contains` edges into `from`/`to` (self-loops dropped), after the
 * `nodeVertices` node ids (`numberNodes`); returns how many edges that is. Ends that are no node
 * get vertices too (a container the graph does not hold still links its contents to its own
 * container).
 *
 * Merged graphs sort their edges by (from, to) and their nodes by id: a run of edges from one
 * container numbers it once, and what it holds is usually the node right after it, then each the
 * node right after the one before (an importer's ids extend their section's). Such a guess is
 * confirmed with === (exact: the table's strings are distinct) and tried while it comes true often
 * enough (misses ≤ 2 · hits + 64): a graph in another order wastes at most 64 comparisons. The
 * edges are read in blocks (`BLOCK`); once the guesses are off, a block's ends are hashed and their
 * slots touched before any of them is numbered.
 */
function numberEdges(edges: MergedGraph['edges'], table: IdTable, nodeVertices: number, from: Int32Array, to: Int32Array): number {
  const names = table;
  let m = 0;
  let lastFrom: string | undefined;
  let lastF = -1;
  let lastT = -1;
  let hits = 0;
  let misses = 0;
  const n = edges.length;
  const froms = new Array<string>(BLOCK);
  const tos = new Array<string>(BLOCK);
  const contains = new Uint8Array(BLOCK);
  const hf = new Int32Array(BLOCK);
  const ht = new Int32Array(BLOCK);
  for (let b = 0; b < n; b += BLOCK) {
    const e = b + BLOCK < n ? b + BLOCK : n;
    touched ^= gatherEnds(edges, b, e, froms, tos, contains);
    // While guesses are off (a graph in another order), every end is looked up: hash them all
    // first and touch their slots, so the table's reads come from the cache too.
    const hashed = !(misses <= 2 * hits + 64);
    if (hashed) {
      for (let j = 0; j < e - b; j++) {
        if (contains[j] === 0) continue;
        hf[j] = idHash(froms[j] as string);
        ht[j] = idHash(tos[j] as string);
      }
      touched ^= table.touch(hf, e - b) ^ table.touch(ht, e - b);
    }
    for (let j = 0; j < e - b; j++) {
      if (contains[j] === 0) continue;
      const ef = froms[j] as string;
      const et = tos[j] as string;
      const sameRun = ef === lastFrom;
      const f = sameRun ? lastF : (lastF = hashed ? table.addHashed((lastFrom = ef), hf[j] as number) : table.add((lastFrom = ef)));
      const guess = (sameRun ? lastT : f) + 1;
      let t = -1;
      if (guess > 0 && guess < nodeVertices && misses <= 2 * hits + 64) {
        // Counted without a branch of their own (a count never taken before the loop is optimized
        // would send it back to the interpreter once taken).
        const hit = names.idAt(guess) === et;
        if (hit) t = guess;
        hits += hit ? 1 : 0;
        misses += hit ? 0 : 1;
      }
      if (t < 0) t = hashed ? table.addHashed(et, ht[j] as number) : table.add(et);
      lastT = t;
      if (f === t) continue;
      from[m] = f;
      to[m] = t;
      m++;
    }
  }
  return m;
}

/**
 * `contains[0 … e − b)` := 1 for each `contains` edge of `edges[b … e)` between nodes of one
 * package declared by it (0 otherwise: another type, or a package filing another's node, `ownEdge`) and
 * `froms`/`tos[…]` := its ends, each end's last code unit read (see `BLOCK`); the slots of other
 * edges keep what they held.
 */
function gatherEnds(edges: MergedGraph['edges'], b: number, e: number, froms: string[], tos: string[], contains: Uint8Array): number {
  let t = 0;
  for (let k = b; k < e; k++) {
    const edge = edges[k] as MergedGraph['edges'][number];
    // Only a `contains` edge's ends are read (as before the blocks: other edges' ends are not numbered here).
    if (edge.type !== 'contains') {
      contains[k - b] = 0;
      continue;
    }
    const f = edge.from;
    const x = edge.to;
    froms[k - b] = f;
    tos[k - b] = x;
    // An edge between two packages, or declared by a package for another's nodes, files nothing (`ownEdge`): read as no edge.
    contains[k - b] = ownEdge(f, x, edge.packages) ? 1 : 0;
    t ^= f.charCodeAt(f.length - 1) ^ x.charCodeAt(x.length - 1);
  }
  return t;
}

/**
 * The container of each of `vertices` vertices over the first `m` `contains` edges `from`/`to`
 * (-1: none): its smallest section parent, else its smallest other parent (a nested list item of
 * an older package sits in its parent item, which sits in a section), smallest by id (`ids`).
 * Usually every vertex has one `contains` edge at most: then one write per edge, and only a graph
 * where some vertex has several parents is read again with the rule.
 */
function parentsOf(vertices: number, from: Int32Array, to: Int32Array, m: number, ids: readonly string[], isSection: (v: number) => boolean): Int32Array {
  const parent = new Int32Array(vertices).fill(-1);
  let several = false;
  for (let k = 0; k < m; k++) {
    const t = to[k] as number;
    if (parent[t] !== -1) several = true;
    parent[t] = from[k] as number;
  }
  if (several) {
    parent.fill(-1);
    for (let k = 0; k < m; k++) {
      const f = from[k] as number;
      const t = to[k] as number;
      const cur = parent[t] as number;
      const fs = isSection(f);
      if (cur === -1 || (fs && !isSection(cur)) || (fs === isSection(cur) && (ids[f] as string) < (ids[cur] as string))) parent[t] = f;
    }
  }
  return parent;
}

/** How many edges are `contains` and how many `applies_to`. */
function countEdges(edges: MergedGraph['edges']): { contains: number; appliesTo: number } {
  let contains = 0;
  let appliesTo = 0;
  for (let k = 0; k < edges.length; k++) {
    const type = (edges[k] as MergedGraph['edges'][number]).type;
    if (type === 'contains') contains++;
    else if (type === 'applies_to') appliesTo++;
  }
  return { contains, appliesTo };
}

function outlineOf(graph: Pick<MergedGraph, 'nodes' | 'edges'>, scopes?: ReadonlyMap<string, readonly string[]>): Outline {
  const { nodes, edges } = graph;
  const { contains, appliesTo } = countEdges(edges);
  // Sized for the nodes and one vertex per `contains` edge (most edge ends are node ids; a
  // container the graph does not hold is a vertex of its own, ~25k of them on the bench graph):
  // a table that grows while the edges are numbered sends their optimized loop back to the
  // interpreter at the first growth (no type feedback for it yet) and rehashes every id.
  const table = new IdTable(nodes.length + contains);
  const canon = new Int32Array(nodes.length);
  // The section node of each node vertex (the last node of that id that is a section, as a map
  // `id → node` filled in node order keeps): -1 when none is.
  const sectionNode = new Int32Array(nodes.length).fill(-1);
  const from = new Int32Array(contains);
  const to = new Int32Array(contains);
  numberNodes(nodes, table, canon, sectionNode);
  const nodeVertices = table.count;
  const m = numberEdges(edges, table, nodeVertices, from, to);
  const isSection = (v: number): boolean => v < nodeVertices && (sectionNode[v] as number) >= 0;
  const scopeOf = scopes === undefined && appliesTo > 0 ? vertexScopes(graph, table, canon, from, to, m) : NO_SCOPES;
  const ids = table.ids;
  const vertices = ids.length;
  const parent = parentsOf(vertices, from, to, m, ids, isSection);
  // The ref and the chain of each section vertex, in dense arrays at `slot[v] − 1` (0: none yet):
  // arrays indexed by vertex would be sparse (~500 sections among ~75k vertices of the bench
  // graph), and a sparse array's dictionary grew by rehashing (~0.3 MB of young garbage per
  // cold render).
  const slot = new Int32Array(vertices);
  const refs: Array<SectionRef | undefined> = [];
  const chains: Array<readonly SectionRef[] | undefined> = [];
  /** The slot of vertex `v`, made when it has none. */
  const slotOf = (v: number): number => {
    let k = slot[v] as number;
    if (k === 0) {
      refs.push(undefined);
      k = slot[v] = chains.push(undefined);
    }
    return k - 1;
  };
  /** The chain of `v` (undefined: not built yet). */
  const chainAt = (v: number): readonly SectionRef[] | undefined => {
    const k = slot[v] as number;
    return k === 0 ? undefined : chains[k - 1];
  };
  // The file path last shown and how (the sections of one file come together): `shown` is a
  // function of the text, so it runs once per run of sections sharing their path.
  let lastPath: string | undefined;
  let lastShown = '';
  const refOf = (v: number): SectionRef => {
    const k = slotOf(v);
    let r = refs[k];
    if (!r) {
      const id = ids[v] as string;
      const n = nodes[sectionNode[v] as number] as MergedNode;
      // The title and path are written as headers and provenance of the section's items (never
      // screened as a node: a section is not delivered), so secrets in them are redacted here,
      // for every reader of heading paths (spec/pack.md §3, §9).
      r = { id, title: sectionTitle(n.content), scope: (scopes !== undefined ? scopes.get(id) : scopeOf[v]) ?? [] };
      if (n.file_path !== undefined) {
        if (n.file_path !== lastPath) lastShown = shown((lastPath = n.file_path));
        r.file_path = lastShown;
      }
      if (n.line_start !== undefined) r.line_start = n.line_start;
      if (n.line_end !== undefined) r.line_end = n.line_end;
      refs[k] = r;
    }
    return r;
  };
  /** The nearest section containing vertex `v` (walking through non-section containers), or -1. */
  const nearestSection = (v: number): number => {
    // A bounded walk (a cycle of non-section containers ends after 64 steps).
    for (let p = parent[v] as number, steps = 0; p !== -1 && p !== v && steps < 4 * MAX_DEPTH; p = parent[p] as number, steps++) {
      if (isSection(p)) return p;
    }
    return -1;
  };
  // The nearest section of each vertex once asked (-2: not yet; -1: none).
  const near = new Int32Array(vertices).fill(-2);
  // One shared, frozen chain per section (ending with it, `chainAt`): every node in a section gets
  // the same array, so callers can memoize per heading path by identity.
  // Sections whose container link is cut: the smallest id of each `contains` cycle of sections
  // (found by the first walk that meets the cycle; every walk into it meets the same cycle, so
  // the cut does not depend on which node is asked first).
  const cut = new Uint8Array(vertices);
  // The position in the current walk's trail of each section on it (-1 elsewhere; reset after each walk).
  const at = new Int32Array(vertices).fill(-1);
  const chainOf = (section: number): readonly SectionRef[] => {
    const known = chainAt(section);
    if (known) return known;
    // Walk out to a section whose chain is known, or to the outermost one (no container, or the
    // cut section of a cycle), then build the chains inwards and memoize each. Each chain is its
    // container's chain plus the section — so every section has one depth whatever is asked
    // first — and a chain keeps its outermost MAX_DEPTH sections (deeper sections share their
    // MAX_DEPTH-th ancestor's chain). Linear: every section is walked once.
    const trail: number[] = [];
    let s = section;
    while (s !== -1 && chainAt(s) === undefined) {
      const seen = at[s] as number;
      if (seen !== -1) {
        let smallest = trail[seen] as number;
        for (let k = seen + 1; k < trail.length; k++) if ((ids[trail[k] as number] as string) < (ids[smallest] as string)) smallest = trail[k] as number;
        cut[smallest] = 1;
        for (const x of trail) at[x] = -1;
        trail.length = trail.indexOf(smallest) + 1;
        s = -1;
        break;
      }
      at[s] = trail.length;
      trail.push(s);
      s = cut[s] === 1 ? -1 : nearestSection(s);
    }
    for (const x of trail) at[x] = -1;
    let chain: readonly SectionRef[] = s !== -1 ? (chainAt(s) as readonly SectionRef[]) : EMPTY;
    for (let k = trail.length - 1; k >= 0; k--) {
      const v = trail[k] as number;
      chain = chain.length >= MAX_DEPTH ? chain : Object.freeze([...chain, refOf(v)]);
      chains[slotOf(v)] = chain;
    }
    return chainAt(section) ?? EMPTY;
  };
  return {
    table,
    canon,
    pathOf: (v) => {
      let s = near[v] as number;
      if (s === -2) near[v] = s = nearestSection(v);
      return s === -1 ? EMPTY : chainOf(s);
    },
    scopeOf: (v) => scopeOf[v],
  };
}

const NO_SCOPES: ReadonlyArray<readonly string[] | undefined> = [];

/**
 * `computeScopes(graph)` by vertex of `table` (see `Outline`): the sorted scope globs of each
 * vertex that has some. Adds the `from` end of every `applies_to` edge to `table`; `from`/`to`
 * are the first `m` `contains` edges by vertex. Visits each vertex once per glob source, as
 * `computeScopes` does; a vertex reached from one source only shares that source's sorted array.
 */
function vertexScopes(graph: Pick<MergedGraph, 'nodes' | 'edges'>, table: IdTable, canon: Int32Array, from: Int32Array, to: Int32Array, m: number): Array<readonly string[] | undefined> {
  const { nodes, edges } = graph;
  // The scope node of each node vertex (the last node of that id of type `scope`, as `computeScopes`' map).
  const scopeNode = new Int32Array(table.count).fill(-1);
  for (let i = 0; i < nodes.length; i++) if ((nodes[i] as MergedNode).type === 'scope') scopeNode[canon[i] as number] = i;
  // The globs each source applies (in edge order; a set per source).
  const direct = new Map<number, Set<string>>();
  for (let k = 0; k < edges.length; k++) {
    const e = edges[k] as MergedGraph['edges'][number];
    if (e.type !== 'applies_to' || !ownEdge(e.from, e.to, e.packages)) continue;
    const t = table.get(e.to);
    const sn = t >= 0 && t < scopeNode.length ? (scopeNode[t] as number) : -1;
    if (sn === -1) continue;
    const glob = (nodes[sn] as MergedNode).content.trim();
    if (glob === '') continue;
    const f = table.add(e.from);
    let set = direct.get(f);
    if (set === undefined) direct.set(f, (set = new Set<string>()));
    set.add(glob);
  }
  const vertices = table.count;
  const out = new Array<readonly string[] | undefined>(vertices);
  if (direct.size === 0) return out;
  // Children of each vertex over `contains` edges (compressed rows).
  const start = new Int32Array(vertices + 1);
  for (let k = 0; k < m; k++) start[(from[k] as number) + 1]++;
  for (let v = 0; v < vertices; v++) start[v + 1] = (start[v + 1] as number) + (start[v] as number);
  const fill = start.slice(0, vertices);
  const child = new Int32Array(m);
  for (let k = 0; k < m; k++) {
    const f = from[k] as number;
    child[(fill[f] as number)++] = to[k] as number;
  }
  // Each vertex's sources: the first one that reached it, and a set of every glob once a second one does.
  const first = new Int32Array(vertices).fill(-1);
  const merged = new Map<number, Set<string>>();
  const seen = new Int32Array(vertices).fill(-1);
  const sources = [...direct.keys()].sort((a, b) => (table.idAt(a) < table.idAt(b) ? -1 : 1));
  const sorted: Array<readonly string[]> = [];
  const stack: number[] = [];
  sources.forEach((src, si) => {
    const globs = direct.get(src) as Set<string>;
    sorted.push([...globs].sort());
    stack.push(src);
    while (stack.length > 0) {
      const v = stack.pop() as number;
      if (seen[v] === si) continue;
      seen[v] = si;
      const f = first[v] as number;
      if (f === -1) first[v] = si;
      else {
        let set = merged.get(v);
        if (set === undefined) merged.set(v, (set = new Set(sorted[f] as readonly string[])));
        for (const g of globs) set.add(g);
      }
      for (let c = start[v] as number, end = start[v + 1] as number; c < end; c++) stack.push(child[c] as number);
    }
  });
  for (let v = 0; v < vertices; v++) {
    const f = first[v] as number;
    if (f === -1) continue;
    const set = merged.get(v);
    out[v] = set === undefined ? (sorted[f] as readonly string[]) : [...set].sort();
  }
  return out;
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
    if (e.type !== 'followed_by' || e.from === e.to || !ownEdge(e.from, e.to, e.packages)) continue;
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
 * (`computeScopes`' rule), heading paths (`sectionPathResolver`'s rule) and the heading index
 * (focus.ts) — built once and remembered per graph (the MCP server and `ctxpkg sync` compile the
 * same graph many times). `sectionsAt(i)` and `scopeAt(i)` answer for `nodes[i]` by position:
 * array reads, no id lookup. Nodes that share a scope may share its array. Callers must not
 * mutate what it returns.
 */
export interface GraphStructure {
  /** `computeScopes(graph)` as a map by id (built on first use; `scopeAt` needs none). */
  readonly scopes: ReadonlyMap<string, readonly string[]>;
  sectionsOf: (id: string) => readonly SectionRef[];
  sectionsAt: (i: number) => readonly SectionRef[];
  /** The scope globs of `nodes[i]` (`computeScopes`' rule), undefined when unscoped; by position. */
  scopeAt: (i: number) => readonly string[] | undefined;
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
    return buildStructure(graph);
  }
  const f = fingerprintOf(graph);
  const s = buildStructure(graph);
  structures.set(graph.nodes, { f, s });
  return s;
}

/** The structure of `graph`. */
function buildStructure(graph: Pick<MergedGraph, 'nodes' | 'edges'>): GraphStructure {
  const o = outlineOf(graph);
  const count = o.canon.length;
  const sectionsOf = (id: string): readonly SectionRef[] => {
    const v = o.table.get(id);
    return v < 0 ? EMPTY : o.pathOf(v);
  };
  let scopes: Map<string, readonly string[]> | undefined;
  const made = new Map<string, unknown>();
  const s: GraphStructure = {
    get scopes() {
      if (scopes === undefined) {
        scopes = new Map();
        const vids = o.table.ids;
        for (let v = 0; v < vids.length; v++) {
          const globs = o.scopeOf(v);
          if (globs !== undefined) scopes.set(vids[v] as string, globs);
        }
      }
      return scopes;
    },
    sectionsOf,
    sectionsAt: (i) => (i >= 0 && i < count ? o.pathOf(o.canon[i] as number) : EMPTY),
    scopeAt: (i) => (i >= 0 && i < count ? o.scopeOf(o.canon[i] as number) : undefined),
    lazy: <T>(key: string, make: (so: (id: string) => readonly SectionRef[]) => T): T => {
      if (!made.has(key)) made.set(key, make(sectionsOf));
      return made.get(key) as T;
    },
  };
  return s;
}
