/**
 * Owner/operator functions (spec/registry.md §14 "Administration"): namespaces, tokens, signer
 * keys, package visibility, events, garbage collection. They are safe while servers run on the
 * same data (SQLite WAL + busy timeout; PostgreSQL transactions) and are what
 * `ctxpkg registry namespace|token|key|visibility|events|gc …` call — locally on the store, and
 * on the server behind the admin routes (routes/admin.ts) for `--registry URL`.
 *
 * Each function takes `{ dataDir }` or `{ db }` (opens and closes the store) or an open `{ store }`,
 * plus an optional `caller`: the token a remote administrator authenticated with. Without one the
 * caller is the local operator (full rights, recorded as `local admin`); with one, the role rules
 * of auth.ts apply (`requireAdmin`, `requireOwner`: 403 `E_FORBIDDEN`) before anything is read,
 * and the token id is recorded. Every change lands in the events log: who, what, when.
 */
import { CtxpkgError, hexToBytes, logVerifierKey, parsePackageName, validateNamespaceClaim } from '@ctxpkg/format';
import { verifyRegistryLog, type LogVerifyReport } from './tlog/replay.js';
import { generateToken, hashToken, requireAdmin, requireOwner, TOKEN_PATTERN, type Principal } from './auth.js';
import { isoNow } from './context.js';
import { openStore } from './store/open.js';
import type { AuditEvent, NamespaceRecord, PackageRecord, RegistryStore, SignerKeyRecord, TokenRecord, TokenScope, Visibility } from './store/types.js';

/**
 * Where an admin function works (a data directory, a PostgreSQL URL, or an open store) and who
 * asks: `caller` is the authenticated token of a remote administrator; absent for the local operator.
 */
export type AdminTarget = ({ dataDir: string } | { db: string } | { store: RegistryStore }) & { clock?: () => Date; caller?: Principal };

/** The events log's name for the local operator (admin functions run on the store itself). */
export const LOCAL_ADMIN = 'local admin';

/** Who acts, as the events log records it: the caller's token id, or `local admin`. */
function actorOf(target: AdminTarget): string {
  return target.caller ? target.caller.tokenId : LOCAL_ADMIN;
}

/** A not-found an authorised administrator may read in full (the routes answer it as is). */
function notFound(message: string, hint?: string): CtxpkgError {
  return new CtxpkgError('E_NOT_FOUND', message, { ...(hint ? { hint } : {}), details: { public: true } });
}

/** Re-throw a store's `E_NOT_FOUND` with its message visible to the (authorised) caller. */
async function showNotFound<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof CtxpkgError && err.code === 'E_NOT_FOUND' && err.details?.public !== true) throw notFound(err.message, err.hint);
    throw err;
  }
}

/**
 * `E_NOT_FOUND` ("namespace zz does not exist", visible to the authorised caller) when `namespace`
 * was never created: a list of its tokens, keys or events would otherwise answer an empty list
 * ("no keys (the first publish records one)") for a typo in the namespace.
 */
async function requireNamespace(store: RegistryStore, namespace: string): Promise<void> {
  if ((await store.getNamespace(namespace)) === null) throw notFound(`namespace ${namespace} does not exist`);
}

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

/**
 * What a label (token label, namespace owner) may not hold: C0 and C1 controls and DEL (newlines,
 * tabs, ESC and CSI rewrite the rows of `token list`, `namespace list` and `events` in a terminal),
 * the line and paragraph separators, and the bidi controls that reorder a printed row.
 */
const UNSAFE_LABEL = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** Claim a namespace. Throws `E_INVALID_NAME`, `E_RESERVED_NAMESPACE` (HB-22) or `E_EXISTS`. */
export async function createNamespace(target: AdminTarget, namespace: string, owner = 'admin'): Promise<NamespaceRecord> {
  requireAdmin(target.caller, 'creating a namespace');
  validateNamespaceClaim(namespace);
  if (typeof owner !== 'string' || owner.length === 0 || owner.length > 200 || UNSAFE_LABEL.test(owner)) {
    throw new CtxpkgError('E_USAGE', 'the owner label must be 1 to 200 characters, without control characters, line separators or bidi controls');
  }
  return withStore(target, async (store, now) => {
    const rec = await store.createNamespace({ name: namespace, owner, created_at: isoNow(now) });
    await store.recordEvent({ at: rec.created_at, action: 'namespace:create', namespace, name: null, version: null, actor: actorOf(target), detail: owner });
    return rec;
  });
}

/** Every namespace (an owner token sees only its own). Throws `E_FORBIDDEN` for publish and read tokens. */
export async function listNamespaces(target: AdminTarget): Promise<NamespaceRecord[]> {
  const c = target.caller;
  if (c && c.scope === 'owner') return withStore(target, async (store) => (await store.listNamespaces()).filter((n) => n.name === c.namespace));
  requireAdmin(c, 'listing namespaces');
  return withStore(target, (store) => store.listNamespaces());
}

/** A created token: `token` is the secret, shown once and stored nowhere. */
export interface CreatedToken {
  token: string;
  id: string;
  /** null for an admin token. */
  namespace: string | null;
  scope: TokenScope;
  label: string | null;
  expires_at: string | null;
}

const SCOPES: readonly TokenScope[] = ['read', 'publish', 'owner', 'admin'];

/**
 * Create a token: `read`, `publish` or `owner` of a namespace, or `admin` (no namespace). An owner
 * token may create read, publish and owner tokens of its own namespace, never an admin token.
 * Throws `E_USAGE` (scope, namespace given or missing, expiry, label), `E_FORBIDDEN`,
 * `E_NOT_FOUND` (no such namespace).
 */
export async function createToken(
  target: AdminTarget,
  opts: { namespace?: string | null; scope: TokenScope; expires?: string; label?: string | null },
): Promise<CreatedToken> {
  if (!SCOPES.includes(opts.scope)) throw new CtxpkgError('E_USAGE', `scope must be one of ${SCOPES.join(', ')}`);
  const namespace = opts.namespace ?? null;
  if (opts.scope === 'admin') {
    if (namespace !== null) throw new CtxpkgError('E_USAGE', 'an admin token belongs to no namespace; leave out --namespace');
    requireAdmin(target.caller, 'creating an admin token');
  } else {
    if (namespace === null) throw new CtxpkgError('E_USAGE', `a ${opts.scope} token belongs to a namespace; give --namespace <ns>`);
    requireOwner(target.caller, namespace, `creating a token of ${namespace}`);
  }
  const label = opts.label ?? null;
  if (label !== null && (typeof label !== 'string' || label.length > 200 || UNSAFE_LABEL.test(label))) {
    throw new CtxpkgError('E_USAGE', 'a token label is at most 200 characters, without control characters, line separators or bidi controls');
  }
  return withStore(target, async (store, now) => {
    const expires_at = parseExpiry(opts.expires, now);
    const { token, sha256, id } = generateToken(opts.scope);
    await showNotFound(store.insertToken({
      id, token_sha256: sha256, namespace, scope: opts.scope, label,
      created_at: isoNow(now), expires_at, revoked_at: null,
    }));
    await store.recordEvent({ at: isoNow(now), action: `token:create:${opts.scope}`, namespace, name: null, version: null, actor: actorOf(target), detail: id });
    return { token, id, namespace, scope: opts.scope, label, expires_at };
  });
}

/** `tok_` + 16 hex: a token id. */
const TOKEN_ID = /^tok_[0-9a-f]{16}$/;
/** 64 lowercase hex: the SHA-256 of a token's text (what a remote client sends instead of the text). */
const TOKEN_HASH = /^[0-9a-f]{64}$/;

/**
 * Revoke a token given its id (`tok_…`), its text, or the SHA-256 of its text (64 hex). An owner
 * token may revoke the tokens of its namespace; for any other token it answers `E_NOT_FOUND`,
 * as for one that does not exist. Idempotent. Throws `E_USAGE`, `E_NOT_FOUND`, `E_FORBIDDEN`.
 */
export async function revokeToken(target: AdminTarget, idOrToken: string): Promise<TokenRecord> {
  const key = TOKEN_PATTERN.test(idOrToken) ? hashToken(idOrToken) : idOrToken;
  if (!TOKEN_ID.test(key) && !TOKEN_HASH.test(key)) {
    throw new CtxpkgError('E_USAGE', 'name the token by its id (tok_ + 16 hex) or give the token itself', { hint: 'list the ids with `ctxpkg registry token list`' });
  }
  const c = target.caller;
  if (c && c.scope !== 'admin' && c.scope !== 'owner') requireAdmin(c, 'revoking a token');
  return withStore(target, async (store, now) => {
    if (c && c.scope === 'owner') {
      const own = await store.listTokens(c.namespace as string);
      if (!own.some((t) => t.id === key || t.token_sha256 === key)) throw notFound(`no token ${TOKEN_ID.test(key) ? key : '(given by its hash)'} in namespace ${String(c.namespace)}`, 'list your namespace\'s tokens with `ctxpkg registry token list`');
    }
    const rec = await showNotFound(store.revokeToken(key, isoNow(now)));
    await store.recordEvent({ at: isoNow(now), action: 'token:revoke', namespace: rec.namespace, name: null, version: null, actor: actorOf(target), detail: rec.id });
    return rec;
  });
}

/**
 * Tokens (ids and state; callers never show `token_sha256`). An owner token lists its namespace
 * (`namespace` must be its own or absent). Throws `E_FORBIDDEN`, `E_NOT_FOUND` (no such namespace).
 */
export async function listTokens(target: AdminTarget, namespace?: string): Promise<TokenRecord[]> {
  const c = target.caller;
  const ns = c && c.scope === 'owner' ? namespace ?? (c.namespace as string) : namespace;
  if (ns !== undefined) requireOwner(c, ns, `listing the tokens of ${ns}`);
  else requireAdmin(c, 'listing every token');
  return withStore(target, async (store) => {
    if (ns !== undefined) await requireNamespace(store, ns);
    return store.listTokens(ns);
  });
}

function checkKey(publicKey: string): string {
  if (!/^[0-9a-f]{64}$/.test(publicKey)) {
    throw new CtxpkgError('E_KEY', 'a signer key is 64 lowercase hex characters (an Ed25519 public key)', {
      hint: 'print yours with `ctxpkg keygen` or read `signature.public_key` of a signed package',
    });
  }
  return publicKey;
}

/** Register a signer key for a namespace. Throws `E_KEY`, `E_FORBIDDEN` or `E_NOT_FOUND`. */
export async function addSignerKey(target: AdminTarget, namespace: string, publicKey: string): Promise<SignerKeyRecord> {
  requireOwner(target.caller, namespace, `adding a signer key to ${namespace}`);
  checkKey(publicKey);
  return withStore(target, async (store, now) => {
    const rec = await showNotFound(store.addSignerKey(namespace, publicKey, isoNow(now), target.caller?.scope === 'owner' ? 'owner' : 'admin'));
    await store.recordEvent({ at: isoNow(now), action: 'key:add', namespace, name: null, version: null, actor: actorOf(target), detail: publicKey });
    return rec;
  });
}

/** Revoke a signer key: later publishes signed with it are refused. Throws `E_KEY`, `E_FORBIDDEN` or `E_NOT_FOUND`. */
export async function revokeSignerKey(target: AdminTarget, namespace: string, publicKey: string): Promise<SignerKeyRecord> {
  requireOwner(target.caller, namespace, `revoking a signer key of ${namespace}`);
  checkKey(publicKey);
  return withStore(target, async (store, now) => {
    const rec = await showNotFound(store.revokeSignerKey(namespace, publicKey, isoNow(now)));
    await store.recordEvent({ at: isoNow(now), action: 'key:revoke', namespace, name: null, version: null, actor: actorOf(target), detail: publicKey });
    return rec;
  });
}

/** The signer keys of a namespace. Throws `E_FORBIDDEN`, `E_NOT_FOUND` (no such namespace). */
export async function listSignerKeys(target: AdminTarget, namespace: string): Promise<SignerKeyRecord[]> {
  requireOwner(target.caller, namespace, `listing the signer keys of ${namespace}`);
  return withStore(target, async (store) => {
    await requireNamespace(store, namespace);
    return store.listSignerKeys(namespace);
  });
}

/**
 * Change a package's visibility (`@ns/name`, all its versions). Throws `E_INVALID_NAME`,
 * `E_USAGE`, `E_FORBIDDEN` or `E_NOT_FOUND`.
 */
export async function setPackageVisibility(target: AdminTarget, fullName: string, visibility: Visibility): Promise<PackageRecord> {
  const ref = parsePackageName(fullName);
  requireOwner(target.caller, ref.namespace, `changing the visibility of ${fullName}`);
  if (visibility !== 'public' && visibility !== 'private') throw new CtxpkgError('E_USAGE', 'visibility must be public or private');
  return withStore(target, async (store, now) => {
    try {
      return await store.setPackageVisibility(ref.namespace, ref.name, visibility, isoNow(now), actorOf(target));
    } catch (err) {
      if (err instanceof CtxpkgError && err.code === 'E_NOT_FOUND') throw notFound(`package ${fullName} does not exist`);
      throw err;
    }
  });
}

/**
 * The events log, newest first: publishes, yanks, visibility, namespace, token and key changes,
 * gc — each with who (token id or `local admin`), what and when. An owner token reads its own
 * namespace's events (`namespace` its own or absent); registry-wide events need an admin.
 * Throws `E_USAGE` (limit 1–10000), `E_FORBIDDEN`, `E_NOT_FOUND` (no such namespace).
 */
export async function listEvents(target: AdminTarget, opts: { namespace?: string; limit?: number } = {}): Promise<AuditEvent[]> {
  const limit = opts.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new CtxpkgError('E_USAGE', 'limit must be an integer from 1 to 10000');
  const c = target.caller;
  const namespace = c && c.scope === 'owner' ? opts.namespace ?? (c.namespace as string) : opts.namespace;
  if (namespace !== undefined) requireOwner(c, namespace, `reading the events of ${namespace}`);
  else requireAdmin(c, 'reading every event');
  return withStore(target, async (store) => {
    if (namespace !== undefined) await requireNamespace(store, namespace);
    return store.auditEvents({ namespace, limit });
  });
}

/**
 * Remove unreferenced blobs older than `graceMs` (default 1 hour; 0 to 3650 days). Admin only; the
 * run is recorded in the events log with the count removed. Throws `E_USAGE`, `E_FORBIDDEN`.
 */
export async function collectGarbage(target: AdminTarget, graceMs = 3_600_000): Promise<{ removed: number }> {
  requireAdmin(target.caller, 'garbage collection');
  if (!Number.isInteger(graceMs) || graceMs < 0 || graceMs > 3650 * 86_400_000) throw new CtxpkgError('E_USAGE', 'the grace period must be 0 to 3650 days');
  return withStore(target, async (store, now) => {
    const r = await store.collectGarbage({ graceMs, now: now.getTime() });
    await store.recordEvent({ at: isoNow(now), action: 'gc', namespace: null, name: null, version: null, actor: actorOf(target), detail: `removed ${r.removed}` });
    return r;
  });
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
