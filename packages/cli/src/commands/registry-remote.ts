/**
 * `ctxpkg registry … --registry URL`: the admin subcommands over the registry's admin routes
 * (spec/registry.md §14.1), for an operator or a namespace owner on a laptop. The token is the one
 * every other command sends to that registry — saved by `ctxpkg login --registry URL`, or
 * `CTXPKG_TOKEN` (bound to `--registry`) — and must be an admin (`ctxa_`) or owner (`ctxo_`) token;
 * the server checks the role per route. Answers have the same shapes as the local admin functions,
 * so both paths print the same lines and JSON.
 *
 * A token to revoke given as its text is hashed here: only its SHA-256 travels. The token text of a
 * created token is the one secret an answer carries; it goes to stdout once and nowhere else.
 */
import { createHash } from 'node:crypto';
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { CliDeps } from '../deps.js';
import { errorBody, isObject, responseError, tokenScopeOf } from '../client-errors.js';
import { readText } from '../http-limits.js';
import { withAdminHint } from './registry-admin.js';

/** Largest admin answer read (bytes, decoded): 10,000 events or tokens fit easily. */
const MAX_ADMIN_ANSWER_BYTES = 16 * 1024 * 1024;

/** A token record as the admin routes and `listTokens` give it (never the secret or its hash). */
export interface TokenInfo {
  id: string;
  namespace: string | null;
  scope: string;
  label: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

/** The operations every admin subcommand needs, local (`--data`/`--db`) or remote (`--registry`). */
export interface AdminOps {
  /** Where the commands act, for messages: the data directory, the database or the registry URL. */
  readonly where: string;
  readonly remote: boolean;
  createNamespace(name: string, owner: string): Promise<{ name: string; owner: string; created_at: string }>;
  listNamespaces(): Promise<Array<{ name: string; owner: string; created_at: string }>>;
  createToken(o: { namespace: string | null; scope: string; expires?: string; label?: string }): Promise<{
    token: string; id: string; namespace: string | null; scope: string; label: string | null; expires_at: string | null;
  }>;
  revokeToken(idOrToken: string): Promise<TokenInfo>;
  listTokens(namespace?: string): Promise<TokenInfo[]>;
  addKey(namespace: string, key: string): Promise<KeyInfo>;
  revokeKey(namespace: string, key: string): Promise<KeyInfo>;
  listKeys(namespace: string): Promise<KeyInfo[]>;
  setVisibility(full: string, visibility: 'public' | 'private'): Promise<{ namespace: string; name: string; visibility: string }>;
  events(o: { namespace?: string; limit: number }): Promise<EventInfo[]>;
  gc(graceMs: number): Promise<{ removed: number }>;
}

export interface KeyInfo {
  namespace: string;
  public_key: string;
  added_at: string;
  added_by: string;
  revoked_at: string | null;
}

export interface EventInfo {
  at: string;
  action: string;
  namespace: string | null;
  name: string | null;
  version: string | null;
  actor: string;
  detail: string | null;
}

/** The SHA-256 of a token's text (what `DELETE /v1/admin/tokens/{…}` takes instead of the text). */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const TOKEN_TEXT = /^ctx[a-z]_[A-Za-z0-9_-]{43}$/;

/**
 * Admin operations on the registry at `registryFlag` with the token configured for it: when the
 * command is about one `namespace` (`acme` or `@acme`), the token saved for that scope on the
 * registry; else (or when it has none) the token of requests about no package — the registry-wide
 * one, else the only scoped one (config.ts `tokenFor`, `savedTokenEntry`). Throws `E_USAGE` (bad URL) and,
 * before any request, `E_AUTH` when no token is configured for it.
 */
export async function remoteAdmin(registryFlag: string, deps: CliDeps, namespace?: string): Promise<AdminOps> {
  const { registrySettings, tokenFor } = await import('../config.js');
  const { RegistryClient } = await import('../client.js');
  const settings = registrySettings(deps, registryFlag);
  const registry = settings.flag as string;
  // The namespace's own token, else the token of requests about no package (an owner of @acme
  // asking about @beta gets the registry's own refusal, not a silent anonymous request).
  const asked = namespace ? `@${namespace.replace(/^@/, '')}` : undefined;
  const tokenScope = asked !== undefined && tokenFor(registry, settings, asked) !== undefined ? asked : undefined;
  const token = tokenFor(registry, settings, tokenScope);
  if (token === undefined) {
    throw new CtxpkgError('E_AUTH', `no token for ${registry}: administering a registry remotely needs an admin (ctxa_) or namespace-owner (ctxo_) token`, {
      hint: `save it with \`ctxpkg login --registry ${registry}\` (reads the token from stdin) or set CTXPKG_TOKEN for this command; on the server, an operator creates one with \`ctxpkg registry token create --scope admin --data <dir>\` (or --scope owner --namespace <ns>)`,
    });
  }
  const client = new RegistryClient({ fetch: deps.fetch, settings });
  const scope = tokenScopeOf(token);

  async function call(method: string, path: string, what: string, body?: unknown): Promise<unknown> {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { 'content-type': 'application/json' };
    }
    const res = await client.request(registry, path, init, tokenScope);
    if (!res.ok) {
      const b = await errorBody(res);
      if (res.status === 404 && b.code === undefined) {
        throw new CtxpkgError('E_REGISTRY', `${registry} has no admin routes (GET ${path} answered 404): it is not a ctxpkg registry of this version`, {
          hint: 'check the URL (the API base `ctxpkg registry serve` prints, ending in /api) and upgrade the registry',
        });
      }
      if (res.status === 404) throw withAdminHint(new CtxpkgError('E_NOT_FOUND', `${registry}: ${b.message ?? 'not found'}`, b.hint ? { hint: b.hint } : {}), { registry });
      if (res.status === 409 || (res.status === 400 && b.code !== 'E_FORBIDDEN')) {
        const hinted = withAdminHint(new CtxpkgError(b.code ?? 'E_REGISTRY', b.message ?? `HTTP ${res.status}`, b.hint ? { hint: b.hint } : {}), { registry }) as CtxpkgError;
        throw new CtxpkgError(hinted.code, `${registry} refused to ${what}: ${hinted.message}`, {
          ...(hinted.hint ? { hint: hinted.hint } : {}),
          ...(b.details ? { details: b.details } : {}),
        });
      }
      if (res.status === 401) {
        throw new CtxpkgError('E_AUTH', `${registry} refused the ${scope ?? ''} token sent to ${what}: ${b.message ?? 'unknown, revoked or expired'}`.replace('  ', ' '), {
          hint: b.hint ?? `save a live admin or owner token with \`ctxpkg login --registry ${registry}\` or CTXPKG_TOKEN`,
        });
      }
      throw responseError(res.status, b, { registry, what, sentToken: true, tokenScope: scope });
    }
    const text = await readText(res, MAX_ADMIN_ANSWER_BYTES, `the answer to ${what}`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new CtxpkgError('E_REGISTRY', `${registry} answered ${what} with something that is not JSON`);
    }
  }
  const obj = (v: unknown, what: string): Record<string, unknown> => {
    if (!isObject(v)) throw new CtxpkgError('E_REGISTRY', `${registry} answered ${what} with an unexpected document`);
    return v;
  };
  const list = <T>(v: unknown, key: string, what: string): T[] => {
    const arr = obj(v, what)[key];
    if (!Array.isArray(arr)) throw new CtxpkgError('E_REGISTRY', `${registry} answered ${what} without a ${key} list`);
    return arr as T[];
  };
  const seg = encodeURIComponent;

  return {
    where: registry,
    remote: true,
    createNamespace: async (name, owner) => obj(await call('POST', '/v1/admin/namespaces', `create namespace ${name}`, { name, owner }), 'namespace create') as never,
    listNamespaces: async () => list(await call('GET', '/v1/admin/namespaces', 'list namespaces'), 'namespaces', 'namespace list'),
    createToken: async (o) => {
      const body: Record<string, unknown> = { scope: o.scope };
      if (o.namespace !== null) body.namespace = o.namespace;
      if (o.expires !== undefined) body.expires = o.expires;
      if (o.label !== undefined) body.label = o.label;
      const t = obj(await call('POST', '/v1/admin/tokens', `create ${/^[aeiou]/.test(o.scope) ? 'an' : 'a'} ${o.scope} token`, body), 'token create');
      if (typeof t.token !== 'string' || !TOKEN_TEXT.test(t.token)) throw new CtxpkgError('E_REGISTRY', `${registry} answered the token creation without a token`);
      return t as never;
    },
    revokeToken: async (idOrToken) => {
      const key = TOKEN_TEXT.test(idOrToken) ? tokenHash(idOrToken) : idOrToken;
      if (!/^tok_[0-9a-f]{16}$/.test(key) && !/^[0-9a-f]{64}$/.test(key)) {
        throw new CtxpkgError('E_USAGE', 'name the token by its id (tok_ + 16 hex) or give the token itself', { hint: 'list the ids with `ctxpkg registry token list`' });
      }
      return obj(await call('DELETE', `/v1/admin/tokens/${seg(key)}`, `revoke token ${TOKEN_TEXT.test(idOrToken) ? '(given by its text)' : key}`), 'token revoke') as never;
    },
    listTokens: async (namespace) => list(await call('GET', `/v1/admin/tokens${namespace ? `?namespace=${seg(namespace)}` : ''}`, 'list tokens'), 'tokens', 'token list'),
    addKey: async (ns, key) => obj(await call('POST', `/v1/admin/namespaces/${seg(ns)}/keys`, `add a signer key to ${ns}`, { public_key: key }), 'key add') as never,
    revokeKey: async (ns, key) => obj(await call('DELETE', `/v1/admin/namespaces/${seg(ns)}/keys/${seg(key)}`, `revoke a signer key of ${ns}`), 'key revoke') as never,
    listKeys: async (ns) => list(await call('GET', `/v1/admin/namespaces/${seg(ns)}/keys`, `list the signer keys of ${ns}`), 'keys', 'key list'),
    setVisibility: async (full, visibility) => {
      const m = /^@([^/]+)\/(.+)$/.exec(full);
      if (!m) throw new CtxpkgError('E_INVALID_NAME', `expected @namespace/name, got ${JSON.stringify(full)}`);
      return obj(await call('PUT', `/v1/admin/packages/${seg(m[1] as string)}/${seg(m[2] as string)}/visibility`, `make ${full} ${visibility}`, { visibility }), 'visibility') as never;
    },
    events: async (o) => list(await call('GET', `/v1/admin/events?limit=${o.limit}${o.namespace ? `&namespace=${seg(o.namespace)}` : ''}`, 'read the events'), 'events', 'events'),
    gc: async (graceMs) => obj(await call('POST', '/v1/admin/gc', 'collect garbage', { grace_seconds: Math.round(graceMs / 1000) }), 'gc') as never,
  };
}
