/**
 * `GET /v1/blobs/sha256/{hex}` — one blob of a published package (ZIP form, or a JSON bundle's `blobs` member) (spec/registry.md "Blobs";
 * spec/archive.md §4): the exact bytes whose SHA-256 is `{hex}`, answered only when a version of a
 * package that is **public now** carries the blob. A blob carried only by private packages answers
 * the same constant 404 as a blob nobody published — status, body and headers — whatever token
 * is sent, so the route never confirms that private content exists (AGENTS.md gotcha; HB-21
 * parity). A malformed digest is 400 `E_USAGE` (decided from the URL alone).
 *
 * Package blobs are derived from their artifact (written without fsync at publish): a blob file
 * that is missing or no longer hashes to its name is re-extracted from the stored artifact (every
 * blob of it hash-checked by the archive reader) and rewritten before it is served.
 */
import type { Hono } from 'hono';
import { CtxpkgError, isCtxpkgError, readPackageBlobs } from '@ctxpkg/format';
import type { Env, RegistryDeps } from '../context.js';
import { etagMatches, VARY } from '../http.js';
import type { PublicBlobRecord, RegistryStore } from '../store/types.js';

const HEX64 = /^[0-9a-f]{64}$/;
const PUBLIC_BLOB_CACHE = 'public, max-age=31536000, immutable';

/** The stored bytes of `rec`, re-extracted from its artifact when the blob file is gone or damaged. */
async function blobBytes(store: RegistryStore, rec: PublicBlobRecord): Promise<Uint8Array> {
  try {
    const bytes = await store.readBlob(rec.sha256);
    if (bytes) return bytes;
  } catch (err) {
    if (!isCtxpkgError(err) || err.code !== 'E_INTEGRITY') throw err;
  }
  const artifact = await store.readBlob(rec.artifact_sha256);
  // A listed version whose artifact is missing is a server fault, never a client one.
  if (!artifact) throw new Error(`artifact ${rec.artifact_sha256} carrying blob ${rec.sha256} is missing`);
  const bytes = (await readPackageBlobs(artifact)).get(`sha256-${rec.sha256}`);
  if (!bytes) throw new Error(`artifact ${rec.artifact_sha256} does not carry blob ${rec.sha256}`);
  await store.putBlob(bytes, { durable: false, replace: true });
  await store.releaseBlob(rec.sha256);
  return bytes;
}

export function registerBlobRoutes(api: Hono<Env>, deps: RegistryDeps): void {
  api.get('/v1/blobs/sha256/:hex', async (c) => {
    c.env.route = 'blob';
    const hex = c.req.param('hex');
    if (!HEX64.test(hex)) {
      throw new CtxpkgError('E_USAGE', 'a blob is addressed by the 64 lowercase hex characters of its SHA-256', {
        hint: 'GET /v1/blobs/sha256/<hex>, where a node says blob_ref "sha256-<hex>"',
      });
    }
    const rec = await deps.store.findPublicBlob(hex);
    if (!rec) throw new CtxpkgError('E_NOT_FOUND', 'package not found');
    const etag = `"${hex}"`;
    if (etagMatches(c.req.header('if-none-match'), etag)) {
      return new Response(null, { status: 304, headers: { etag, 'cache-control': PUBLIC_BLOB_CACHE, vary: VARY } });
    }
    const bytes = await blobBytes(deps.store, rec);
    return new Response(bytes, {
      status: 200,
      headers: {
        'content-type': 'application/octet-stream',
        'content-length': String(bytes.byteLength),
        'cache-control': PUBLIC_BLOB_CACHE,
        etag,
        vary: VARY,
        'x-ctxpkg-sha256': hex,
      },
    });
  });
}
