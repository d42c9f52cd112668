/**
 * Orderings used by the search index (`search-terms.ts`): postings by impact, and the best hits
 * by (score desc, type rank asc, document asc) — a bounded selection and a heap. Pure.
 */
import type { SearchHit } from './search-terms.js';

/**
 * The best `k` of `docs[0 … n)` by `before` that rank after `last` (-1: no bound), best first.
 * A bounded heap with the worst kept document on top: O(n log k), most candidates cost one
 * comparison.
 */
export function selectBest(docs: Int32Array, n: number, k: number, before: (a: number, b: number) => boolean, last: number): number[] {
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
export function sortByImpact(doc: Int32Array, imp: Float64Array, from: number, to: number): void {
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
export class CandidateHeap {
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
