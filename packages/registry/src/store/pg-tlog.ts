/**
 * The transparency log in the PostgreSQL store (spec/transparency.md §2–§4): the same tables and
 * rules as sqlite-tlog.ts. Appends are serialised across nodes by a row lock on `tlog_meta`,
 * which every transaction that logs takes **first** (`lockLogPg`), so the lock order is the same
 * everywhere and the log's sequence is one total order.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { CtxpkgError, bytesToHex, ed25519PublicKey, frontierNodes } from '@ctxpkg/format';
import { backfillChanges, newLogOrigin, planAppend, type LogChange } from '../tlog/plan.js';
import type { LogCheckpointRecord, LogEntryRecord, LogStore } from './types.js';

type Q = Pick<pg.PoolClient, 'query'>;
type Row = Record<string, unknown>;

/** Migration 2 of the PostgreSQL schema: the transparency log tables. */
export const TLOG_MIGRATION = `
  CREATE TABLE tlog_meta (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    origin     TEXT NOT NULL,
    seed       BYTEA NOT NULL CHECK (length(seed) = 32),
    size       BIGINT NOT NULL CHECK (size >= 0),
    created_at TEXT NOT NULL
  );
  CREATE TABLE tlog_entries (
    idx       BIGINT PRIMARY KEY,
    entry     BYTEA NOT NULL,
    namespace TEXT COLLATE "C" NOT NULL,
    package   TEXT COLLATE "C",
    version   TEXT COLLATE "C",
    kind      TEXT NOT NULL,
    clear     TEXT,
    nonce     TEXT,
    tree_size BIGINT NOT NULL,
    at        TEXT NOT NULL
  );
  CREATE INDEX tlog_entries_by_package ON tlog_entries(namespace, package, idx);
  CREATE TABLE tlog_hashes (
    level INTEGER NOT NULL,
    idx   BIGINT NOT NULL,
    hash  BYTEA NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (level, idx)
  );
  CREATE TABLE tlog_checkpoints (
    size BIGINT PRIMARY KEY,
    root BYTEA NOT NULL CHECK (length(root) = 32),
    note TEXT NOT NULL
  );
  CREATE TABLE tlog_cosignatures (
    size BIGINT NOT NULL,
    key  TEXT NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (size, key)
  );
  CREATE TABLE tlog_secrets (
    namespace TEXT COLLATE "C" PRIMARY KEY,
    secret    BYTEA NOT NULL CHECK (length(secret) = 32)
  );
`;

const buf = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** Take the log's lock (first statement of every transaction that may log). */
export async function lockLogPg(c: Q): Promise<void> {
  await c.query('SELECT size FROM tlog_meta WHERE id = 1 FOR UPDATE');
}

async function meta(c: Q): Promise<{ origin: string; seed: Uint8Array; size: number } | undefined> {
  const r = (await c.query('SELECT origin, seed, size FROM tlog_meta WHERE id = 1')).rows[0] as Row | undefined;
  return r ? { origin: String(r.origin), seed: new Uint8Array(r.seed as Buffer), size: Number(r.size) } : undefined;
}

async function readNodes(c: Q, list: ReadonlyArray<{ level: number; index: number }>): Promise<Uint8Array[]> {
  if (list.length === 0) return [];
  const r = await c.query('SELECT level, idx, hash FROM tlog_hashes WHERE (level, idx) IN (SELECT * FROM unnest($1::int[], $2::bigint[]))', [
    list.map((n) => n.level),
    list.map((n) => n.index),
  ]);
  const got = new Map((r.rows as Row[]).map((x) => [`${Number(x.level)}/${Number(x.idx)}`, new Uint8Array(x.hash as Buffer)]));
  return list.map((n) => {
    const h = got.get(`${n.level}/${n.index}`);
    if (!h) throw new CtxpkgError('E_INTERNAL', `the transparency log is missing its stored hash ${n.level}/${n.index}`);
    return h;
  });
}

/**
 * Append `changes` inside the caller's transaction, which must have called `lockLogPg` first.
 * No-op for none.
 */
export async function appendLogPg(c: Q, changes: readonly LogChange[], at: string): Promise<void> {
  if (changes.length === 0) return;
  const m = await meta(c);
  if (!m) throw new CtxpkgError('E_INTERNAL', 'the transparency log has not been created');
  const frontier = await readNodes(c, frontierNodes(m.size));
  const secrets = new Map<string, Uint8Array>();
  for (const ch of changes) {
    if (!ch.private) continue;
    const ns = 'namespace' in ch.statement ? ch.statement.namespace.slice(1) : ch.statement.package.slice(1, ch.statement.package.indexOf('/'));
    if (secrets.has(ns)) continue;
    await c.query('INSERT INTO tlog_secrets (namespace, secret) VALUES ($1, $2) ON CONFLICT (namespace) DO NOTHING', [ns, randomBytes(32)]);
    const r = (await c.query('SELECT secret FROM tlog_secrets WHERE namespace = $1', [ns])).rows[0] as Row;
    secrets.set(ns, new Uint8Array(r.secret as Buffer));
  }
  const plan = planAppend({ ...m, frontier }, changes, (ns) => secrets.get(ns) as Uint8Array, at);
  const rows = plan.rows;
  await c.query(
    `INSERT INTO tlog_entries (idx, entry, namespace, package, version, kind, clear, nonce, tree_size, at)
     SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::text[])`,
    [
      rows.map((r) => r.idx), rows.map((r) => buf(r.entry)), rows.map((r) => r.namespace), rows.map((r) => r.package), rows.map((r) => r.version),
      rows.map((r) => r.kind), rows.map((r) => r.clear), rows.map((r) => r.nonce), rows.map((r) => r.tree_size), rows.map((r) => r.at),
    ],
  );
  await c.query('INSERT INTO tlog_hashes (level, idx, hash) SELECT * FROM unnest($1::int[], $2::bigint[], $3::bytea[])', [
    plan.hashes.map((h) => h.level), plan.hashes.map((h) => h.index), plan.hashes.map((h) => buf(h.hash)),
  ]);
  await c.query('UPDATE tlog_meta SET size = $1 WHERE id = 1', [plan.size]);
  await c.query('INSERT INTO tlog_checkpoints (size, root, note) VALUES ($1, $2, $3)', [plan.size, buf(plan.root), plan.note]);
}

/**
 * Create the log when the database has none (several nodes starting at once create it once): a
 * new key and origin, then the current state, in one transaction.
 */
export async function ensureLogPg(pool: pg.Pool, at: string, env: Record<string, string | undefined> = process.env): Promise<void> {
  if (await meta(pool)) return;
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const ins = await c.query('INSERT INTO tlog_meta (id, origin, seed, size, created_at) VALUES (1, $1, $2, 0, $3) ON CONFLICT (id) DO NOTHING RETURNING id', [
      newLogOrigin(env, new Uint8Array(randomBytes(8))),
      randomBytes(32),
      at,
    ]);
    if (ins.rowCount === 1) {
      const keys = (await c.query('SELECT namespace, public_key, added_at, revoked_at FROM signer_keys')).rows.map((r: Row) => ({
        namespace: String(r.namespace), public_key: String(r.public_key), added_at: String(r.added_at), revoked_at: r.revoked_at === null ? null : String(r.revoked_at),
      }));
      const versions = (
        await c.query(`SELECT p.namespace, p.name, p.visibility, v.version, v.artifact_sha256, v.signer_public_key, v.published_at, v.yanked
                       FROM versions v JOIN packages p ON p.id = v.package_id`)
      ).rows.map((r: Row) => ({
        namespace: String(r.namespace), name: String(r.name), version: String(r.version), artifact_sha256: String(r.artifact_sha256),
        signer_public_key: String(r.signer_public_key), published_at: String(r.published_at), yanked: r.yanked === true, private: r.visibility === 'private',
      }));
      const changes = backfillChanges({ keys, versions });
      if (changes.length > 0) await appendLogPg(c, changes, at);
      else {
        const m = (await meta(c))!;
        const plan = planAppend({ ...m, frontier: [] }, [], () => new Uint8Array(32), at);
        await c.query('INSERT INTO tlog_checkpoints (size, root, note) VALUES (0, $1, $2)', [buf(plan.root), plan.note]);
      }
    }
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    c.release();
  }
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

/** `LogStore` over a PostgreSQL pool (every read goes to the database). */
export class PgLog implements LogStore {
  private cachedSigner: { origin: string; seed: Uint8Array } | undefined;

  constructor(private readonly pool: pg.Pool) {}

  private async rows(sql: string, params: unknown[] = []): Promise<Row[]> {
    return (await this.pool.query(sql, params)).rows as Row[];
  }

  async signer(): Promise<{ origin: string; seed: Uint8Array }> {
    if (!this.cachedSigner) {
      const m = await meta(this.pool);
      if (!m) throw new CtxpkgError('E_INTERNAL', 'the transparency log has not been created');
      this.cachedSigner = { origin: m.origin, seed: m.seed };
    }
    return this.cachedSigner;
  }

  async info(): Promise<{ origin: string; public_key: string; size: number }> {
    const s = await this.signer();
    const [r] = await this.rows('SELECT size FROM tlog_meta WHERE id = 1');
    return { origin: s.origin, public_key: bytesToHex(ed25519PublicKey(s.seed)), size: Number(r?.size ?? 0) };
  }

  async checkpoint(size?: number): Promise<LogCheckpointRecord | null> {
    const [r] =
      size === undefined
        ? await this.rows('SELECT size, root, note FROM tlog_checkpoints ORDER BY size DESC LIMIT 1')
        : await this.rows('SELECT size, root, note FROM tlog_checkpoints WHERE size = $1', [size]);
    return r ? { size: Number(r.size), root: new Uint8Array(r.root as Buffer), note: String(r.note) } : null;
  }

  async redate(size: number, note: string): Promise<void> {
    await this.pool.query('UPDATE tlog_checkpoints SET note = $2 WHERE size = $1', [size, note]);
  }

  async nodes(list: ReadonlyArray<{ level: number; index: number }>): Promise<Uint8Array[]> {
    return readNodes(this.pool, list);
  }

  async hashRange(level: number, start: number, count: number): Promise<Uint8Array[]> {
    return (await this.rows('SELECT hash FROM tlog_hashes WHERE level = $1 AND idx >= $2 AND idx < $3 ORDER BY idx', [level, start, start + count])).map(
      (r) => new Uint8Array(r.hash as Buffer),
    );
  }

  async entries(start: number, count: number): Promise<LogEntryRecord[]> {
    return (await this.rows('SELECT * FROM tlog_entries WHERE idx >= $1 AND idx < $2 ORDER BY idx', [start, start + count])).map(toEntry);
  }

  async packageEntries(namespace: string, name: string): Promise<LogEntryRecord[]> {
    return (await this.rows('SELECT * FROM tlog_entries WHERE namespace = $1 AND (package = $2 OR package IS NULL) ORDER BY idx', [namespace, name])).map(toEntry);
  }

  async commitments(namespace: string, from: number, limit: number): Promise<LogEntryRecord[]> {
    return (await this.rows('SELECT * FROM tlog_entries WHERE namespace = $1 AND clear IS NOT NULL AND idx >= $2 ORDER BY idx LIMIT $3', [namespace, from, limit])).map(toEntry);
  }

  async addCosignature(size: number, key: string, line: string): Promise<void> {
    await this.pool.query('INSERT INTO tlog_cosignatures (size, key, line) VALUES ($1, $2, $3) ON CONFLICT (size, key) DO UPDATE SET line = EXCLUDED.line', [size, key, line]);
  }

  async cosignatures(size: number): Promise<string[]> {
    return (await this.rows('SELECT line FROM tlog_cosignatures WHERE size = $1 ORDER BY key', [size])).map((r) => String(r.line));
  }

  async secret(namespace: string): Promise<Uint8Array | null> {
    const [r] = await this.rows('SELECT secret FROM tlog_secrets WHERE namespace = $1', [namespace]);
    return r ? new Uint8Array(r.secret as Buffer) : null;
  }
}
