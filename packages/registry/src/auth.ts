/**
 * Tokens and who may see what (spec/registry.md "Auth").
 *
 * Tokens are `ctxp_` (publish scope: publish, yank, un-yank, read incl. private) or `ctxr_` (read
 * scope: read incl. private) followed by 43 base64url characters (256 random bits). A token
 * belongs to exactly one namespace. Only its SHA-256 is stored; the text is shown once at creation.
 * Authentication happens before any request body is read, and the token text is never logged or
 * echoed in an error.
 */
import { createHash, randomBytes } from 'node:crypto';
import { CtxpkgError } from '@ctxpkg/format';
import type { PackageRecord, RegistryStore, TokenScope, VisibilityFilter } from './store/types.js';

export const TOKEN_PREFIXES: Record<TokenScope, string> = { publish: 'ctxp_', read: 'ctxr_' };
/** The exact shape of a token this registry issues. */
export const TOKEN_PATTERN = /^ctx[pr]_[A-Za-z0-9_-]{43}$/;

/** The authenticated caller. `null` stands for an anonymous caller. */
export interface Principal {
  tokenId: string;
  namespace: string;
  scope: TokenScope;
}

/** Lowercase hex SHA-256 of a token's text: the only form in which a token is stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A fresh token: its text (shown once), the hash to store and a public id (`tok_` + 16 hex). */
export function generateToken(scope: TokenScope): { token: string; sha256: string; id: string } {
  const token = TOKEN_PREFIXES[scope] + randomBytes(32).toString('base64url');
  return { token, sha256: hashToken(token), id: `tok_${randomBytes(8).toString('hex')}` };
}

const WWW_AUTHENTICATE = 'Bearer realm="ctxpkg"';

/** Hint for a revoked or expired token: a new token of the same namespace and scope. */
function newTokenHint(namespace: string, scope: TokenScope): string {
  return `ask an owner of @${namespace} for a new ${scope} token (\`ctxpkg registry token create --namespace ${namespace} --scope ${scope} --data <dir>\`)`;
}

function authError(message: string, hint?: string): CtxpkgError {
  return new CtxpkgError('E_AUTH', message, {
    hint: hint ?? 'create a token with `ctxpkg registry token create --namespace <ns> --scope publish --data <dir>`',
    details: { www_authenticate: WWW_AUTHENTICATE },
  });
}

/**
 * Resolve the `Authorization` header to a principal. No header → null (anonymous). Anything else
 * that is not a live token of this registry throws `E_AUTH` (401): wrong scheme, malformed,
 * unknown, revoked or expired. `now` decides expiry.
 */
export async function authenticate(store: RegistryStore, header: string | undefined, now: Date): Promise<Principal | null> {
  if (header === undefined || header === '') return null;
  const m = /^Bearer +(\S+) *$/i.exec(header);
  if (!m) throw authError('the Authorization header must be `Bearer <token>`');
  const token = m[1];
  if (!TOKEN_PATTERN.test(token)) throw authError('the bearer token is not a token issued by this registry');
  const rec = await store.findTokenByHash(hashToken(token));
  if (!rec || !token.startsWith(TOKEN_PREFIXES[rec.scope])) throw authError('the bearer token is not known to this registry');
  if (rec.revoked_at !== null) throw authError(`token ${rec.id} was revoked`, newTokenHint(rec.namespace, rec.scope));
  if (rec.expires_at !== null && Date.parse(rec.expires_at) <= now.getTime()) {
    throw authError(`token ${rec.id} expired at ${rec.expires_at}`, newTokenHint(rec.namespace, rec.scope));
  }
  return { tokenId: rec.id, namespace: rec.namespace, scope: rec.scope };
}

/** The namespaces whose private packages the caller may see. */
export function visibilityFilter(p: Principal | null): VisibilityFilter {
  return { namespaces: p ? [p.namespace] : [] };
}

/** May the caller see this package? Public packages: everyone; private: tokens of its namespace. */
export function canSee(p: Principal | null, pkg: Pick<PackageRecord, 'namespace' | 'visibility'>): boolean {
  return pkg.visibility === 'public' || (p !== null && p.namespace === pkg.namespace);
}

/**
 * Require a publish-scope token of `namespace` for a write (publish, yank, un-yank). Decided on
 * the namespace alone, before the package is looked up or the body is read, so the answer says
 * nothing about which packages exist. Throws `E_AUTH` (401, anonymous), `E_FORBIDDEN` answered
 * with status 400 (read token: a permission problem, exit 3 in the CLI, under the reference
 * contract's status — spec/registry.md §6 step 2, ADVERSARIAL HB-21 case 3) or `E_FORBIDDEN`
 * (403, another namespace).
 */
export function requirePublisher(p: Principal | null, namespace: string): Principal {
  if (p === null) throw authError('this request needs a publish token (Authorization: Bearer ctxp_…)');
  if (p.scope !== 'publish') {
    throw new CtxpkgError('E_FORBIDDEN', 'this is a read-only token (ctxr_); publishing, yanking and un-yanking need a ctxp_ token', {
      hint: `ask an owner of ${namespace} for a publish token (\`ctxpkg registry token create --namespace ${namespace} --scope publish --data <dir>\`) and save it with \`ctxpkg login\``,
      details: { http_status: 400 },
    });
  }
  if (p.namespace !== namespace) {
    throw new CtxpkgError('E_FORBIDDEN', `this token belongs to namespace ${p.namespace}, not ${namespace}`);
  }
  return p;
}
