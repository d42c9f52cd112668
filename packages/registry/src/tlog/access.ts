/**
 * Who may read a namespace's commitment openings (spec/transparency.md §4, §9): any live token of
 * that namespace (read or publish scope). Decided on the namespace alone, like the write routes,
 * so the answer says nothing about which private packages exist.
 */
import { CtxpkgError } from '@ctxpkg/format';
import type { Principal } from '../auth.js';

/** Throws `E_AUTH` (401, anonymous) or `E_FORBIDDEN` (403, a token of another namespace). */
export function requireNamespaceReader(p: Principal | null, namespace: string): Principal {
  if (p === null) {
    throw new CtxpkgError('E_AUTH', `the openings of @${namespace} need a token of @${namespace}`, {
      hint: 'log in with a read or publish token of the namespace (`ctxpkg login`)',
      details: { www_authenticate: 'Bearer realm="ctxpkg"' },
    });
  }
  if (p.namespace !== namespace) throw new CtxpkgError('E_FORBIDDEN', `this token belongs to namespace ${p.namespace}, not ${namespace}`);
  return p;
}
