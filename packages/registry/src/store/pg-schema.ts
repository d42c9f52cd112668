/**
 * PostgreSQL schema of the registry store, as versioned migrations (spec/registry.md §13
 * "PostgreSQL").
 *
 * `MIGRATIONS[i]` takes a database from schema `i` to schema `i + 1`; `schema_migrations` records
 * every applied version. `migrate` applies the missing ones in one transaction under a
 * transaction-scoped advisory lock, so several nodes starting at once on an empty database
 * migrate it exactly once. A database whose recorded schema is newer than this code knows is
 * refused (an older node must not write rows it does not understand).
 *
 * The same guarantees as the SQLite schema hold by constraint: `UNIQUE (package_id, version)`,
 * `UNIQUE (package_id, precedence_key)`, and the blob foreign keys — a version row can never
 * point at a blob that is not stored. Blobs live in the database itself (`blobs.bytes`, bytea,
 * keyed by the lowercase hex SHA-256 of the bytes), so one engine — and one standard PostgreSQL
 * backup, replica or managed service — holds the whole registry.
 *
 * Text that is compared by order (search terms, names) uses `COLLATE "C"`: byte order of UTF-8,
 * which is code point order, as in SQLite, whatever the database's default collation.
 */
import type { PoolClient } from 'pg';
import { CtxpkgError } from '@ctxpkg/format';
import { TLOG_MIGRATION } from './pg-tlog.js';

/** Advisory lock key for migrations (`'ctxpkg-m'` as an int8). */
const MIGRATION_LOCK = 0x637478706b672d6dn;

export const MIGRATIONS: readonly string[] = [
  // 1: the registry as of SQLite schema 3, plus content-addressed blobs in the database.
  `
  CREATE TABLE namespaces (
    name       TEXT COLLATE "C" PRIMARY KEY,
    owner      TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE tokens (
    id           TEXT PRIMARY KEY,
    token_sha256 TEXT NOT NULL UNIQUE CHECK (length(token_sha256) = 64),
    namespace    TEXT COLLATE "C" NOT NULL REFERENCES namespaces(name),
    scope        TEXT NOT NULL CHECK (scope IN ('publish', 'read')),
    label        TEXT,
    created_at   TEXT NOT NULL,
    expires_at   TEXT,
    revoked_at   TEXT
  );
  CREATE INDEX tokens_by_namespace ON tokens(namespace);
  CREATE TABLE signer_keys (
    namespace  TEXT COLLATE "C" NOT NULL REFERENCES namespaces(name),
    public_key TEXT COLLATE "C" NOT NULL CHECK (length(public_key) = 64),
    added_at   TEXT NOT NULL,
    added_by   TEXT NOT NULL CHECK (added_by IN ('first-publish', 'admin')),
    revoked_at TEXT,
    PRIMARY KEY (namespace, public_key)
  );
  CREATE TABLE blobs (
    sha256     TEXT COLLATE "C" PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    size_bytes BIGINT NOT NULL CHECK (size_bytes >= 0),
    bytes      BYTEA NOT NULL,
    -- ms since the epoch: when first stored, and the publishes of any node holding it now.
    created_ms BIGINT NOT NULL,
    pins       INTEGER NOT NULL DEFAULT 0,
    pinned_ms  BIGINT NOT NULL
  );
  CREATE TABLE packages (
    id             BIGSERIAL PRIMARY KEY,
    namespace      TEXT COLLATE "C" NOT NULL REFERENCES namespaces(name),
    name           TEXT COLLATE "C" NOT NULL,
    visibility     TEXT NOT NULL CHECK (visibility IN ('public', 'private')),
    latest_version TEXT,
    description    TEXT NOT NULL DEFAULT '',
    tags_json      TEXT NOT NULL DEFAULT '[]',
    revision       BIGINT NOT NULL DEFAULT 0,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    UNIQUE (namespace, name)
  );
  CREATE TABLE versions (
    package_id        BIGINT NOT NULL REFERENCES packages(id),
    version           TEXT COLLATE "C" NOT NULL,
    precedence_key    TEXT COLLATE "C" NOT NULL,
    artifact_sha256   TEXT COLLATE "C" NOT NULL REFERENCES blobs(sha256),
    size_bytes        BIGINT NOT NULL CHECK (size_bytes > 0),
    integrity_sha256  TEXT NOT NULL,
    signer_public_key TEXT NOT NULL,
    description       TEXT NOT NULL,
    tags_json         TEXT NOT NULL,
    dependencies_json TEXT NOT NULL,
    search_text       TEXT NOT NULL,
    trust_report_json TEXT NOT NULL,
    yanked            BOOLEAN NOT NULL DEFAULT FALSE,
    yanked_at         TEXT,
    published_at      TEXT NOT NULL,
    published_by      TEXT NOT NULL,
    UNIQUE (package_id, version),
    UNIQUE (package_id, precedence_key)
  );
  CREATE INDEX versions_by_artifact ON versions(artifact_sha256);
  CREATE TABLE version_blobs (
    package_id  BIGINT NOT NULL,
    version     TEXT COLLATE "C" NOT NULL,
    blob_sha256 TEXT COLLATE "C" NOT NULL REFERENCES blobs(sha256),
    size_bytes  BIGINT NOT NULL CHECK (size_bytes >= 0),
    PRIMARY KEY (package_id, version, blob_sha256),
    FOREIGN KEY (package_id, version) REFERENCES versions(package_id, version)
  );
  CREATE INDEX version_blobs_by_blob ON version_blobs(blob_sha256);
  -- Each package's search document (the four FTS5 columns of the SQLite store) and its term
  -- counts, from search-terms.ts (spec/registry.md §8: ranking over what the caller may see).
  CREATE TABLE package_search (
    package_id  BIGINT PRIMARY KEY REFERENCES packages(id),
    full_name   TEXT NOT NULL,
    description TEXT NOT NULL,
    tags        TEXT NOT NULL,
    body        TEXT NOT NULL,
    length      INTEGER NOT NULL CHECK (length >= 0)
  );
  CREATE TABLE search_terms (
    term       TEXT COLLATE "C" NOT NULL,
    package_id BIGINT NOT NULL REFERENCES packages(id),
    col        INTEGER NOT NULL CHECK (col BETWEEN 0 AND 3),
    hits       INTEGER NOT NULL CHECK (hits > 0),
    PRIMARY KEY (term, package_id, col)
  );
  CREATE INDEX search_terms_by_package ON search_terms(package_id);
  CREATE TABLE events (
    id        BIGSERIAL PRIMARY KEY,
    at        TEXT NOT NULL,
    action    TEXT NOT NULL,
    namespace TEXT COLLATE "C" NOT NULL,
    name      TEXT,
    version   TEXT,
    actor     TEXT NOT NULL,
    detail    TEXT
  );
  CREATE INDEX events_by_namespace ON events(namespace, id);
  `,
  // 2: the transparency log (pg-tlog.ts, spec/transparency.md).
  TLOG_MIGRATION,
  // 3: token roles `owner` and `admin` (an admin token belongs to no namespace) and registry-wide
  // events (gc, an admin token's creation) without a namespace — SQLite schema 5.
  `
  ALTER TABLE tokens DROP CONSTRAINT tokens_scope_check;
  ALTER TABLE tokens ADD CONSTRAINT tokens_scope_check CHECK (scope IN ('publish', 'read', 'owner', 'admin'));
  ALTER TABLE tokens ALTER COLUMN namespace DROP NOT NULL;
  ALTER TABLE tokens ADD CONSTRAINT tokens_admin_has_no_namespace CHECK ((scope = 'admin') = (namespace IS NULL));
  ALTER TABLE events ALTER COLUMN namespace DROP NOT NULL;
  `,
  // 6: a signer key an owner token added is recorded as `owner` (SQLite schema 6).
  `
  ALTER TABLE signer_keys DROP CONSTRAINT signer_keys_added_by_check;
  ALTER TABLE signer_keys ADD CONSTRAINT signer_keys_added_by_check CHECK (added_by IN ('first-publish', 'admin', 'owner'));
  `,
];

/** The schema this code writes (the number of migrations). */
export const PG_SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Bring the database to `PG_SCHEMA_VERSION`. Idempotent and safe to run from several processes
 * at once. Throws `E_ENVIRONMENT` (exit 9) when the database is newer than this code: a node
 * older than the database is a deployment to fix, not a bug (migrations never run down).
 */
export async function migrate(client: PoolClient): Promise<{ from: number; to: number }> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK.toString()]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    const r = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
    const from = Number(r.rows[0]?.v ?? 0);
    if (from > PG_SCHEMA_VERSION) {
      throw new CtxpkgError('E_ENVIRONMENT', `the registry database has schema ${from}, newer than this ctxpkg knows (${PG_SCHEMA_VERSION}): a newer ctxpkg has migrated it`, {
        hint: 'upgrade ctxpkg on this node to the version the other nodes run; a database is never migrated down, so to go back restore a backup made before the upgrade into a new database',
      });
    }
    for (let v = from; v < PG_SCHEMA_VERSION; v++) {
      await client.query(MIGRATIONS[v] as string);
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [v + 1]);
    }
    await client.query('COMMIT');
    return { from, to: PG_SCHEMA_VERSION };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
