/**
 * Open the store a registry is configured with (spec/registry.md §13): the embedded SQLite store
 * in a data directory (`{ dataDir }`, `--data`) or the PostgreSQL store (`{ db }`, `--db
 * postgres://…`). The one place that chooses a backend; the server, the admin functions, backup
 * and restore all open stores through it.
 */
import { CtxpkgError } from '@ctxpkg/format';
import { openPgStore, type PgStore } from './pg.js';
import { openSqliteStore, type SqliteStore } from './sqlite.js';

/** Where a registry's data lives: a data directory (SQLite + blob files) or a PostgreSQL URL. */
export type StoreLocation = { dataDir: string; db?: undefined } | { db: string; dataDir?: undefined };

/** True for a `postgres://` or `postgresql://` URL. */
export function isPostgresUrl(s: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(s);
}

/**
 * Open (create or migrate) the store at `where`. Throws `E_USAGE` for a `db` that is not a
 * PostgreSQL URL, `E_ENVIRONMENT` when the database cannot be reached, `E_IO` when the data
 * directory cannot be used, `E_ENVIRONMENT` also when either was written by a newer schema.
 */
export async function openStore(where: StoreLocation): Promise<SqliteStore | PgStore> {
  if (where.db !== undefined) {
    if (!isPostgresUrl(where.db)) {
      throw new CtxpkgError('E_USAGE', `--db must be a postgres:// URL, got ${JSON.stringify(where.db.slice(0, 40))}`, {
        hint: 'e.g. --db postgres://ctxpkg@db.internal:5432/ctxpkg (or use --data <dir> for the embedded SQLite store)',
      });
    }
    return openPgStore({ url: where.db });
  }
  return openSqliteStore({ dataDir: where.dataDir });
}

/** A short label for messages: the data directory, or the database URL without its password. */
export function locationLabel(where: StoreLocation): string {
  if (where.db === undefined) return where.dataDir;
  try {
    const u = new URL(where.db);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the database';
  }
}
