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
import { createPgDatabase, dropPgDatabase, pgUnavailable, pgUrl } from './pg-test-db.js';

export { createPgDatabase, dropPgDatabase, PG_ADMIN_URL, pgUnavailable, pgUrl } from './pg-test-db.js';

export type BackendName = 'sqlite' | 'postgres';

/** The backends this run tests: SQLite always, PostgreSQL when reachable. */
export const BACKENDS: readonly BackendName[] = pgUnavailable ? ['sqlite'] : ['sqlite', 'postgres'];
export type AnyStore = SqliteStore | PgStore;

let fileDb: Promise<string> | undefined;
let schemaCounter = 0;

/** This test file's database (created on first use, dropped when the file's tests end). */
function testFileDatabase(): Promise<string> {
  fileDb ??= createPgDatabase();
  return fileDb;
}

// Registered while the test file is collected (a hook registered later, from inside a test or a
// hook, would never run), so the file's database is dropped however its tests end. Outside a
// test run (a bench importing the test support) there is no suite to register with.
try {
  afterAll(async () => {
    if (fileDb) await dropPgDatabase(await fileDb);
  });
} catch {
  // not collected by vitest
}

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
