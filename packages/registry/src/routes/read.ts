/**
 * Read routes for one package (spec/registry.md "Index", "Download", "Version"):
 *   GET /v1/packages/{ns}/{name}/index.json
 *   GET /v1/packages/{ns}/{name}/{version}            (one version's metadata and trust report)
 *   GET /v1/packages/{ns}/{name}/{version}/download   (the exact published bytes)
 * A package the caller may not see answers the same 404 as a missing one (`packageNotFound`).
 */
import type { Hono } from 'hono';
import { canSee } from '../auth.js';
import { principalOf, type Ctx, type Env, type IndexBody, type RegistryDeps } from '../context.js';
import { etagMatches, JSON_TYPE, jsonResponse, PRIVATE_CACHE, VARY, visibleNotFound } from '../http.js';
import { andThen, type MaybePromise } from '../maybe.js';
import { indexEntry } from '../index-doc.js';
import { packageRef, versionParam, type PackageRef } from '../params.js';
import type { PackageRecord } from '../store/types.js';
import { CtxpkgError } from '@ctxpkg/format';

const PUBLIC_INDEX_CACHE = 'public, no-cache';
const PUBLIC_BLOB_CACHE = 'public, max-age=31536000, immutable';

/**
 * The package if the caller may see it; otherwise the constant 404 (thrown as `E_NOT_FOUND`).
 * Synchronous when the principal and the package row are (an anonymous caller, the SQLite store).
 */
export function visiblePackage(c: Ctx, deps: RegistryDeps, ref: PackageRef): MaybePromise<PackageRecord> {
  return andThen(principalOf(c, deps), (principal) =>
    andThen(deps.store.getPackage(ref.namespace, ref.name), (pkg) => {
      if (!pkg || !canSee(principal, pkg)) throw new CtxpkgError('E_NOT_FOUND', 'package not found');
      return pkg;
    }),
  );
}

function notModified(etag: string, cache: string): Response {
  return new Response(null, { status: 304, headers: { etag, 'cache-control': cache, vary: VARY } });
}

/** The index answer for a visible package: 200 with the cached bytes, or 304 on a matching `If-None-Match`. */
function indexResponse(c: Ctx, pkg: PackageRecord, doc: IndexBody): Response {
  const cache = pkg.visibility === 'private' ? PRIVATE_CACHE : PUBLIC_INDEX_CACHE;
  if (etagMatches(c.req.header('if-none-match'), doc.etag)) return notModified(doc.etag, cache);
  return new Response(doc.bytes, {
    status: 200,
    headers: { 'content-type': JSON_TYPE, 'cache-control': cache, etag: doc.etag, vary: VARY },
  });
}

/** `GET …/index.json`: the hot path, synchronous end to end for an anonymous caller on SQLite with a cached document. */
function indexRoute(c: Ctx, deps: RegistryDeps): MaybePromise<Response> {
  c.env.route = 'index';
  const ref = packageRef(c.req.param('ns') ?? '', c.req.param('name') ?? '');
  return andThen(visiblePackage(c, deps, ref), (pkg) => andThen(deps.indexCache.get(deps.store, pkg), (doc) => indexResponse(c, pkg, doc)));
}

/** `GET …/{version}`: one version's metadata and trust report. */
async function versionRoute(c: Ctx, deps: RegistryDeps): Promise<Response> {
  c.env.route = 'version';
  const ref = packageRef(c.req.param('ns') ?? '', c.req.param('name') ?? '');
  const version = versionParam(c.req.param('version') ?? '');
  const pkg = await visiblePackage(c, deps, ref);
  const v = await deps.store.getVersion(ref.namespace, ref.name, version);
  if (!v) throw visibleNotFound(`${ref.full}@${version} does not exist`);
  const body = {
    schema: 'ctxpkg-registry-version-v1',
    name: ref.full,
    visibility: pkg.visibility,
    ...indexEntry(v),
    yanked_at: v.yanked_at,
    trust_report: v.trust_report,
  };
  return jsonResponse(200, body, pkg.visibility === 'private' ? PRIVATE_CACHE : PUBLIC_INDEX_CACHE);
}

export function registerReadRoutes(api: Hono<Env>, deps: RegistryDeps): void {
  // One route for both: `index.json` is never a SemVer version, so the segment tells them apart,
  // and a request matches exactly one handler — Hono composes (asynchronously) when two match,
  // which would cost the synchronous answer of the index.
  api.get('/v1/packages/:ns/:name/:version', (c) => (c.req.param('version') === 'index.json' ? indexRoute(c, deps) : versionRoute(c, deps)));

  api.get('/v1/packages/:ns/:name/:version/download', async (c) => {
    c.env.route = 'download';
    const ref = packageRef(c.req.param('ns'), c.req.param('name'));
    const version = versionParam(c.req.param('version'));
    const pkg = await visiblePackage(c, deps, ref);
    const v = await deps.store.getVersion(ref.namespace, ref.name, version);
    if (!v) throw visibleNotFound(`${ref.full}@${version} does not exist`);
    const etag = `"${v.artifact_sha256}"`;
    const cache = pkg.visibility === 'private' ? PRIVATE_CACHE : PUBLIC_BLOB_CACHE;
    if (etagMatches(c.req.header('if-none-match'), etag)) return notModified(etag, cache);
    const bytes = await deps.store.readBlob(v.artifact_sha256);
    // A listed version whose blob is missing is a server fault, never a client one.
    if (!bytes) throw new Error(`blob ${v.artifact_sha256} of ${ref.full}@${version} is missing`);
    return new Response(bytes, {
      status: 200,
      headers: {
        'content-type': 'application/octet-stream',
        'content-length': String(bytes.byteLength),
        'content-disposition': `attachment; filename="${ref.namespace}-${ref.name}-${version}.ctxpkg"`,
        'cache-control': cache,
        etag,
        vary: VARY,
        'x-ctxpkg-sha256': v.artifact_sha256,
        'x-ctxpkg-yanked': v.yanked ? 'true' : 'false',
      },
    });
  });
}
