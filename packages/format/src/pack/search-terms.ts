/**
 * The inverted index behind `search_context` (spec/pack.md §12): BM25 (k1 1.2, b 0.75) over the
 * lowercase terms of each searchable node, answered best-first without scoring every match.
 *
 * Layout (typed arrays, built once):
 * - postings per term, ordered by BM25 impact (the term's contribution to a document's score),
 *   highest first, ties by document; the impact is computed with exactly the expression of the
 *   score sum, so scores are bit-identical to summing per posting;
 * - a forward index (each document's terms, ascending term id, with impacts) for random access;
 * - a bitset per frequent term (document frequency ≥ N/32) to count matches cheaply.
 *
 * Query (threshold algorithm, Fagin et al.): a query is a list of posting lists (each query term,
 * or the ≤ 32 terms it prefixes). The lists are read in impact order, always advancing the one
 * with the highest next impact; each newly seen document gets its full score by random access.
 * The best seen document is final once its score exceeds τ, the sum of the lists' next impacts —
 * an upper bound of every unseen document's score (floating-point addition is monotone, and τ is
 * summed in the same order as the scores). So the k best documents cost the postings down to the
 * k-th score, not all matching postings. Ties (equal scores) go by type rank, then document
 * (= id order). The match count is the size of the union of the lists, by bitset.
 */

import { CandidateHeap, selectBest, sortByImpact } from './search-order.js';
import { DocTerms, TermDictionary } from './search-tokens.js';

export { terms } from './search-tokens.js';

const K1 = 1.2;
const B = 0.75;

/** One document to index: its text (content, id, category and path joined by LF) and type rank (tie-break). */
export interface TermDoc {
  text: string;
  rank: number;
}

/** A ranked search hit: document index and BM25 score. */
export interface SearchHit {
  doc: number;
  score: number;
}

export class TermIndex {
  readonly docCount: number;
  readonly termCount: number;
  private readonly dict: TermDictionary;
  private sortedTerms: string[] | undefined;
  private readonly rank: Int32Array;
  /** Postings by impact: `pDoc/pImp[pStart[t] … pStart[t+1])`. */
  private readonly pStart: Int32Array;
  private readonly pDoc: Int32Array;
  private readonly pImp: Float64Array;
  /** Forward index: `fTid/fImp[fStart[d] … fStart[d+1])`, ascending term id. */
  private readonly fStart: Int32Array;
  private readonly fTid: Int32Array;
  private readonly fImp: Float64Array;
  private readonly bits = new Map<number, Uint32Array>();

  constructor(docs: readonly TermDoc[]) {
    const n = docs.length;
    this.docCount = n;
    this.rank = Int32Array.from(docs, (d) => d.rank);
    // 1. Term ids and each document's distinct terms with frequencies (first-seen order).
    const dict = new TermDictionary();
    const dt = new DocTerms();
    const dStart = new Int32Array(n + 1);
    const docLen = new Float64Array(n);
    let lenSum = 0;
    for (let d = 0; d < n; d++) {
      dStart[d] = dt.length;
      dt.doc = d;
      dt.tokens = 0;
      dict.tokenize((docs[d] as TermDoc).text, dt);
      docLen[d] = dt.tokens;
      lenSum += dt.tokens;
    }
    dStart[n] = dt.length;
    const dTid = dt.tid;
    const dTf = dt.tf;
    this.dict = dict;
    const T = dict.size;
    this.termCount = T;
    const P = dt.length;
    const avg = (n > 0 ? lenSum / n : 0) || 1;
    // 2. Document frequencies → posting offsets; impacts.
    const df = new Int32Array(T);
    for (let i = 0; i < P; i++) df[dTid[i] as number]++;
    const pStart = new Int32Array(T + 1);
    for (let t = 0; t < T; t++) pStart[t + 1] = (pStart[t] as number) + (df[t] as number);
    const idf = Float64Array.from(df, (f) => Math.log(1 + (n - f + 0.5) / (f + 0.5)));
    // Postings in document order first (CSR fill), with impacts.
    const docOrder = new Int32Array(P);
    const impOrder = new Float64Array(P);
    const fill = pStart.slice(0, T);
    for (let d = 0; d < n; d++) {
      const dl = docLen[d] as number;
      for (let i = dStart[d] as number; i < (dStart[d + 1] as number); i++) {
        const t = dTid[i] as number;
        const f = dTf[i] as number;
        const at = fill[t]++ as number;
        docOrder[at] = d;
        impOrder[at] = ((idf[t] as number) * f * (K1 + 1)) / (f + K1 * (1 - B + (B * dl) / avg));
      }
    }
    // 3. Forward index (transpose: ascending term id per document).
    const fStart = new Int32Array(n + 1);
    for (let d = 0; d < n; d++) fStart[d + 1] = (fStart[d] as number) + ((dStart[d + 1] as number) - (dStart[d] as number));
    const fTid = new Int32Array(P);
    const fImp = new Float64Array(P);
    const fFill = fStart.slice(0, n);
    for (let t = 0; t < T; t++) {
      for (let p = pStart[t] as number; p < (pStart[t + 1] as number); p++) {
        const d = docOrder[p] as number;
        const at = fFill[d]++ as number;
        fTid[at] = t;
        fImp[at] = impOrder[p] as number;
      }
    }
    // 4. Bitsets of frequent terms; postings reordered by impact (stable: ties stay in doc order).
    const words = (n + 31) >>> 5;
    for (let t = 0; t < T; t++) {
      if ((df[t] as number) * 32 < n) continue;
      const b = new Uint32Array(words);
      for (let p = pStart[t] as number; p < (pStart[t + 1] as number); p++) {
        const d = docOrder[p] as number;
        b[d >>> 5] |= 1 << (d & 31);
      }
      this.bits.set(t, b);
    }
    for (let t = 0; t < T; t++) sortByImpact(docOrder, impOrder, pStart[t] as number, pStart[t + 1] as number);
    this.pStart = pStart;
    this.pDoc = docOrder;
    this.pImp = impOrder;
    this.fStart = fStart;
    this.fTid = fTid;
    this.fImp = fImp;
  }

  /** Term ids a query term stands for: itself, or up to 32 indexed terms it prefixes (sorted). */
  expand(term: string): number[] {
    const exact = this.dict.get(term);
    if (exact !== undefined) return [exact];
    const sorted = (this.sortedTerms ??= this.dict.words().sort());
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((sorted[mid] as string) < term) lo = mid + 1;
      else hi = mid;
    }
    const out: number[] = [];
    for (let i = lo; i < sorted.length && out.length < 32 && (sorted[i] as string).startsWith(term); i++) out.push(this.dict.get(sorted[i] as string) as number);
    return out;
  }

  /** The documents containing at least one of `tids`, as a bitset (bit `d` of word `d >>> 5`). */
  matchSet(tids: readonly number[]): Uint32Array {
    const acc = new Uint32Array((this.docCount + 31) >>> 5);
    for (const t of new Set(tids)) {
      const b = this.bits.get(t);
      if (b) for (let w = 0; w < b.length; w++) acc[w] |= b[w] as number;
      else for (let p = this.pStart[t] as number; p < (this.pStart[t + 1] as number); p++) acc[(this.pDoc[p] as number) >>> 5] |= 1 << ((this.pDoc[p] as number) & 31);
    }
    return acc;
  }

  /** Number of documents containing at least one of `tids`. */
  countMatches(tids: readonly number[]): number {
    const distinct = [...new Set(tids)];
    if (distinct.length === 1) return this.df(distinct[0] as number);
    const acc = this.matchSet(distinct);
    let count = 0;
    for (let w = 0; w < acc.length; w++) {
      let x = acc[w] as number;
      x -= (x >>> 1) & 0x55555555;
      x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
      count += (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
    }
    return count;
  }

  private df(t: number): number {
    return (this.pStart[t + 1] as number) - (this.pStart[t] as number);
  }

  /** Impact of term `t` in document `d` (0 when absent), by binary search in the forward index. */
  private impact(t: number, d: number): number {
    let lo = this.fStart[d] as number;
    let hi = this.fStart[d + 1] as number;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = this.fTid[mid] as number;
      if (m === t) return this.fImp[mid] as number;
      if (m < t) lo = mid + 1;
      else hi = mid;
    }
    return 0;
  }

  /**
   * Documents matching any of `lists` (term ids, repeats allowed: a term reached through two
   * query terms counts twice, as in the score sum), best first: score desc, type rank asc,
   * document asc. Lazy: each step reads only the postings needed to make the next hit final.
   * When the threshold algorithm has read a quarter of the lists' postings (queries of common
   * words, whose bound τ falls slowly), or for four lists or more, it finishes by accumulating
   * every posting instead and selecting the best in growing batches — the same order, at most
   * 1.25× the postings of a full scan.
   */
  *ranked(lists: readonly number[]): Generator<SearchHit, void, undefined> {
    const m = lists.length;
    if (m === 0) return;
    // Per query (N bytes): queries may be interleaved by their callers. 1 = seen, 2 = emitted.
    const seen = new Uint8Array(this.docCount);
    const pos = Int32Array.from(lists, (t) => this.pStart[t] as number);
    const end = Int32Array.from(lists, (t) => this.pStart[t + 1] as number);
    let volume = 0;
    for (let i = 0; i < m; i++) volume += (end[i] as number) - (pos[i] as number);
    // One list: the impact order is the answer order (up to ties). Two or three: the threshold
    // algorithm, bounded. Four or more lists of common words rarely let τ fall: scan at once.
    const readLimit = m === 1 ? volume : m <= 3 ? Math.max(256, volume >>> 2) : 0;
    let reads = 0;
    const heap = new CandidateHeap(this.rank);
    for (;;) {
      let tau = 0;
      let best = -1;
      let bestImp = -1;
      for (let i = 0; i < m; i++) {
        if ((pos[i] as number) >= (end[i] as number)) continue;
        const v = this.pImp[pos[i] as number] as number;
        tau += v;
        if (v > bestImp) {
          bestImp = v;
          best = i;
        }
      }
      if (heap.size > 0 && (best < 0 || heap.topScore() > tau)) {
        const hit = heap.pop();
        seen[hit.doc] = 2;
        yield hit;
        continue;
      }
      if (best < 0) return;
      if (++reads > readLimit) break;
      const d = this.pDoc[pos[best]++ as number] as number;
      if (seen[d] !== 0) continue;
      seen[d] = 1;
      let score = 0;
      for (let i = 0; i < m; i++) score += this.impact(lists[i] as number, d);
      heap.push(d, score);
    }
    // Fallback: score every matching document not yet emitted (list by list: the same sums),
    // then emit in batches of growing size, each the best of what is left (bounded selection).
    const scores = new Float64Array(this.docCount);
    const touched = new Int32Array(Math.min(this.docCount, volume));
    let nt = 0;
    for (const t of lists) {
      for (let p = this.pStart[t] as number; p < (this.pStart[t + 1] as number); p++) {
        const d = this.pDoc[p] as number;
        if (seen[d] === 2) continue;
        if (scores[d] === 0) touched[nt++] = d;
        scores[d] += this.pImp[p] as number;
      }
    }
    const rank = this.rank;
    /** True when document `a` ranks before `b`. */
    const before = (a: number, b: number): boolean => {
      const sa = scores[a] as number;
      const sb = scores[b] as number;
      if (sa !== sb) return sa > sb;
      const ra = rank[a] as number;
      const rb = rank[b] as number;
      return ra !== rb ? ra < rb : a < b;
    };
    let last = -1;
    for (let batch = 64; ; batch *= 8) {
      const chosen = selectBest(touched, nt, batch, before, last);
      for (const d of chosen) yield { doc: d, score: scores[d] as number };
      if (chosen.length < batch) return;
      last = chosen[chosen.length - 1] as number;
    }
  }
}
