/**
 * SQLite schema of the embedded registry store (spec/registry.md "Storage").
 *
 * The immutability guarantees are constraints, so they hold whatever the application code does:
 * `UNIQUE (package_id, version)` and `UNIQUE (package_id, precedence_key)` on versions, and no
 * code path deletes a version row. The same DDL translates directly to PostgreSQL (the FTS table
 * becomes a tsvector column with a GIN index).
 */
export const SCHEMA_VERSION = 6;
// Schema 4: the transparency log tables (sqlite-tlog.ts `TLOG_SCHEMA_SQL`, spec/transparency.md);
// an older ctxpkg would change state without logging it.
// Schema 5: token roles `owner` and `admin` (an admin token has no namespace) and registry-wide
// events (no namespace) — `UPGRADE_TO_5_SQL` rebuilds `tokens` and `events`; an older ctxpkg
// would read an owner token as a read token.
// Schema 6: a signer key's `added_by` is the role that added it — `owner` besides `first-publish`
// and `admin` (a key an owner token added read "admin") — `UPGRADE_TO_6_SQL` rebuilds
// `signer_keys`; an older ctxpkg would read an owner's key as a first-publish key.

/** The signer_keys table (schema 6): who added a key — the first publish, an admin, or an owner. */
const SIGNER_KEYS_DDL = (table: string): string => `CREATE TABLE IF NOT EXISTS ${table} (
  namespace  TEXT NOT NULL REFERENCES namespaces(name),
  public_key TEXT NOT NULL CHECK (length(public_key) = 64),
  added_at   TEXT NOT NULL,
  added_by   TEXT NOT NULL CHECK (added_by IN ('first-publish', 'admin', 'owner')),
  revoked_at TEXT,
  PRIMARY KEY (namespace, public_key)
);`;

/**
 * Schema 5 → 6, in one transaction: `signer_keys` rebuilt with `owner` allowed in `added_by`
 * (SQLite cannot alter a CHECK constraint); rows copied as they are (a key an owner added before
 * schema 6 stays `admin`: the table did not record the difference).
 */
export const UPGRADE_TO_6_SQL = `
${SIGNER_KEYS_DDL('signer_keys_v6')}
INSERT INTO signer_keys_v6 (namespace, public_key, added_at, added_by, revoked_at)
  SELECT namespace, public_key, added_at, added_by, revoked_at FROM signer_keys;
DROP TABLE signer_keys;
ALTER TABLE signer_keys_v6 RENAME TO signer_keys;
`;

/** The tokens table (schema 5): four scopes; the namespace is null exactly for an admin token. */
const TOKENS_DDL = (table: string): string => `CREATE TABLE IF NOT EXISTS ${table} (
  id           TEXT PRIMARY KEY,
  token_sha256 TEXT NOT NULL UNIQUE CHECK (length(token_sha256) = 64),
  namespace    TEXT REFERENCES namespaces(name),
  scope        TEXT NOT NULL CHECK (scope IN ('publish', 'read', 'owner', 'admin')),
  label        TEXT,
  created_at   TEXT NOT NULL,
  expires_at   TEXT,
  revoked_at   TEXT,
  CHECK ((scope = 'admin') = (namespace IS NULL))
);`;

/** The events table (schema 5): `namespace` is null for registry-wide actions. */
const EVENTS_DDL = (table: string): string => `CREATE TABLE IF NOT EXISTS ${table} (
  id        INTEGER PRIMARY KEY,
  at        TEXT NOT NULL,
  action    TEXT NOT NULL,
  namespace TEXT,
  name      TEXT,
  version   TEXT,
  actor     TEXT NOT NULL,
  detail    TEXT
);`;

/**
 * Schema 4 → 5, in one transaction: SQLite cannot alter a CHECK or NOT NULL constraint, so
 * `tokens` and `events` are rebuilt with the schema-5 definitions and their rows copied (ids kept).
 */
export const UPGRADE_TO_5_SQL = `
${TOKENS_DDL('tokens_v5')}
INSERT INTO tokens_v5 (id, token_sha256, namespace, scope, label, created_at, expires_at, revoked_at)
  SELECT id, token_sha256, namespace, scope, label, created_at, expires_at, revoked_at FROM tokens;
DROP TABLE tokens;
ALTER TABLE tokens_v5 RENAME TO tokens;
CREATE INDEX IF NOT EXISTS tokens_by_namespace ON tokens(namespace);
${EVENTS_DDL('events_v5')}
INSERT INTO events_v5 (id, at, action, namespace, name, version, actor, detail)
  SELECT id, at, action, namespace, name, version, actor, detail FROM events;
DROP TABLE events;
ALTER TABLE events_v5 RENAME TO events;
CREATE INDEX IF NOT EXISTS events_by_namespace ON events(namespace, id);
`;

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS namespaces (
  name       TEXT PRIMARY KEY,
  owner      TEXT NOT NULL,
  created_at TEXT NOT NULL
);

${TOKENS_DDL('tokens')}
CREATE INDEX IF NOT EXISTS tokens_by_namespace ON tokens(namespace);

${SIGNER_KEYS_DDL('signer_keys')}

CREATE TABLE IF NOT EXISTS packages (
  id             INTEGER PRIMARY KEY,
  namespace      TEXT NOT NULL REFERENCES namespaces(name),
  name           TEXT NOT NULL,
  visibility     TEXT NOT NULL CHECK (visibility IN ('public', 'private')),
  latest_version TEXT,
  description    TEXT NOT NULL DEFAULT '',
  tags_json      TEXT NOT NULL DEFAULT '[]',
  revision       INTEGER NOT NULL DEFAULT 0,
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL,
  UNIQUE (namespace, name)
);

CREATE TABLE IF NOT EXISTS versions (
  package_id        INTEGER NOT NULL REFERENCES packages(id),
  version           TEXT NOT NULL,
  precedence_key    TEXT NOT NULL,
  artifact_sha256   TEXT NOT NULL CHECK (length(artifact_sha256) = 64),
  size_bytes        INTEGER NOT NULL CHECK (size_bytes > 0),
  integrity_sha256  TEXT NOT NULL,
  signer_public_key TEXT NOT NULL,
  description       TEXT NOT NULL,
  tags_json         TEXT NOT NULL,
  dependencies_json TEXT NOT NULL,
  search_text       TEXT NOT NULL,
  trust_report_json TEXT NOT NULL,
  yanked            INTEGER NOT NULL DEFAULT 0 CHECK (yanked IN (0, 1)),
  yanked_at         TEXT,
  published_at      TEXT NOT NULL,
  published_by      TEXT NOT NULL,
  UNIQUE (package_id, version),
  UNIQUE (package_id, precedence_key)
);
CREATE INDEX IF NOT EXISTS versions_by_artifact ON versions(artifact_sha256);

-- Schema 2: the blobs of ZIP-form packages (spec/archive.md §4), one row per version and blob.
-- The blob bytes live in the blob directory under their SHA-256, next to the artifacts.
CREATE TABLE IF NOT EXISTS version_blobs (
  package_id  INTEGER NOT NULL,
  version     TEXT NOT NULL,
  blob_sha256 TEXT NOT NULL CHECK (length(blob_sha256) = 64),
  size_bytes  INTEGER NOT NULL CHECK (size_bytes >= 0),
  PRIMARY KEY (package_id, version, blob_sha256),
  FOREIGN KEY (package_id, version) REFERENCES versions(package_id, version)
);
CREATE INDEX IF NOT EXISTS version_blobs_by_blob ON version_blobs(blob_sha256);

CREATE VIRTUAL TABLE IF NOT EXISTS package_search USING fts5(
  full_name, description, tags, body,
  tokenize = 'unicode61 remove_diacritics 2'
);

-- Schema 3: term counts of each package's search document, so that search ranks with statistics
-- over the packages the caller may see (sqlite-rank.ts; FTS5's bm25 would count private rows).
CREATE TABLE IF NOT EXISTS search_terms (
  term       TEXT NOT NULL,
  package_id INTEGER NOT NULL,
  col        INTEGER NOT NULL CHECK (col BETWEEN 0 AND 3),
  hits       INTEGER NOT NULL CHECK (hits > 0),
  PRIMARY KEY (term, package_id, col)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS search_terms_by_package ON search_terms(package_id);
CREATE TABLE IF NOT EXISTS search_docs (
  package_id INTEGER PRIMARY KEY,
  length     INTEGER NOT NULL CHECK (length >= 0)
);

${EVENTS_DDL('events')}
CREATE INDEX IF NOT EXISTS events_by_namespace ON events(namespace, id);
`;
