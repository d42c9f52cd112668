/**
 * Page sessions (spec/registry.md "Pages", private packages).
 *
 * A viewer logs in by pasting a **read** token (`ctxr_…`) of a namespace into the login form; the
 * token becomes the value of the `ctxpkg_session` cookie — `HttpOnly` (no script can read it),
 * `SameSite=Strict` (no other site's page or link sends it), `Path=<pages root>`, `Secure` when
 * the registry is reached over HTTPS, for at most 8 hours. Each page request authenticates the
 * cookie's token exactly as the API authenticates a bearer token, so revoking or expiring the
 * token ends the session at once; a session whose token is no longer valid is treated as
 * anonymous and its cookie is cleared. Publish tokens are refused: the pages only read, and a
 * browser should never hold a token that can publish.
 */
import { getCookie, generateCookie } from 'hono/cookie';
import { isCtxpkgError } from '@ctxpkg/format';
import { authenticate, type Principal } from '../auth.js';
import type { Ctx, RegistryDeps } from '../context.js';
import { ANONYMOUS, type Viewer } from './layout.js';

export const SESSION_COOKIE = 'ctxpkg_session';
/** Lifetime of a session cookie, seconds. */
export const SESSION_SECONDS = 8 * 60 * 60;
const READ_TOKEN = /^ctxr_[A-Za-z0-9_-]{43}$/;

export interface Session {
  viewer: Viewer;
  principal: Principal | null;
  /** `Set-Cookie` to send with this answer (clearing an ended session), if any. */
  setCookie: string | undefined;
}

/** Whether answers to this request should set `Secure` cookies (HTTPS request or public URL). */
export function secureRequest(c: Ctx, publicUrl: string | undefined): boolean {
  return new URL(c.req.url).protocol === 'https:' || (publicUrl !== undefined && publicUrl.startsWith('https:'));
}

/** The `Set-Cookie` value that starts a session for `token`. */
export function sessionCookie(token: string, path: string, secure: boolean): string {
  return generateCookie(SESSION_COOKIE, token, { path, httpOnly: true, sameSite: 'Strict', secure, maxAge: SESSION_SECONDS });
}

/** The `Set-Cookie` value that ends a session. */
export function clearedCookie(path: string, secure: boolean): string {
  return generateCookie(SESSION_COOKIE, '', { path, httpOnly: true, sameSite: 'Strict', secure, maxAge: 0 });
}

/**
 * Check a token pasted into the login form: a live read token of this registry. Returns the
 * principal, or a message for the form (never echoing the token).
 */
export async function checkLoginToken(deps: RegistryDeps, token: string): Promise<Principal | string> {
  if (/^ctxp_/.test(token)) return 'That is a publish token. The pages only need a read token (ctxr_…): ask an owner for one with `ctxpkg registry token create --namespace <ns> --scope read`.';
  if (!READ_TOKEN.test(token)) return 'That is not a read token of this registry (they start with ctxr_ and are 48 characters long).';
  try {
    const p = await authenticate(deps.store, `Bearer ${token}`, deps.clock());
    if (!p) return 'Paste a read token.';
    return p;
  } catch (err) {
    if (isCtxpkgError(err) && err.code === 'E_AUTH') return `This token cannot be used: ${err.message}.`;
    throw err;
  }
}

/**
 * The viewer of a page request, from its session cookie. Also records the principal in the
 * request state (for the request log's `token_id`).
 */
export async function sessionOf(c: Ctx, deps: RegistryDeps, cookiePath: string): Promise<Session> {
  const token = getCookie(c, SESSION_COOKIE);
  if (token === undefined || token === '') return { viewer: ANONYMOUS, principal: null, setCookie: undefined };
  const ended: Session = {
    viewer: { ...ANONYMOUS, sessionEnded: true },
    principal: null,
    setCookie: clearedCookie(cookiePath, secureRequest(c, deps.publicUrl)),
  };
  if (!READ_TOKEN.test(token)) return ended;
  let p: Principal | null;
  try {
    p = await authenticate(deps.store, `Bearer ${token}`, deps.clock());
  } catch (err) {
    if (isCtxpkgError(err) && err.code === 'E_AUTH') return ended;
    throw err;
  }
  if (!p || p.scope !== 'read') return ended;
  c.env.principal = p;
  return { viewer: { namespace: p.namespace, tokenId: p.tokenId, sessionEnded: false }, principal: p, setCookie: undefined };
}
