/**
 * Search ranking over the packages a caller may see (spec/registry.md §8; ADVERSARIAL HB-21).
 *
 * FTS5's own `bm25()` takes its statistics — number of rows, average row length, and how many
 * rows contain each term — from the whole table, private packages included. An anonymous answer
 * would then change when private packages containing the query words exist, which tells an
 * outsider something about them. So matching stays with FTS5 (`MATCH`, already limited to visible
 * packages), but the score is computed here with every statistic taken from the visible packages
 * only:
 *
 *   score(d) = Σ_t idf(t) · f(t,d)·(k1+1) / (f(t,d) + k1·(1 − b + b·|d| / avgdl))
 *   idf(t)   = ln((N − n(t) + 0.5) / (n(t) + 0.5)), at least 1e-6
 *
 * with k1 = 1.2, b = 0.75 (FTS5's constants), f(t,d) = Σ over columns of weight(col) × hits of
 * t in that column (weights name 10, description 4, tags 4, content 1), |d| = tokens of d over all
 * columns, and N, avgdl, n(t) over the visible packages. `t` is a query word matched as a prefix,
 * as in the MATCH expression. This is exactly FTS5's bm25 formula, so when every package is
 * visible the order equals `ORDER BY bm25(...)`.
 *
 * Term counts come from FTS5's own tokenizer (a temporary scratch FTS5 table with the same
 * `unicode61 remove_diacritics 2` tokenizer, read through `fts5vocab`), so a document's terms
 * and a query's words fold exactly as `MATCH` folds them. They are kept per package in
 * `search_terms` (term, package, column → hits) and `search_docs` (package → tokens).
 */
import type Database from 'better-sqlite3';
import { prepared } from './statements.js';

/** Column weights of the ranking, in `package_search` column order (full_name, description, tags, body). */
export const COLUMN_WEIGHTS: readonly number[] = [10, 4, 4, 1];
const K1 = 1.2;
const B = 0.75;
/** The largest code point: `term < prefix || MAX_CHAR` selects every term starting with `prefix`. */
const MAX_CHAR = String.fromCodePoint(0x10ffff);

/** Create the connection's scratch tokenizer tables (temporary, so never written to disk). */
function ensureScratch(db: Database.Database): void {
  if (prepared(db, "SELECT 1 FROM temp.sqlite_master WHERE name = 'ctxpkg_tok'").get()) return;
  db.exec(`CREATE VIRTUAL TABLE temp.ctxpkg_tok USING fts5(c0, c1, c2, c3, tokenize = 'unicode61 remove_diacritics 2');
           CREATE VIRTUAL TABLE temp.ctxpkg_tok_v USING fts5vocab(temp, ctxpkg_tok, instance);`);
}

/** Tokenize rows of up to four columns with FTS5's tokenizer: per row, the (term, column, hits) triples. */
function tokenizeRows(db: Database.Database, rows: ReadonlyArray<readonly string[]>): Array<Array<{ term: string; col: number; hits: number }>> {
  ensureScratch(db);
  const insert = prepared(db, 'INSERT INTO temp.ctxpkg_tok (rowid, c0, c1, c2, c3) VALUES (?, ?, ?, ?, ?)');
  rows.forEach((r, i) => insert.run(i + 1, r[0] ?? '', r[1] ?? '', r[2] ?? '', r[3] ?? ''));
  const out: Array<Array<{ term: string; col: number; hits: number }>> = rows.map(() => []);
  const found = prepared(db, 'SELECT doc, term, col, count(*) AS hits FROM temp.ctxpkg_tok_v GROUP BY doc, term, col ORDER BY doc, term, col').all() as Array<{
    doc: number;
    term: string;
    col: string;
    hits: number;
  }>;
  for (const f of found) out[f.doc - 1]!.push({ term: f.term, col: Number(f.col.slice(1)), hits: f.hits });
  prepared(db, 'DELETE FROM temp.ctxpkg_tok').run();
  return out;
}

/**
 * Replace the term counts of one package's search document (`cols` in `package_search` column
 * order). Must run in the transaction that rewrote the document.
 */
export function indexSearchTerms(db: Database.Database, packageId: number, cols: readonly string[]): void {
  const [terms] = tokenizeRows(db, [cols]);
  prepared(db, 'DELETE FROM search_terms WHERE package_id = ?').run(packageId);
  const insert = prepared(db, 'INSERT INTO search_terms (term, package_id, col, hits) VALUES (?, ?, ?, ?)');
  let length = 0;
  for (const t of terms!) {
    insert.run(t.term, packageId, t.col, t.hits);
    length += t.hits;
  }
  prepared(db, 'INSERT INTO search_docs (package_id, length) VALUES (?, ?) ON CONFLICT (package_id) DO UPDATE SET length = excluded.length').run(packageId, length);
}

/** True when some search document has no term counts (a database written before schema 3). */
export function needsSearchBackfill(db: Database.Database): boolean {
  const docs = Number(db.prepare('SELECT count(*) FROM search_docs').pluck().get());
  const fts = Number(db.prepare('SELECT count(*) FROM package_search').pluck().get());
  return docs !== fts;
}

/**
 * Index every package whose search document has no term counts yet (databases written before
 * schema 3). Idempotent; call inside one transaction.
 */
export function backfillSearchTerms(db: Database.Database): number {
  const rows = db
    .prepare('SELECT rowid AS id, full_name, description, tags, body FROM package_search WHERE rowid NOT IN (SELECT package_id FROM search_docs)')
    .all() as Array<{ id: number; full_name: string; description: string; tags: string; body: string }>;
  for (const r of rows) indexSearchTerms(db, r.id, [r.full_name, r.description, r.tags, r.body]);
  return rows.length;
}

/**
 * Scores of `candidates` (package ids that matched, all visible) for the query `words` with
 * statistics over the packages selected by `visibleSql` (a condition on alias `p`, bound to
 * `visibleArg`). Returns package id → score (higher is better).
 */
export function rankCandidates(
  db: Database.Database,
  words: readonly string[],
  candidates: readonly number[],
  visibleSql: string,
  visibleArg: string,
): Map<number, number> {
  const scores = new Map<number, number>(candidates.map((id) => [id, 0]));
  if (candidates.length === 0) return scores;
  const stats = prepared(db, `SELECT count(*) AS n, total(d.length) AS total FROM search_docs d JOIN packages p ON p.id = d.package_id WHERE ${visibleSql}`).get(
    visibleArg,
  ) as { n: number; total: number };
  const n = stats.n;
  const avgdl = n > 0 && stats.total > 0 ? stats.total / n : 1;
  const lengths = new Map<number, number>();
  for (const r of prepared(db, 'SELECT package_id, length FROM search_docs WHERE package_id IN (SELECT value FROM json_each(?))').all(JSON.stringify(candidates)) as Array<{
    package_id: number;
    length: number;
  }>) {
    lengths.set(r.package_id, r.length);
  }
  // One entry per query word token, duplicates kept: FTS5 scores each phrase of the query.
  const terms = tokenizeRows(db, words.map((w) => [w])).flatMap((r) => r.map((t) => t.term));
  const postings = prepared(
    db,
    `SELECT s.package_id AS id, s.col AS col, s.hits AS hits FROM search_terms s JOIN packages p ON p.id = s.package_id
     WHERE s.term >= ? AND s.term < ? AND ${visibleSql}`,
  );
  const cache = new Map<string, Map<number, number>>();
  for (const term of terms) {
    let freq = cache.get(term);
    if (!freq) {
      freq = new Map<number, number>();
      for (const r of postings.all(term, term + MAX_CHAR, visibleArg) as Array<{ id: number; col: number; hits: number }>) {
        freq.set(r.id, (freq.get(r.id) ?? 0) + (COLUMN_WEIGHTS[r.col] ?? 0) * r.hits);
      }
      cache.set(term, freq);
    }
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
