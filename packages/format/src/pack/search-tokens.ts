/**
 * Tokenizing for the search index (spec/pack.md §12): lowercase runs of letters, digits and `_`
 * of at least 2 characters. `terms()` is the definition; `TermDictionary.tokenize` is an
 * allocation-free equivalent for ASCII text that interns terms as ids, and `DocTerms` collects
 * each document's distinct term ids with frequencies. Pure.
 */

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

/**
 * Term ids by term, with an allocation-free tokenizer for ASCII text: terms are hashed
 * (FNV-1a over the lowercased characters) and compared in place, and a string is created only
 * for a term seen for the first time. Texts with non-ASCII characters go through `terms()`.
 */
export class TermDictionary {
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
export class DocTerms {
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
