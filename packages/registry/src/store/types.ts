/**
 * The one storage interface of the registry (spec/registry.md "Storage").
 *
 * Two backends implement it and pass the same suite: `store/sqlite.ts` (embedded default: SQLite
 * + a content-addressed blob directory) and `store/pg.ts` (PostgreSQL: metadata and blobs in one
 * database, several server nodes on it). `store/open.ts` chooses one from `--data` or `--db`.
 *
 * Adding a method (do all of it in one commit):
 * 1. declare it here with its contract (shapes, units, error codes, what must be atomic);
 * 2. implement it in `SqliteStore` (better-sqlite3, synchronous inside; write transactions with
 *    `.immediate()`, and clear `packageCache` after any write that touches `packages`) and in
 *    `PgStore` (`this.q` for one statement, `this.tx` for a transaction; lock the package row
 *    `FOR UPDATE` before changing it; never cache anything another node can change — read it);
 * 3. a schema change is a new SQLite schema version (schema.ts + the upgrade in `openSqliteStore`)
 *    *and* a new entry at the end of `MIGRATIONS` in `pg-schema.ts` (never edit an applied one);
 * 4. test it through `describeBackends` (`__tests__/backends.ts`), which runs the same tests on
 *    SQLite and, when PostgreSQL is reachable, on PostgreSQL (required in CI).
 *
 * Every method is async (`getPackage` may also answer directly) so that the networked backend
 * implements it with the same guarantees as the embedded default:
 *
 * - `(namespace, name, version)` is unique, and so is `(namespace, name, precedence_key)` —
 *   two versions of equal SemVer precedence (`1.0.0` and `1.0.0+build.7`) can never both exist.
 *   Both are database constraints, not application checks.
 * - One publish is one transaction (`commitPublish`): the version row, the package row, the
 *   search document, a first-publish signer key and the audit event appear together or not at all.
 * - The blob is written (temp file, fsync, rename) *before* the row that references it; a crash
 *   between the two leaves an unreferenced blob that `collectGarbage` removes. A row never points
 *   at a missing or partial blob.
 * - Rows are never deleted: a yank flips a flag, so a version number is never reused.
 *
 * Times are RFC 3339 UTC strings (`2026-01-02T03:04:05.120Z`). Hashes are lowercase hex.
 */

import type { SnapshotItem } from './snapshot.js';

/** Who may see a package. `private` packages are visible only to tokens of their namespace. */
export type Visibility = 'public' | 'private';

/**
 * Token scopes (spec/registry.md §9): `read` (ctxr_…: read incl. private), `publish` (ctxp_…:
 * also publish, yank, un-yank), `owner` (ctxo_…: also administer its namespace — tokens, signer
 * keys, visibility, events) — each bound to one namespace — and `admin` (ctxa_…: administer the
 * whole registry; bound to no namespace, reads only public packages, never publishes).
 */
export type TokenScope = 'publish' | 'read' | 'owner' | 'admin';

export interface NamespaceRecord {
  name: string;
  /** Free-form owner label (a person, team or e-mail) recorded when the namespace is created. */
  owner: string;
  created_at: string;
}

export interface TokenRecord {
  /** Public identifier (`tok_` + 16 hex), safe to print and log; never the secret. */
  id: string;
  /** Lowercase hex SHA-256 of the full token text; the token itself is never stored. */
  token_sha256: string;
  /** The namespace the token belongs to; null exactly for an `admin` token. */
  namespace: string | null;
  scope: TokenScope;
  label: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface SignerKeyRecord {
  namespace: string;
  /** Ed25519 public key, 64 lowercase hex characters. */
  public_key: string;
  added_at: string;
  /**
   * Who added the key: `first-publish` (recorded automatically by a namespace's first publish),
   * `admin` (`registry key add` by an admin token or the local operator) or `owner` (by an owner
   * token of the namespace; before schema 6 these were recorded as `admin`).
   */
  added_by: 'first-publish' | 'admin' | 'owner';
  revoked_at: string | null;
}

export interface PackageRecord {
  id: number;
  namespace: string;
  /** The package name without the namespace (`auth-context`). */
  name: string;
  visibility: Visibility;
  /** Incremented by every change to the package or its versions (cache validation). */
  revision: number;
  created_at: string;
  updated_at: string;
}

/** A dependency as declared in the manifest (FORMAT-FACTS §2, field 12). */
export interface DependencyRecord {
  name: string;
  version_req: string;
  optional: boolean;
}

export interface VersionRecord {
  namespace: string;
  name: string;
  version: string;
  /** The version without build metadata: equal keys ⇔ equal SemVer precedence (strict SemVer). */
  precedence_key: string;
  /** SHA-256 of the exact stored bytes (FORMAT-FACTS §3.5). */
  artifact_sha256: string;
  size_bytes: number;
  /** The manifest's `integrity.sha256`. */
  integrity_sha256: string;
  signer_public_key: string;
  description: string;
  tags: string[];
  dependencies: DependencyRecord[];
  yanked: boolean;
  yanked_at: string | null;
  published_at: string;
  /** Token id of the publisher. */
  published_by: string;
  /** The trust report answered at publish time (JSON object). */
  trust_report: unknown;
}

/** Everything `commitPublish` records, computed and verified by the publish gate beforehand. */
export interface PublishRecord {
  namespace: string;
  name: string;
  version: string;
  precedence_key: string;
  artifact_sha256: string;
  size_bytes: number;
  integrity_sha256: string;
  signer_public_key: string;
  /**
   * The visibility this publish asks for (the request's `X-Ctxpkg-Visibility` or the manifest's
   * declaration), or null when it asks for none. A new package gets it, else `private` (npm's rule
   * for scoped packages); an existing package keeps its own, and a request for the other one is
   * refused (`E_VISIBILITY`).
   */
  visibility: Visibility | null;
  description: string;
  tags: string[];
  dependencies: DependencyRecord[];
  /** Searchable text (name, description, tags, node content), already capped by the caller. */
  search_text: string;
  /**
   * ZIP form: the package's blobs (lowercase hex SHA-256 and size in bytes), each already written
   * with `putBlob`; recorded in the same transaction. Absent or empty for a JSON bundle.
   */
  blobs?: ReadonlyArray<{ sha256: string; size_bytes: number }>;
  /** Builds the trust report once the transaction knows how the signer key was accepted. */
  trust_report: (signer: 'first-publish' | 'registered') => unknown;
  published_at: string;
  published_by: string;
}

/** What `commitPublish` decided about the signer key, for the trust report. */
export interface PublishOutcome {
  version: VersionRecord;
  /** `first-publish`: the key was recorded now; `registered`: it was already registered. */
  signer: 'first-publish' | 'registered';
  /** The package's visibility, which this version has. */
  visibility: Visibility;
}

/** A package blob a version of a public package carries (`findPublicBlob`). */
export interface PublicBlobRecord {
  sha256: string;
  size_bytes: number;
  /** The artifact of a version that carries it (the blob can be re-extracted from it). */
  artifact_sha256: string;
}

export interface CatalogEntry {
  namespace: string;
  name: string;
  visibility: Visibility;
  description: string;
  tags: string[];
  /** The version the index calls latest (null when every version is yanked). */
  latest: string | null;
  updated_at: string;
}

export interface SearchHit extends CatalogEntry {
  /** A short excerpt of the matching text with the match between `[` and `]`. */
  snippet: string;
}

/** Which packages a caller may see: all public ones plus every package of these namespaces. */
export interface VisibilityFilter {
  namespaces: readonly string[];
}

/** One publish for the pages' "recent publishes" list (`recentPublishes`). */
export interface RecentPublish {
  namespace: string;
  name: string;
  version: string;
  /** The description of that version. */
  description: string;
  visibility: Visibility;
  published_at: string;
  /** Whether the version is yanked now. */
  yanked: boolean;
}

/** A namespace as the pages list it (`namespaceSummaries`). */
export interface NamespaceSummary {
  namespace: string;
  /** Packages of the namespace visible through the filter. */
  packages: number;
  /** The newest `updated_at` of those packages; null when there are none. */
  updated_at: string | null;
}

/** A package whose latest version declares a dependency on another (`dependents`). */
export interface DependentRecord {
  namespace: string;
  name: string;
  /** The dependent's latest version (the one whose manifest declares the dependency). */
  version: string;
  version_req: string;
  optional: boolean;
}

export interface AuditEvent {
  at: string;
  action: string;
  /** The namespace concerned; null for registry-wide actions (`gc`, an admin token's creation). */
  namespace: string | null;
  name: string | null;
  version: string | null;
  actor: string;
  detail: string | null;
}

/** What `RegistryStore.health` found (`detail` names the failing probe; never a secret). */
export interface StoreHealth {
  reachable: boolean;
  writable: boolean;
  detail?: string;
}

export interface RegistryStore {
  /** Backend name for `/healthz` and logs (`sqlite` or `postgres`). */
  readonly backend: string;
  /**
   * The transparency log (spec/transparency.md). Its writes happen inside the transactions of
   * `commitPublish`, `setYanked`, `setPackageVisibility`, `addSignerKey` and `revokeSignerKey`.
   */
  readonly log: LogStore;

  /**
   * Can the store answer and write right now? Runs a read and a write probe that changes nothing
   * (SQLite: a `BEGIN IMMEDIATE`/`ROLLBACK` and a temp file in the blob directory; PostgreSQL:
   * `SELECT 1` and whether the session may write — not a replica, not read-only). Never throws:
   * `reachable: false` when it cannot even read, `writable: false` with `detail` when writes would fail.
   */
  health(): Promise<StoreHealth>;

  /** Create a namespace. Throws `E_EXISTS` when it exists. */
  createNamespace(ns: NamespaceRecord): Promise<NamespaceRecord>;
  getNamespace(name: string): Promise<NamespaceRecord | null>;
  listNamespaces(): Promise<NamespaceRecord[]>;

  /**
   * Store a token record (hash only). Throws `E_NOT_FOUND` when the namespace does not exist; an
   * `admin` token has no namespace (the schema enforces: namespace null ⇔ scope admin).
   */
  insertToken(token: TokenRecord): Promise<void>;
  /** Look a token up by the SHA-256 of its text; revoked and expired tokens are returned as is. */
  findTokenByHash(tokenSha256: string): Promise<TokenRecord | null>;
  /** Revoke by id or by token hash. Throws `E_NOT_FOUND`. Idempotent for revoked tokens. */
  revokeToken(idOrHash: string, at: string): Promise<TokenRecord>;
  listTokens(namespace?: string): Promise<TokenRecord[]>;

  /**
   * Register a signer key for a namespace (un-revokes a revoked one, keeping its first `added_at`
   * and `added_by`). `addedBy` is the role of the caller (default `admin`). Throws `E_NOT_FOUND`.
   */
  addSignerKey(namespace: string, publicKey: string, at: string, addedBy?: 'admin' | 'owner'): Promise<SignerKeyRecord>;
  /** Revoke a signer key. Throws `E_NOT_FOUND` when it was never registered. */
  revokeSignerKey(namespace: string, publicKey: string, at: string): Promise<SignerKeyRecord>;
  listSignerKeys(namespace: string): Promise<SignerKeyRecord[]>;

  /**
   * The package row as of now: it reflects every commit that finished before the call, by any
   * process (the registry reads it on every request to decide visibility and to validate its
   * index cache by `revision`). The one read that may answer without a promise: a backend whose
   * reads never wait (embedded SQLite) returns the row directly, so the cached `index.json` is
   * served synchronously (maybe.ts); a networked backend returns a promise. Callers `await` it or
   * use `andThen`.
   */
  getPackage(namespace: string, name: string): PackageRecord | null | Promise<PackageRecord | null>;
  /** Change a package's visibility (owner action). Throws `E_NOT_FOUND`. */
  setPackageVisibility(namespace: string, name: string, visibility: Visibility, at: string, actor: string): Promise<PackageRecord>;
  /** All versions of a package, in no particular order (the index orders them). */
  listVersions(namespace: string, name: string): Promise<VersionRecord[]>;
  getVersion(namespace: string, name: string, version: string): Promise<VersionRecord | null>;
  /** The version of equal precedence, if any (`1.0.0` for `1.0.0+build.7`). */
  findEqualPrecedence(namespace: string, name: string, precedenceKey: string): Promise<VersionRecord | null>;

  /**
   * Write a blob (temp file, fsync, rename, directory fsync) and pin it against garbage
   * collection until `releaseBlob`. Returns its lowercase hex SHA-256 and size in bytes.
   * `durable: false` skips the fsyncs (still atomic): for package blobs, which are derived from
   * their durable artifact and re-extracted from it when missing or corrupt after a crash.
   * `replace: true` rewrites an existing file (the repair of a damaged package blob).
   */
  putBlob(bytes: Uint8Array, opts?: { durable?: boolean; replace?: boolean }): Promise<{ sha256: string; size: number }>;
  /**
   * Unpin a blob written by `putBlob`; when no row references it (a refused or failed publish)
   * and no other publish holds it, delete it.
   */
  releaseBlob(sha256: string): Promise<void>;
  /** The exact stored bytes, verified against their hash; null when absent. Throws `E_INTEGRITY` on corruption. */
  readBlob(sha256: string): Promise<Uint8Array | null>;
  /** Every stored blob (artifacts and package blobs): lowercase hex SHA-256 and size in bytes, sorted by hash. */
  listBlobs(): Promise<Array<{ sha256: string; size_bytes: number }>>;
  /**
   * A package blob (ZIP form) carried by a version of a package that is public now, or null —
   * also when only private packages carry it, so a caller cannot tell the two apart.
   */
  findPublicBlob(sha256: string): Promise<PublicBlobRecord | null>;

  /**
   * One publish in one transaction. Checks, inside the transaction: the namespace exists; the
   * signer key is registered and not revoked (or, when the namespace never had a key, records it as
   * `first-publish`); a new package is created with `rec.visibility ?? 'private'`, an existing one
   * keeps its visibility and a different `rec.visibility` is refused. Throws `E_VERSION_EXISTS`
   * (unique constraint on version or precedence), `E_SIGNER_CHANGED`, `E_VISIBILITY` (409, the
   * package has the other visibility), `E_NOT_FOUND` (namespace).
   */
  commitPublish(rec: PublishRecord): Promise<PublishOutcome>;
  /** Set or clear the yank flag. Throws `E_NOT_FOUND`. Idempotent. */
  setYanked(namespace: string, name: string, version: string, yanked: boolean, at: string, actor: string): Promise<VersionRecord>;

  /** Packages visible through `filter`, sorted by `@namespace/name`, after the cursor. */
  catalog(filter: VisibilityFilter, opts: { limit: number; after?: string }): Promise<CatalogEntry[]>;
  /** Full-text search over names, descriptions, tags and node content of each package's latest version. */
  search(filter: VisibilityFilter, query: string, opts: { limit: number }): Promise<SearchHit[]>;

  /**
   * The newest publishes of packages visible through `filter` (by publish order, newest first),
   * at most `limit`. For the pages' home; answers are identical whether or not invisible
   * packages exist.
   */
  recentPublishes(filter: VisibilityFilter, opts: { limit: number }): Promise<RecentPublish[]>;
  /**
   * Namespaces that hold at least one package visible through `filter`, plus the filter's own
   * namespaces that exist (with 0 packages when empty), sorted by name. A namespace whose
   * packages are all invisible to the caller is not listed.
   */
  namespaceSummaries(filter: VisibilityFilter): Promise<NamespaceSummary[]>;
  /**
   * Packages visible through `filter` whose latest version declares a dependency on the package
   * `full` (`@ns/name`), sorted by `@namespace/name`, at most `limit`. Packages whose every
   * version is yanked (no latest) are not listed.
   */
  dependents(filter: VisibilityFilter, full: string, opts: { limit: number }): Promise<DependentRecord[]>;

  /**
   * Recent audit events (publish, yank, unyank, visibility, namespace, token and key changes, gc),
   * newest first; with `namespace`, only that namespace's events.
   */
  auditEvents(opts: { namespace?: string; limit: number }): Promise<AuditEvent[]>;
  /** Record an audit event (token and key changes made by the admin functions). */
  recordEvent(ev: AuditEvent): Promise<void>;

  /**
   * Remove blobs no row references (as artifact or package blob) whose files are older than
   * `graceMs`, and stale temp files.
   * Returns how many files were removed.
   */
  collectGarbage(opts: { graceMs: number; now: number }): Promise<{ removed: number }>;

  /**
   * A consistent online snapshot (an online copy of the SQLite database; one REPEATABLE READ
   * transaction in PostgreSQL): every row of `SNAPSHOT_TABLES` (snapshot.ts), then the bytes of
   * each blob a version references, sorted by hash, each checked against its hash. A package blob
   * that is missing or damaged is re-extracted from its artifact. Throws `E_INTEGRITY` when an
   * artifact is missing or corrupt (a backup never carries bad bytes).
   */
  snapshot(): AsyncIterable<SnapshotItem>;
  /**
   * Load a snapshot into this store, which must be empty (no namespace, no package; else
   * `E_EXISTS`). `items` is read once: blobs are stored before the rows that reference them, and
   * the rows go in one transaction, so a failure leaves no row. Derived data (latest versions,
   * catalog fields, search documents) is rebuilt. Returns the counts restored.
   */
  restore(items: AsyncIterable<SnapshotItem>): Promise<{ rows: number; blobs: number }>;
  close(): Promise<void>;
}

/** One entry of the transparency log as the registry keeps it (spec/transparency.md §2, §9). */
export interface LogEntryRecord {
  index: number;
  /** The logged bytes (the leaf input): a statement, or a commitment for a private package. */
  entry: Uint8Array;
  namespace: string;
  /** Package name without the namespace; null for key statements. */
  name: string | null;
  version: string | null;
  /** The statement kind (`publish`, `yank`, `unyank`, `key-add`, `key-revoke`, `visibility`). */
  kind: string;
  /** For a commitment: the statement entry text and its nonce (64 hex); null for a statement in clear. */
  opening: { entry: string; nonce: string } | null;
  /** The tree size after the transaction that appended this entry. */
  tree_size: number;
  at: string;
}

/** A stored checkpoint: tree size, root hash and the signed note. */
export interface LogCheckpointRecord {
  size: number;
  root: Uint8Array;
  note: string;
}

/**
 * Reads of the transparency log and the few writes that are not state changes (re-dated
 * checkpoints, witness cosignatures). Appends happen only inside the store's own transactions.
 */
export interface LogStore {
  /** The log's origin, its Ed25519 public key (64 hex) and its size. */
  info(): Promise<{ origin: string; public_key: string; size: number }>;
  /** The origin and the 32-byte seed of the log key (to re-date checkpoints). Never served. */
  signer(): Promise<{ origin: string; seed: Uint8Array }>;
  /** The latest checkpoint, or the one stored for tree size `size`; null when there is none. */
  checkpoint(size?: number): Promise<LogCheckpointRecord | null>;
  /** Replace the note of the checkpoint of `size` (same tree, a newer timestamp). */
  redate(size: number, note: string): Promise<void>;
  /** The hashes of complete subtrees (same order). Throws `E_INTERNAL` when one is not stored. */
  nodes(list: ReadonlyArray<{ level: number; index: number }>): Promise<Uint8Array[]>;
  /** Hashes at `level` for indexes `start … start+count−1` (fewer when the tree ends sooner). */
  hashRange(level: number, start: number, count: number): Promise<Uint8Array[]>;
  /** Entries `start … start+count−1` (fewer when the log ends sooner), in index order. */
  entries(start: number, count: number): Promise<LogEntryRecord[]>;
  /** The entries about package `@namespace/name` and the key entries of its namespace, in index order. */
  packageEntries(namespace: string, name: string): Promise<LogEntryRecord[]>;
  /** The commitments of a namespace from index `from` on, in index order, at most `limit`. */
  commitments(namespace: string, from: number, limit: number): Promise<LogEntryRecord[]>;
  /** Store a witness cosignature line for tree size `size` (one per witness key). */
  addCosignature(size: number, key: string, line: string): Promise<void>;
  /** The stored cosignature lines for tree size `size`. */
  cosignatures(size: number): Promise<string[]>;
  /** A namespace's commitment secret (32 bytes), or null; for `registry log verify` only, never served. */
  secret(namespace: string): Promise<Uint8Array | null>;
}
