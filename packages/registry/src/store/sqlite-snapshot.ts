/**
 * Snapshot and restore for the SQLite store (store/types.ts `snapshot`, `restore`).
 *
 * Snapshot: SQLite's online backup API copies the database into a temporary file next to it (a
 * consistent copy while the server keeps writing); rows are read from the copy, then the blobs its
 * versions reference from the blob directory (blobs are immutable and a referenced blob is never
 * collected). Restore: blobs are written first (durably), then every row in one transaction, then
 * each package's derived data is rebuilt in that transaction.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CtxpkgError } from '@ctxpkg/format';
import type { BlobDir } from './blobs.js';
import { LOG_TABLES, normaliseRow, restoreValue, SNAPSHOT_ORDER, SNAPSHOT_TABLES, type SnapshotItem, type SnapshotTable } from './snapshot.js';
import { ensureLogSqlite, forgetLogState } from './sqlite-tlog.js';
import { snapshotBlobs } from './snapshot-blobs.js';
import { refreshPackage } from './sqlite-search.js';

/** The snapshot of the database `db` (in `dataDir`) and its blob directory. */
export async function* sqliteSnapshot(db: Database.Database, dataDir: string, blobs: BlobDir): AsyncGenerator<SnapshotItem> {
  const copyPath = join(dataDir, `snapshot.${randomBytes(6).toString('hex')}.sqlite`);
  await db.backup(copyPath);
  const copy = new Database(copyPath, { readonly: true });
  try {
    for (const table of Object.keys(SNAPSHOT_TABLES) as SnapshotTable[]) {
      for (const raw of copy.prepare(`SELECT * FROM ${table} ORDER BY ${SNAPSHOT_ORDER[table]}`).iterate()) {
        yield { kind: 'row', table, row: normaliseRow(table, raw as Record<string, unknown>) };
      }
    }
    const refs = new Map<string, string | null>();
    for (const r of copy.prepare('SELECT artifact_sha256 AS sha FROM versions').all() as Array<{ sha: string }>) refs.set(r.sha, null);
    const packageBlobs = copy
      .prepare('SELECT vb.blob_sha256 AS sha, v.artifact_sha256 AS artifact FROM version_blobs vb JOIN versions v ON v.package_id = vb.package_id AND v.version = vb.version')
      .all() as Array<{ sha: string; artifact: string }>;
    for (const r of packageBlobs) if (!refs.has(r.sha)) refs.set(r.sha, r.artifact);
    copy.close();
    yield* snapshotBlobs(refs, (sha) => blobs.read(sha));
  } finally {
    if (copy.open) copy.close();
    // The copy keeps the live database's WAL mode, so opening it made -wal and -shm files, which a
    // read-only connection leaves behind on close: remove every file of the copy (new-user 2 item 14).
    for (const suffix of ['', '-journal', '-wal', '-shm']) await rm(`${copyPath}${suffix}`, { force: true });
  }
}

/** Restore `items` into the empty store `db` + `blobs` (see `RegistryStore.restore`). */
export async function sqliteRestore(db: Database.Database, blobs: BlobDir, items: AsyncIterable<SnapshotItem>): Promise<{ rows: number; blobs: number }> {
  const used = db.prepare('SELECT (SELECT count(*) FROM namespaces) + (SELECT count(*) FROM packages) AS n').get() as { n: number };
  if (used.n > 0) throw new CtxpkgError('E_EXISTS', 'the target registry is not empty; restore into an empty data directory');
  const rows: Array<{ table: SnapshotTable; row: Record<string, unknown> }> = [];
  let blobCount = 0;
  for await (const item of items) {
    if (item.kind === 'row') rows.push(item);
    else {
      await blobs.put(item.bytes);
      blobCount++;
    }
  }
  db.transaction(() => {
    // The store opened with a new, empty log; the snapshot's log (if any) replaces it.
    for (const t of LOG_TABLES) db.prepare(`DELETE FROM ${t}`).run();
    for (const { table, row } of rows) {
      const cols = SNAPSHOT_TABLES[table] as readonly string[];
      const values = cols.map((c) => (c === 'yanked' ? (row[c] ? 1 : 0) : restoreValue(table, c, row[c])));
      db.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(...values);
    }
    for (const { table, row } of rows) if (table === 'packages') refreshPackage(db, Number(row.id), String(row.updated_at));
  }).immediate();
  // A backup made before the log existed: start it now, by logging the restored state.
  forgetLogState(db);
  ensureLogSqlite(db, new Date().toISOString().replace(/\.000Z$/, 'Z'));
  return { rows: rows.length, blobs: blobCount };
}
