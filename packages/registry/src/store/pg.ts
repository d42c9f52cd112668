/**
 * The scale-out store: PostgreSQL for metadata *and* blobs (spec/registry.md §13 "PostgreSQL").
 *
 * - Driver: node-postgres (`pg`), one pool per store. Schema by versioned migrations (pg-schema.ts).
 * - Blobs are rows of `blobs` keyed by SHA-256 (deduplicated: one row per distinct content),
 *   written in their own committed statement *before* the publish transaction that references
 *   them; foreign keys make a version row pointing at a missing blob impossible.
 * - Several server processes ("nodes") may serve one database. Nothing that decides an answer is
 *   cached in a node: package rows, tokens and signer keys are read from the database on every
 *   request, so a change committed through any node (or the admin CLI) is seen by the next request
 *   to every node. Serialised index documents are cached per node, validated by the package's
 *   `revision`, which every change increments in its own transaction (context.ts `IndexCache`).
 * - Blob pins are rows, not process memory: `putBlob` increments `blobs.pins`, `releaseBlob`
 *   decrements it and deletes the blob only when no pin and no row references it. A node killed
 *   between the two leaves a pin that `collectGarbage` ignores once it is older than the grace period.
 * - A publish is one transaction: the namespace row is locked while the first signer key is
 *   recorded and the package row is locked `FOR UPDATE`, so publishes of one package are
 *   serialised across nodes; the unique constraints decide every race anyway.
 */
import pg from 'pg';
import { CtxpkgError } from '@ctxpkg/format';
import { BlobCache, sha256OfBytes } from './blobs.js';
import { migrate } from './pg-schema.js';
import { pgDependents, pgNamespaceSummaries, pgRecentPublishes } from './pg-pages.js';
import type { SnapshotItem } from './snapshot.js';
import { pgRestore, pgSnapshot } from './pg-snapshot.js';
import { pgCatalog, pgRefreshPackage, pgSearch } from './pg-search.js';
import { appendLogPg, ensureLogPg, lockLogPg, PgLog } from './pg-tlog.js';
import type { LogChange } from '../tlog/plan.js';
import { toEvent, toNamespace, toPackage, toSignerKey, toToken, toVersion, toVisibility, visibilityConflict, type Row } from './rows.js';
import type {
  AuditEvent,
  CatalogEntry,
  DependentRecord,
  NamespaceRecord,
  NamespaceSummary,
  PackageRecord,
  PublicBlobRecord,
  PublishOutcome,
  PublishRecord,
  RecentPublish,
  RegistryStore,
  SearchHit,
  SignerKeyRecord,
  StoreHealth,
  TokenRecord,
  VersionRecord,
  Visibility,
  VisibilityFilter,
} from './types.js';

export interface PgStoreOptions {
  /** `postgres://user@host:port/database[?options=-c%20search_path%3Dschema]` */
  url: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** Bytes of verified blobs cached in memory (default 64 MiB; blobs are immutable). */
  blobCacheBytes?: number;
  /** How long to wait for a connection in ms (default 10 000). */
  connectTimeoutMs?: number;
}

/** Columns selected for a version (aliases `v`, `p`), with `yanked` as 0/1 like SQLite. */
const VERSION_COLUMNS = `p.namespace AS namespace, p.name AS name, v.version, v.precedence_key,
  v.artifact_sha256, v.size_bytes, v.integrity_sha256, v.signer_public_key, v.description, v.tags_json,
  v.dependencies_json, v.yanked::int AS yanked, v.yanked_at, v.published_at, v.published_by, v.trust_report_json`;

const UNIQUE_VIOLATION = '23505';

/** A connection URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the database URL';
  }
}

/** SQLSTATE of "database … does not exist" (invalid_catalog_name). */
const NO_SUCH_DATABASE = '3D000';

/**
 * The `createdb` command that creates the database a URL names (host, port and user from the URL,
 * PostgreSQL's defaults otherwise), for the hint of a missing database.
 */
export function createdbCommand(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'createdb <database>';
  }
  const db = decodeURIComponent(u.pathname.replace(/^\//, '')) || decodeURIComponent(u.username) || '<database>';
  const parts = ['createdb'];
  if (u.hostname) parts.push('-h', u.hostname.replace(/^\[|\]$/g, ''));
  if (u.port) parts.push('-p', u.port);
  if (u.username) parts.push('-O', decodeURIComponent(u.username));
  parts.push(db);
  return parts.map((p) => (/^[A-Za-z0-9_.:\/-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * Turn a driver connection failure into an environment error naming the database. A database
 * that does not exist gets the `createdb` command that creates it (run as a PostgreSQL superuser).
 */
export function connectionError(url: string, err: unknown): CtxpkgError {
  const msg = (err as Error).message || String((err as { code?: unknown }).code ?? err);
  if ((err as { code?: unknown }).code === NO_SUCH_DATABASE) {
    return new CtxpkgError('E_ENVIRONMENT', `cannot use the PostgreSQL database ${redactUrl(url)}: ${msg}`, {
      hint: `create it once, as a PostgreSQL superuser: \`${createdbCommand(url)}\` (the registry creates its tables itself on first start), or check the database name in --db`,
      cause: err,
    });
  }
  return new CtxpkgError('E_ENVIRONMENT', `cannot reach the PostgreSQL database ${redactUrl(url)}: ${msg}`, {
    hint: 'check that PostgreSQL runs and accepts this user (e.g. `pg_isready -h HOST -p PORT`), and the --db URL',
    cause: err,
  });
}

/**
 * Connect, migrate and return the store. Throws `E_ENVIRONMENT` when the database cannot be
 * reached or when its schema is newer than this code.
 */
export async function openPgStore(opts: PgStoreOptions): Promise<PgStore> {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolSize ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client's error (the server restarted) must not crash the process; the pool drops it.
  pool.on('error', () => undefined);
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw connectionError(opts.url, err);
  }
  try {
    await migrate(client);
  } catch (err) {
    client.release();
    await pool.end().catch(() => undefined);
    throw err;
  }
  client.release();
  try {
    await ensureLogPg(pool, new Date().toISOString().replace(/\.000Z$/, 'Z'));
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  return new PgStore(pool, opts);
}

type Q = Pick<pg.PoolClient, 'query'>;

export class PgStore implements RegistryStore {
  readonly backend = 'postgres';
  /** Verified bytes of blobs already read (immutable, so never stale). */
  private readonly cache: BlobCache;
  private closed = false;
  readonly log: PgLog;

  constructor(readonly pool: pg.Pool, readonly opts: PgStoreOptions) {
    this.cache = new BlobCache(opts.blobCacheBytes);
    this.log = new PgLog(pool);
  }

  private async q(sql: string, params: unknown[] = []): Promise<Row[]> {
    return (await this.pool.query(sql, params)).rows as Row[];
  }

  /** Run `fn` in one transaction (READ COMMITTED, row locks where needed). */
  async tx<T>(fn: (c: Q) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }

  async health(): Promise<StoreHealth> {
    try {
      const [r] = await this.q("SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') AS ro");
      if (r?.standby === true) return { reachable: true, writable: false, detail: 'database: a standby (read-only replica)' };
      if (r?.ro === 'on') return { reachable: true, writable: false, detail: 'database: transactions are read-only' };
      return { reachable: true, writable: true };
    } catch (err) {
      return { reachable: false, writable: false, detail: `database: ${(err as Error).message}` };
    }
  }

  async createNamespace(ns: NamespaceRecord): Promise<NamespaceRecord> {
    try {
      await this.q('INSERT INTO namespaces (name, owner, created_at) VALUES ($1, $2, $3)', [ns.name, ns.owner, ns.created_at]);
    } catch (err) {
      if (isUnique(err)) throw new CtxpkgError('E_EXISTS', `namespace ${ns.name} already exists`);
      throw err;
    }
    return ns;
  }

  async getNamespace(name: string): Promise<NamespaceRecord | null> {
    const [r] = await this.q('SELECT * FROM namespaces WHERE name = $1', [name]);
    return r ? toNamespace(r) : null;
  }

  async listNamespaces(): Promise<NamespaceRecord[]> {
    return (await this.q('SELECT * FROM namespaces ORDER BY name')).map(toNamespace);
  }

  private async requireNamespace(c: Q, name: string): Promise<void> {
    const r = await c.query('SELECT 1 FROM namespaces WHERE name = $1', [name]);
    if (r.rowCount === 0) throw new CtxpkgError('E_NOT_FOUND', `namespace ${name} does not exist`);
  }

  async insertToken(t: TokenRecord): Promise<void> {
    if (t.namespace !== null) await this.requireNamespace(this.pool, t.namespace);
    await this.q(
      `INSERT INTO tokens (id, token_sha256, namespace, scope, label, created_at, expires_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [t.id, t.token_sha256, t.namespace, t.scope, t.label, t.created_at, t.expires_at, t.revoked_at],
    );
  }

  async findTokenByHash(tokenSha256: string): Promise<TokenRecord | null> {
    const [r] = await this.q('SELECT * FROM tokens WHERE token_sha256 = $1', [tokenSha256]);
    return r ? toToken(r) : null;
  }

  async revokeToken(idOrHash: string, at: string): Promise<TokenRecord> {
    const [r] = await this.q(
      `UPDATE tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 OR token_sha256 = $1 RETURNING *`,
      [idOrHash, at],
    );
    if (!r) throw new CtxpkgError('E_NOT_FOUND', `no token ${idOrHash}`, { hint: 'list tokens with `ctxpkg registry token list`' });
    return toToken(r);
  }

  async listTokens(namespace?: string): Promise<TokenRecord[]> {
    const rows = namespace
      ? await this.q('SELECT * FROM tokens WHERE namespace = $1 ORDER BY created_at, id', [namespace])
      : await this.q('SELECT * FROM tokens ORDER BY namespace IS NOT NULL, namespace, created_at, id');
    return rows.map(toToken);
  }

  /** Register a key; a key that was not active is logged (`key-add`) in the same transaction. */
  async addSignerKey(namespace: string, publicKey: string, at: string, addedBy: 'admin' | 'owner' = 'admin'): Promise<SignerKeyRecord> {
    return this.keyChange(namespace, publicKey, at, 'key-add', async (c) => {
      await this.requireNamespace(c, namespace);
      const r = await c.query(
        `INSERT INTO signer_keys (namespace, public_key, added_at, added_by, revoked_at) VALUES ($1, $2, $3, $4, NULL)
         ON CONFLICT (namespace, public_key) DO UPDATE SET revoked_at = NULL RETURNING *`,
        [namespace, publicKey, at, addedBy],
      );
      return toSignerKey(r.rows[0] as Row);
    });
  }

  /** Revoke a key; an active key's revocation is logged (`key-revoke`) in the same transaction. */
  async revokeSignerKey(namespace: string, publicKey: string, at: string): Promise<SignerKeyRecord> {
    return this.keyChange(namespace, publicKey, at, 'key-revoke', async (c) => {
      const r = await c.query(
        'UPDATE signer_keys SET revoked_at = COALESCE(revoked_at, $3) WHERE namespace = $1 AND public_key = $2 RETURNING *',
        [namespace, publicKey, at],
      );
      if (r.rowCount === 0) throw new CtxpkgError('E_NOT_FOUND', `key ${publicKey} is not registered for namespace ${namespace}`);
      return toSignerKey(r.rows[0] as Row);
    });
  }

  /**
   * A key change and its log entry in one transaction (the log lock first). The namespace's index
   * documents list its logged keys, so every package of the namespace gets a new revision.
   */
  private keyChange(namespace: string, publicKey: string, at: string, kind: 'key-add' | 'key-revoke', change: (c: Q) => Promise<SignerKeyRecord>): Promise<SignerKeyRecord> {
    return this.tx(async (c) => {
      await lockLogPg(c);
      const before = (await c.query('SELECT revoked_at FROM signer_keys WHERE namespace = $1 AND public_key = $2', [namespace, publicKey])).rows[0] as Row | undefined;
      const rec = await change(c);
      const wasActive = before !== undefined && before.revoked_at === null;
      if (wasActive !== (kind === 'key-add')) {
        await appendLogPg(c, [{ statement: { kind, namespace: `@${namespace}`, key: publicKey }, private: false }], at);
        await c.query('UPDATE packages SET revision = revision + 1 WHERE namespace = $1', [namespace]);
      }
      return rec;
    });
  }

  async listSignerKeys(namespace: string): Promise<SignerKeyRecord[]> {
    return (await this.q('SELECT * FROM signer_keys WHERE namespace = $1 ORDER BY added_at, public_key', [namespace])).map(toSignerKey);
  }

  /** Read on every call (no node-local cache), so every node sees every commit at once. */
  async getPackage(namespace: string, name: string): Promise<PackageRecord | null> {
    const [r] = await this.q('SELECT * FROM packages WHERE namespace = $1 AND name = $2', [namespace, name]);
    return r ? toPackage(r) : null;
  }

  async setPackageVisibility(namespace: string, name: string, visibility: Visibility, at: string, actor: string): Promise<PackageRecord> {
    return this.tx(async (c) => {
      await lockLogPg(c);
      const before = (await c.query('SELECT visibility FROM packages WHERE namespace = $1 AND name = $2', [namespace, name])).rows[0] as Row | undefined;
      const r = await c.query(
        'UPDATE packages SET visibility = $1, updated_at = $2, revision = revision + 1 WHERE namespace = $3 AND name = $4 RETURNING *',
        [visibility, at, namespace, name],
      );
      if (r.rowCount === 0) throw new CtxpkgError('E_NOT_FOUND', `package @${namespace}/${name} does not exist`);
      await insertEvent(c, { at, action: `visibility:${visibility}`, namespace, name, version: null, actor, detail: null });
      if (before?.visibility !== visibility) {
        await appendLogPg(c, [{ statement: { kind: 'visibility', package: `@${namespace}/${name}`, visibility }, private: visibility === 'private' }], at);
      }
      return toPackage(r.rows[0] as Row);
    });
  }

  async listVersions(namespace: string, name: string): Promise<VersionRecord[]> {
    const rows = await this.q(
      `SELECT ${VERSION_COLUMNS} FROM versions v JOIN packages p ON p.id = v.package_id WHERE p.namespace = $1 AND p.name = $2`,
      [namespace, name],
    );
    return rows.map(toVersion);
  }

  async getVersion(namespace: string, name: string, version: string): Promise<VersionRecord | null> {
    const [r] = await this.q(
      `SELECT ${VERSION_COLUMNS} FROM versions v JOIN packages p ON p.id = v.package_id
       WHERE p.namespace = $1 AND p.name = $2 AND v.version = $3`,
      [namespace, name, version],
    );
    return r ? toVersion(r) : null;
  }

  async findEqualPrecedence(namespace: string, name: string, precedenceKey: string): Promise<VersionRecord | null> {
    const [r] = await this.q(
      `SELECT ${VERSION_COLUMNS} FROM versions v JOIN packages p ON p.id = v.package_id
       WHERE p.namespace = $1 AND p.name = $2 AND v.precedence_key = $3`,
      [namespace, name, precedenceKey],
    );
    return r ? toVersion(r) : null;
  }

  /**
   * Store the bytes (one row per distinct SHA-256) and take a pin on them in the same statement.
   * `durable` is accepted for the interface: every committed row is durable. `replace` rewrites
   * the bytes of an existing row (the repair of a damaged package blob).
   */
  async putBlob(bytes: Uint8Array, opts: { durable?: boolean; replace?: boolean } = {}): Promise<{ sha256: string; size: number }> {
    const sha = sha256OfBytes(bytes);
    const now = Date.now();
    await this.q(
      `INSERT INTO blobs (sha256, size_bytes, bytes, created_ms, pins, pinned_ms) VALUES ($1, $2, $3, $4, 1, $4)
       ON CONFLICT (sha256) DO UPDATE SET pins = blobs.pins + 1, pinned_ms = $4${opts.replace ? ', bytes = EXCLUDED.bytes' : ''}`,
      [sha, bytes.byteLength, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), now],
    );
    if (opts.replace) this.cache.forget(sha);
    return { sha256: sha, size: bytes.byteLength };
  }

  async releaseBlob(sha256: string): Promise<void> {
    const [r] = await this.q('UPDATE blobs SET pins = greatest(pins - 1, 0) WHERE sha256 = $1 RETURNING pins', [sha256]);
    if (!r || Number(r.pins) > 0) return;
    // Another node's putBlob between the two statements sets pins again, so the row stays.
    await this.q(
      `DELETE FROM blobs WHERE sha256 = $1 AND pins = 0
          AND NOT EXISTS (SELECT 1 FROM versions WHERE artifact_sha256 = $1)
          AND NOT EXISTS (SELECT 1 FROM version_blobs WHERE blob_sha256 = $1)`,
      [sha256],
    ).catch((err: unknown) => {
      // A version committed by another node references it now: it stays (the foreign key said so).
      if ((err as { code?: string }).code !== '23503') throw err;
    });
    this.cache.forget(sha256);
  }

  async readBlob(sha256: string): Promise<Uint8Array | null> {
    const hit = this.cache.get(sha256);
    if (hit) return hit;
    const [r] = await this.q('SELECT bytes FROM blobs WHERE sha256 = $1', [sha256]);
    if (!r) return null;
    const bytes = r.bytes as Buffer;
    const found = sha256OfBytes(bytes);
    if (found !== sha256) {
      throw new CtxpkgError('E_INTEGRITY', `stored blob ${sha256} is corrupt (its bytes hash to ${found})`, { details: { expected: sha256, found } });
    }
    this.cache.remember(sha256, bytes);
    return bytes;
  }

  async findPublicBlob(sha256: string): Promise<PublicBlobRecord | null> {
    const [r] = await this.q(
      `SELECT vb.blob_sha256 AS sha256, vb.size_bytes AS size_bytes, v.artifact_sha256 AS artifact_sha256
         FROM version_blobs vb
         JOIN packages p ON p.id = vb.package_id
         JOIN versions v ON v.package_id = vb.package_id AND v.version = vb.version
        WHERE vb.blob_sha256 = $1 AND p.visibility = 'public'
        ORDER BY p.namespace, p.name, v.version
        LIMIT 1`,
      [sha256],
    );
    return r ? { sha256: String(r.sha256), size_bytes: Number(r.size_bytes), artifact_sha256: String(r.artifact_sha256) } : null;
  }

  /** Every stored blob's hash and size in bytes, by hash (for `verify`, backups and tests). */
  async listBlobs(): Promise<Array<{ sha256: string; size_bytes: number }>> {
    return (await this.q('SELECT sha256, size_bytes FROM blobs ORDER BY sha256')).map((r) => ({ sha256: String(r.sha256), size_bytes: Number(r.size_bytes) }));
  }

  async commitPublish(rec: PublishRecord): Promise<PublishOutcome> {
    const full = `@${rec.namespace}/${rec.name}`;
    let visibility: Visibility = 'private';
    const signer = await this.tx(async (c) => {
      await lockLogPg(c);
      const ns = await c.query('SELECT 1 FROM namespaces WHERE name = $1', [rec.namespace]);
      if (ns.rowCount === 0) throw new CtxpkgError('E_NOT_FOUND', `namespace ${rec.namespace} does not exist`);
      const signer = await checkSigner(c, rec.namespace, rec.signer_public_key, rec.published_at, rec.published_by);
      await c.query(
        `INSERT INTO packages (namespace, name, visibility, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
         ON CONFLICT (namespace, name) DO NOTHING`,
        [rec.namespace, rec.name, rec.visibility ?? 'private', rec.published_at],
      );
      const pkg = (await c.query('SELECT * FROM packages WHERE namespace = $1 AND name = $2 FOR UPDATE', [rec.namespace, rec.name])).rows[0] as Row;
      const existing = (await c.query('SELECT version, yanked FROM versions WHERE package_id = $1 AND (version = $2 OR precedence_key = $3)', [
        pkg.id, rec.version, rec.precedence_key,
      ])).rows[0] as Row | undefined;
      if (existing) throw versionExists(full, rec.version, String(existing.version), existing.yanked === true);
      if (rec.visibility !== null && pkg.visibility !== rec.visibility) throw visibilityConflict(full, String(pkg.visibility), rec.visibility);
      visibility = toVisibility(pkg.visibility);
      try {
        await c.query(
          `INSERT INTO versions (package_id, version, precedence_key, artifact_sha256, size_bytes, integrity_sha256,
             signer_public_key, description, tags_json, dependencies_json, search_text, trust_report_json, yanked,
             yanked_at, published_at, published_by)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, FALSE, NULL, $13, $14)`,
          [
            pkg.id, rec.version, rec.precedence_key, rec.artifact_sha256, rec.size_bytes, rec.integrity_sha256,
            rec.signer_public_key, rec.description, JSON.stringify(rec.tags), JSON.stringify(rec.dependencies),
            rec.search_text, JSON.stringify(rec.trust_report(signer)), rec.published_at, rec.published_by,
          ],
        );
      } catch (err) {
        // The constraint is the real guard; the SELECT above only gives the nicer message.
        if (isUnique(err)) throw versionExists(full, rec.version, rec.version, false);
        throw err;
      }
      for (const b of rec.blobs ?? []) {
        await c.query(
          'INSERT INTO version_blobs (package_id, version, blob_sha256, size_bytes) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
          [pkg.id, rec.version, b.sha256, b.size_bytes],
        );
      }
      await pgRefreshPackage(c, Number(pkg.id), rec.published_at);
      await insertEvent(c, {
        at: rec.published_at, action: 'publish', namespace: rec.namespace, name: rec.name, version: rec.version,
        actor: rec.published_by, detail: rec.artifact_sha256,
      });
      const changes: LogChange[] = [];
      if (signer === 'first-publish') changes.push({ statement: { kind: 'key-add', namespace: `@${rec.namespace}`, key: rec.signer_public_key }, private: false });
      changes.push({
        statement: { kind: 'publish', package: full, version: rec.version, artifact_sha256: rec.artifact_sha256, signer: rec.signer_public_key },
        private: visibility === 'private',
      });
      await appendLogPg(c, changes, rec.published_at);
      return signer;
    });
    const version = (await this.getVersion(rec.namespace, rec.name, rec.version)) as VersionRecord;
    return { version, signer, visibility };
  }

  async setYanked(namespace: string, name: string, version: string, yanked: boolean, at: string, actor: string): Promise<VersionRecord> {
    await this.tx(async (c) => {
      await lockLogPg(c);
      const pkg = (await c.query('SELECT id, visibility FROM packages WHERE namespace = $1 AND name = $2 FOR UPDATE', [namespace, name])).rows[0] as Row | undefined;
      const row = pkg
        ? ((await c.query('SELECT yanked FROM versions WHERE package_id = $1 AND version = $2', [pkg.id, version])).rows[0] as Row | undefined)
        : undefined;
      if (!pkg || !row) throw new CtxpkgError('E_NOT_FOUND', `@${namespace}/${name}@${version} does not exist`);
      if (row.yanked === yanked) return;
      await c.query('UPDATE versions SET yanked = $1, yanked_at = $2 WHERE package_id = $3 AND version = $4', [yanked, yanked ? at : null, pkg.id, version]);
      await pgRefreshPackage(c, Number(pkg.id), at);
      await insertEvent(c, { at, action: yanked ? 'yank' : 'unyank', namespace, name, version, actor, detail: null });
      await appendLogPg(c, [{ statement: { kind: yanked ? 'yank' : 'unyank', package: `@${namespace}/${name}`, version }, private: pkg.visibility === 'private' }], at);
    });
    return (await this.getVersion(namespace, name, version)) as VersionRecord;
  }

  async catalog(filter: VisibilityFilter, opts: { limit: number; after?: string }): Promise<CatalogEntry[]> {
    return pgCatalog(this.pool, filter, opts.limit, opts.after);
  }

  async search(filter: VisibilityFilter, query: string, opts: { limit: number }): Promise<SearchHit[]> {
    return pgSearch(this.pool, filter, query, opts.limit);
  }

  async recentPublishes(filter: VisibilityFilter, opts: { limit: number }): Promise<RecentPublish[]> {
    return pgRecentPublishes(this.pool, filter, opts.limit);
  }

  async namespaceSummaries(filter: VisibilityFilter): Promise<NamespaceSummary[]> {
    return pgNamespaceSummaries(this.pool, filter);
  }

  async dependents(filter: VisibilityFilter, full: string, opts: { limit: number }): Promise<DependentRecord[]> {
    return pgDependents(this.pool, filter, full, opts.limit);
  }

  async auditEvents(opts: { namespace?: string; limit: number }): Promise<AuditEvent[]> {
    const rows = opts.namespace
      ? await this.q('SELECT * FROM events WHERE namespace = $1 ORDER BY id DESC LIMIT $2', [opts.namespace, opts.limit])
      : await this.q('SELECT * FROM events ORDER BY id DESC LIMIT $1', [opts.limit]);
    return rows.map(toEvent);
  }

  async recordEvent(ev: AuditEvent): Promise<void> {
    await insertEvent(this.pool, ev);
  }

  /**
   * Delete blobs that no version references, stored more than `graceMs` ago and not pinned by a
   * publish in flight (a pin older than the grace period belongs to a node that died).
   */
  async collectGarbage(opts: { graceMs: number; now: number }): Promise<{ removed: number }> {
    const cutoff = opts.now - opts.graceMs;
    const r = await this.pool
      .query(
        `DELETE FROM blobs b
          WHERE b.created_ms <= $1 AND (b.pins = 0 OR b.pinned_ms <= $1)
            AND NOT EXISTS (SELECT 1 FROM versions v WHERE v.artifact_sha256 = b.sha256)
            AND NOT EXISTS (SELECT 1 FROM version_blobs vb WHERE vb.blob_sha256 = b.sha256)`,
        [cutoff],
      )
      .catch((err: unknown) => {
        // A publish on another node referenced one of them meanwhile: the next run collects the rest.
        if ((err as { code?: string }).code === '23503') return { rowCount: 0 };
        throw err;
      });
    return { removed: r.rowCount ?? 0 };
  }

  snapshot(): AsyncIterable<SnapshotItem> {
    return pgSnapshot(this.pool);
  }

  async restore(items: AsyncIterable<SnapshotItem>): Promise<{ rows: number; blobs: number }> {
    return pgRestore(this.pool, items);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

function isUnique(err: unknown): boolean {
  return (err as { code?: unknown }).code === UNIQUE_VIOLATION;
}

async function insertEvent(c: Q, ev: AuditEvent): Promise<void> {
  await c.query('INSERT INTO events (at, action, namespace, name, version, actor, detail) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    ev.at, ev.action, ev.namespace, ev.name, ev.version, ev.actor, ev.detail,
  ]);
}

/**
 * Inside the publish transaction: accept a registered, unrevoked key; record the first key of a
 * namespace that never had one (under a lock on the namespace row, so two first publishes on two
 * nodes cannot both record one; the events log names `actor`, the publishing token's id); otherwise `E_SIGNER_CHANGED` with the registered keys.
 */
async function checkSigner(c: Q, namespace: string, key: string, at: string, actor: string): Promise<PublishOutcome['signer']> {
  const list = async () => (await c.query('SELECT * FROM signer_keys WHERE namespace = $1 ORDER BY added_at, public_key', [namespace])).rows.map((r) => toSignerKey(r as Row));
  let keys = await list();
  if (keys.length === 0) {
    await c.query('SELECT 1 FROM namespaces WHERE name = $1 FOR UPDATE', [namespace]);
    keys = await list();
    if (keys.length === 0) {
      await c.query("INSERT INTO signer_keys (namespace, public_key, added_at, added_by, revoked_at) VALUES ($1, $2, $3, 'first-publish', NULL)", [namespace, key, at]);
      await insertEvent(c, { at, action: 'key:first-publish', namespace, name: null, version: null, actor, detail: key });
      return 'first-publish';
    }
  }
  const k = keys.find((x) => x.public_key === key);
  if (k && k.revoked_at === null) return 'registered';
  const active = keys.filter((x) => x.revoked_at === null).map((x) => x.public_key);
  throw new CtxpkgError(
    'E_SIGNER_CHANGED',
    k ? `the signing key ${key} was revoked for namespace ${namespace}` : `the signing key ${key} is not registered for namespace ${namespace}`,
    {
      hint: `sign with a registered key, or have an owner of ${namespace} run \`ctxpkg registry key add ${namespace} ${key} --registry <url>\` (--data/--db on the server)`,
      details: { signer_public_key: key, registered_keys: active },
    },
  );
}

function versionExists(full: string, requested: string, existing: string, yanked: boolean): CtxpkgError {
  return new CtxpkgError(
    'E_VERSION_EXISTS',
    requested === existing
      ? `${full}@${requested} already exists${yanked ? ' (yanked)' : ''}; published versions are immutable`
      : `${full}@${requested} has the same precedence as the published ${existing}${yanked ? ' (yanked)' : ''}; build metadata does not make a new version`,
    { hint: 'publish a new version number', details: { existing_version: existing } },
  );
}
