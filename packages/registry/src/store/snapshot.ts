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
  // The transparency log (spec/transparency.md): restored as it was, key and all, so clients that
  // pinned the log keep verifying it. Binary columns are base64 in a snapshot.
  tlog_meta: ['id', 'origin', 'seed', 'size', 'created_at'],
  tlog_secrets: ['namespace', 'secret'],
  tlog_entries: ['idx', 'entry', 'namespace', 'package', 'version', 'kind', 'clear', 'nonce', 'tree_size', 'at'],
  tlog_hashes: ['level', 'idx', 'hash'],
  tlog_checkpoints: ['size', 'root', 'note'],
  tlog_cosignatures: ['size', 'key', 'line'],
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
  tlog_meta: 'id',
  tlog_secrets: 'namespace',
  tlog_entries: 'idx',
  tlog_hashes: 'level, idx',
  tlog_checkpoints: 'size',
  tlog_cosignatures: 'size, key',
};

/** The log tables: a fresh store has a new, empty log, which a restore replaces (`clearFreshLog`). */
export const LOG_TABLES = ['tlog_cosignatures', 'tlog_checkpoints', 'tlog_hashes', 'tlog_entries', 'tlog_secrets', 'tlog_meta'] as const;

/** Columns holding integers (bigint in PostgreSQL, read as text there), as `table.column`. */
const INTEGER_COLUMNS = new Set([
  'packages.id', 'events.id', 'packages.revision', 'versions.package_id', 'versions.size_bytes', 'version_blobs.package_id', 'version_blobs.size_bytes',
  'tlog_meta.id', 'tlog_meta.size', 'tlog_entries.idx', 'tlog_entries.tree_size', 'tlog_hashes.level', 'tlog_hashes.idx', 'tlog_checkpoints.size', 'tlog_cosignatures.size',
]);

/** Columns holding bytes, as `table.column`: base64 in a snapshot. */
const BINARY_COLUMNS = new Set(['tlog_meta.seed', 'tlog_secrets.secret', 'tlog_entries.entry', 'tlog_hashes.hash', 'tlog_checkpoints.root']);

/** The value to insert for a snapshot row's column (bytes for a binary column). */
export function restoreValue(table: SnapshotTable, col: string, v: unknown): unknown {
  return BINARY_COLUMNS.has(`${table}.${col}`) && typeof v === 'string' ? Buffer.from(v, 'base64') : v;
}

/** One row as a snapshot holds it: the table's columns, integers as numbers, `yanked` as a boolean. */
export function normaliseRow(table: SnapshotTable, raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const col of SNAPSHOT_TABLES[table]) {
    const v = raw[col];
    if (v === undefined || v === null) out[col] = null;
    else if (col === 'yanked') out[col] = v === true || Number(v) === 1;
    else if (BINARY_COLUMNS.has(`${table}.${col}`)) out[col] = Buffer.from(v as Uint8Array).toString('base64');
    else if (INTEGER_COLUMNS.has(`${table}.${col}`)) out[col] = Number(v);
    else out[col] = String(v);
  }
  return out;
}

/** One item of a snapshot stream. */
export type SnapshotItem =
  | { kind: 'row'; table: SnapshotTable; row: Record<string, unknown> }
  | { kind: 'blob'; sha256: string; bytes: Uint8Array };
