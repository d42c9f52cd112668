/**
 * The backend-neutral shape of a registry snapshot (backup.ts; spec/registry.md §13 "Backup and
 * restore"): the rows of the tables that are the registry's state, then the bytes of every blob a
 * version references. Derived data — a package's latest version, catalog fields and search
 * documents — is not part of it: `restore` rebuilds it, so a snapshot of either backend restores
 * into either backend.
 */

/** The tables of a snapshot, in restore order, with the columns kept of each. */
export const SNAPSHOT_TABLES = {
  namespaces: ['name', 'owner', 'created_at'],
  tokens: ['id', 'token_sha256', 'namespace', 'scope', 'label', 'created_at', 'expires_at', 'revoked_at'],
  signer_keys: ['namespace', 'public_key', 'added_at', 'added_by', 'revoked_at'],
  packages: ['id', 'namespace', 'name', 'visibility', 'revision', 'created_at', 'updated_at'],
  versions: [
    'package_id', 'version', 'precedence_key', 'artifact_sha256', 'size_bytes', 'integrity_sha256', 'signer_public_key', 'description',
    'tags_json', 'dependencies_json', 'search_text', 'trust_report_json', 'yanked', 'yanked_at', 'published_at', 'published_by',
  ],
  version_blobs: ['package_id', 'version', 'blob_sha256', 'size_bytes'],
  events: ['id', 'at', 'action', 'namespace', 'name', 'version', 'actor', 'detail'],
} as const;

export type SnapshotTable = keyof typeof SNAPSHOT_TABLES;

/** `ORDER BY` of each table (deterministic dumps). */
export const SNAPSHOT_ORDER: Record<SnapshotTable, string> = {
  namespaces: 'name',
  tokens: 'id',
  signer_keys: 'namespace, public_key',
  packages: 'id',
  versions: 'package_id, version',
  version_blobs: 'package_id, version, blob_sha256',
  events: 'id',
};

/** Columns holding integers (bigint in PostgreSQL, read as text there), as `table.column`. */
const INTEGER_COLUMNS = new Set(['packages.id', 'events.id', 'packages.revision', 'versions.package_id', 'versions.size_bytes', 'version_blobs.package_id', 'version_blobs.size_bytes']);

/** One row as a snapshot holds it: the table's columns, integers as numbers, `yanked` as a boolean. */
export function normaliseRow(table: SnapshotTable, raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const col of SNAPSHOT_TABLES[table]) {
    const v = raw[col];
    if (v === undefined || v === null) out[col] = null;
    else if (col === 'yanked') out[col] = v === true || Number(v) === 1;
    else if (INTEGER_COLUMNS.has(`${table}.${col}`)) out[col] = Number(v);
    else out[col] = String(v);
  }
  return out;
}

/** One item of a snapshot stream. */
export type SnapshotItem =
  | { kind: 'row'; table: SnapshotTable; row: Record<string, unknown> }
  | { kind: 'blob'; sha256: string; bytes: Uint8Array };
