/**
 * The read queries behind the registry's pages (home, namespace list, dependents) on PostgreSQL;
 * the same answers as sqlite-pages.ts (see store/types.ts for each contract). Visibility is
 * applied in the SQL itself, so invisible packages never reach the caller.
 */
import type pg from 'pg';
import { toVisibility, type Row } from './rows.js';
import type { DependentRecord, NamespaceSummary, RecentPublish, VisibilityFilter } from './types.js';

type Q = Pick<pg.PoolClient, 'query'>;

/** Packages (alias `p`) visible through a filter bound as the text[] parameter `$1`. */
const VISIBLE = `(p.visibility = 'public' OR p.namespace = ANY($1::text[]))`;

/** Newest visible publishes, by audit-log order (`events.id`), newest first. */
export async function pgRecentPublishes(c: Q, filter: VisibilityFilter, limit: number): Promise<RecentPublish[]> {
  const rows = (
    await c.query(
      `SELECT p.namespace, p.name, p.visibility, v.version, v.description, v.published_at, v.yanked
         FROM events e
         JOIN packages p ON p.namespace = e.namespace COLLATE "C" AND p.name = e.name COLLATE "C"
         JOIN versions v ON v.package_id = p.id AND v.version = e.version COLLATE "C"
        WHERE e.action = 'publish' AND ${VISIBLE}
        ORDER BY e.id DESC LIMIT $2`,
      [filter.namespaces, limit],
    )
  ).rows as Row[];
  return rows.map((r) => ({
    namespace: String(r.namespace),
    name: String(r.name),
    version: String(r.version),
    description: String(r.description),
    visibility: toVisibility(r.visibility),
    published_at: String(r.published_at),
    yanked: r.yanked === true,
  }));
}

/** Namespaces with visible packages, plus the filter's own existing namespaces. */
export async function pgNamespaceSummaries(c: Q, filter: VisibilityFilter): Promise<NamespaceSummary[]> {
  const rows = (
    await c.query(
      `SELECT n.name AS namespace, COUNT(p.id) AS packages, MAX(p.updated_at) AS updated_at
         FROM namespaces n
         LEFT JOIN packages p ON p.namespace = n.name AND ${VISIBLE}
        GROUP BY n.name
       HAVING COUNT(p.id) > 0 OR n.name = ANY($1::text[])
        ORDER BY n.name`,
      [filter.namespaces],
    )
  ).rows as Row[];
  return rows.map((r) => ({
    namespace: String(r.namespace),
    packages: Number(r.packages),
    updated_at: r.updated_at === null ? null : String(r.updated_at),
  }));
}

/** Visible packages whose latest version depends on `full`. */
export async function pgDependents(c: Q, filter: VisibilityFilter, full: string, limit: number): Promise<DependentRecord[]> {
  const rows = (
    await c.query(
      `SELECT p.namespace, p.name, v.version, d->>'version_req' AS version_req, (d->>'optional')::boolean AS optional
         FROM packages p
         JOIN versions v ON v.package_id = p.id AND v.version = p.latest_version COLLATE "C"
         CROSS JOIN LATERAL jsonb_array_elements(v.dependencies_json::jsonb) AS d
        WHERE ${VISIBLE} AND d->>'name' = $2
        ORDER BY ('@' || p.namespace || '/' || p.name) COLLATE "C" LIMIT $3`,
      [filter.namespaces, full, limit],
    )
  ).rows as Row[];
  return rows.map((r) => ({
    namespace: String(r.namespace),
    name: String(r.name),
    version: String(r.version),
    version_req: String(r.version_req),
    optional: r.optional === true,
  }));
}
