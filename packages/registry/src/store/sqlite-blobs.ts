/**
 * Package blobs on a SQLite connection (schema 2, table `version_blobs`; spec/registry.md
 * "Storage", "Blobs"). Used by `SqliteStore`; see store/types.ts for the contract of each operation.
 */
import type Database from 'better-sqlite3';
import { prepared } from './statements.js';
import type { PublicBlobRecord } from './types.js';

type Db = Database.Database;

/** Record the blobs of a version (inside the publish transaction). */
export function insertVersionBlobs(db: Db, packageId: number, version: string, blobs: ReadonlyArray<{ sha256: string; size_bytes: number }>): void {
  const st = prepared(db, 'INSERT OR IGNORE INTO version_blobs (package_id, version, blob_sha256, size_bytes) VALUES (?, ?, ?, ?)');
  for (const b of blobs) st.run(packageId, version, b.sha256, b.size_bytes);
}

/** True when a version's artifact or one of its blobs is these bytes (the blob file must stay). */
export function isBlobReferenced(db: Db, sha256: string): boolean {
  return (
    prepared(db, 'SELECT 1 FROM versions WHERE artifact_sha256 = ? LIMIT 1').get(sha256) !== undefined ||
    prepared(db, 'SELECT 1 FROM version_blobs WHERE blob_sha256 = ? LIMIT 1').get(sha256) !== undefined
  );
}

/**
 * The blob if a version of a **public** package carries it (yanked versions included), with the
 * artifact it can be re-extracted from; the first such version by namespace, name, version.
 */
export function findPublicBlob(db: Db, sha256: string): PublicBlobRecord | null {
  const r = prepared(
    db,
    `SELECT vb.blob_sha256 AS sha256, vb.size_bytes AS size_bytes, v.artifact_sha256 AS artifact_sha256
       FROM version_blobs vb
       JOIN packages p ON p.id = vb.package_id
       JOIN versions v ON v.package_id = vb.package_id AND v.version = vb.version
      WHERE vb.blob_sha256 = ? AND p.visibility = 'public'
      ORDER BY p.namespace, p.name, v.version
      LIMIT 1`,
  ).get(sha256) as { sha256: string; size_bytes: number; artifact_sha256: string } | undefined;
  return r ? { sha256: r.sha256, size_bytes: Number(r.size_bytes), artifact_sha256: r.artifact_sha256 } : null;
}
