/**
 * Node scope (which workspace paths a node applies to) and `--focus` matching
 * (spec/pack.md "Scope and focus").
 *
 * Scope convention (written by the importers, spec/format.md): a node of `type: "scope"` holds a
 * glob in `content`; an edge `{ from: X, to: <scope node>, type: "applies_to" }` scopes X; every
 * node reachable from X over `contains` edges inherits X's globs. A node's scope is the sorted
 * union of the globs of all its scoping ancestors; an empty scope means "applies everywhere".
 * Globs are package text: they are matched only through glob.ts (linear, bounded); a glob over
 * the bounds stays in the scope (it is shown) but matches nothing.
 */
import type { Issue } from '../errors.js';
import type { MergedGraph } from '../graph-types.js';
import { cachedGlob, compileGlob, globProblem, type CompiledGlob } from './glob.js';
import { ownEdge } from './id-table.js';

/** Node types that structure a graph but are not knowledge items of their own. */
export const STRUCTURAL_TYPES: ReadonlySet<string> = new Set(['scope', 'section']);

/**
 * Scope globs per qualified node id (only nodes with a non-empty scope are in the map).
 * Cycles in `contains` edges are tolerated (each node is visited once per glob source).
 */
export function computeScopes(graph: Pick<MergedGraph, 'nodes' | 'edges'>): Map<string, string[]> {
  const byId = new Map<string, MergedGraph['nodes'][number]>();
  const { nodes, edges } = graph;
  // Indexed loops: run once per process on 50k-node graphs, mostly before a for…of iterator's
  // result objects could be optimized away.
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i] as MergedGraph['nodes'][number];
    if (n.type === 'scope') byId.set(n.id, n);
  }
  const direct = new Map<string, Set<string>>();
  for (let k = 0; k < edges.length; k++) {
    const e = edges[k] as MergedGraph['edges'][number];
    if (e.type !== 'applies_to' || !ownEdge(e.from, e.to, e.packages)) continue;
    const target = byId.get(e.to);
    if (target && target.content.trim() !== '') {
      const set = direct.get(e.from) ?? new Set<string>();
      set.add(target.content.trim());
      direct.set(e.from, set);
    }
  }
  if (direct.size === 0) return new Map();
  const children = new Map<string, string[]>();
  for (const e of graph.edges) {
    if (e.type !== 'contains' || !ownEdge(e.from, e.to, e.packages)) continue;
    const list = children.get(e.from);
    if (list) list.push(e.to);
    else children.set(e.from, [e.to]);
  }
  const acc = new Map<string, Set<string>>();
  const sources = [...direct.keys()].sort();
  for (const src of sources) {
    const globs = direct.get(src) as Set<string>;
    const seen = new Set<string>();
    const stack = [src];
    while (stack.length > 0) {
      const id = stack.pop() as string;
      if (seen.has(id)) continue;
      seen.add(id);
      const set = acc.get(id) ?? new Set<string>();
      for (const g of globs) set.add(g);
      acc.set(id, set);
      for (const c of children.get(id) ?? []) stack.push(c);
    }
  }
  const out = new Map<string, string[]>();
  for (const [id, set] of acc) out.set(id, [...set].sort());
  return out;
}

/**
 * The scope globs of a graph that cannot be used (glob.ts `globProblem`: over the bounds, absolute,
 * `..`, control characters, …), one `E_GLOB` issue per `type: "scope"` node, `path`
 * `nodes[i].content`, in node order. For `create` (refuse the source) and the registry's publish
 * gate (refuse the package); linear in the graph's text.
 */
export function scopeGlobIssues(graph: { nodes: ReadonlyArray<{ type: string; content: string }> }): Issue[] {
  const out: Issue[] = [];
  graph.nodes.forEach((n, i) => {
    if (n.type !== 'scope') return;
    const problem = globProblem(n.content.trim());
    if (problem) out.push({ path: `nodes[${i}].content`, code: 'E_GLOB', message: `scope glob ${JSON.stringify(n.content.length > 80 ? n.content.slice(0, 80) + '…' : n.content)}: ${problem}` });
  });
  return out;
}

/** A parsed `--focus`: a path glob (compiled, glob.ts), or a free-text query (lowercased terms). */
export type Focus =
  | {
      kind: 'glob';
      /** The glob as compared (`normalizeGlob`). */
      glob: string;
      compiled: CompiledGlob;
      /** `globCovers` answers per scope glob: many nodes share one scope, each glob is judged once. */
      overlaps: Map<string, boolean>;
    }
  | { kind: 'query'; terms: string[] };

/**
 * A glob as focus matching compares it (spec/pack.md §7 "Focus"): surrounding whitespace and one
 * leading `./` removed, as `computeScopes` and `compileGlob` read it. Linear.
 */
export function normalizeGlob(glob: string): string {
  const t = glob.trim();
  return t.startsWith('./') ? t.slice(2) : t;
}

/**
 * Parse `--focus`: text containing `/`, `*`, `?`, `{` or `[`, or ending in a file extension, and no
 * whitespace, is a glob; anything else is a query split into lowercase terms of ≥ 2 characters.
 * A glob is compiled here: `E_GLOB` when it is over the bounds of `GLOB_LIMITS` (glob.ts).
 */
export function parseFocus(text: string): Focus | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  if (!/\s/.test(t) && (/[/*?{[]/.test(t) || /\.[A-Za-z0-9]{1,8}$/.test(t))) {
    const glob = normalizeGlob(t);
    return { kind: 'glob', glob, compiled: compileGlob(glob), overlaps: new Map() };
  }
  const terms = [...new Set(t.toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter((w) => w.length >= 2))].sort();
  return terms.length > 0 ? { kind: 'query', terms } : undefined;
}

/** Text with none of the characters that make glob syntax (wildcards, classes, braces, escapes). */
const PLAIN = /^[^*?[\]{}\\]+$/;

/**
 * Whether scope glob `scope` **covers** focus glob `focus`: every path the focus matches, the
 * scope matches too, so a rule scoped there applies to every file the focus names (spec/pack.md
 * §7 "Focus"). Decided by these rules only, each sound (never a cover that is not one) and
 * linear in the two globs' lengths (string comparisons, at most one `test` of a path of the
 * focus's length, over globs of at most 512 characters):
 *
 * 1. the two are equal (`normalizeGlob`);
 * 2. the focus is literal (a concrete path): the scope matches that path;
 * 3. the scope is `**`;
 * 4. the scope is `P/**` (P plain text: no `* ? [ ] { } \`) and the focus's literal prefix starts
 *    with `P/` (`src/api/**` covers `src/api/users/*.ts`);
 * 5. the scope is `**\/X` or `P/**\/X` (X one segment: no `/`, no `**`) and the focus is X (only
 *    for `**\/X`) or ends in `/X` after text with no `{ } [ ] \` (so that `/` separates segments
 *    and X is read as in the scope), its literal prefix starting with `P/` when there is a P
 *    (`**\/*.ts` covers `src/**\/*.ts`).
 *
 * Anything else is not a cover, even where the two globs share paths (`**\/*.ts` and `src/api/**`
 * overlap but neither covers the other), and a cover these rules do not see (`**\/*.{ts,tsx}` of
 * `**\/*.ts`) is not found. A glob that is refused (`globProblem`) covers and is covered by nothing.
 * A glob given as text is read as `compileGlob` reads a scope (trimmed, one leading `./` dropped:
 * `././**` matches only paths starting `./`); a `CompiledGlob` is compared by its own text.
 */
export function globCovers(scope: string | CompiledGlob, focus: string | CompiledGlob): boolean {
  // A glob given as text is compiled as scopes are read (trimmed; `compileGlob` drops one leading
  // `./`), and compared as `normalizeGlob` of the compiled glob's text: the same one `./` dropped.
  // Compiling `normalizeGlob(text)` dropped a second one: `././**` covered `x`, which it does not
  // match (attack pass 2, finding 7).
  const gs = typeof scope === 'string' ? cachedGlob(scope.trim()) : scope;
  const gf = typeof focus === 'string' ? cachedGlob(focus.trim()) : focus;
  if (!gs || !gf) return false;
  const s = normalizeGlob(gs.glob);
  const f = normalizeGlob(gf.glob);
  if (s === f) return true;
  if (gf.literal) return gs.test(gf.prefix);
  if (gs.literal) return false;
  if (s === '**') return true;
  if (s.endsWith('/**')) {
    const p = s.slice(0, -3);
    return PLAIN.test(p) && gf.prefix.startsWith(`${p}/`);
  }
  const star = s.lastIndexOf('**/');
  if (star < 0 || !(star === 0 || s[star - 1] === '/')) return false;
  const p = star === 0 ? '' : s.slice(0, star - 1);
  const x = s.slice(star + 3);
  if (x === '' || x.includes('/') || x.includes('**') || (p !== '' && !PLAIN.test(p))) return false;
  if (p === '' && f === x) return true;
  if (!f.endsWith(`/${x}`)) return false;
  const d = f.slice(0, f.length - x.length - 1);
  if (/[{}[\]\\]/.test(d)) return false;
  return p === '' || gf.prefix.startsWith(`${p}/`);
}

/**
 * Focus score of a node (higher = more relevant, 0 = no match). Glob focus: 2 when one of the
 * node's scope globs covers the glob (`globCovers`: the node applies to every path the glob
 * names), 1 when the node is unscoped (applies everywhere, so also to the focus), 0 otherwise —
 * the node's source file does not count. Query focus: the number of distinct query terms found
 * in the node's content, id, category, file path or `headings` (its heading path's titles,
 * lowercased: focus.ts `headingText`), case-insensitive.
 */
export function focusScore(
  focus: Focus,
  node: { id: string; content: string; category?: string; file_path?: string },
  scope: readonly string[] | undefined,
  headings = '',
): number {
  if (focus.kind === 'glob') {
    if (!scope || scope.length === 0) return 1;
    return scope.some((g) => {
      let o = focus.overlaps.get(g);
      if (o === undefined) {
        if (focus.overlaps.size >= 10_000) focus.overlaps.clear();
        o = globCovers(g, focus.compiled);
        focus.overlaps.set(g, o);
      }
      return o;
    })
      ? 2
      : 0;
  }
  const hay = `${node.content}\n${node.id}\n${node.category ?? ''}\n${node.file_path ?? ''}`.toLowerCase() + `\n${headings}`;
  let n = 0;
  for (const t of focus.terms) if (hay.includes(t)) n++;
  return n;
}
