/**
 * The transparency log in the SQLite store (spec/transparency.md §2–§4): tables, the append that
 * runs inside the store's own transactions, the start of a new log (which logs the current state),
 * and the reads behind the log routes.
 *
 * Tables: `tlog_meta` (one row: origin, key seed, size), `tlog_entries` (the entries, with what
 * they are about and, for commitments, the opening), `tlog_hashes` (every complete subtree, about
 * two per entry), `tlog_checkpoints` (the signed checkpoint of every size a transaction ended at),
 * `tlog_cosignatures` (witness cosignatures per size), `tlog_secrets` (per-namespace commitment
 * secrets, never served).
 */
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { CtxpkgError, bytesToHex, ed25519PublicKey, frontierNodes } from '@ctxpkg/format';
import { backfillChanges, newLogOrigin, planAppend, type LogChange, type LogEntryRow } from '../tlog/plan.js';
import { prepared } from './statements.js';
import type { LogCheckpointRecord, LogEntryRecord, LogStore } from './types.js';

type Db = Database.Database;
type Row = Record<string, unknown>;

export const TLOG_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS tlog_meta (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  origin     TEXT NOT NULL,
  seed       BLOB NOT NULL CHECK (length(seed) = 32),
  size       INTEGER NOT NULL CHECK (size >= 0),
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tlog_entries (
  idx       INTEGER PRIMARY KEY,
  entry     BLOB NOT NULL,
  namespace TEXT NOT NULL,
  package   TEXT,
  version   TEXT,
  kind      TEXT NOT NULL,
  clear     TEXT,
  nonce     TEXT,
  tree_size INTEGER NOT NULL,
  at        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tlog_entries_by_package ON tlog_entries(namespace, package, idx);
CREATE TABLE IF NOT EXISTS tlog_hashes (
  level INTEGER NOT NULL,
  idx   INTEGER NOT NULL,
  hash  BLOB NOT NULL CHECK (length(hash) = 32),
  PRIMARY KEY (level, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tlog_checkpoints (
  size INTEGER PRIMARY KEY,
  root BLOB NOT NULL CHECK (length(root) = 32),
  note TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tlog_cosignatures (
  size INTEGER NOT NULL,
  key  TEXT NOT NULL,
  line TEXT NOT NULL,
  PRIMARY KEY (size, key)
);
CREATE TABLE IF NOT EXISTS tlog_secrets (
  namespace TEXT PRIMARY KEY,
  secret    BLOB NOT NULL CHECK (length(secret) = 32)
);
`;

const metaCache = new WeakMap<Db, { origin: string; seed: Uint8Array }>();

/** Forget the cached origin and key of `db` (a restore replaced the log). */
export function forgetLogState(db: Db): void {
  metaCache.delete(db);
}

function meta(db: Db): { origin: string; seed: Uint8Array; size: number } | undefined {
  const r = prepared(db, 'SELECT origin, seed, size FROM tlog_meta WHERE id = 1').get() as Row | undefined;
  if (!r) return undefined;
  let m = metaCache.get(db);
  if (!m) metaCache.set(db, (m = { origin: String(r.origin), seed: new Uint8Array(r.seed as Buffer) }));
  return { ...m, size: Number(r.size) };
}

function readNode(db: Db, level: number, index: number): Uint8Array {
  const r = prepared(db, 'SELECT hash FROM tlog_hashes WHERE level = ? AND idx = ?').get(level, index) as Row | undefined;
  if (!r) throw new CtxpkgError('E_INTERNAL', `the transparency log is missing its stored hash ${level}/${index}`);
  return new Uint8Array(r.hash as Buffer);
}

function secretOf(db: Db, namespace: string): Uint8Array {
  const r = prepared(db, 'SELECT secret FROM tlog_secrets WHERE namespace = ?').get(namespace) as Row | undefined;
  if (r) return new Uint8Array(r.secret as Buffer);
  const s = new Uint8Array(randomBytes(32));
  prepared(db, 'INSERT INTO tlog_secrets (namespace, secret) VALUES (?, ?)').run(namespace, Buffer.from(s));
  return s;
}

function write(db: Db, rows: LogEntryRow[], hashes: Array<{ level: number; index: number; hash: Uint8Array }>, size: number, root: Uint8Array, note: string): void {
  const ins = prepared(db, 'INSERT INTO tlog_entries (idx, entry, namespace, package, version, kind, clear, nonce, tree_size, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  for (const r of rows) ins.run(r.idx, Buffer.from(r.entry), r.namespace, r.package, r.version, r.kind, r.clear, r.nonce, r.tree_size, r.at);
  const h = prepared(db, 'INSERT INTO tlog_hashes (level, idx, hash) VALUES (?, ?, ?)');
  for (const x of hashes) h.run(x.level, x.index, Buffer.from(x.hash));
  prepared(db, 'UPDATE tlog_meta SET size = ? WHERE id = 1').run(size);
  prepared(db, 'INSERT INTO tlog_checkpoints (size, root, note) VALUES (?, ?, ?)').run(size, Buffer.from(root), note);
}

/**
 * Append `changes` to the log. Must run inside the caller's write transaction (the one that makes
 * the changes), so the change and its entries commit together or not at all. No-op for none.
 */
export function appendLogSqlite(db: Db, changes: readonly LogChange[], at: string): void {
  if (changes.length === 0) return;
  const m = meta(db);
  if (!m) throw new CtxpkgError('E_INTERNAL', 'the transparency log has not been created');
  const frontier = frontierNodes(m.size).map((n) => readNode(db, n.level, n.index));
  const plan = planAppend({ ...m, frontier }, changes, (ns) => secretOf(db, ns), at);
  write(db, plan.rows, plan.hashes, plan.size, plan.root, plan.note);
}

/**
 * Create the log when the database has none: a new key and origin, then — in the same
 * transaction — the current state (keys, versions, yank flags; spec/transparency.md §2).
 */
export function ensureLogSqlite(db: Db, at: string, env: Record<string, string | undefined> = process.env): void {
  if (meta(db)) return;
  db.transaction(() => {
    if (meta(db)) return;
    prepared(db, 'INSERT INTO tlog_meta (id, origin, seed, size, created_at) VALUES (1, ?, ?, 0, ?)').run(
      newLogOrigin(env, new Uint8Array(randomBytes(8))),
      randomBytes(32),
      at,
    );
    const keys = (prepared(db, 'SELECT namespace, public_key, added_at, revoked_at FROM signer_keys').all() as Row[]).map((r) => ({
      namespace: String(r.namespace), public_key: String(r.public_key), added_at: String(r.added_at), revoked_at: r.revoked_at === null ? null : String(r.revoked_at),
    }));
    const versions = (
      prepared(db, `SELECT p.namespace, p.name, p.visibility, v.version, v.artifact_sha256, v.signer_public_key, v.published_at, v.yanked
                    FROM versions v JOIN packages p ON p.id = v.package_id`).all() as Row[]
    ).map((r) => ({
      namespace: String(r.namespace), name: String(r.name), version: String(r.version), artifact_sha256: String(r.artifact_sha256),
      signer_public_key: String(r.signer_public_key), published_at: String(r.published_at), yanked: Number(r.yanked) === 1, private: r.visibility === 'private',
    }));
    const changes = backfillChanges({ keys, versions });
    if (changes.length > 0) appendLogSqlite(db, changes, at);
    else {
      // An empty log still has a signed checkpoint (size 0), so clients can pin it at once.
      const m = meta(db)!;
      const plan = planAppend({ ...m, frontier: [] }, [], () => new Uint8Array(32), at);
      prepared(db, 'INSERT INTO tlog_checkpoints (size, root, note) VALUES (0, ?, ?)').run(Buffer.from(plan.root), plan.note);
    }
  }).immediate();
}

function toEntry(r: Row): LogEntryRecord {
  return {
    index: Number(r.idx),
    entry: new Uint8Array(r.entry as Buffer),
    namespace: String(r.namespace),
    name: r.package === null ? null : String(r.package),
    version: r.version === null ? null : String(r.version),
    kind: String(r.kind),
    opening: r.clear === null ? null : { entry: String(r.clear), nonce: String(r.nonce) },
    tree_size: Number(r.tree_size),
    at: String(r.at),
  };
}

function toCheckpoint(r: Row | undefined): LogCheckpointRecord | null {
  return r ? { size: Number(r.size), root: new Uint8Array(r.root as Buffer), note: String(r.note) } : null;
}

/** `LogStore` over a SQLite connection (reads answer from the database on every call). */
export class SqliteLog implements LogStore {
  constructor(private readonly db: Db) {}

  private meta() {
    const m = meta(this.db);
    if (!m) throw new CtxpkgError('E_INTERNAL', 'the transparency log has not been created');
    return m;
  }

  async info(): Promise<{ origin: string; public_key: string; size: number }> {
    const m = this.meta();
    return { origin: m.origin, public_key: bytesToHex(ed25519PublicKey(m.seed)), size: m.size };
  }

  async signer(): Promise<{ origin: string; seed: Uint8Array }> {
    const m = this.meta();
    return { origin: m.origin, seed: m.seed };
  }

  async checkpoint(size?: number): Promise<LogCheckpointRecord | null> {
    return toCheckpoint(
      (size === undefined
        ? prepared(this.db, 'SELECT size, root, note FROM tlog_checkpoints ORDER BY size DESC LIMIT 1').get()
        : prepared(this.db, 'SELECT size, root, note FROM tlog_checkpoints WHERE size = ?').get(size)) as Row | undefined,
    );
  }

  async redate(size: number, note: string): Promise<void> {
    prepared(this.db, 'UPDATE tlog_checkpoints SET note = ? WHERE size = ?').run(note, size);
  }

  async nodes(list: ReadonlyArray<{ level: number; index: number }>): Promise<Uint8Array[]> {
    return list.map((n) => readNode(this.db, n.level, n.index));
  }

  async hashRange(level: number, start: number, count: number): Promise<Uint8Array[]> {
    const rows = prepared(this.db, 'SELECT hash FROM tlog_hashes WHERE level = ? AND idx >= ? AND idx < ? ORDER BY idx').all(level, start, start + count) as Row[];
    return rows.map((r) => new Uint8Array(r.hash as Buffer));
  }

  async entries(start: number, count: number): Promise<LogEntryRecord[]> {
    return (prepared(this.db, 'SELECT * FROM tlog_entries WHERE idx >= ? AND idx < ? ORDER BY idx').all(start, start + count) as Row[]).map(toEntry);
  }

  async packageEntries(namespace: string, name: string): Promise<LogEntryRecord[]> {
    return (
      prepared(this.db, 'SELECT * FROM tlog_entries WHERE namespace = ? AND (package = ? OR package IS NULL) ORDER BY idx').all(namespace, name) as Row[]
    ).map(toEntry);
  }

  async commitments(namespace: string, from: number, limit: number): Promise<LogEntryRecord[]> {
    return (
      prepared(this.db, 'SELECT * FROM tlog_entries WHERE namespace = ? AND clear IS NOT NULL AND idx >= ? ORDER BY idx LIMIT ?').all(namespace, from, limit) as Row[]
    ).map(toEntry);
  }

  async addCosignature(size: number, key: string, line: string): Promise<void> {
    prepared(this.db, 'INSERT INTO tlog_cosignatures (size, key, line) VALUES (?, ?, ?) ON CONFLICT (size, key) DO UPDATE SET line = excluded.line').run(size, key, line);
  }

  async cosignatures(size: number): Promise<string[]> {
    return (prepared(this.db, 'SELECT line FROM tlog_cosignatures WHERE size = ? ORDER BY key').all(size) as Row[]).map((r) => String(r.line));
  }

  async secret(namespace: string): Promise<Uint8Array | null> {
    const r = prepared(this.db, 'SELECT secret FROM tlog_secrets WHERE namespace = ?').get(namespace) as Row | undefined;
    return r ? new Uint8Array(r.secret as Buffer) : null;
  }
}
