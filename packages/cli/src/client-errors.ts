/**
 * How the registry client turns failures into `CtxpkgError`s (spec/registry.md §3 "Errors"): the
 * registry's own code, hint and details are kept (the CLI prints the hint), a hint is added
 * where the registry gives none, and a network failure names its cause (`ECONNREFUSED`, …).
 */
import { CtxpkgError, ERROR_CODES, type ErrorCode } from '@ctxpkg/format/errors';
import { readText } from './http-limits.js';

/** The most of an error answer that is read (bytes, decoded); the rest is discarded. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

function isCode(c: unknown): c is ErrorCode {
  return typeof c === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, c);
}

/** True for a plain (non-array, non-null) object. */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The parts of a registry error body the client passes on (`{ error, code, hint?, details? }`). */
export interface ErrorBody {
  message?: string;
  code?: ErrorCode;
  hint?: string;
  details?: Record<string, unknown>;
}

/**
 * Read an error answer: our registry's `{ error: message, code, hint?, details? }`, the nested
 * `{ error: { message, code } }` of other registries, or plain text (first 300 characters).
 * At most `MAX_ERROR_BODY_BYTES` are read (under the request's timeouts); a larger, broken or
 * stalled body gives `{}`.
 */
export async function errorBody(res: Response): Promise<ErrorBody> {
  let text: string;
  try {
    text = await readText(res, MAX_ERROR_BODY_BYTES, 'an error answer');
  } catch {
    return {};
  }
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch {
    return { message: text.slice(0, 300) || undefined };
  }
  if (!isObject(j)) return {};
  const inner = isObject(j.error) ? j.error : j;
  const message = typeof j.error === 'string' ? j.error : typeof inner.message === 'string' ? inner.message : undefined;
  const code = isCode(inner.code) ? inner.code : isCode(j.code) ? j.code : undefined;
  const hint = typeof inner.hint === 'string' ? inner.hint : typeof j.hint === 'string' ? j.hint : undefined;
  const details = isObject(inner.details) ? inner.details : isObject(j.details) ? j.details : undefined;
  return { message, code, hint, details };
}

/**
 * Is `code` one of Node's certificate-verification failures (OpenSSL's names: a self-signed
 * certificate, an unknown issuer, an expired certificate, a host name the certificate does not
 * name)? Those mean the registry answered but this machine does not trust its certificate.
 */
export function isTlsTrustCode(code: string): boolean {
  return /^(?:DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(?:_LOCALLY)?|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|ERR_TLS_CERT_ALTNAME_INVALID)$/.test(code);
}

/** The cause of a failed fetch in a few words (`ECONNREFUSED`, `ENOTFOUND`, …), or ''. */
export function networkCause(err: unknown): string {
  const seen = new Set<unknown>();
  let e: unknown = err;
  while (isObject(e) && !seen.has(e)) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (/^E[A-Z_]+$/.test(code) || isTlsTrustCode(code))) return code;
    e = (e as { cause?: unknown }).cause;
  }
  const last = isObject(e) || e instanceof Error ? (e as { message?: unknown }).message : undefined;
  return typeof last === 'string' && last !== (err as Error)?.message ? last : '';
}

/** The fix for `E_SIGNER_CHANGED` when the registry sent the key but no hint (an owner adds keys remotely). */
function signerHint(body: ErrorBody, req: FailedRequest): string | undefined {
  const key = body.details?.signer_public_key;
  if (body.code !== 'E_SIGNER_CHANGED' || typeof key !== 'string') return undefined;
  const ns = /^@([a-z0-9-]+)\//.exec(req.name ?? '')?.[1] ?? '<ns>';
  return `sign with a registered key, or have an owner of the namespace run \`ctxpkg registry key add ${ns} ${key} --registry ${req.registry}\``;
}

/** What the failed request was: for messages and hints. */
export interface FailedRequest {
  registry: string;
  /** Verb phrase: `publish @acme/kb@1.0.0`. */
  what: string;
  /** The package (or version) asked for, for not-found messages. */
  name?: string;
  /** Whether a token was sent (decides the 401 hint). */
  sentToken: boolean;
  /** The scope of the token sent, from its prefix (`ctxp_` publish, `ctxr_` read, `ctxo_` owner, `ctxa_` admin). */
  tokenScope?: TokenScopeName;
  /** True for publish, yank and unyank (they need a publish token); reads need at most a read token. */
  write?: boolean;
  /** Why CTXPKG_TOKEN, though set, was not sent (config.ts `unsentEnvToken`); leads the 401/404 hint. */
  unsentEnvToken?: string;
}

/** The scope of a token text by its prefix; undefined for any other text. */
export function tokenScopeOf(token: string | undefined): TokenScopeName | undefined {
  const prefix = token?.slice(0, 5);
  return prefix === 'ctxp_' ? 'publish' : prefix === 'ctxr_' ? 'read' : prefix === 'ctxo_' ? 'owner' : prefix === 'ctxa_' ? 'admin' : undefined;
}

/** The roles of registry tokens (spec/registry.md §9). */
export type TokenScopeName = 'publish' | 'read' | 'owner' | 'admin';

/**
 * The hint for a refused token (401 after a token was sent), matching the token's scope and the
 * operation: a write needs a new publish token; a read needs a new token of the scope that was
 * refused (a read token is enough). Ours wins over the registry's hint, which names admin commands
 * and cannot know what the caller was doing.
 */
function refusedTokenHint(req: FailedRequest): string {
  const ns = /^@([a-z0-9-]+)\//.exec(req.name ?? '')?.[1];
  const owner = ns ? `an owner of namespace ${ns}` : 'the registry owner';
  // An owner creates it from their own machine (remote administration), so the command names this registry.
  const create = (scope: string) => `\`ctxpkg registry token create --namespace ${ns ?? '<ns>'} --scope ${scope} --registry ${req.registry}\``;
  const login = `save it with \`ctxpkg login --registry ${req.registry}\` (or CTXPKG_TOKEN)`;
  const kind = req.tokenScope === 'read' ? 'read token (ctxr_…)' : req.tokenScope === 'publish' ? 'publish token (ctxp_…)' : 'token';
  const refused = `the ${kind} sent to this registry was refused (unknown, revoked or expired)`;
  if (req.write) return `${refused}: ${req.what.split(' ')[0]} needs a publish token; ask ${owner} for a new one (${create('publish')}) and ${login}`;
  const scope = req.tokenScope ?? 'read';
  return `${refused}: ask ${owner} for a new ${scope} token (${create(scope)}${scope === 'publish' ? '; a read token is enough to install' : ''}) and ${login}`;
}

/**
 * What to do about a 404 (spec/registry.md §9: a private package answers the same 404 as a missing
 * one). Without a token: it may be private — log in with a read token of its namespace. With one:
 * the token's namespace may not be the package's — save one of its namespace for its scope.
 */
function notFoundHint(req: FailedRequest): string {
  const ns = /^@([a-z0-9-]+)\//.exec(req.name ?? '')?.[1];
  if (!req.sentToken) {
    return `check the name; if ${req.name ?? 'it'} is private, it answers 404 until you log in with a read token of ${ns ? `@${ns}` : 'its namespace'}: ` +
      `\`ctxpkg login --registry ${req.registry}${ns ? ` --scope @${ns}` : ''}\` (ask an owner for the token)`;
  }
  return `check the name and the registry for its scope; a private package is visible only to tokens of its own namespace${ns ? ` (@${ns})` : ''}` +
    (ns ? `: save a read token of @${ns} beside your other tokens with \`ctxpkg login --registry ${req.registry} --scope @${ns}\`` : '');
}

/**
 * The error for a non-2xx answer with `status` and parsed `body`: 401 `E_AUTH` (hint: login),
 * 403 `E_FORBIDDEN`, 404 `E_NOT_FOUND`, 409 the registry's code or `E_VERSION_EXISTS`, 413
 * `E_TOO_LARGE`, other 4xx the registry's code or `E_REGISTRY`, 5xx `E_REGISTRY`. The registry's
 * hint wins over ours; its details are always kept.
 */
export function responseError(status: number, body: ErrorBody, req: FailedRequest): CtxpkgError {
  const { registry, what } = req;
  const detail = body.message ? `: ${body.message}` : '';
  // A registry names the remote admin form as `--registry <url>`: it cannot know the URL the
  // client reached it by, which is this request's registry.
  const extra = (hint: string | undefined): { hint?: string; details?: Record<string, unknown> } => ({
    ...(hint ? { hint: hint.split('--registry <url>').join(`--registry ${req.registry}`) } : {}),
    ...(body.details ? { details: body.details } : {}),
  });
  // 403, or E_FORBIDDEN under another 4xx: a read token used to write answers 400 by the reference
  // contract (spec/registry.md §3.2), yet it is a permission problem (exit 3) and says so.
  if (status === 403 || (status >= 400 && status < 500 && body.code === 'E_FORBIDDEN')) {
    return new CtxpkgError(body.code ?? 'E_FORBIDDEN', `registry ${registry} does not allow you to ${what}${detail}`, extra(
      body.hint ?? 'use a publish token (ctxp_…) of the namespace that owns the package, saved with `ctxpkg login`',
    ));
  }
  switch (status) {
    case 401:
      return new CtxpkgError('E_AUTH', `registry ${registry} needs valid credentials to ${what}${detail}`, extra(
        req.sentToken
          ? refusedTokenHint(req)
          : req.unsentEnvToken ?? `no token was sent to this registry; run \`ctxpkg login --registry ${registry}\` or set CTXPKG_TOKEN with CTXPKG_REGISTRY`,
      ));
    case 404:
      return new CtxpkgError('E_NOT_FOUND', `${req.name ?? 'resource'} was not found on registry ${registry}${detail}`, extra(
        req.unsentEnvToken ? `${req.unsentEnvToken}; ${body.hint ?? notFoundHint(req)}` : body.hint ?? notFoundHint(req),
      ));
    case 409:
      // The registry's message already says what exists (E_VERSION_EXISTS: "… already exists; …").
      return new CtxpkgError(body.code ?? 'E_VERSION_EXISTS', `registry ${registry} refused to ${what}: ${body.message ?? 'it already exists'}`, extra(
        body.hint ?? 'published versions are immutable; bump the version',
      ));
    case 413:
      return new CtxpkgError('E_TOO_LARGE', `registry ${registry} refused to ${what}: the package is too large${detail}`, extra(body.hint));
    default:
      if (status >= 400 && status < 500) {
        return new CtxpkgError(body.code ?? 'E_REGISTRY', `registry ${registry} rejected the request to ${what} (HTTP ${status})${detail}`, extra(body.hint ?? signerHint(body, req)));
      }
      return new CtxpkgError('E_REGISTRY', `registry ${registry} failed to ${what} (HTTP ${status})${detail}`, extra(body.hint));
  }
}
