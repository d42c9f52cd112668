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

const K1 = 1.2;
const B = 0.75;

/** One document to index: its text (content, id, category and path joined by LF) and type rank (tie-break). */
export interface TermDoc {
  text: string;
  rank: number;
}

const TERM = /[\p{L}\p{N}_]{2,}/gu;
const ASCII_TERM = /[a-z0-9_]{2,}/g;
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Lowercase terms of `text`: runs of letters, digits and `_` of at least 2 characters (after
 * lowercasing); an ASCII-only text takes a faster, equivalent path.
 */
export function terms(text: string): string[] {
  const lower = text.toLowerCase();
  return (NON_ASCII.test(lower) ? lower.match(TERM) : lower.match(ASCII_TERM)) ?? [];
}

/** A ranked search hit: document index and BM25 score. */
export interface SearchHit {
  doc: number;
  score: number;
}

/**
 * Term ids by term, with an allocation-free tokenizer for ASCII text: terms are hashed
 * (FNV-1a over the lowercased characters) and compared in place, and a string is created only
 * for a term seen for the first time. Texts with non-ASCII characters go through `terms()`.
 */
class TermDictionary {
  private table = new Int32Array(1 << 16).fill(-1);
  private mask = (1 << 16) - 1;
  private readonly list: string[] = [];
  private readonly hashes: number[] = [];

  get size(): number {
    return this.list.length;
  }

  words(): string[] {
    return [...this.list];
  }

  get(term: string): number | undefined {
    let h = 0x811c9dc5;
    for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), 16777619);
    for (let at = h & this.mask; ; at = (at + 1) & this.mask) {
      const tid = this.table[at] as number;
      if (tid < 0) return undefined;
      if (this.hashes[tid] === h && this.list[tid] === term) return tid;
    }
  }

  private intern(text: string, start: number, end: number, h: number, lower: boolean): number {
    const len = end - start;
    for (let at = h & this.mask; ; at = (at + 1) & this.mask) {
      const tid = this.table[at] as number;
      if (tid < 0) {
        const word = lower ? text.slice(start, end).toLowerCase() : text.slice(start, end);
        const id = this.list.length;
        this.list.push(word);
        this.hashes.push(h);
        this.table[at] = id;
        if (id * 2 > this.mask) this.grow();
        return id;
      }
      if (this.hashes[tid] !== h) continue;
      const w = this.list[tid] as string;
      if (w.length !== len) continue;
      let k = 0;
      for (; k < len; k++) {
        let c = text.charCodeAt(start + k);
        if (lower && c >= 65 && c <= 90) c += 32;
        if (c !== w.charCodeAt(k)) break;
      }
      if (k === len) return tid;
    }
  }

  private grow(): void {
    const size = (this.mask + 1) * 2;
    this.table = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    this.hashes.forEach((h, tid) => {
      let at = h & this.mask;
      while ((this.table[at] as number) >= 0) at = (at + 1) & this.mask;
      this.table[at] = tid;
    });
  }

  /** Add every term of `text` to `sink`, in order (the same terms as `terms(text)`). */
  tokenize(text: string, sink: DocTerms): void {
    if (NON_ASCII.test(text)) {
      for (const t of terms(text)) {
        let h = 0x811c9dc5;
        for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619);
        sink.add(this.intern(t, 0, t.length, h, false));
      }
      return;
    }
    let start = -1;
    let h = 0;
    const n = text.length;
    for (let i = 0; i <= n; i++) {
      let c = i < n ? text.charCodeAt(i) : 32;
      if (c >= 65 && c <= 90) c += 32;
      if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95) {
        if (start < 0) {
          start = i;
          h = 0x811c9dc5;
        }
        h = Math.imul(h ^ c, 16777619);
      } else if (start >= 0) {
        if (i - start >= 2) sink.add(this.intern(text, start, i, h, true));
        start = -1;
      }
    }
  }
}

/**
 * Each document's distinct term ids with their frequencies, in first-seen order, in growing
 * typed arrays (`tid/tf[start[d] … start[d+1])`). `add` is called per token of document `doc`.
 */
class DocTerms {
  tid = new Int32Array(1 << 16);
  tf = new Int32Array(1 << 16);
  length = 0;
  doc = 0;
  /** Tokens of the current document (with repeats): its BM25 length. */
  tokens = 0;
  private lastDoc = new Int32Array(1 << 12).fill(-1);
  private slot = new Int32Array(1 << 12);

  add(id: number): void {
    this.tokens++;
    if (id >= this.lastDoc.length) this.growTerms(id);
    if (this.lastDoc[id] === this.doc) {
      this.tf[this.slot[id] as number]++;
      return;
    }
    if (this.length === this.tid.length) this.growPostings();
    this.lastDoc[id] = this.doc;
    this.slot[id] = this.length;
    this.tid[this.length] = id;
    this.tf[this.length] = 1;
    this.length++;
  }

  private growTerms(id: number): void {
    const size = Math.max(id + 1, this.lastDoc.length * 2);
    const l = new Int32Array(size).fill(-1);
    l.set(this.lastDoc);
    this.lastDoc = l;
    const s = new Int32Array(size);
    s.set(this.slot);
    this.slot = s;
  }

  private growPostings(): void {
    const t = new Int32Array(this.tid.length * 2);
    t.set(this.tid);
    this.tid = t;
    const f = new Int32Array(this.tf.length * 2);
    f.set(this.tf);
    this.tf = f;
  }
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

  /** Number of documents containing at least one of `tids`. */
  countMatches(tids: readonly number[]): number {
    const distinct = [...new Set(tids)];
    if (distinct.length === 1) return this.df(distinct[0] as number);
    const acc = new Uint32Array((this.docCount + 31) >>> 5);
    for (const t of distinct) {
      const b = this.bits.get(t);
      if (b) for (let w = 0; w < b.length; w++) acc[w] |= b[w] as number;
      else for (let p = this.pStart[t] as number; p < (this.pStart[t + 1] as number); p++) acc[(this.pDoc[p] as number) >>> 5] |= 1 << ((this.pDoc[p] as number) & 31);
    }
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

/**
 * The best `k` of `docs[0 … n)` by `before` that rank after `last` (-1: no bound), best first.
 * A bounded heap with the worst kept document on top: O(n log k), most candidates cost one
 * comparison.
 */
function selectBest(docs: Int32Array, n: number, k: number, before: (a: number, b: number) => boolean, last: number): number[] {
  const heap: number[] = [];
  const down = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= heap.length) return;
      const r = l + 1;
      const c = r < heap.length && before(heap[l] as number, heap[r] as number) ? r : l;
      if (!before(heap[i] as number, heap[c] as number)) return;
      const x = heap[i] as number;
      heap[i] = heap[c] as number;
      heap[c] = x;
      i = c;
    }
  };
  for (let i = 0; i < n; i++) {
    const d = docs[i] as number;
    if (last >= 0 && !before(last, d)) continue;
    if (heap.length < k) {
      heap.push(d);
      for (let j = heap.length - 1; j > 0; ) {
        const p = (j - 1) >> 1;
        if (!before(heap[p] as number, heap[j] as number)) break;
        const x = heap[p] as number;
        heap[p] = heap[j] as number;
        heap[j] = x;
        j = p;
      }
    } else if (before(d, heap[0] as number)) {
      heap[0] = d;
      down(0);
    }
  }
  return heap.sort((a, b) => (before(a, b) ? -1 : 1));
}

/**
 * Sort `doc/imp[from … to)` by impact descending, ties in document order (stable). Impacts of one
 * term take few distinct values (they depend on term frequency and document length only), so
 * long lists are bucket-sorted by distinct value.
 */
function sortByImpact(doc: Int32Array, imp: Float64Array, from: number, to: number): void {
  const len = to - from;
  if (len < 2) return;
  let sorted = true;
  for (let i = from + 1; i < to && sorted; i++) if ((imp[i] as number) > (imp[i - 1] as number)) sorted = false;
  if (sorted) return;
  if (len <= 32) {
    for (let i = from + 1; i < to; i++) {
      const v = imp[i] as number;
      const dv = doc[i] as number;
      let j = i - 1;
      for (; j >= from && (imp[j] as number) < v; j--) {
        imp[j + 1] = imp[j] as number;
        doc[j + 1] = doc[j] as number;
      }
      imp[j + 1] = v;
      doc[j + 1] = dv;
    }
    return;
  }
  const counts = new Map<number, number>();
  for (let i = from; i < to; i++) counts.set(imp[i] as number, (counts.get(imp[i] as number) ?? 0) + 1);
  const values = Float64Array.from(counts.keys()).sort().reverse();
  const offset = new Map<number, number>();
  let at = 0;
  for (const v of values) {
    offset.set(v, at);
    at += counts.get(v) as number;
  }
  const d2 = new Int32Array(len);
  const i2 = new Float64Array(len);
  for (let i = from; i < to; i++) {
    const v = imp[i] as number;
    const o = offset.get(v) as number;
    offset.set(v, o + 1);
    d2[o] = doc[i] as number;
    i2[o] = v;
  }
  doc.set(d2, from);
  imp.set(i2, from);
}

/** Max-heap of scored documents by (score desc, type rank asc, document asc). */
class CandidateHeap {
  /** `docs`/`scores` (taken over) are heapified in O(n). */
  constructor(
    private readonly rank: Int32Array,
    private readonly docs: number[] = [],
    private readonly scores: number[] = [],
  ) {
    for (let i = (docs.length >> 1) - 1; i >= 0; i--) this.down(i);
  }
  get size(): number {
    return this.docs.length;
  }
  topScore(): number {
    return this.scores[0] as number;
  }
  private better(i: number, j: number): boolean {
    const si = this.scores[i] as number;
    const sj = this.scores[j] as number;
    if (si !== sj) return si > sj;
    const di = this.docs[i] as number;
    const dj = this.docs[j] as number;
    const ri = this.rank[di] as number;
    const rj = this.rank[dj] as number;
    return ri !== rj ? ri < rj : di < dj;
  }
  private swap(i: number, j: number): void {
    const d = this.docs[i] as number;
    this.docs[i] = this.docs[j] as number;
    this.docs[j] = d;
    const s = this.scores[i] as number;
    this.scores[i] = this.scores[j] as number;
    this.scores[j] = s;
  }
  push(doc: number, score: number): void {
    this.docs.push(doc);
    this.scores.push(score);
    for (let i = this.docs.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!this.better(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }
  pop(): SearchHit {
    const hit = { doc: this.docs[0] as number, score: this.scores[0] as number };
    const lastDoc = this.docs.pop() as number;
    const lastScore = this.scores.pop() as number;
    if (this.docs.length > 0) {
      this.docs[0] = lastDoc;
      this.scores[0] = lastScore;
      this.down(0);
    }
    return hit;
  }
  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.docs.length) break;
      const r = l + 1;
      const c = r < this.docs.length && this.better(r, l) ? r : l;
      if (!this.better(c, i)) break;
      this.swap(c, i);
      i = c;
    }
  }
}
