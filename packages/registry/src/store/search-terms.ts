/**
 * Search terms and BM25 for a backend without FTS5 (the PostgreSQL store; spec/registry.md §8).
 *
 * The SQLite store tokenizes with FTS5's `unicode61 remove_diacritics 2`. This module does the
 * same in JavaScript so both backends match and rank alike: a token is a run of Unicode letters,
 * digits, private-use characters and combining marks (unicode61's token characters: categories
 * L*, N*, Co, and marks inside a word); it is folded to lower case with its diacritics removed
 * (NFD, marks dropped), which is what `remove_diacritics 2` does for Latin-script text. Queries
 * fold the same way (`foldTerm`), and a query word matches every term it is a prefix of.
 *
 * The score is FTS5's bm25 with the store's column weights (name 10, description 4, tags 4,
 * content 1), k1 = 1.2, b = 0.75, with N, average length and document frequency taken over the
 * packages the caller may see — the same formula as sqlite-rank.ts.
 */

/** Column weights in search-document column order (full_name, description, tags, body). */
export const COLUMN_WEIGHTS: readonly number[] = [10, 4, 4, 1];
const K1 = 1.2;
const B = 0.75;

const TOKEN = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;

/** Lower case, NFKC, diacritics removed: how a term and a query word are compared. */
export function foldTerm(s: string): string {
  return s.normalize('NFKC').toLowerCase().normalize('NFD').replace(/\p{M}+/gu, '').normalize('NFC');
}

/** One term's hits in one column of a document. */
export interface TermHits {
  term: string;
  col: number;
  hits: number;
}

/**
 * The terms of a search document (`cols` in column order) with their hit counts per column,
 * sorted by term then column, and the document's length in tokens. Linear in the text length.
 */
export function documentTerms(cols: readonly string[]): { terms: TermHits[]; length: number } {
  const counts = new Map<string, number>();
  let length = 0;
  cols.forEach((text, col) => {
    for (const m of text.matchAll(TOKEN)) {
      const term = foldTerm(m[0]);
      if (term === '') continue;
      const key = `${col}\u0000${term}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      length++;
    }
  });
  const terms = [...counts].map(([key, hits]) => {
    const cut = key.indexOf('\u0000');
    return { term: key.slice(cut + 1), col: Number(key.slice(0, cut)), hits };
  });
  terms.sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : a.col - b.col));
  return { terms, length };
}

/** The folded query terms of query words (duplicates kept: each word is scored, as in FTS5). */
export function queryTerms(words: readonly string[]): string[] {
  return words.flatMap((w) => [...w.matchAll(TOKEN)].map((m) => foldTerm(m[0])).filter((t) => t !== ''));
}

/**
 * BM25 scores of `candidates`. `postings(term)` gives, for one query term, package id → weighted
 * frequency (Σ column weight × hits over the visible packages whose terms start with it);
 * `n` and `avgdl` are over the visible packages; `lengths` holds each candidate's length.
 */
export function bm25Scores(
  terms: readonly string[],
  candidates: readonly number[],
  postings: ReadonlyMap<string, ReadonlyMap<number, number>>,
  n: number,
  avgdl: number,
  lengths: ReadonlyMap<number, number>,
): Map<number, number> {
  const scores = new Map<number, number>(candidates.map((id) => [id, 0]));
  for (const term of terms) {
    const freq = postings.get(term) ?? new Map<number, number>();
    let idf = Math.log((n - freq.size + 0.5) / (freq.size + 0.5));
    if (idf <= 0) idf = 1e-6;
    for (const id of candidates) {
      const f = freq.get(id);
      if (!f) continue;
      const dl = lengths.get(id) ?? 0;
      scores.set(id, (scores.get(id) as number) + (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * dl) / avgdl)));
    }
  }
  return scores;
}
