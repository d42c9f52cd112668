/**
 * Both store backends for tests (not part of the build): `describeBackends` runs a suite on the
 * embedded SQLite store and on PostgreSQL.
 *
 * PostgreSQL: the server at `CTXPKG_TEST_PG_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`,
 * the machine's trust-auth cluster). Each test file creates its own database
 * (`ctxpkg_t_<pid>_<random>`) on first use and drops it when the file ends, and each store gets a
 * fresh schema in it — other helpers and CI runs use the same server at the same time. When the
 * server cannot be reached the PostgreSQL suites are skipped with a printed reason, unless
 * `CTXPKG_REQUIRE_POSTGRES=1` (CI), where that is a failure.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe } from 'vitest';
import { openPgStore, type PgStore } from '../store/pg.js';
import { openSqliteStore, type SqliteStore } from '../store/sqlite.js';

export type BackendName = 'sqlite' | 'postgres';
export type AnyStore = SqliteStore | PgStore;

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

/** The backends this run tests: SQLite always, PostgreSQL when reachable. */
export const BACKENDS: readonly BackendName[] = pgUnavailable ? ['sqlite'] : ['sqlite', 'postgres'];

let fileDb: Promise<string> | undefined;
let schemaCounter = 0;

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

/** This test file's database (created on first use, dropped when the file's tests end). */
function testFileDatabase(): Promise<string> {
  fileDb ??= createPgDatabase();
  return fileDb;
}

// Registered while the test file is collected (a hook registered later, from inside a test or a
// hook, would never run), so the file's database is dropped however its tests end.
afterAll(async () => {
  if (fileDb) await dropPgDatabase(await fileDb);
});

/** A connection URL of a fresh, empty schema in this file's database. */
export async function freshPgUrl(): Promise<string> {
  const db = await testFileDatabase();
  const schema = `s${++schemaCounter}_${randomBytes(3).toString('hex')}`;
  const c = new pg.Client({ connectionString: pgUrl(db) });
  await c.connect();
  try {
    await c.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await c.end();
  }
  return pgUrl(db, schema);
}

/** An empty store of `backend`: its handle, where it lives, and `cleanup()` (closes it, removes its files). */
export async function openTestStore(backend: BackendName): Promise<{ store: AnyStore; dir: string; url?: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'ctxpkg-reg-'));
  if (backend === 'sqlite') {
    const store = await openSqliteStore({ dataDir: dir });
    return { store, dir, cleanup: async () => { await store.close(); await rm(dir, { recursive: true, force: true }); } };
  }
  const url = await freshPgUrl();
  const store = await openPgStore({ url, poolSize: 4 });
  return { store, dir, url, cleanup: async () => { await store.close(); await rm(dir, { recursive: true, force: true }); } };
}

/**
 * `describe(title, …)` once per backend (`title [sqlite]`, `title [postgres]`). PostgreSQL is
 * left out with a printed reason when unreachable (a failure under `CTXPKG_REQUIRE_POSTGRES=1`).
 */
export function describeBackends(title: string, fn: (backend: BackendName) => void): void {
  for (const b of ['sqlite', 'postgres'] as const) {
    if (b === 'postgres' && pgUnavailable) describe.skip(`${title} [postgres] (${pgUnavailable})`, () => fn(b));
    else describe(`${title} [${b}]`, () => fn(b));
  }
}
