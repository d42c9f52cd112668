/**
 * The embedded default store: SQLite (better-sqlite3, WAL, busy timeout, synchronous=FULL) for
 * metadata plus a content-addressed blob directory (spec/registry.md "Storage").
 *
 * Layout of a data directory: `registry.sqlite` (+ `-wal`, `-shm`) and `blobs/sha256/ab/cd/<hex>`
 * (artifacts and, since schema 2, the blobs of ZIP-form packages — both by SHA-256 of their bytes).
 * Several processes may open the same directory (the server and the admin CLI): WAL lets readers
 * and one writer proceed, and the busy timeout serialises writers. Only one *server* process per
 * data directory is supported, because blob pins (`putBlob`/`releaseBlob`) are per process.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { CtxpkgError } from '@ctxpkg/format';
import { BlobDir, sha256OfBytes } from './blobs.js';
import { CommitProbe } from './commit-probe.js';
import { SCHEMA_SQL, SCHEMA_VERSION, UPGRADE_TO_5_SQL, UPGRADE_TO_6_SQL } from './schema.js';
import { prepared } from './statements.js';
import { catalog, refreshPackage, search } from './sqlite-search.js';
import { backfillSearchTerms, needsSearchBackfill } from './sqlite-rank.js';
import * as access from './sqlite-access.js';
import { findPublicBlob, insertVersionBlobs, isBlobReferenced } from './sqlite-blobs.js';
import * as pages from './sqlite-pages.js';
import { appendLogSqlite, ensureLogSqlite, SqliteLog, TLOG_SCHEMA_SQL } from './sqlite-tlog.js';
import type { LogChange } from '../tlog/plan.js';
import { toPackage, toVersion, toVisibility, VERSION_COLUMNS, visibilityConflict, type Row } from './rows.js';
import type { SnapshotItem } from './snapshot.js';
import { sqliteRestore, sqliteSnapshot } from './sqlite-snapshot.js';
import type {
  AuditEvent,
  CatalogEntry,
  DependentRecord,
  NamespaceRecord,
  NamespaceSummary,
  PackageRecord,
  PublishOutcome,
  PublicBlobRecord,
  PublishRecord,
  RecentPublish,
  RegistryStore,
  SearchHit,
  StoreHealth,
  SignerKeyRecord,
  TokenRecord,
  VersionRecord,
  Visibility,
  VisibilityFilter,
} from './types.js';

export interface SqliteStoreOptions {
  /** The data directory; created when missing. */
  dataDir: string;
  /** Bytes of verified blobs cached in memory (default 64 MiB). */
  blobCacheBytes?: number;
  /** SQLite busy timeout in ms (default 5000). */
  busyTimeoutMs?: number;
  /**
   * `false` appends nothing to the transparency log: only for `bench:registry`'s floor (publish
   * throughput without the log). A registry run this way gives clients no proofs.
   */
  transparencyLog?: boolean;
}

/** File name of the metadata database inside a data directory. */
export const DB_FILE = 'registry.sqlite';

/**
 * Open (and create or migrate) the store in `opts.dataDir`. Throws `E_IO` when the directory
 * cannot be used and `E_ENVIRONMENT` (exit 9) when the database was written by a newer schema:
 * this ctxpkg is older than the store, a deployment to fix, not a bug (stores never migrate down).
 */
export async function openSqliteStore(opts: SqliteStoreOptions): Promise<SqliteStore> {
  try {
    await mkdir(opts.dataDir, { recursive: true });
  } catch (err) {
    throw new CtxpkgError('E_IO', `cannot create the data directory ${opts.dataDir}: ${(err as Error).message}`, { cause: err });
  }
  const blobs = new BlobDir(join(opts.dataDir, 'blobs'), { cacheBytes: opts.blobCacheBytes });
  await blobs.init();
  const db = new Database(join(opts.dataDir, DB_FILE));
  db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.exec(SCHEMA_SQL);
  db.exec(TLOG_SCHEMA_SQL);
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as Row | undefined;
  if (!row) db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION));
  else if (Number(row.value) < SCHEMA_VERSION) {
    if (Number(row.value) < 5) db.transaction(() => db.exec(UPGRADE_TO_5_SQL)).immediate();
    if (Number(row.value) < 6) db.transaction(() => db.exec(UPGRADE_TO_6_SQL)).immediate();
    // Schema 1 → 2 adds the version_blobs table (created above); an older ctxpkg must not open
    // the directory afterwards, since its garbage collection would not know package blobs.
    // Schema 2 → 3 adds the search term counts (created above, filled below); an older ctxpkg
    // would publish without maintaining them. Schema 3 → 4 adds the transparency log (created
    // above, started below by logging the current state); an older ctxpkg would not log changes.
    // Schema 4 → 5 rebuilds tokens and events for the owner/admin roles (UPGRADE_TO_5_SQL).
    // Schema 5 → 6 rebuilds signer_keys to record keys an owner added (UPGRADE_TO_6_SQL).
    db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SCHEMA_VERSION));
  } else if (Number(row.value) > SCHEMA_VERSION) {
    db.close();
    throw new CtxpkgError('E_ENVIRONMENT', `the registry data directory ${opts.dataDir} has schema ${String(row.value)}, newer than this ctxpkg knows (${SCHEMA_VERSION}): a newer ctxpkg has migrated it`, {
      hint: 'run the newer ctxpkg here (`ctxpkg --version` on the machine that migrated it); a store is never migrated down, so to go back restore a backup made before the upgrade into a new directory',
    });
  }
  if (needsSearchBackfill(db)) db.transaction(() => backfillSearchTerms(db)).immediate();
  ensureLogSqlite(db, new Date().toISOString().replace(/\.000Z$/, 'Z'));
  const store = new SqliteStore(db, blobs);
  if (opts.transparencyLog === false) store.logAppends = false;
  return store;
}


export class SqliteStore implements RegistryStore {
  readonly backend = 'sqlite';
  /** Blobs written by in-flight publishes of this process: never collected, never released early. */
  private readonly pins = new Map<string, number>();
  private readonly packageCache = new Map<string, PackageRecord | null>();
  /** Commits by other connections (the admin CLI, another process): drop `packageCache`. */
  readonly commits: CommitProbe;
  readonly log: SqliteLog;
  /** False only for the bench floor (`SqliteStoreOptions.transparencyLog`). */
  logAppends = true;

  constructor(readonly db: Database.Database, readonly blobs: BlobDir) {
    this.commits = new CommitProbe(db, `${db.name}-shm`);
    this.log = new SqliteLog(db);
  }

  async health(): Promise<StoreHealth> {
    try {
      prepared(this.db, 'SELECT 1').get();
    } catch (err) {
      return { reachable: false, writable: false, detail: `database: ${(err as Error).message}` };
    }
    try {
      // Takes the write lock and gives it back: fails on a read-only database or file system.
      this.db.transaction(() => undefined).immediate();
    } catch (err) {
      return { reachable: true, writable: false, detail: `database: ${(err as Error).message}` };
    }
    const probe = join(this.blobs.root, 'tmp', `health.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await writeFile(probe, '');
      await rm(probe, { force: true });
    } catch (err) {
      return { reachable: true, writable: false, detail: `blob directory: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
    }
    return { reachable: true, writable: true };
  }

  async createNamespace(ns: NamespaceRecord): Promise<NamespaceRecord> {
    return access.createNamespace(this.db, ns);
  }

  async getNamespace(name: string): Promise<NamespaceRecord | null> {
    return access.getNamespace(this.db, name);
  }

  async listNamespaces(): Promise<NamespaceRecord[]> {
    return access.listNamespaces(this.db);
  }

  async insertToken(t: TokenRecord): Promise<void> {
    access.insertToken(this.db, t);
  }

  async findTokenByHash(tokenSha256: string): Promise<TokenRecord | null> {
    return access.findTokenByHash(this.db, tokenSha256);
  }

  async revokeToken(idOrHash: string, at: string): Promise<TokenRecord> {
    return access.revokeToken(this.db, idOrHash, at);
  }

  async listTokens(namespace?: string): Promise<TokenRecord[]> {
    return access.listTokens(this.db, namespace);
  }

  /** Append to the log inside the current transaction (appendLogSqlite). */
  private append(changes: readonly LogChange[], at: string): void {
    if (this.logAppends) appendLogSqlite(this.db, changes, at);
  }

  /** Register a key; a key that was not active is logged (`key-add`) in the same transaction. */
  async addSignerKey(namespace: string, publicKey: string, at: string, addedBy: 'admin' | 'owner' = 'admin'): Promise<SignerKeyRecord> {
    return this.keyChange(namespace, publicKey, at, 'key-add', () => access.addSignerKey(this.db, namespace, publicKey, at, addedBy));
  }

  /** Revoke a key; an active key's revocation is logged (`key-revoke`) in the same transaction. */
  async revokeSignerKey(namespace: string, publicKey: string, at: string): Promise<SignerKeyRecord> {
    return this.keyChange(namespace, publicKey, at, 'key-revoke', () => access.revokeSignerKey(this.db, namespace, publicKey, at));
  }

  /**
   * A key change and its log entry in one transaction. The namespace's index documents list its
   * logged keys, so every package of the namespace gets a new revision.
   */
  private keyChange(namespace: string, publicKey: string, at: string, kind: 'key-add' | 'key-revoke', change: () => SignerKeyRecord): SignerKeyRecord {
    const tx = this.db.transaction(() => {
      const before = access.listSignerKeys(this.db, namespace).find((k) => k.public_key === publicKey);
      const rec = change();
      const wasActive = before !== undefined && before.revoked_at === null;
      if (wasActive !== (kind === 'key-add')) {
        this.append([{ statement: { kind, namespace: `@${namespace}`, key: publicKey }, private: false }], at);
        prepared(this.db, 'UPDATE packages SET revision = revision + 1 WHERE namespace = ?').run(namespace);
      }
      return rec;
    });
    try {
      return tx.immediate();
    } finally {
      this.packageCache.clear();
    }
  }

  async listSignerKeys(namespace: string): Promise<SignerKeyRecord[]> {
    return access.listSignerKeys(this.db, namespace);
  }

  /**
   * Package rows are read on every request (visibility, revision), so they are cached. The cache
   * is exact: it is dropped on every call after another connection (the admin CLI, another
   * process) committed — `CommitProbe`, one 48-byte read of the wal-index header, `PRAGMA
   * data_version` only when it changed — and after every write through this connection. Answers
   * synchronously (better-sqlite3 never yields).
   */
  getPackage(namespace: string, name: string): PackageRecord | null {
    if (this.commits.changed() || this.packageCache.size > 10_000) this.packageCache.clear();
    const key = `${namespace}/${name}`;
    const hit = this.packageCache.get(key);
    if (hit !== undefined) return hit;
    const r = prepared(this.db, 'SELECT * FROM packages WHERE namespace = ? AND name = ?').get(namespace, name) as Row | undefined;
    const rec = r ? toPackage(r) : null;
    this.packageCache.set(key, rec);
    return rec;
  }

  async setPackageVisibility(namespace: string, name: string, visibility: Visibility, at: string, actor: string): Promise<PackageRecord> {
    const tx = this.db.transaction(() => {
      const before = prepared(this.db, 'SELECT visibility FROM packages WHERE namespace = ? AND name = ?').get(namespace, name) as Row | undefined;
      const info = prepared(this.db, 'UPDATE packages SET visibility = ?, updated_at = ?, revision = revision + 1 WHERE namespace = ? AND name = ?').run(visibility, at, namespace, name);
      if (info.changes === 0) throw new CtxpkgError('E_NOT_FOUND', `package @${namespace}/${name} does not exist`);
      this.insertEvent({ at, action: `visibility:${visibility}`, namespace, name, version: null, actor, detail: null });
      if (before?.visibility !== visibility) {
        this.append([{ statement: { kind: 'visibility', package: `@${namespace}/${name}`, visibility }, private: visibility === 'private' }], at);
      }
    });
    try {
      tx.immediate();
    } finally {
      this.packageCache.clear();
    }
    return (await this.getPackage(namespace, name)) as PackageRecord;
  }

  async listVersions(namespace: string, name: string): Promise<VersionRecord[]> {
    const rows = prepared(this.db, `SELECT ${VERSION_COLUMNS} FROM versions v JOIN packages p ON p.id = v.package_id WHERE p.namespace = ? AND p.name = ?`)
      .all(namespace, name) as Row[];
    return rows.map(toVersion);
  }

  async getVersion(namespace: string, name: string, version: string): Promise<VersionRecord | null> {
    const r = prepared(this.db, 
        `SELECT ${VERSION_COLUMNS} FROM versions v JOIN packages p ON p.id = v.package_id
         WHERE p.namespace = ? AND p.name = ? AND v.version = ?`,
      )
      .get(namespace, name, version) as Row | undefined;
    return r ? toVersion(r) : null;
  }

  async findEqualPrecedence(namespace: string, name: string, precedenceKey: string): Promise<VersionRecord | null> {
    const r = prepared(this.db, 
        `SELECT ${VERSION_COLUMNS} FROM versions v JOIN packages p ON p.id = v.package_id
         WHERE p.namespace = ? AND p.name = ? AND v.precedence_key = ?`,
      )
      .get(namespace, name, precedenceKey) as Row | undefined;
    return r ? toVersion(r) : null;
  }

  async putBlob(bytes: Uint8Array, opts: { durable?: boolean; replace?: boolean } = {}): Promise<{ sha256: string; size: number }> {
    const sha = sha256OfBytes(bytes);
    this.pins.set(sha, (this.pins.get(sha) ?? 0) + 1);
    try {
      return await this.blobs.put(bytes, opts);
    } catch (err) {
      await this.releaseBlob(sha);
      throw new CtxpkgError('E_IO', `cannot store the package bytes: ${(err as Error).message}`, { cause: err });
    }
  }

  async releaseBlob(sha256: string): Promise<void> {
    const n = (this.pins.get(sha256) ?? 0) - 1;
    if (n > 0) {
      this.pins.set(sha256, n);
      return;
    }
    this.pins.delete(sha256);
    if (!this.isReferenced(sha256)) await this.blobs.remove(sha256);
  }

  async readBlob(sha256: string): Promise<Uint8Array | null> {
    return this.blobs.read(sha256);
  }

  async listBlobs(): Promise<Array<{ sha256: string; size_bytes: number }>> {
    return (await this.blobs.list()).map((b) => ({ sha256: b.sha256, size_bytes: b.size }));
  }

  async findPublicBlob(sha256: string): Promise<PublicBlobRecord | null> {
    return findPublicBlob(this.db, sha256);
  }

  private isReferenced(sha256: string): boolean {
    return isBlobReferenced(this.db, sha256);
  }

  async commitPublish(rec: PublishRecord): Promise<PublishOutcome> {
    const full = `@${rec.namespace}/${rec.name}`;
    let visibility: Visibility = 'private';
    const tx = this.db.transaction((): PublishOutcome['signer'] => {
      if (!prepared(this.db, 'SELECT 1 FROM namespaces WHERE name = ?').get(rec.namespace)) {
        throw new CtxpkgError('E_NOT_FOUND', `namespace ${rec.namespace} does not exist`);
      }
      const signer = access.checkSigner(this.db, rec.namespace, rec.signer_public_key, rec.published_at, rec.published_by);
      let pkg = prepared(this.db, 'SELECT * FROM packages WHERE namespace = ? AND name = ?').get(rec.namespace, rec.name) as Row | undefined;
      if (!pkg) {
        prepared(this.db, 'INSERT INTO packages (namespace, name, visibility, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
          .run(rec.namespace, rec.name, rec.visibility ?? 'private', rec.published_at, rec.published_at);
        pkg = prepared(this.db, 'SELECT * FROM packages WHERE namespace = ? AND name = ?').get(rec.namespace, rec.name) as Row;
      }
      const existing = prepared(this.db, 'SELECT version, yanked FROM versions WHERE package_id = ? AND (version = ? OR precedence_key = ?)')
        .get(pkg.id, rec.version, rec.precedence_key) as Row | undefined;
      if (existing) throw versionExists(full, rec.version, String(existing.version), Number(existing.yanked) === 1);
      if (rec.visibility !== null && pkg.visibility !== rec.visibility) throw visibilityConflict(full, String(pkg.visibility), rec.visibility);
      visibility = toVisibility(pkg.visibility);
      try {
        prepared(this.db, 
            `INSERT INTO versions (package_id, version, precedence_key, artifact_sha256, size_bytes, integrity_sha256,
               signer_public_key, description, tags_json, dependencies_json, search_text, trust_report_json, yanked,
               yanked_at, published_at, published_by)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, NULL, ?, ?)`,
          )
          .run(
            pkg.id, rec.version, rec.precedence_key, rec.artifact_sha256, rec.size_bytes, rec.integrity_sha256,
            rec.signer_public_key, rec.description, JSON.stringify(rec.tags), JSON.stringify(rec.dependencies),
            rec.search_text, JSON.stringify(rec.trust_report(signer)), rec.published_at, rec.published_by,
          );
      } catch (err) {
        // The constraint is the real guard; the SELECT above only gives the nicer message.
        if (access.isUniqueViolation(err)) throw versionExists(full, rec.version, rec.version, false);
        throw err;
      }
      insertVersionBlobs(this.db, Number(pkg.id), rec.version, rec.blobs ?? []);
      refreshPackage(this.db, Number(pkg.id), rec.published_at);
      this.insertEvent({
        at: rec.published_at, action: 'publish', namespace: rec.namespace, name: rec.name, version: rec.version,
        actor: rec.published_by, detail: rec.artifact_sha256,
      });
      const changes: LogChange[] = [];
      if (signer === 'first-publish') changes.push({ statement: { kind: 'key-add', namespace: `@${rec.namespace}`, key: rec.signer_public_key }, private: false });
      changes.push({
        statement: { kind: 'publish', package: full, version: rec.version, artifact_sha256: rec.artifact_sha256, signer: rec.signer_public_key },
        private: visibility === 'private',
      });
      this.append(changes, rec.published_at);
      return signer;
    });
    let signer: PublishOutcome['signer'];
    try {
      signer = tx.immediate();
    } finally {
      this.packageCache.clear();
    }
    const version = (await this.getVersion(rec.namespace, rec.name, rec.version)) as VersionRecord;
    return { version, signer, visibility };
  }

  async setYanked(namespace: string, name: string, version: string, yanked: boolean, at: string, actor: string): Promise<VersionRecord> {
    const tx = this.db.transaction(() => {
      const pkg = prepared(this.db, 'SELECT id, visibility FROM packages WHERE namespace = ? AND name = ?').get(namespace, name) as Row | undefined;
      const row = pkg
        ? (prepared(this.db, 'SELECT yanked FROM versions WHERE package_id = ? AND version = ?').get(pkg.id, version) as Row | undefined)
        : undefined;
      if (!pkg || !row) throw new CtxpkgError('E_NOT_FOUND', `@${namespace}/${name}@${version} does not exist`);
      if ((Number(row.yanked) === 1) === yanked) return;
      prepared(this.db, 'UPDATE versions SET yanked = ?, yanked_at = ? WHERE package_id = ? AND version = ?')
        .run(yanked ? 1 : 0, yanked ? at : null, pkg.id, version);
      refreshPackage(this.db, Number(pkg.id), at);
      this.insertEvent({ at, action: yanked ? 'yank' : 'unyank', namespace, name, version, actor, detail: null });
      this.append([{ statement: { kind: yanked ? 'yank' : 'unyank', package: `@${namespace}/${name}`, version }, private: pkg.visibility === 'private' }], at);
    });
    try {
      tx.immediate();
    } finally {
      this.packageCache.clear();
    }
    return (await this.getVersion(namespace, name, version)) as VersionRecord;
  }

  async catalog(filter: VisibilityFilter, opts: { limit: number; after?: string }): Promise<CatalogEntry[]> {
    return catalog(this.db, filter, opts.limit, opts.after);
  }

  async search(filter: VisibilityFilter, query: string, opts: { limit: number }): Promise<SearchHit[]> {
    return search(this.db, filter, query, opts.limit);
  }

  async recentPublishes(filter: VisibilityFilter, opts: { limit: number }): Promise<RecentPublish[]> {
    return pages.recentPublishes(this.db, filter, opts.limit);
  }

  async namespaceSummaries(filter: VisibilityFilter): Promise<NamespaceSummary[]> {
    return pages.namespaceSummaries(this.db, filter);
  }

  async dependents(filter: VisibilityFilter, full: string, opts: { limit: number }): Promise<DependentRecord[]> {
    return pages.dependents(this.db, filter, full, opts.limit);
  }

  async auditEvents(opts: { namespace?: string; limit: number }): Promise<AuditEvent[]> {
    return access.auditEvents(this.db, opts);
  }

  async recordEvent(ev: AuditEvent): Promise<void> {
    access.insertEvent(this.db, ev);
  }

  private insertEvent(ev: AuditEvent): void {
    access.insertEvent(this.db, ev);
  }

  async collectGarbage(opts: { graceMs: number; now: number }): Promise<{ removed: number }> {
    let removed = await this.blobs.removeStaleTemp(opts.graceMs, opts.now);
    for (const b of await this.blobs.list()) {
      if (this.pins.has(b.sha256) || opts.now - b.mtimeMs < opts.graceMs) continue;
      if (this.isReferenced(b.sha256)) continue;
      await this.blobs.remove(b.sha256);
      removed++;
    }
    return { removed };
  }

  snapshot(): AsyncIterable<SnapshotItem> {
    return sqliteSnapshot(this.db, this.dataDir, this.blobs);
  }

  async restore(items: AsyncIterable<SnapshotItem>): Promise<{ rows: number; blobs: number }> {
    try {
      return await sqliteRestore(this.db, this.blobs, items);
    } finally {
      this.packageCache.clear();
    }
  }

  /** The data directory (the database file's directory). */
  get dataDir(): string {
    return dirname(this.db.name);
  }

  async close(): Promise<void> {
    this.commits.close();
    if (this.db.open) this.db.close();
  }
}

function versionExists(full: string, requested: string, existing: string, yanked: boolean): CtxpkgError {
  const same = requested === existing;
  return new CtxpkgError(
    'E_VERSION_EXISTS',
    same
      ? `${full}@${requested} already exists${yanked ? ' (yanked)' : ''}; published versions are immutable`
      : `${full}@${requested} has the same precedence as the published ${existing}${yanked ? ' (yanked)' : ''}; build metadata does not make a new version`,
    { hint: 'publish a new version number', details: { existing_version: existing } },
  );
}
