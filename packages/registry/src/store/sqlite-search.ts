/**
 * Catalog, search documents and full-text search for the SQLite store (FTS5).
 *
 * Each package has one search document (rowid = package id) built from its latest version (or,
 * when every version is yanked, its highest one): `@ns/name`, description, tags and the searchable
 * text the publish gate extracted (node content). Visibility is applied in the query itself, so
 * private packages never reach the caller's result list (spec/registry.md "Catalog and search"),
 * and the ranking's statistics are computed over the visible packages only (`sqlite-rank.ts`),
 * so packages a caller may not see never change the order of the answer.
 */
import type Database from 'better-sqlite3';
import { orderVersions, compareDesc } from '../ordering.js';
import { toCatalogEntry, type Row } from './rows.js';
import { indexSearchTerms, rankCandidates } from './sqlite-rank.js';
import { prepared } from './statements.js';
import type { CatalogEntry, SearchHit, VisibilityFilter } from './types.js';

/** SQL condition selecting packages (alias `p`) visible through a filter bound as JSON text. */
export const VISIBLE_SQL = `(p.visibility = 'public' OR p.namespace IN (SELECT value FROM json_each(?)))`;

/**
 * Build an FTS5 query from user text: words (Unicode letters/digits) become quoted prefix terms,
 * all required (AND). Returns null when the text has no word. Quoting makes FTS operators in the
 * input (`OR`, `NEAR`, `*`, `"`, `:`) plain text.
 */
export function ftsQuery(q: string): string | null {
  const words = queryWords(q);
  const terms = words.map((w) => `"${w.replace(/"/g, '""')}"*`);
  return terms.length === 0 ? null : terms.join(' ');
}

/** The words of a query (NFKC, runs of Unicode letters/digits, at most 16), as `ftsQuery` uses them. */
export function queryWords(q: string): string[] {
  return (q.normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 16);
}

/**
 * Recompute a package's latest version, catalog fields and search document. Must run inside the
 * transaction that changed its versions.
 */
export function refreshPackage(db: Database.Database, packageId: number, now: string): void {
  const pkg = prepared(db, 'SELECT namespace, name FROM packages WHERE id = ?').get(packageId) as Row;
  const rows = prepared(db, 'SELECT version, yanked, description, tags_json, search_text FROM versions WHERE package_id = ?')
    .all(packageId) as Row[];
  const entries = rows.map((r) => ({ version: String(r.version), yanked: Number(r.yanked) === 1, row: r }));
  const { latest } = orderVersions(entries);
  const source = latest ?? entries.slice().sort((a, b) => compareDesc(a.version, b.version))[0];
  const description = source ? String(source.row.description) : '';
  const tagsJson = source ? String(source.row.tags_json) : '[]';
  prepared(db, 'UPDATE packages SET latest_version = ?, description = ?, tags_json = ?, updated_at = ?, revision = revision + 1 WHERE id = ?').run(
    latest ? latest.version : null,
    description,
    tagsJson,
    now,
    packageId,
  );
  const cols = [
    `@${String(pkg.namespace)}/${String(pkg.name)} ${String(pkg.namespace)} ${String(pkg.name).replace(/-/g, ' ')}`,
    description,
    (JSON.parse(tagsJson) as string[]).join(' '),
    source ? String(source.row.search_text) : '',
  ];
  prepared(db, 'DELETE FROM package_search WHERE rowid = ?').run(packageId);
  prepared(db, 'INSERT INTO package_search (rowid, full_name, description, tags, body) VALUES (?, ?, ?, ?, ?)').run(packageId, ...cols);
  indexSearchTerms(db, packageId, cols);
}

/** Visible packages sorted by the string `@namespace/name`, strictly after `after` (a full name) when given. */
export function catalog(db: Database.Database, filter: VisibilityFilter, limit: number, after?: string): CatalogEntry[] {
  const rows = prepared(db, 
      `SELECT p.* FROM packages p WHERE ${VISIBLE_SQL} AND ('@' || p.namespace || '/' || p.name) > ?
       ORDER BY ('@' || p.namespace || '/' || p.name) LIMIT ?`,
    )
    .all(JSON.stringify(filter.namespaces), after ?? '', limit) as Row[];
  return rows.map(toCatalogEntry);
}

/**
 * Ranked search: FTS5 finds the visible packages matching every word (as prefixes); they are
 * ordered by BM25 with weights name 10, description 4, tags 4, content 1 computed over the
 * visible packages only (`rankCandidates`), ties by namespace and name; the first `limit` get a
 * snippet. Returns [] when the query has no word.
 */
export function search(db: Database.Database, filter: VisibilityFilter, q: string, limit: number): SearchHit[] {
  const match = ftsQuery(q);
  if (match === null) return [];
  const visible = JSON.stringify(filter.namespaces);
  const matched = prepared(db,
      `SELECT p.id AS id, p.namespace AS namespace, p.name AS name
       FROM package_search JOIN packages p ON p.id = package_search.rowid
       WHERE package_search MATCH ? AND ${VISIBLE_SQL}`,
    )
    .all(match, visible) as Array<{ id: number; namespace: string; name: string }>;
  const scores = rankCandidates(db, queryWords(q), matched.map((m) => m.id), VISIBLE_SQL, visible);
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const top = matched
    .sort((a, b) => (scores.get(b.id) as number) - (scores.get(a.id) as number) || cmp(a.namespace, b.namespace) || cmp(a.name, b.name))
    .slice(0, limit);
  if (top.length === 0) return [];
  const rows = prepared(db,
      `SELECT p.*, snippet(package_search, -1, '[', ']', '…', 16) AS snippet
       FROM package_search JOIN packages p ON p.id = package_search.rowid
       WHERE package_search MATCH ? AND p.id IN (SELECT value FROM json_each(?))`,
    )
    .all(match, JSON.stringify(top.map((t) => t.id))) as Row[];
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  return top.map((t) => byId.get(t.id)).filter((r): r is Row => r !== undefined).map((r) => ({ ...toCatalogEntry(r), snippet: String(r.snippet) }));
}
