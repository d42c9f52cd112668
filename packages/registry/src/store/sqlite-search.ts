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
 * readable snippet (`readableSnippet`: text around the first hit, without the index's field
 * noise). Returns [] when the query has no word.
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
      `SELECT p.*, package_search.body AS body
       FROM package_search JOIN packages p ON p.id = package_search.rowid
       WHERE p.id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(top.map((t) => t.id))) as Row[];
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  const words = queryWords(q);
  return top
    .map((t) => byId.get(t.id))
    .filter((r): r is Row => r !== undefined)
    .map((r) => {
      const entry = toCatalogEntry(r);
      const sources = snippetSources(String(r.body), `@${String(r.namespace)}/${String(r.name)}`, String(r.description), JSON.parse(String(r.tags_json)) as string[]);
      return { ...entry, snippet: readableSnippet(sources, words) };
    });
}

/** Words of a snippet window (FTS5's `snippet()` used 16). */
const SNIPPET_WORDS = 16;
/** Words kept before the first hit inside the window. */
const SNIPPET_LEAD = 4;
/** Node types whose `type category path` prefix the publish gate writes before each node's content. */
const NODE_TYPE = /^(?:fact|gotcha|warning|rule|convention|constraint|decision|procedure|pattern|insight|session|section|scope|code_[a-z_]+)$/;
const CATEGORY = /^[a-z0-9][a-z0-9._-]*$/;
const PATHLIKE = /[./]/;

/**
 * The readable texts of a search document, in the order a snippet prefers them: the description,
 * then the node contents of the body (the publish gate writes each node as
 * `<type> <category> <file path> <content>`, gate-text.ts; that prefix is field noise and is cut
 * off, as are the body's copies of the name, description and tags lines), then the tags.
 */
export function snippetSources(body: string, fullName: string, description: string, tags: readonly string[]): string[] {
  const out: string[] = [];
  if (description.trim() !== '') out.push(description);
  const skip = new Set([fullName, description, tags.join(' ')].filter((x) => x !== ''));
  for (const line of body.split('\n')) {
    if (line.trim() === '' || skip.has(line)) continue;
    out.push(stripNodePrefix(line));
  }
  if (tags.length > 0) out.push(tags.join(', '));
  return out.filter((t) => t.trim() !== '');
}

/** `gotcha agents-md AGENTS.md Never log…` → `Never log…` (type, optional category, path). */
function stripNodePrefix(line: string): string {
  const t = line.split(' ');
  if (t.length < 2 || !NODE_TYPE.test(t[0] as string)) return line;
  let k = 1;
  if (t.length > k + 1 && CATEGORY.test(t[k] as string) && PATHLIKE.test(t[k + 1] as string)) k += 2;
  else if (PATHLIKE.test(t[k] as string) && t.length > k + 1) k += 1;
  else return line;
  return t.slice(k).join(' ');
}

/** Lowercase, NFKC, diacritics removed: how FTS5's `unicode61 remove_diacritics 2` compares. */
function fold(s: string): string {
  return s.normalize('NFKC').toLowerCase().normalize('NFD').replace(/\p{M}+/gu, '').normalize('NFC');
}

/**
 * A readable snippet for a search hit (spec/registry.md "Catalog and search"): up to 16 words of
 * the first source text (see `snippetSources`) holding a word that starts with a query word —
 * FTS5's prefix match — with every such word in `[…]`, `…` where text was cut, whitespace
 * collapsed. When only the name matched, the start of the first source text, unmarked. Pure;
 * depends only on the package's own document, so it never depends on other packages.
 */
export function readableSnippet(sources: readonly string[], queryWordList: readonly string[]): string {
  const qs = queryWordList.map(fold).filter((w) => w !== '');
  const hit = (word: string): boolean => {
    const f = fold(word);
    return qs.some((q) => f.startsWith(q));
  };
  for (const text of sources) {
    const tokens = [...text.matchAll(/[\p{L}\p{N}]+/gu)];
    const first = tokens.findIndex((m) => hit(m[0]));
    if (first < 0) continue;
    const from = Math.max(0, Math.min(first - SNIPPET_LEAD, tokens.length - SNIPPET_WORDS));
    return windowText(text, tokens, from, hit);
  }
  const text = sources[0];
  if (text === undefined) return '';
  return windowText(text, [...text.matchAll(/[\p{L}\p{N}]+/gu)], 0, () => false);
}

/** The text of tokens `from … from+15` (with what lies between them), hits marked. */
function windowText(text: string, tokens: RegExpMatchArray[], from: number, hit: (w: string) => boolean): string {
  if (tokens.length === 0) return text.replace(/\s+/g, ' ').trim().slice(0, 120);
  const to = Math.min(tokens.length, from + SNIPPET_WORDS);
  const startAt = from === 0 ? 0 : (tokens[from]?.index as number);
  const last = tokens[to - 1] as RegExpMatchArray;
  let endAt = (last.index as number) + last[0].length;
  if (to === tokens.length) endAt = text.length;
  else if (/^[^\s\p{L}\p{N}]/u.test(text.slice(endAt))) endAt += 1; // keep a closing "." or ","
  let out = '';
  let pos = startAt;
  for (let i = from; i < to; i++) {
    const m = tokens[i] as RegExpMatchArray;
    const at = m.index as number;
    out += text.slice(pos, at) + (hit(m[0]) ? `[${m[0]}]` : m[0]);
    pos = at + m[0].length;
  }
  out += text.slice(pos, endAt);
  out = out.replace(/\s+/g, ' ').trim();
  return `${from > 0 ? '…' : ''}${out}${to < tokens.length ? '…' : ''}`;
}
