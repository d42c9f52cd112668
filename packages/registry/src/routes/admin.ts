/**
 * Remote administration (spec/registry.md §14.1 "Admin routes"): the admin functions of admin.ts
 * over HTTP, for `ctxpkg registry … --registry URL` run from a laptop with an admin (`ctxa_`) or
 * namespace-owner (`ctxo_`) token.
 *
 *   GET    /v1/admin/namespaces                            → namespaces (an owner: its own)
 *   POST   /v1/admin/namespaces          {name, owner?}    → 201 the namespace (admin)
 *   GET    /v1/admin/tokens?namespace=                     → tokens, never their secrets or hashes
 *   POST   /v1/admin/tokens              {scope, namespace?, expires?, label?} → 201 with `token`, shown once
 *   DELETE /v1/admin/tokens/{id | sha256 of the token}     → the revoked token (idempotent)
 *   GET    /v1/admin/namespaces/{ns}/keys                  → signer keys
 *   POST   /v1/admin/namespaces/{ns}/keys {public_key}     → the key (added or un-revoked)
 *   DELETE /v1/admin/namespaces/{ns}/keys/{public_key}     → the revoked key
 *   PUT    /v1/admin/packages/{ns}/{name}/visibility {visibility} → the package
 *   GET    /v1/admin/events?namespace=&limit=              → events, newest first
 *   POST   /v1/admin/gc                  {grace_seconds?}  → { removed } (admin)
 *
 * Every route needs a token (anonymous → 401 `E_AUTH`); the role is checked per route before
 * anything is looked up (403 `E_FORBIDDEN`, admin.ts). Bodies are JSON objects of at most 16 KiB
 * with only the listed members (400 `E_USAGE` otherwise). Answers are JSON with
 * `Cache-Control: no-store`; errors are the usual `{ error, code, hint? }`. The token text appears
 * in exactly one answer, the 201 of `POST /v1/admin/tokens`; a token is revoked by its id or the
 * SHA-256 of its text, so the text never travels in a URL or a log line.
 */
import type { Hono } from 'hono';
import { CtxpkgError } from '@ctxpkg/format';
import {
  addSignerKey,
  collectGarbage,
  createNamespace,
  createToken,
  listEvents,
  listNamespaces,
  listSignerKeys,
  listTokens,
  revokeSignerKey,
  revokeToken,
  setPackageVisibility,
  type AdminTarget,
} from '../admin.js';
import { requireToken } from '../auth.js';
import { readBodyCapped } from '../body.js';
import { principalOf, type Ctx, type Env, type RegistryDeps } from '../context.js';
import { jsonResponse } from '../http.js';
import { packageRef } from '../params.js';
import type { TokenRecord, TokenScope } from '../store/types.js';

const MAX_ADMIN_BODY = 16 * 1024;

/** The token record as the routes answer it: never `token_sha256`. */
function publicToken(t: TokenRecord): Omit<TokenRecord, 'token_sha256'> {
  const { token_sha256: _hash, ...rest } = t;
  return rest;
}

/** The admin target for this request: the shared store, the clock, and the authenticated caller. */
async function callerTarget(c: Ctx, deps: RegistryDeps): Promise<AdminTarget> {
  const caller = requireToken(await principalOf(c, deps));
  return { store: deps.store, clock: deps.clock, caller };
}

/**
 * The JSON object body of an admin request with only `allowed` members. Throws `E_USAGE` (not
 * JSON, not an object, unknown member) or `E_TOO_LARGE` (over 16 KiB).
 */
async function jsonBody(c: Ctx, allowed: readonly string[]): Promise<Record<string, unknown>> {
  const bytes = await readBodyCapped(c.req.raw, MAX_ADMIN_BODY).catch((err: unknown) => {
    if (err instanceof CtxpkgError && err.code === 'E_STRUCTURE') return new Uint8Array(0);
    throw err;
  });
  let raw: unknown = {};
  if (bytes.byteLength > 0) {
    try {
      raw = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      throw new CtxpkgError('E_USAGE', 'the request body must be a JSON object');
    }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new CtxpkgError('E_USAGE', 'the request body must be a JSON object');
  for (const k of Object.keys(raw)) {
    if (!allowed.includes(k)) throw new CtxpkgError('E_USAGE', `unknown member ${JSON.stringify(k)} in the request body`, { hint: `allowed: ${allowed.join(', ')}` });
  }
  return raw as Record<string, unknown>;
}

/** A string member (or undefined when absent / null). Throws `E_USAGE` for any other type. */
function stringMember(body: Record<string, unknown>, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new CtxpkgError('E_USAGE', `${key} must be a string`);
  return v;
}

/** A query parameter that must be a namespace when present (checked like a package namespace). */
function namespaceQuery(c: Ctx): string | undefined {
  const ns = c.req.query('namespace');
  if (ns === undefined || ns === '') return undefined;
  return namespaceParam(ns);
}

function namespaceParam(ns: string): string {
  return packageRef(ns, 'x').namespace;
}

const ok = (body: unknown, status = 200): Response => jsonResponse(status, body, 'no-store');

export function registerAdminRoutes(api: Hono<Env>, deps: RegistryDeps): void {
  api.get('/v1/admin/namespaces', async (c) => {
    c.env.route = 'admin_namespaces';
    return ok({ namespaces: await listNamespaces(await callerTarget(c, deps)) });
  });

  api.post('/v1/admin/namespaces', async (c) => {
    c.env.route = 'admin_namespace_create';
    const target = await callerTarget(c, deps);
    const body = await jsonBody(c, ['name', 'owner']);
    const name = stringMember(body, 'name');
    if (name === undefined) throw new CtxpkgError('E_USAGE', 'name is required');
    return ok(await createNamespace(target, name, stringMember(body, 'owner') ?? 'admin'), 201);
  });

  api.get('/v1/admin/tokens', async (c) => {
    c.env.route = 'admin_tokens';
    return ok({ tokens: (await listTokens(await callerTarget(c, deps), namespaceQuery(c))).map(publicToken) });
  });

  api.post('/v1/admin/tokens', async (c) => {
    c.env.route = 'admin_token_create';
    const target = await callerTarget(c, deps);
    const body = await jsonBody(c, ['namespace', 'scope', 'expires', 'label']);
    const scope = stringMember(body, 'scope');
    if (scope === undefined) throw new CtxpkgError('E_USAGE', 'scope is required (read, publish, owner or admin)');
    const namespace = stringMember(body, 'namespace');
    const created = await createToken(target, {
      namespace: namespace === undefined ? null : namespaceParam(namespace),
      scope: scope as TokenScope,
      expires: stringMember(body, 'expires'),
      label: stringMember(body, 'label') ?? null,
    });
    return ok(created, 201);
  });

  api.delete('/v1/admin/tokens/:id', async (c) => {
    c.env.route = 'admin_token_revoke';
    const target = await callerTarget(c, deps);
    const id = c.req.param('id');
    // The text of a token never belongs in a URL (it would reach access logs): refuse it.
    if (/^ctx[a-z]_/.test(id)) throw new CtxpkgError('E_USAGE', 'name the token by its id or by the SHA-256 of its text, never by the token itself', { hint: '`ctxpkg registry token revoke <token>` sends the hash' });
    return ok(publicToken(await revokeToken(target, id)));
  });

  api.get('/v1/admin/namespaces/:ns/keys', async (c) => {
    c.env.route = 'admin_keys';
    const target = await callerTarget(c, deps);
    return ok({ keys: await listSignerKeys(target, namespaceParam(c.req.param('ns'))) });
  });

  api.post('/v1/admin/namespaces/:ns/keys', async (c) => {
    c.env.route = 'admin_key_add';
    const target = await callerTarget(c, deps);
    const ns = namespaceParam(c.req.param('ns'));
    const body = await jsonBody(c, ['public_key']);
    return ok(await addSignerKey(target, ns, stringMember(body, 'public_key') ?? ''));
  });

  api.delete('/v1/admin/namespaces/:ns/keys/:key', async (c) => {
    c.env.route = 'admin_key_revoke';
    const target = await callerTarget(c, deps);
    return ok(await revokeSignerKey(target, namespaceParam(c.req.param('ns')), c.req.param('key')));
  });

  api.put('/v1/admin/packages/:ns/:name/visibility', async (c) => {
    c.env.route = 'admin_visibility';
    const target = await callerTarget(c, deps);
    const ref = packageRef(c.req.param('ns'), c.req.param('name'));
    const body = await jsonBody(c, ['visibility']);
    const visibility = stringMember(body, 'visibility');
    if (visibility !== 'public' && visibility !== 'private') throw new CtxpkgError('E_USAGE', 'visibility must be "public" or "private"');
    return ok(await setPackageVisibility(target, ref.full, visibility));
  });

  api.get('/v1/admin/events', async (c) => {
    c.env.route = 'admin_events';
    const target = await callerTarget(c, deps);
    const rawLimit = c.req.query('limit');
    const limit = rawLimit === undefined || rawLimit === '' ? 50 : /^[0-9]{1,5}$/.test(rawLimit) ? Number(rawLimit) : NaN;
    if (!Number.isInteger(limit)) throw new CtxpkgError('E_USAGE', 'limit must be an integer from 1 to 10000');
    return ok({ events: await listEvents(target, { namespace: namespaceQuery(c), limit }) });
  });

  api.post('/v1/admin/gc', async (c) => {
    c.env.route = 'admin_gc';
    const target = await callerTarget(c, deps);
    const body = await jsonBody(c, ['grace_seconds']);
    const g = body.grace_seconds;
    if (g !== undefined && (typeof g !== 'number' || !Number.isInteger(g))) throw new CtxpkgError('E_USAGE', 'grace_seconds must be an integer');
    return ok(await collectGarbage(target, g === undefined ? undefined : (g as number) * 1000));
  });
}
