/**
 * Owner/operator functions that work directly on a store (spec/registry.md "Bootstrap and
 * administration"): namespaces, tokens, signer keys, package visibility, garbage collection.
 * They are safe while servers run on the same data (SQLite WAL + busy timeout; PostgreSQL
 * transactions) and are what `ctxpkg registry namespace|token|key|visibility …` call.
 *
 * Each function takes `{ dataDir }` or `{ db }` (opens and closes the store) or an open `{ store }`.
 */
import { CtxpkgError, hexToBytes, logVerifierKey, parsePackageName, validateNamespaceClaim } from '@ctxpkg/format';
import { verifyRegistryLog, type LogVerifyReport } from './tlog/replay.js';
import { generateToken, hashToken, TOKEN_PATTERN } from './auth.js';
import { isoNow } from './context.js';
import { openStore } from './store/open.js';
import type { AuditEvent, NamespaceRecord, PackageRecord, RegistryStore, SignerKeyRecord, TokenRecord, TokenScope, Visibility } from './store/types.js';

/** Where an admin function works: a data directory, a PostgreSQL URL, or an open store. */
export type AdminTarget = ({ dataDir: string } | { db: string } | { store: RegistryStore }) & { clock?: () => Date };

async function withStore<T>(target: AdminTarget, fn: (store: RegistryStore, now: Date) => Promise<T>): Promise<T> {
  const now = (target.clock ?? (() => new Date()))();
  if ('store' in target) return fn(target.store, now);
  const store = await openStore('db' in target ? { db: target.db } : { dataDir: target.dataDir });
  try {
    return await fn(store, now);
  } finally {
    await store.close();
  }
}

const DURATION = /^([1-9][0-9]{0,5})([mhdw])$/;
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * Parse an expiry: `never`, a duration (`90m`, `12h`, `30d`, `8w`) from `now`, or an RFC 3339
 * timestamp in the future. Returns the RFC 3339 expiry or null (never). Throws `E_USAGE`.
 */
export function parseExpiry(text: string | undefined, now: Date): string | null {
  if (text === undefined || text === 'never') return null;
  const m = DURATION.exec(text);
  if (m) return isoNow(new Date(now.getTime() + Number(m[1]) * UNIT_MS[m[2]]));
  const t = Date.parse(text);
  if (/^\d{4}-\d{2}-\d{2}T/.test(text) && Number.isFinite(t)) {
    if (t <= now.getTime()) throw new CtxpkgError('E_USAGE', `the expiry ${text} is in the past`);
    return isoNow(new Date(t));
  }
  throw new CtxpkgError('E_USAGE', `invalid expiry ${JSON.stringify(text)}`, { hint: 'use never, 90m, 12h, 30d, 8w or an RFC 3339 time' });
}

/** Claim a namespace. Throws `E_INVALID_NAME`, `E_RESERVED_NAMESPACE` (HB-22) or `E_EXISTS`. */
export async function createNamespace(target: AdminTarget, namespace: string, owner = 'admin'): Promise<NamespaceRecord> {
  validateNamespaceClaim(namespace);
  return withStore(target, async (store, now) => {
    const rec = await store.createNamespace({ name: namespace, owner, created_at: isoNow(now) });
    await store.recordEvent({ at: rec.created_at, action: 'namespace:create', namespace, name: null, version: null, actor: 'admin', detail: owner });
    return rec;
  });
}

export async function listNamespaces(target: AdminTarget): Promise<NamespaceRecord[]> {
  return withStore(target, (store) => store.listNamespaces());
}

/** A created token: `token` is the secret, shown once and stored nowhere. */
export interface CreatedToken {
  token: string;
  id: string;
  namespace: string;
  scope: TokenScope;
  expires_at: string | null;
}

/** Create a token for a namespace. Throws `E_NOT_FOUND` (no such namespace) or `E_USAGE`. */
export async function createToken(
  target: AdminTarget,
  opts: { namespace: string; scope: TokenScope; expires?: string; label?: string },
): Promise<CreatedToken> {
  if (opts.scope !== 'publish' && opts.scope !== 'read') throw new CtxpkgError('E_USAGE', 'scope must be publish or read');
  return withStore(target, async (store, now) => {
    const expires_at = parseExpiry(opts.expires, now);
    const { token, sha256, id } = generateToken(opts.scope);
    await store.insertToken({
      id, token_sha256: sha256, namespace: opts.namespace, scope: opts.scope, label: opts.label ?? null,
      created_at: isoNow(now), expires_at, revoked_at: null,
    });
    await store.recordEvent({ at: isoNow(now), action: `token:create:${opts.scope}`, namespace: opts.namespace, name: null, version: null, actor: 'admin', detail: id });
    return { token, id, namespace: opts.namespace, scope: opts.scope, expires_at };
  });
}

/** Revoke a token given its id (`tok_…`) or its text. Throws `E_NOT_FOUND`. */
export async function revokeToken(target: AdminTarget, idOrToken: string): Promise<TokenRecord> {
  const key = TOKEN_PATTERN.test(idOrToken) ? hashToken(idOrToken) : idOrToken;
  return withStore(target, async (store, now) => {
    const rec = await store.revokeToken(key, isoNow(now));
    await store.recordEvent({ at: isoNow(now), action: 'token:revoke', namespace: rec.namespace, name: null, version: null, actor: 'admin', detail: rec.id });
    return rec;
  });
}

export async function listTokens(target: AdminTarget, namespace?: string): Promise<TokenRecord[]> {
  return withStore(target, (store) => store.listTokens(namespace));
}

function checkKey(publicKey: string): string {
  if (!/^[0-9a-f]{64}$/.test(publicKey)) {
    throw new CtxpkgError('E_KEY', 'a signer key is 64 lowercase hex characters (an Ed25519 public key)', {
      hint: 'print yours with `ctxpkg keygen` or read `signature.public_key` of a signed package',
    });
  }
  return publicKey;
}

/** Register a signer key for a namespace. Throws `E_KEY` or `E_NOT_FOUND`. */
export async function addSignerKey(target: AdminTarget, namespace: string, publicKey: string): Promise<SignerKeyRecord> {
  checkKey(publicKey);
  return withStore(target, async (store, now) => {
    const rec = await store.addSignerKey(namespace, publicKey, isoNow(now));
    await store.recordEvent({ at: isoNow(now), action: 'key:add', namespace, name: null, version: null, actor: 'admin', detail: publicKey });
    return rec;
  });
}

/** Revoke a signer key: later publishes signed with it are refused. Throws `E_KEY` or `E_NOT_FOUND`. */
export async function revokeSignerKey(target: AdminTarget, namespace: string, publicKey: string): Promise<SignerKeyRecord> {
  checkKey(publicKey);
  return withStore(target, async (store, now) => {
    const rec = await store.revokeSignerKey(namespace, publicKey, isoNow(now));
    await store.recordEvent({ at: isoNow(now), action: 'key:revoke', namespace, name: null, version: null, actor: 'admin', detail: publicKey });
    return rec;
  });
}

export async function listSignerKeys(target: AdminTarget, namespace: string): Promise<SignerKeyRecord[]> {
  return withStore(target, (store) => store.listSignerKeys(namespace));
}

/** Change a package's visibility (`@ns/name`). Throws `E_INVALID_NAME`, `E_USAGE` or `E_NOT_FOUND`. */
export async function setPackageVisibility(target: AdminTarget, fullName: string, visibility: Visibility): Promise<PackageRecord> {
  const ref = parsePackageName(fullName);
  if (visibility !== 'public' && visibility !== 'private') throw new CtxpkgError('E_USAGE', 'visibility must be public or private');
  return withStore(target, async (store, now) => {
    try {
      return await store.setPackageVisibility(ref.namespace, ref.name, visibility, isoNow(now), 'admin');
    } catch (err) {
      if (err instanceof CtxpkgError && err.code === 'E_NOT_FOUND') throw new CtxpkgError('E_NOT_FOUND', `package ${fullName} does not exist`);
      throw err;
    }
  });
}

/** The audit log, newest first: publishes, yanks, visibility, namespace, token and key changes. */
export async function listEvents(target: AdminTarget, opts: { namespace?: string; limit?: number } = {}): Promise<AuditEvent[]> {
  const limit = opts.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new CtxpkgError('E_USAGE', 'limit must be an integer from 1 to 10000');
  return withStore(target, (store) => store.auditEvents({ namespace: opts.namespace, limit }));
}

/** Remove unreferenced blobs older than `graceMs` (default 1 hour). Returns the count removed. */
export async function collectGarbage(target: AdminTarget, graceMs = 3_600_000): Promise<{ removed: number }> {
  return withStore(target, (store, now) => store.collectGarbage({ graceMs, now: now.getTime() }));
}

/**
 * Replay the transparency log against the database and blobs (`ctxpkg registry log verify`,
 * spec/transparency.md §7). Returns the report; `problems` is empty when everything agrees.
 */
export async function verifyLog(target: AdminTarget): Promise<LogVerifyReport> {
  return withStore(target, (store) => verifyRegistryLog(store));
}

/** The log's origin, verifier key (vkey) and size (`ctxpkg registry log key`): what clients pin. */
export async function logKey(target: AdminTarget): Promise<{ origin: string; key: string; size: number }> {
  return withStore(target, async (store) => {
    const i = await store.log.info();
    return { origin: i.origin, key: logVerifierKey(i.origin, hexToBytes(i.public_key)), size: i.size };
  });
}
