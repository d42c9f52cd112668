/**
 * Namespaces, tokens, signer keys and the audit log on a SQLite connection (used by
 * `SqliteStore`; see store/types.ts for the contract of each operation).
 */
import type Database from 'better-sqlite3';
import { CtxpkgError } from '@ctxpkg/format';
import { toEvent, toNamespace, toSignerKey, toToken, type Row } from './rows.js';
import { prepared } from './statements.js';
import type { AuditEvent, NamespaceRecord, PublishOutcome, SignerKeyRecord, TokenRecord } from './types.js';

type Db = Database.Database;

export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function createNamespace(db: Db, ns: NamespaceRecord): NamespaceRecord {
  try {
    prepared(db, 'INSERT INTO namespaces (name, owner, created_at) VALUES (?, ?, ?)').run(ns.name, ns.owner, ns.created_at);
  } catch (err) {
    if (isUniqueViolation(err)) throw new CtxpkgError('E_EXISTS', `namespace ${ns.name} already exists`);
    throw err;
  }
  return ns;
}

export function getNamespace(db: Db, name: string): NamespaceRecord | null {
  const r = prepared(db, 'SELECT * FROM namespaces WHERE name = ?').get(name) as Row | undefined;
  return r ? toNamespace(r) : null;
}

export function listNamespaces(db: Db): NamespaceRecord[] {
  return (prepared(db, 'SELECT * FROM namespaces ORDER BY name').all() as Row[]).map(toNamespace);
}

function requireNamespace(db: Db, name: string): void {
  if (!getNamespace(db, name)) throw new CtxpkgError('E_NOT_FOUND', `namespace ${name} does not exist`);
}

export function insertToken(db: Db, t: TokenRecord): void {
  if (t.namespace !== null) requireNamespace(db, t.namespace);
  prepared(
    db,
    `INSERT INTO tokens (id, token_sha256, namespace, scope, label, created_at, expires_at, revoked_at)
     VALUES (@id, @token_sha256, @namespace, @scope, @label, @created_at, @expires_at, @revoked_at)`,
  ).run(t);
}

export function findTokenByHash(db: Db, tokenSha256: string): TokenRecord | null {
  const r = prepared(db, 'SELECT * FROM tokens WHERE token_sha256 = ?').get(tokenSha256) as Row | undefined;
  return r ? toToken(r) : null;
}

export function revokeToken(db: Db, idOrHash: string, at: string): TokenRecord {
  const tx = db.transaction(() => {
    const r = prepared(db, 'SELECT * FROM tokens WHERE id = ? OR token_sha256 = ?').get(idOrHash, idOrHash) as Row | undefined;
    if (!r) throw new CtxpkgError('E_NOT_FOUND', `no token ${idOrHash}`, { hint: 'list tokens with `ctxpkg registry token list`' });
    if (r.revoked_at === null) prepared(db, 'UPDATE tokens SET revoked_at = ? WHERE id = ?').run(at, r.id);
    return toToken(prepared(db, 'SELECT * FROM tokens WHERE id = ?').get(r.id) as Row);
  });
  return tx.immediate();
}

export function listTokens(db: Db, namespace?: string): TokenRecord[] {
  const rows = namespace
    ? prepared(db, 'SELECT * FROM tokens WHERE namespace = ? ORDER BY created_at, id').all(namespace)
    : prepared(db, 'SELECT * FROM tokens ORDER BY namespace IS NOT NULL, namespace, created_at, id').all();
  return (rows as Row[]).map(toToken);
}

function getKey(db: Db, namespace: string, publicKey: string): SignerKeyRecord | null {
  const r = prepared(db, 'SELECT * FROM signer_keys WHERE namespace = ? AND public_key = ?').get(namespace, publicKey) as Row | undefined;
  return r ? toSignerKey(r) : null;
}

export function addSignerKey(db: Db, namespace: string, publicKey: string, at: string, addedBy: 'admin' | 'owner'): SignerKeyRecord {
  requireNamespace(db, namespace);
  prepared(
    db,
    `INSERT INTO signer_keys (namespace, public_key, added_at, added_by, revoked_at) VALUES (?, ?, ?, ?, NULL)
     ON CONFLICT (namespace, public_key) DO UPDATE SET revoked_at = NULL`,
  ).run(namespace, publicKey, at, addedBy);
  return getKey(db, namespace, publicKey) as SignerKeyRecord;
}

export function revokeSignerKey(db: Db, namespace: string, publicKey: string, at: string): SignerKeyRecord {
  const k = getKey(db, namespace, publicKey);
  if (!k) throw new CtxpkgError('E_NOT_FOUND', `key ${publicKey} is not registered for namespace ${namespace}`);
  if (k.revoked_at === null) {
    prepared(db, 'UPDATE signer_keys SET revoked_at = ? WHERE namespace = ? AND public_key = ?').run(at, namespace, publicKey);
  }
  return getKey(db, namespace, publicKey) as SignerKeyRecord;
}

export function listSignerKeys(db: Db, namespace: string): SignerKeyRecord[] {
  return (prepared(db, 'SELECT * FROM signer_keys WHERE namespace = ? ORDER BY added_at, public_key').all(namespace) as Row[]).map(toSignerKey);
}

/**
 * Inside the publish transaction: accept a registered, unrevoked key; record the first key of a
 * namespace that never had one (the events log names `actor`, the publishing token's id); otherwise throw `E_SIGNER_CHANGED` with the registered keys.
 */
export function checkSigner(db: Db, namespace: string, key: string, at: string, actor: string): PublishOutcome['signer'] {
  const keys = listSignerKeys(db, namespace);
  if (keys.length === 0) {
    prepared(db, "INSERT INTO signer_keys (namespace, public_key, added_at, added_by, revoked_at) VALUES (?, ?, ?, 'first-publish', NULL)").run(
      namespace,
      key,
      at,
    );
    insertEvent(db, { at, action: 'key:first-publish', namespace, name: null, version: null, actor, detail: key });
    return 'first-publish';
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

export function insertEvent(db: Db, ev: AuditEvent): void {
  prepared(db, 'INSERT INTO events (at, action, namespace, name, version, actor, detail) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    ev.at,
    ev.action,
    ev.namespace,
    ev.name,
    ev.version,
    ev.actor,
    ev.detail,
  );
}

export function auditEvents(db: Db, opts: { namespace?: string; limit: number }): AuditEvent[] {
  const rows = opts.namespace
    ? prepared(db, 'SELECT * FROM events WHERE namespace = ? ORDER BY id DESC LIMIT ?').all(opts.namespace, opts.limit)
    : prepared(db, 'SELECT * FROM events ORDER BY id DESC LIMIT ?').all(opts.limit);
  return (rows as Row[]).map(toEvent);
}
