/**
 * `GET /v1/whoami` (spec/registry.md §9): which namespace and scope the caller's token belongs to,
 * so a client can check a token against the scope a user means to use it for (`ctxpkg login
 * --scope`), as `npm whoami` answers who a token is. 200 `{ "namespace", "scope", "token_id" }`
 * for a live token; 401 `E_AUTH` without one (anonymous callers have no identity to report) and
 * for a token that is not live (`authenticate`). The answer names nothing but the caller's own
 * token, and is never cached.
 */
import type { Hono } from 'hono';
import { CtxpkgError } from '@ctxpkg/format';
import { principalOf, type Env, type RegistryDeps } from '../context.js';

export function registerWhoamiRoute(api: Hono<Env>, deps: RegistryDeps): void {
  api.get('/v1/whoami', async (c) => {
    c.env.route = 'whoami';
    const principal = await principalOf(c, deps);
    if (principal === null) {
      throw new CtxpkgError('E_AUTH', 'no token was sent: whoami reports the namespace and scope of the token you send', {
        hint: 'send `Authorization: Bearer <token>` (`ctxpkg login` saves one)',
      });
    }
    return c.json({ namespace: principal.namespace, scope: principal.scope, token_id: principal.tokenId }, 200, { 'cache-control': 'no-store' });
  });
}
