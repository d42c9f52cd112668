/**
 * The read queries behind the registry's pages (home, namespace list, dependents) on a SQLite
 * connection; see store/types.ts for each contract. Visibility is applied in the SQL itself
 * (`VISIBLE_SQL`), so invisible packages never reach the caller.
 */
import type Database from 'better-sqlite3';
import { toVisibility, type Row } from './rows.js';
import { VISIBLE_SQL } from './sqlite-search.js';
import { prepared } from './statements.js';
import type { DependentRecord, NamespaceSummary, RecentPublish, VisibilityFilter } from './types.js';

type Db = Database.Database;

/** Newest visible publishes, by audit-log order (the `events` rowid), newest first. */
export function recentPublishes(db: Db, filter: VisibilityFilter, limit: number): RecentPublish[] {
  const rows = prepared(
    db,
    `SELECT p.namespace, p.name, p.visibility, v.version, v.description, v.published_at, v.yanked
       FROM events e
       JOIN packages p ON p.namespace = e.namespace AND p.name = e.name
       JOIN versions v ON v.package_id = p.id AND v.version = e.version
      WHERE e.action = 'publish' AND ${VISIBLE_SQL}
      ORDER BY e.id DESC LIMIT ?`,
  ).all(JSON.stringify(filter.namespaces), limit) as Row[];
  return rows.map((r) => ({
    namespace: String(r.namespace),
    name: String(r.name),
    version: String(r.version),
    description: String(r.description),
    visibility: toVisibility(r.visibility),
    published_at: String(r.published_at),
    yanked: Number(r.yanked) === 1,
  }));
}

/** Namespaces with visible packages, plus the filter's own existing namespaces. */
export function namespaceSummaries(db: Db, filter: VisibilityFilter): NamespaceSummary[] {
  const ns = JSON.stringify(filter.namespaces);
  const rows = prepared(
    db,
    `SELECT n.name AS namespace, COUNT(p.id) AS packages, MAX(p.updated_at) AS updated_at
       FROM namespaces n
       LEFT JOIN packages p ON p.namespace = n.name AND ${VISIBLE_SQL}
      GROUP BY n.name
     HAVING COUNT(p.id) > 0 OR n.name IN (SELECT value FROM json_each(?))
      ORDER BY n.name`,
  ).all(ns, ns) as Row[];
  return rows.map((r) => ({
    namespace: String(r.namespace),
    packages: Number(r.packages),
    updated_at: r.updated_at === null ? null : String(r.updated_at),
  }));
}

/** Visible packages whose latest version depends on `full`. */
export function dependents(db: Db, filter: VisibilityFilter, full: string, limit: number): DependentRecord[] {
  const rows = prepared(
    db,
    `SELECT p.namespace, p.name, v.version, json_extract(d.value, '$.version_req') AS version_req,
            json_extract(d.value, '$.optional') AS optional
       FROM packages p
       JOIN versions v ON v.package_id = p.id AND v.version = p.latest_version
       JOIN json_each(v.dependencies_json) d
      WHERE ${VISIBLE_SQL} AND json_extract(d.value, '$.name') = ?
      ORDER BY ('@' || p.namespace || '/' || p.name) LIMIT ?`,
  ).all(JSON.stringify(filter.namespaces), full, limit) as Row[];
  return rows.map((r) => ({
    namespace: String(r.namespace),
    name: String(r.name),
    version: String(r.version),
    version_req: String(r.version_req),
    optional: Number(r.optional) === 1, // json_extract gives 1/0 for JSON true/false
  }));
}
