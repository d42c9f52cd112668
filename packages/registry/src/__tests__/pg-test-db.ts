/**
 * PostgreSQL for tests and benches, without vitest (so benches can import it): whether the test
 * server answers, and uniquely named databases on it. `backends.ts` builds the test harness on it.
 *
 * The server is `CTXPKG_TEST_PG_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`).
 * With `CTXPKG_REQUIRE_POSTGRES=1` (CI) an unreachable server is an error at import, not a skip.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server tests may use: `CTXPKG_TEST_PG_URL` or the machine's default cluster. */
export const PG_ADMIN_URL = process.env.CTXPKG_TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REQUIRED = process.env.CTXPKG_REQUIRE_POSTGRES === '1';

async function probe(): Promise<string | null> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return null;
  } catch (err) {
    return `PostgreSQL is not reachable at ${PG_ADMIN_URL} (${(err as Error).message})`;
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** Why PostgreSQL tests cannot run here, or null when they can. */
export const pgUnavailable: string | null = await probe();
if (pgUnavailable && REQUIRED) {
  throw new Error(`${pgUnavailable}; CTXPKG_REQUIRE_POSTGRES=1 requires it (start it with \`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start\`)`);
}
if (pgUnavailable) console.log(`[skip] PostgreSQL suites: ${pgUnavailable}; set CTXPKG_TEST_PG_URL to run them`);


/** A URL on `PG_ADMIN_URL`'s server with `database` (and optionally a search path). */
export function pgUrl(database: string, schema?: string): string {
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${database}`;
  if (schema) u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

async function adminQuery(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Create a uniquely named database on the test server; returns its name. Drop it with `dropPgDatabase`. */
export async function createPgDatabase(): Promise<string> {
  const name = `ctxpkg_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  return name;
}

/** Drop a database made by `createPgDatabase` (connections still open are cut). */
export async function dropPgDatabase(name: string): Promise<void> {
  if (!/^ctxpkg_t_[0-9]+_[0-9a-f]{8}$/.test(name)) throw new Error(`refusing to drop ${name}`);
  await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

