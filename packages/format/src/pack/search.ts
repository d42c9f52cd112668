/**
 * In-memory search over a merged graph for the MCP tools (spec/pack.md "MCP answers"). Pure.
 *
 * - Eligibility: the pack's screening (`screenNodes`) decides; a node it would omit (superseded,
 *   expired, secret, and by policy disputed/stale/absent) is *withheld*: never a search result,
 *   and `get_node` says why instead of showing it. Structural nodes (section, scope) are not
 *   searchable.
 * - Terms: lowercase runs of letters/digits/underscore of ≥ 2 characters from the content, id,
 *   category and file path. A query term without an exact match expands to up to 32 indexed
 *   terms it prefixes.
 * - Ranking: BM25 (k1 = 1.2, b = 0.75) summed over distinct query terms, ties by type rank, then
 *   id — deterministic. With a `limit`, only the best `limit` are sorted and returned.
 */
import type { MergedEdge, MergedGraph, MergedNode } from '../graph-types.js';
import { checkFreshness } from './freshness.js';
import { typeRank } from './order.js';
import { defaultPackPolicy } from './policy.js';
import type { RenderItem } from './render.js';
import { itemOf } from './item.js';
import { computeBreadcrumbs, computeScopes, STRUCTURAL_TYPES } from './scope.js';
import { conflictPartners, screenNodes, type Screened } from './screen.js';
import type { OmissionReason, PackPolicy, WorkspaceReader } from './types.js';

export interface SearchIndex {
  graph: MergedGraph;
  /** Every node by qualified id (structural and withheld included). */
  byId: Map<string, MergedNode>;
  /** Searchable nodes, sorted by id; `items[i]` renders `docs[i]`. */
  docs: MergedNode[];
  items: RenderItem[];
  /** Position in `docs` per id. */
  docOf: Map<string, number>;
  /** Why a node is withheld. */
  withheld: Map<string, { reason: OmissionReason; kinds?: string[] }>;
  postings: Map<string, { doc: number[]; tf: number[] }>;
  /** Sorted terms, for prefix expansion. */
  terms: string[];
  docLen: Float64Array;
  avgLen: number;
  /** Edges by endpoint. */
  out: Map<string, MergedEdge[]>;
  in: Map<string, MergedEdge[]>;
}

const TERM = /[\p{L}\p{N}_]{2,}/gu;
const ASCII_TERM = /[a-z0-9_]{2,}/g;
const NON_ASCII = /[^\x00-\x7f]/;

/** Lowercase terms of `text` (see module docstring); an ASCII-only text takes a faster, equivalent path. */
export function terms(text: string): string[] {
  const lower = text.toLowerCase();
  return (NON_ASCII.test(lower) ? lower.match(TERM) : lower.match(ASCII_TERM)) ?? [];
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Build the index. `now` is RFC 3339 (decay/expiry); `read` enables freshness screening. */
export function buildSearchIndex(graph: MergedGraph, opts: { policy?: Partial<PackPolicy>; nowMs: number; read?: WorkspaceReader }): SearchIndex {
  const policy: PackPolicy = { ...defaultPackPolicy(), ...(opts.policy ?? {}) };
  const nodes = [...graph.nodes].sort((a, b) => cmp(a.id, b.id));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const deliverable = nodes.filter((n) => !STRUCTURAL_TYPES.has(n.type));
  const screened = screenNodes(deliverable, {
    policy,
    nowMs: opts.nowMs,
    freshness: checkFreshness(deliverable, opts.read, policy.freshness),
    partners: conflictPartners(graph),
    pinned: new Set(),
  });
  const scopes = computeScopes(graph);
  const crumbs = computeBreadcrumbs(graph);
  const withheld = new Map<string, { reason: OmissionReason; kinds?: string[] }>();
  const docs: MergedNode[] = [];
  const items: RenderItem[] = [];
  const postings = new Map<string, { doc: number[]; tf: number[] }>();
  const lens: number[] = [];
  for (const s of screened) {
    if (s.reason) {
      withheld.set(s.node.id, s.secretKinds ? { reason: s.reason, kinds: s.secretKinds } : { reason: s.reason });
      continue;
    }
    const d = docs.length;
    docs.push(s.node);
    items.push(itemOf(s, scopes.get(s.node.id), crumbs.get(s.node.id)));
    const n = s.node;
    const ts = terms(`${n.content}\n${n.id}\n${n.category ?? ''}\n${n.file_path ?? ''}`);
    lens.push(ts.length);
    const tf = new Map<string, number>();
    for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, f] of tf) {
      let p = postings.get(t);
      if (!p) postings.set(t, (p = { doc: [], tf: [] }));
      p.doc.push(d);
      p.tf.push(f);
    }
  }
  const out = new Map<string, MergedEdge[]>();
  const inn = new Map<string, MergedEdge[]>();
  const edges = [...graph.edges].sort((a, b) => cmp(a.from, b.from) || cmp(a.to, b.to) || cmp(a.type, b.type));
  for (const e of edges) {
    (out.get(e.from) ?? out.set(e.from, []).get(e.from)!).push(e);
    (inn.get(e.to) ?? inn.set(e.to, []).get(e.to)!).push(e);
  }
  const docLen = Float64Array.from(lens);
  const avgLen = lens.length ? lens.reduce((a, b) => a + b, 0) / lens.length : 0;
  const docOf = new Map(docs.map((d, i) => [d.id, i]));
  return { graph, byId, docs, items, docOf, withheld, postings, terms: [...postings.keys()].sort(), docLen, avgLen, out, in: inn };
}

/** Indexed terms a query term stands for: itself, or up to 32 terms it prefixes. */
function expand(index: SearchIndex, t: string): string[] {
  if (index.postings.has(t)) return [t];
  const out: string[] = [];
  let lo = 0;
  let hi = index.terms.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((index.terms[mid] as string) < t) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < index.terms.length && out.length < 32 && (index.terms[i] as string).startsWith(t); i++) out.push(index.terms[i] as string);
  return out;
}

/**
 * Rank searchable nodes for `query`. Returns the number of matching nodes and the best `limit`
 * of them (doc indices with scores, best first); no terms → nothing.
 */
export function searchIndex(index: SearchIndex, query: string, limit = Number.POSITIVE_INFINITY): { total: number; results: Array<{ doc: number; score: number }> } {
  const qterms = [...new Set(terms(query))].sort();
  const N = index.docs.length;
  const scores = new Float64Array(N);
  const touched: number[] = [];
  const k1 = 1.2;
  const b = 0.75;
  const avg = index.avgLen || 1;
  for (const q of qterms) {
    for (const t of expand(index, q)) {
      const p = index.postings.get(t) as { doc: number[]; tf: number[] };
      const idf = Math.log(1 + (N - p.doc.length + 0.5) / (p.doc.length + 0.5));
      for (let k = 0; k < p.doc.length; k++) {
        const d = p.doc[k] as number;
        const f = p.tf[k] as number;
        if (scores[d] === 0) touched.push(d);
        scores[d] += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * (index.docLen[d] as number)) / avg));
      }
    }
  }
  const total = touched.length;
  let pool = touched;
  if (total > limit) {
    // Keep every doc scoring at least the limit-th best score (ties kept), then sort those.
    const sorted = Float64Array.from(touched, (d) => scores[d] as number).sort();
    const threshold = sorted[sorted.length - limit] as number;
    pool = touched.filter((d) => (scores[d] as number) >= threshold);
  }
  const results = pool.map((doc) => ({ doc, score: scores[doc] as number }));
  results.sort((x, y) => y.score - x.score || typeRank(index.docs[x.doc]!.type) - typeRank(index.docs[y.doc]!.type) || cmp(index.docs[x.doc]!.id, index.docs[y.doc]!.id));
  return { total, results: results.slice(0, limit) };
}

/**
 * Nodes within `depth` edges of `id` (both directions), breadth first; each with its distance
 * and the edge that reached it. Neighbours are visited in (from, to, type) edge order.
 */
export function neighborhood(index: SearchIndex, id: string, depth: number): Array<{ id: string; depth: number; via: MergedEdge; direction: 'out' | 'in' }> {
  const seen = new Set([id]);
  const result: Array<{ id: string; depth: number; via: MergedEdge; direction: 'out' | 'in' }> = [];
  let frontier = [id];
  for (let d = 1; d <= depth && frontier.length > 0; d++) {
    const next: string[] = [];
    for (const cur of frontier) {
      const steps: Array<[string, MergedEdge, 'out' | 'in']> = [
        ...(index.out.get(cur) ?? []).map((e) => [e.to, e, 'out'] as [string, MergedEdge, 'out']),
        ...(index.in.get(cur) ?? []).map((e) => [e.from, e, 'in'] as [string, MergedEdge, 'in']),
      ];
      for (const [other, e, dir] of steps) {
        if (seen.has(other)) continue;
        seen.add(other);
        result.push({ id: other, depth: d, via: e, direction: dir });
        next.push(other);
      }
    }
    frontier = next;
  }
  return result;
}
