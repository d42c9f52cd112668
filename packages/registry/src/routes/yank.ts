/**
 * Yank and un-yank (spec/registry.md "Yank"):
 *   DELETE /v1/packages/{ns}/{name}/{version}          → yank (never deletes; bytes stay downloadable)
 *   POST   /v1/packages/{ns}/{name}/{version}/unyank   → un-yank
 * Both need a publish token of the namespace (decided before the package is looked up), are
 * idempotent and answer 200 `{ name, version, yanked, yanked_at }`.
 */
import type { Hono } from 'hono';
import { isCtxpkgError } from '@ctxpkg/format';
import { requirePublisher } from '../auth.js';
import { isoNow, principalOf, type Ctx, type Env, type RegistryDeps } from '../context.js';
import { jsonResponse, visibleNotFound } from '../http.js';
import { packageRef, versionParam } from '../params.js';

async function changeYank(c: Ctx, deps: RegistryDeps, yanked: boolean): Promise<Response> {
  const ref = packageRef(c.req.param('ns') ?? '', c.req.param('name') ?? '');
  const version = versionParam(c.req.param('version') ?? '');
  const principal = requirePublisher(await principalOf(c, deps), ref.namespace);
  let v;
  try {
    v = await deps.store.setYanked(ref.namespace, ref.name, version, yanked, isoNow(deps.clock()), principal.tokenId);
  } catch (err) {
    // The caller owns the namespace, so a precise message reveals nothing it may not see.
    if (isCtxpkgError(err) && err.code === 'E_NOT_FOUND') throw visibleNotFound(`${ref.full}@${version} does not exist`);
    throw err;
  }
  deps.metrics.yankChanged(yanked ? 'yank' : 'unyank');
  void deps.witnesses.sync(); // the new checkpoint to the witnesses (never rejects)
  return jsonResponse(200, { name: ref.full, version: v.version, yanked: v.yanked, yanked_at: v.yanked_at }, 'no-store');
}

export function registerYankRoutes(api: Hono<Env>, deps: RegistryDeps): void {
  api.delete('/v1/packages/:ns/:name/:version', async (c) => {
    c.env.route = 'yank';
    return changeYank(c, deps, true);
  });
  api.post('/v1/packages/:ns/:name/:version/unyank', async (c) => {
    c.env.route = 'unyank';
    return changeYank(c, deps, false);
  });
}
