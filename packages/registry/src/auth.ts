/**
 * Tokens, roles and who may see what (spec/registry.md §9 "Auth and private packages").
 *
 * A token is its role's prefix followed by 43 base64url characters (256 random bits):
 * - `ctxr_` read: read incl. the private packages of its namespace;
 * - `ctxp_` publish: read, and publish, yank, un-yank in its namespace;
 * - `ctxo_` owner: publish, and administer its namespace — create and revoke its tokens (never an
 *   admin token), manage its signer keys and package visibility, read its events;
 * - `ctxa_` admin: administer the whole registry (namespaces, every token, keys, visibility,
 *   events, gc); it belongs to no namespace, so it reads only public packages and never publishes.
 * Only the SHA-256 of a token is stored; the text is shown once at creation. Authentication
 * happens before any request body is read, and the token text is never logged or echoed in an error.
 */
import { createHash, randomBytes } from 'node:crypto';
import { CtxpkgError } from '@ctxpkg/format';
import type { PackageRecord, RegistryStore, TokenScope, VisibilityFilter } from './store/types.js';

export const TOKEN_PREFIXES: Record<TokenScope, string> = { publish: 'ctxp_', read: 'ctxr_', owner: 'ctxo_', admin: 'ctxa_' };
/** The exact shape of a token this registry issues. */
export const TOKEN_PATTERN = /^ctx[proa]_[A-Za-z0-9_-]{43}$/;

/**
 * Token-shaped text: a role prefix and 16 or more base64url characters (a whole token, a token
 * cut short or with a character added). Linear: one character class, no nesting.
 */
const TOKEN_TEXT = /ctx[a-z]_[A-Za-z0-9_-]{16,}/g;

/**
 * `text` with every token-shaped run replaced by its prefix and `…` (`ctxp_…`), for what the
 * server writes where others read it: request log lines (a token pasted into a URL path) and
 * error answers (a token pasted where a namespace or id goes). Characters in, characters out.
 */
export function redactTokenText(text: string): string {
  return text.includes('ctx') ? text.replace(TOKEN_TEXT, (m) => `${m.slice(0, 5)}…`) : text;
}

/** The authenticated caller. `null` stands for an anonymous caller. */
export interface Principal {
  tokenId: string;
  /** The token's namespace; null for an admin token. */
  namespace: string | null;
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
function newTokenHint(namespace: string | null, scope: TokenScope): string {
  if (namespace === null) return 'ask the registry operator for a new admin token (`ctxpkg registry token create --scope admin`)';
  return `ask an owner of @${namespace} for a new ${scope} token (\`ctxpkg registry token create --namespace ${namespace} --scope ${scope}\`)`;
}

function authError(message: string, hint?: string): CtxpkgError {
  return new CtxpkgError('E_AUTH', message, {
    hint: hint ?? 'ask an owner of the namespace for a token (`ctxpkg registry token create --namespace <ns> --scope publish --registry <url>`) and save it with `ctxpkg login --registry <url>`',
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

/** The namespaces whose private packages the caller may see (none for an admin token). */
export function visibilityFilter(p: Principal | null): VisibilityFilter {
  return { namespaces: p && p.namespace !== null ? [p.namespace] : [] };
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
  if (p.scope === 'admin') {
    throw new CtxpkgError('E_FORBIDDEN', 'this is an admin token (ctxa_): it administers the registry but belongs to no namespace, so it cannot publish, yank or un-yank', {
      hint: `create a publish token for ${namespace} with it (\`ctxpkg registry token create --namespace ${namespace} --scope publish --registry <url>\`) and publish with that`,
    });
  }
  if (p.scope === 'read') {
    throw new CtxpkgError('E_FORBIDDEN', 'this is a read-only token (ctxr_); publishing, yanking and un-yanking need a ctxp_ token', {
      hint: `ask an owner of ${namespace} for a publish token (\`ctxpkg registry token create --namespace ${namespace} --scope publish\`) and save it with \`ctxpkg login\``,
      details: { http_status: 400 },
    });
  }
  if (p.namespace !== namespace) {
    throw new CtxpkgError('E_FORBIDDEN', `this token belongs to namespace ${p.namespace}, not ${namespace}`);
  }
  return p;
}

/**
 * Require an admin: the local operator (`caller` undefined: the admin functions run on the store
 * itself) or an admin token. Throws `E_FORBIDDEN` (403) for any other token.
 */
export function requireAdmin(caller: Principal | undefined, what: string): void {
  if (caller === undefined || caller.scope === 'admin') return;
  throw new CtxpkgError('E_FORBIDDEN', `${what} needs an admin token; this is ${roleText(caller)}`, {
    hint: 'ask the registry operator, or run it on the server with --data/--db',
  });
}

/**
 * Require the right to administer `namespace`: the local operator, an admin token, or an owner
 * token of that namespace. Decided on the namespace alone (before anything is looked up), so an
 * owner learns nothing about other namespaces. Throws `E_FORBIDDEN` (403).
 */
export function requireOwner(caller: Principal | undefined, namespace: string, what: string): void {
  if (caller === undefined || caller.scope === 'admin') return;
  if (caller.scope === 'owner' && caller.namespace === namespace) return;
  throw new CtxpkgError('E_FORBIDDEN', `${what} needs an owner token of ${namespace} or an admin token; this is ${roleText(caller)}`, {
    hint: caller.scope === 'owner'
      ? `an owner token administers only its own namespace (${String(caller.namespace)})`
      : `ask an admin for an owner token: \`ctxpkg registry token create --namespace ${namespace} --scope owner\``,
  });
}

/** "a publish token of acme", "an admin token", … (never the token text). */
export function roleText(p: Principal): string {
  const article = p.scope === 'owner' || p.scope === 'admin' ? 'an' : 'a';
  return p.namespace === null ? `${article} ${p.scope} token` : `${article} ${p.scope} token of ${p.namespace}`;
}

/** The caller of an admin route: any live token (the route decides the role). Anonymous → `E_AUTH` (401). */
export function requireToken(p: Principal | null): Principal {
  if (p === null) {
    throw authError('the admin routes need an admin or owner token (Authorization: Bearer ctxa_… or ctxo_…)', 'save one with `ctxpkg login --registry <url>` or set CTXPKG_TOKEN; an admin creates them with `ctxpkg registry token create --scope admin|owner`');
  }
  return p;
}
