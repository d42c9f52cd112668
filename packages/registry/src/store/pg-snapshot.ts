/**
 * Snapshot and restore for the PostgreSQL store (store/types.ts `snapshot`, `restore`).
 *
 * Snapshot: one `REPEATABLE READ READ ONLY` transaction sees one consistent state while the nodes
 * keep writing; rows first, then each referenced blob, one row at a time (memory stays bounded).
 * Restore: one transaction inserts the blobs, then the rows (foreign keys hold throughout),
 * rebuilds each package's derived data and moves the id sequences past the restored ids.
 */
import type pg from 'pg';
import { CtxpkgError } from '@ctxpkg/format';
import { sha256OfBytes } from './blobs.js';
import { pgRefreshPackage } from './pg-search.js';
import { LOG_TABLES, normaliseRow, restoreValue, SNAPSHOT_ORDER, SNAPSHOT_TABLES, type SnapshotItem, type SnapshotTable } from './snapshot.js';
import { ensureLogPg } from './pg-tlog.js';
import { snapshotBlobs } from './snapshot-blobs.js';

/** The snapshot of the database behind `pool`. */
export async function* pgSnapshot(pool: pg.Pool): AsyncGenerator<SnapshotItem> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    for (const table of Object.keys(SNAPSHOT_TABLES) as SnapshotTable[]) {
      const cols = SNAPSHOT_TABLES[table].map((col) => (col === 'yanked' ? 'yanked::int AS yanked' : col)).join(', ');
      const r = await c.query(`SELECT ${cols} FROM ${table} ORDER BY ${SNAPSHOT_ORDER[table]}`);
      for (const raw of r.rows as Array<Record<string, unknown>>) yield { kind: 'row', table, row: normaliseRow(table, raw) };
    }
    const refs = new Map<string, string | null>();
    for (const r of (await c.query('SELECT artifact_sha256 AS sha FROM versions')).rows as Array<{ sha: string }>) refs.set(r.sha, null);
    const packageBlobs = (await c.query(
      'SELECT vb.blob_sha256 AS sha, v.artifact_sha256 AS artifact FROM version_blobs vb JOIN versions v ON v.package_id = vb.package_id AND v.version = vb.version',
    )).rows as Array<{ sha: string; artifact: string }>;
    for (const r of packageBlobs) if (!refs.has(r.sha)) refs.set(r.sha, r.artifact);
    yield* snapshotBlobs(refs, async (sha) => {
      const [row] = (await c.query('SELECT bytes FROM blobs WHERE sha256 = $1', [sha])).rows as Array<{ bytes: Buffer }>;
      if (!row) return null;
      if (sha256OfBytes(row.bytes) !== sha) throw new CtxpkgError('E_INTEGRITY', `stored blob ${sha} is corrupt`);
      return row.bytes;
    });
    await c.query('COMMIT');
  } finally {
    await c.query('ROLLBACK').catch(() => undefined);
    c.release();
  }
}

/** Restore `items` into the empty database behind `pool` (see `RegistryStore.restore`). */
export async function pgRestore(pool: pg.Pool, items: AsyncIterable<SnapshotItem>): Promise<{ rows: number; blobs: number }> {
  const c = await pool.connect();
  let rows = 0;
  let blobs = 0;
  try {
    await c.query('BEGIN');
    const used = (await c.query('SELECT (SELECT count(*) FROM namespaces) + (SELECT count(*) FROM packages) AS n')).rows[0] as { n: string };
    if (Number(used.n) > 0) {
      throw new CtxpkgError('E_EXISTS', 'the target registry database is not empty; restore into an empty database', {
        hint: 'create a new database (`createdb -O <role> <name>` as a PostgreSQL superuser) and name it with --db; restore never merges into a registry that has data',
      });
    }
    // The store opened with a new, empty log; the snapshot's log (if any) replaces it.
    for (const t of LOG_TABLES) await c.query(`DELETE FROM ${t}`);
    const pending: Array<{ table: SnapshotTable; row: Record<string, unknown> }> = [];
    const now = Date.now();
    for await (const item of items) {
      if (item.kind === 'row') {
        pending.push(item);
        continue;
      }
      await c.query('INSERT INTO blobs (sha256, size_bytes, bytes, created_ms, pins, pinned_ms) VALUES ($1, $2, $3, $4, 0, $4) ON CONFLICT DO NOTHING', [
        item.sha256, item.bytes.byteLength, Buffer.from(item.bytes.buffer, item.bytes.byteOffset, item.bytes.byteLength), now,
      ]);
      blobs++;
    }
    for (const { table, row } of pending) {
      const cols = SNAPSHOT_TABLES[table] as readonly string[];
      await c.query(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`, cols.map((col) => restoreValue(table, col, row[col])));
      rows++;
    }
    for (const { table, row } of pending) if (table === 'packages') await pgRefreshPackage(c, Number(row.id), String(row.updated_at));
    for (const table of ['packages', 'events']) {
      await c.query(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), coalesce((SELECT max(id) FROM ${table}), 0) + 1, false)`);
    }
    await c.query('COMMIT');
    // A backup made before the log existed: start it now, by logging the restored state.
    await ensureLogPg(pool, new Date().toISOString().replace(/\.000Z$/, 'Z'));
    return { rows, blobs };
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    c.release();
  }
}
