/**
 * CORS policy (spec/registry.md "CORS"; ADVERSARIAL HB-23).
 *
 * - `Access-Control-Allow-Credentials` is never sent: the API authenticates with bearer tokens,
 *   which need no cookies, so no origin is ever granted credentialed access.
 * - Origins on the explicit allowlist get their origin echoed (with `Vary: Origin`) and may send
 *   `Authorization` with any method.
 * - Every other origin gets `Access-Control-Allow-Origin: *` on GET/HEAD answers that are not
 *   private (`Cache-Control: private`), and preflights that allow only GET/HEAD without
 *   `Authorization` — a browser page from an arbitrary origin can read public data and nothing else.
 */
const EXPOSE = 'etag, x-ctxpkg-sha256, x-ctxpkg-yanked, location';

function appendVary(h: Headers, value: string): void {
  const cur = h.get('vary');
  if (!cur) h.set('vary', value);
  else if (!cur.toLowerCase().split(/\s*,\s*/).includes(value.toLowerCase())) h.set('vary', `${cur}, ${value}`);
}

/** The answer to a preflight (`OPTIONS`) request from `origin` (undefined: not a CORS request). */
export function preflightResponse(origin: string | undefined, allowed: ReadonlySet<string>): Response {
  const h = new Headers({ 'cache-control': 'no-store', vary: 'Origin' });
  if (origin !== undefined && allowed.has(origin)) {
    h.set('access-control-allow-origin', origin);
    h.set('access-control-allow-methods', 'GET, HEAD, PUT, DELETE, POST');
    h.set('access-control-allow-headers', 'authorization, content-type, if-none-match, x-ctxpkg-visibility');
    h.set('access-control-max-age', '600');
  } else if (origin !== undefined) {
    h.set('access-control-allow-origin', '*');
    h.set('access-control-allow-methods', 'GET, HEAD');
    h.set('access-control-allow-headers', 'if-none-match');
    h.set('access-control-max-age', '600');
  } else {
    h.set('allow', 'GET, HEAD, PUT, DELETE, POST, OPTIONS');
  }
  return new Response(null, { status: 204, headers: h });
}

/** Add CORS headers to a finished answer for a request from `origin` with `method`. */
export function applyCors(h: Headers, method: string, origin: string | undefined, allowed: ReadonlySet<string>): void {
  if (origin === undefined) return;
  if (allowed.has(origin)) {
    h.set('access-control-allow-origin', origin);
    h.set('access-control-expose-headers', EXPOSE);
    appendVary(h, 'Origin');
    return;
  }
  const isPrivate = (h.get('cache-control') ?? '').includes('private');
  if ((method === 'GET' || method === 'HEAD') && !isPrivate) {
    h.set('access-control-allow-origin', '*');
    h.set('access-control-expose-headers', EXPOSE);
  }
}
