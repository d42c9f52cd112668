/**
 * In-memory search over a merged graph for the MCP tools (spec/pack.md "MCP answers"). Pure.
 *
 * - Eligibility: the pack's screening (`screenNodes`) decides; a node it would omit (superseded,
 *   expired, secret, and by policy disputed/stale/absent) is *withheld*: never a search result,
 *   and `get_node` says why instead of showing it. Structural nodes (section, scope) are not
 *   searchable.
 * - Terms (`search-tokens.ts`): lowercase words (runs of letters/digits/underscore of ≥ 2
 *   characters) and compounds (identifiers, paths, file names, flags kept whole) of the text,
 *   heading path and file path (`searchText`). A query term without an exact match expands
 *   to up to 32 indexed terms it prefixes.
 * - Units: passages (`passage.ts`): a node, or — for a node over 900 bytes — each of its items
 *   with its lead-in, so a long list's matching item is found and shown, not the whole list.
 * - Ranking: BM25 (k1 = 1.2, b = 0.75) over passages, summed over distinct query terms (common
 *   English words dropped from the query), ties by type rank, then passage order —
 *   deterministic (`search-terms.ts`: impact-ordered postings, best hits first without scoring
 *   every match).
 *
 * Cost: building screens every node (the secret scan is remembered per graph, `factsFor`); the term
 * index, render items and edge maps are built on first use, so a server answering `get_node`
 * never tokenizes the graph. Lookups by id are binary searches over the id-sorted nodes.
 */
import type { MergedEdge, MergedGraph, MergedNode } from '../graph-types.js';
import { checkFreshness, installedBuiltHere } from './freshness.js';
import { itemOf } from './item.js';
import { factsFor } from './node-facts.js';
import { typeRank } from './order.js';
import { defaultPackPolicy } from './policy.js';
import type { RenderItem } from './render.js';
import { computeScopes, STRUCTURAL_TYPES } from './scope.js';
import { sectionPathResolver, sequenceResolver, type SectionRef } from './sections.js';
import { conflictPartners, screenNodes, type Screened } from './screen.js';
import { passagesOf, type Passage } from './passage.js';
import { queryTerms } from './search-tokens.js';
import { TermIndex, type SearchHit } from './search-terms.js';
import type { OmissionReason, PackPolicy, WorkspaceReader } from './types.js';

export { terms, type SearchHit } from './search-terms.js';
export { queryTerms } from './search-tokens.js';

/** A passage of a searchable node (`passagesOf`): `doc` is the node's document index. */
export interface IndexedPassage extends Passage {
  doc: number;
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Position of `id` in `sorted` (by id, code unit order), or -1. */
function findId(sorted: readonly MergedNode[], id: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const m = (sorted[mid] as MergedNode).id;
    if (m === id) return mid;
    if (m < id) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

/** The searchable view of a merged graph (see module docstring). */
/** Options of `buildSearchIndex` (see there). */
export interface SearchIndexOptions {
  policy?: Partial<PackPolicy>;
  nowMs: number;
  read?: WorkspaceReader;
  builtHere?: readonly string[];
}

export class SearchIndex {
  readonly graph: MergedGraph;
  /** Searchable nodes, sorted by id; document `d` is `docs[d]`. */
  readonly docs: MergedNode[];
  /** Why a node is withheld (by qualified id). */
  readonly withheld: Map<string, { reason: OmissionReason; kinds?: string[] }>;
  /** Every node, sorted by id (structural and withheld included). */
  private readonly all: MergedNode[];
  private readonly screened: Screened[];
  private readonly itemCache: Array<RenderItem | undefined>;
  private readonly scopes: Map<string, string[]>;
  /** The heading path of a node (`sectionPathResolver`). */
  readonly sectionsOf: (id: string) => readonly SectionRef[];
  private readonly seqOf: (id: string) => number;
  private termIndex: TermIndex | undefined;
  private passageList: IndexedPassage[] | undefined;
  private edges: { out: Map<string, MergedEdge[]>; in: Map<string, MergedEdge[]> } | undefined;

  constructor(graph: MergedGraph, opts: SearchIndexOptions) {
    const policy: PackPolicy = { ...defaultPackPolicy(), ...(opts.policy ?? {}) };
    this.graph = graph;
    const nodes = graph.nodes;
    const order = Array.from(nodes.keys()).sort((a, b) => cmp((nodes[a] as MergedNode).id, (nodes[b] as MergedNode).id));
    this.all = order.map((i) => nodes[i] as MergedNode);
    const deliverableIdx = order.filter((i) => !STRUCTURAL_TYPES.has((nodes[i] as MergedNode).type));
    const deliverable = deliverableIdx.map((i) => nodes[i] as MergedNode);
    const builtHere = policy.freshness === 'auto' ? installedBuiltHere(graph, opts.builtHere) : [];
    const fresh = checkFreshness(deliverable, opts.read, policy.freshness, builtHere);
    const screened = screenNodes(deliverable, deliverableIdx, {
      policy,
      nowMs: opts.nowMs,
      freshness: (n) => fresh.get(n.id) ?? 'unchecked',
      partners: conflictPartners(graph),
      pinned: new Set(),
      facts: factsFor(graph),
    });
    this.withheld = new Map();
    this.docs = [];
    this.screened = [];
    for (const s of screened) {
      if (s.reason) {
        this.withheld.set(s.node.id, s.secretKinds ? { reason: s.reason, kinds: s.secretKinds } : { reason: s.reason });
        continue;
      }
      this.docs.push(s.node);
      this.screened.push(s);
    }
    this.itemCache = new Array(this.docs.length);
    this.scopes = computeScopes(graph);
    this.sectionsOf = sectionPathResolver(graph, this.scopes);
    this.seqOf = sequenceResolver(graph);
  }

  /** Any node (structural and withheld included) by qualified id. */
  node(id: string): MergedNode | undefined {
    const i = findId(this.all, id);
    return i < 0 ? undefined : this.all[i];
  }

  /** The document index of a searchable node, or -1. */
  docIndex(id: string): number {
    return findId(this.docs, id);
  }

  /** The render item of document `d` (built on first use). */
  item(d: number): RenderItem {
    let it = this.itemCache[d];
    if (!it) {
      const s = this.screened[d] as Screened;
      it = itemOf(s, this.scopes.get(s.node.id), this.sectionsOf(s.node.id), this.seqOf(s.node.id));
      this.itemCache[d] = it;
    }
    return it;
  }

  /** Every document's render item (for callers that need them all; builds them). */
  get items(): RenderItem[] {
    return this.docs.map((_, d) => this.item(d));
  }

  /** Edges leaving / entering a node, sorted by (from, to, type). */
  edgesFrom(id: string): readonly MergedEdge[] {
    return this.edgeMaps().out.get(id) ?? [];
  }
  edgesTo(id: string): readonly MergedEdge[] {
    return this.edgeMaps().in.get(id) ?? [];
  }

  private edgeMaps(): { out: Map<string, MergedEdge[]>; in: Map<string, MergedEdge[]> } {
    if (!this.edges) {
      const out = new Map<string, MergedEdge[]>();
      const inn = new Map<string, MergedEdge[]>();
      const edges = [...this.graph.edges].sort((a, b) => cmp(a.from, b.from) || cmp(a.to, b.to) || cmp(a.type, b.type));
      for (const e of edges) {
        (out.get(e.from) ?? out.set(e.from, []).get(e.from)!).push(e);
        (inn.get(e.to) ?? inn.set(e.to, []).get(e.to)!).push(e);
      }
      this.edges = { out, in: inn };
    }
    return this.edges;
  }

  /** The passages searched (built with the term index): hit `doc`s index this array. */
  get passages(): readonly IndexedPassage[] {
    this.terms();
    return this.passageList as IndexedPassage[];
  }

  /** The term index over the passages of every searchable node (built on first use). */
  terms(): TermIndex {
    if (!this.termIndex) {
      const list: IndexedPassage[] = [];
      const docs: Array<{ text: string; rank: number }> = [];
      this.docs.forEach((n, d) => {
        const sections = this.sectionsOf(n.id);
        const rank = typeRank(n.type);
        const tail = `\n${headingText(sections, n.file_path)}\n${n.file_path ?? ''}`;
        for (const p of passagesOf(n.content)) {
          list.push({ doc: d, text: p.text, excerpt: p.excerpt, first: p.first, last: p.last });
          docs.push({ text: p.index + tail, rank });
        }
      });
      this.passageList = list;
      this.termIndex = new TermIndex(docs);
    }
    return this.termIndex;
  }
}

/**
 * What a node is found by (spec/pack.md §12): its text, its heading path (section titles; a file
 * root titled by its own path is left out) and its file path. Not its id: importer ids repeat
 * the heading path as slugs, which would count every heading word twice.
 */
export function searchText(n: Pick<MergedNode, 'content' | 'file_path'>, sections: readonly SectionRef[]): string {
  return `${n.content}\n${headingText(sections, n.file_path)}\n${n.file_path ?? ''}`;
}

/** The heading titles of a path, one per line (a file root titled by its own path left out); cached per path object. */
const headings = new WeakMap<readonly SectionRef[], string>();
function headingText(sections: readonly SectionRef[], filePath: string | undefined): string {
  if (sections.length === 0) return '';
  let t = headings.get(sections);
  if (t === undefined) {
    t = sections
      .filter((s, i) => !(i === 0 && s.title === filePath))
      .map((s) => s.title)
      .join('\n');
    headings.set(sections, t);
  }
  return t;
}

/**
 * Build the index. `nowMs` drives decay/expiry; `read` enables freshness screening; `builtHere`
 * as for `compilePack` (packages known to be built here, checked under `auto`, spec/pack.md §6).
 */
export function buildSearchIndex(graph: MergedGraph, opts: SearchIndexOptions): SearchIndex {
  return new SearchIndex(graph, opts);
}

/**
 * Rank the passages of searchable nodes for `query` (`queryTerms`): the number of matching
 * passages (`total`) and of matching nodes (`nodes`, computed on first read: one pass over the
 * match bitset), and a lazy sequence of hits, best first (score desc, type rank asc, then passage
 * order = node id, source order). A hit's `doc` indexes `index.passages`. No terms → nothing.
 */
export function searchHits(index: SearchIndex, query: string): { total: number; readonly nodes: number; hits: Iterable<SearchHit> } {
  const qterms = [...new Set(queryTerms(query))].sort();
  if (qterms.length === 0 || index.docs.length === 0) return { total: 0, nodes: 0, hits: [] };
  const ti = index.terms();
  const lists = qterms.flatMap((q) => ti.expand(q));
  if (lists.length === 0) return { total: 0, nodes: 0, hits: [] };
  const passages = index.passages;
  let nodes: number | undefined;
  return {
    total: ti.countMatches(lists),
    get nodes(): number {
      if (nodes === undefined) {
        // Passages of one node are adjacent (built in node order): count changes of node.
        const set = ti.matchSet(lists);
        let last = -1;
        nodes = 0;
        for (let w = 0; w < set.length; w++) {
          let x = set[w] as number;
          while (x !== 0) {
            const bit = 31 - Math.clz32(x & -x);
            x &= x - 1;
            const d = (passages[(w << 5) + bit] as IndexedPassage).doc;
            if (d !== last) {
              nodes++;
              last = d;
            }
          }
        }
      }
      return nodes;
    },
    hits: ti.ranked(lists),
  };
}

/**
 * Rank searchable *nodes* for `query` (a node scores as its best passage): the number of matching
 * nodes and the best `limit` of them (`doc` indexes `index.docs`), best first; no terms →
 * nothing. Reads every matching passage (to count nodes): for commands and tests, not the MCP
 * answers (`searchHits` is lazy).
 */
export function searchIndex(index: SearchIndex, query: string, limit = Number.POSITIVE_INFINITY): { total: number; results: SearchHit[] } {
  const { hits } = searchHits(index, query);
  const passages = index.passages;
  const seen = new Set<number>();
  const results: SearchHit[] = [];
  for (const h of hits) {
    const d = (passages[h.doc] as IndexedPassage).doc;
    if (seen.has(d)) continue;
    seen.add(d);
    if (results.length < limit) results.push({ doc: d, score: h.score });
  }
  return { total: seen.size, results };
}

/**
 * Nodes within `depth` edges of `id` (both directions), breadth first; each with its distance
 * and the edge that reached it. Neighbours are visited in (from, to, type) edge order.
 *
 * `through` (e.g. structural nodes): a node it accepts that is reached from one of its members —
 * a section from a node it contains — also yields its other members at the same distance, so a
 * node's neighbours include the rest of its section, not only the section itself. The grouping
 * node is still listed (callers may hide it); going further up (its own section) costs a step.
 */
export function neighborhood(index: SearchIndex, id: string, depth: number, through?: (id: string) => boolean): Array<{ id: string; depth: number; via: MergedEdge; direction: 'out' | 'in' }> {
  const seen = new Set([id]);
  const result: Array<{ id: string; depth: number; via: MergedEdge; direction: 'out' | 'in' }> = [];
  let frontier = [id];
  for (let d = 1; d <= depth && frontier.length > 0; d++) {
    const next: string[] = [];
    const visit = (other: string, e: MergedEdge, dir: 'out' | 'in'): void => {
      if (seen.has(other)) return;
      seen.add(other);
      result.push({ id: other, depth: d, via: e, direction: dir });
      next.push(other);
      // A group entered from one of its members: its other members are as near.
      if (dir === 'in' && through?.(other)) for (const m of index.edgesFrom(other)) if (m.type === e.type) visit(m.to, m, 'out');
    };
    for (const cur of frontier) {
      for (const e of index.edgesFrom(cur)) visit(e.to, e, 'out');
      for (const e of index.edgesTo(cur)) visit(e.from, e, 'in');
    }
    frontier = next;
  }
  return result;
}
