/**
 * Catalog, search documents and ranked search for the PostgreSQL store (spec/registry.md §8).
 *
 * The same rules as the SQLite store (sqlite-search.ts, sqlite-rank.ts): one search document per
 * package, built from its latest version (or its highest when every version is yanked); words of
 * the query match as prefixes, all required; BM25 with weights name 10, description 4, tags 4,
 * content 1, statistics over the packages the caller may see; ties by namespace and name; the
 * same readable snippet. Terms come from search-terms.ts (FTS5 unicode61's rules in JavaScript)
 * and are stored in `search_terms` with `COLLATE "C"`, so a prefix is a range scan of the index.
 */
import type pg from 'pg';
import { compareDesc, orderVersions } from '../ordering.js';
import { toCatalogEntry, type Row } from './rows.js';
import { bm25Scores, COLUMN_WEIGHTS, documentTerms, queryTerms } from './search-terms.js';
import { queryWords, readableSnippet, snippetSources } from './sqlite-search.js';
import type { CatalogEntry, SearchHit, VisibilityFilter } from './types.js';

type Q = Pick<pg.PoolClient, 'query'>;

/** Condition selecting packages (alias `p`) visible through a filter bound as a text[] parameter. */
const visibleSql = (param: string): string => `(p.visibility = 'public' OR p.namespace = ANY(${param}::text[]))`;
/** The largest code point: `term < prefix || MAX_CHAR` selects every term starting with `prefix`. */
const MAX_CHAR = String.fromCodePoint(0x10ffff);

/**
 * Recompute a package's latest version, catalog fields, search document and term counts. Must run
 * inside the transaction that changed its versions (the package row is locked by it).
 */
export async function pgRefreshPackage(c: Q, packageId: number, now: string): Promise<void> {
  const pkg = (await c.query('SELECT namespace, name FROM packages WHERE id = $1', [packageId])).rows[0] as Row;
  const rows = (await c.query('SELECT version, yanked, description, tags_json, search_text FROM versions WHERE package_id = $1', [packageId])).rows as Row[];
  const entries = rows.map((r) => ({ version: String(r.version), yanked: r.yanked === true, row: r }));
  const { latest } = orderVersions(entries);
  const source = latest ?? entries.slice().sort((a, b) => compareDesc(a.version, b.version))[0];
  const description = source ? String(source.row.description) : '';
  const tagsJson = source ? String(source.row.tags_json) : '[]';
  await c.query('UPDATE packages SET latest_version = $1, description = $2, tags_json = $3, updated_at = $4, revision = revision + 1 WHERE id = $5', [
    latest ? latest.version : null,
    description,
    tagsJson,
    now,
    packageId,
  ]);
  const cols = [
    `@${String(pkg.namespace)}/${String(pkg.name)} ${String(pkg.namespace)} ${String(pkg.name).replace(/-/g, ' ')}`,
    description,
    (JSON.parse(tagsJson) as string[]).join(' '),
    source ? String(source.row.search_text) : '',
  ];
  const { terms, length } = documentTerms(cols);
  await c.query(
    `INSERT INTO package_search (package_id, full_name, description, tags, body, length) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (package_id) DO UPDATE SET full_name = EXCLUDED.full_name, description = EXCLUDED.description,
       tags = EXCLUDED.tags, body = EXCLUDED.body, length = EXCLUDED.length`,
    [packageId, ...cols, length],
  );
  await c.query('DELETE FROM search_terms WHERE package_id = $1', [packageId]);
  if (terms.length > 0) {
    await c.query(
      'INSERT INTO search_terms (term, package_id, col, hits) SELECT t, $1, c, h FROM unnest($2::text[], $3::int[], $4::int[]) AS x(t, c, h)',
      [packageId, terms.map((t) => t.term), terms.map((t) => t.col), terms.map((t) => t.hits)],
    );
  }
}

/** Visible packages sorted by the string `@namespace/name`, strictly after `after` when given. */
export async function pgCatalog(pool: Q, filter: VisibilityFilter, limit: number, after?: string): Promise<CatalogEntry[]> {
  const r = await pool.query(
    `SELECT p.* FROM packages p WHERE ${visibleSql('$1')} AND ('@' || p.namespace || '/' || p.name) COLLATE "C" > $2
     ORDER BY ('@' || p.namespace || '/' || p.name) COLLATE "C" LIMIT $3`,
    [filter.namespaces, after ?? '', limit],
  );
  return (r.rows as Row[]).map(toCatalogEntry);
}

/**
 * Ranked search (see the module comment). Returns [] when the query has no word. Candidates are
 * the visible packages holding, for every query term, a term it prefixes.
 */
export async function pgSearch(pool: Q, filter: VisibilityFilter, q: string, limit: number): Promise<SearchHit[]> {
  const words = queryWords(q);
  const terms = queryTerms(words);
  if (terms.length === 0) return [];
  const visible = filter.namespaces as string[];
  const postings = new Map<string, Map<number, number>>();
  for (const term of new Set(terms)) {
    const freq = new Map<number, number>();
    const r = await pool.query(
      `SELECT s.package_id AS id, s.col AS col, s.hits AS hits FROM search_terms s JOIN packages p ON p.id = s.package_id
       WHERE s.term >= $1 AND s.term < $2 AND ${visibleSql('$3')}`,
      [term, term + MAX_CHAR, visible],
    );
    for (const row of r.rows as Array<{ id: string; col: number; hits: number }>) {
      const id = Number(row.id);
      freq.set(id, (freq.get(id) ?? 0) + (COLUMN_WEIGHTS[row.col] ?? 0) * row.hits);
    }
    postings.set(term, freq);
  }
  let candidates: number[] | null = null;
  for (const term of terms) {
    const ids: number[] = [...(postings.get(term) as Map<number, number>).keys()];
    candidates = candidates === null ? ids : candidates.filter((id) => (postings.get(term) as Map<number, number>).has(id));
  }
  if (!candidates || candidates.length === 0) return [];
  const stats = (await pool.query(
    `SELECT count(*) AS n, coalesce(sum(d.length), 0) AS total FROM package_search d JOIN packages p ON p.id = d.package_id WHERE ${visibleSql('$1')}`,
    [visible],
  )).rows[0] as { n: string; total: string };
  const n = Number(stats.n);
  const total = Number(stats.total);
  const avgdl = n > 0 && total > 0 ? total / n : 1;
  const docs = (await pool.query(
    `SELECT p.*, d.length AS length, d.body AS body FROM package_search d JOIN packages p ON p.id = d.package_id WHERE d.package_id = ANY($1::bigint[])`,
    [candidates],
  )).rows as Row[];
  const byId = new Map(docs.map((r) => [Number(r.id), r]));
  const lengths = new Map(docs.map((r) => [Number(r.id), Number(r.length)]));
  const scores = bm25Scores(terms, candidates, postings, n, avgdl, lengths);
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const top = candidates
    .map((id) => byId.get(id))
    .filter((r): r is Row => r !== undefined)
    .sort(
      (a, b) =>
        (scores.get(Number(b.id)) as number) - (scores.get(Number(a.id)) as number) ||
        cmp(String(a.namespace), String(b.namespace)) ||
        cmp(String(a.name), String(b.name)),
    )
    .slice(0, limit);
  return top.map((r) => {
    const sources = snippetSources(String(r.body), `@${String(r.namespace)}/${String(r.name)}`, String(r.description), JSON.parse(String(r.tags_json)) as string[]);
    return { ...toCatalogEntry(r), snippet: readableSnippet(sources, words) };
  });
}
