/**
 * Response helpers shared by the routes (spec/registry.md "Errors", "Private packages").
 *
 * Error bodies are `{ "error": message, "code": code }` (+ `hint`, + `details` where useful) with
 * the status from `httpStatusFor(code)`. The "not found" answer for packages is built by exactly
 * one function with constant bytes, so a hidden private package and a missing one are
 * indistinguishable (status, body and headers).
 */
import { CtxpkgError, httpStatusFor, isCtxpkgError } from '@ctxpkg/format';
import { redactTokenText } from './auth.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Cache-Control for answers only their authorized caller may see. */
export const PRIVATE_CACHE = 'private, no-store';

/** Headers every `/v1` answer carries: the content depends on the token and the origin. */
export const VARY = 'Authorization, Origin';

const NOT_FOUND_TEXT = JSON.stringify({ error: 'package not found', code: 'E_NOT_FOUND' });

/**
 * The one 404 for a package or version the caller may not see or that does not exist. Identical
 * bytes and headers every time (the CORS layer adds the same headers to every 404).
 */
export function packageNotFound(): Response {
  return new Response(NOT_FOUND_TEXT, {
    status: 404,
    headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store', vary: VARY },
  });
}

/** Error body fields for a `CtxpkgError` (never a token: auth errors carry no echo of it). */
export function errorBody(e: CtxpkgError): Record<string, unknown> {
  // A token pasted where a name or id goes is never echoed back (auth.ts redactTokenText).
  const body: Record<string, unknown> = { error: redactTokenText(e.message), code: e.code };
  if (e.hint !== undefined) body.hint = redactTokenText(e.hint);
  const details = e.details && { ...e.details };
  if (details) {
    delete details.www_authenticate;
    delete details.public;
    delete details.http_status;
  }
  if (details && Object.keys(details).length > 0) body.details = details;
  return body;
}

/**
 * The status for an error: `httpStatusFor(code)`, unless the error carries `details.http_status`
 * (a 4xx the reference contract fixes for that case, e.g. 400 for a read token used to write while
 * the code is `E_FORBIDDEN`). The override never reaches the body.
 */
function statusOf(err: CtxpkgError): number {
  const s = err.details?.http_status;
  return typeof s === 'number' && Number.isInteger(s) && s >= 400 && s < 500 ? s : httpStatusFor(err.code);
}

/**
 * The response for any thrown value. `CtxpkgError` → its status and body (401 adds
 * `WWW-Authenticate`); `E_NOT_FOUND` → the constant package 404; anything else → 500 with a
 * generic body (the cause is logged by the caller, not sent).
 */
export function errorResponse(err: unknown): Response {
  if (isCtxpkgError(err)) {
    if (err.code === 'E_NOT_FOUND' && err.details?.public !== true) return packageNotFound();
    const status = statusOf(err);
    const headers: Record<string, string> = { 'content-type': JSON_TYPE, 'cache-control': 'no-store', vary: VARY };
    if (status === 401) headers['www-authenticate'] = String(err.details?.www_authenticate ?? 'Bearer realm="ctxpkg"');
    return new Response(JSON.stringify(errorBody(err)), { status, headers });
  }
  return new Response(JSON.stringify({ error: 'internal error', code: 'E_INTERNAL' }), {
    status: 500,
    headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store', vary: VARY },
  });
}

/** A not-found error whose message may be shown (the package itself is visible to the caller). */
export function visibleNotFound(message: string): CtxpkgError {
  return new CtxpkgError('E_NOT_FOUND', message, { details: { public: true } });
}

/** A JSON answer with explicit headers; `cache` is the Cache-Control value. */
export function jsonResponse(status: number, body: unknown, cache: string, extra: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': JSON_TYPE, 'cache-control': cache, vary: VARY, ...extra },
  });
}

/** True when an `If-None-Match` header matches `etag` (weak comparison, `*` included). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}
