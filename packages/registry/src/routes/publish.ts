/**
 * `PUT /v1/packages/{ns}/{name}/{version}` — publish (spec/registry.md "Publish"; FORMAT-FACTS §9:
 * success is exactly 201 `{ published, artifact_sha256, size_bytes, trust_report }`).
 *
 * Visibility (spec/registry.md §6, npm's rule for scoped packages): the request asks for one with
 * `X-Ctxpkg-Visibility: public|private` (`ctxpkg publish --public|--private`), or the manifest
 * declares one (`visibility`); the two must agree (400 `E_MANIFEST`). A new package gets what was
 * asked, else **private**; an existing package keeps its visibility — a new version asking for
 * the other is refused (409 `E_VISIBILITY`): only an owner changes it (`registry visibility`).
 *
 * Order, so that cheap refusals come first and nothing is written for a refused publish:
 *   1. URL parameters (400);
 *   2. token: none/unknown 401, read token 400 `E_FORBIDDEN`, other namespace 403 — before the body is read;
 *      the `X-Ctxpkg-Visibility` header, when sent, must be `public` or `private` (400 `E_USAGE`);
 *   3. a version of equal precedence exists → 409, still before the body is read;
 *   4. the body under the size cap (413, or 400 for a malformed Content-Length);
 *   5. under a per-version in-process lock (keyed-lock.ts): the 409 check again, the publish gate
 *      (gate.ts, 400s) with the signer-key pre-check right after the signature (before the checks
 *      whose cost grows with the package text: globs, secret screening);
 *   6. blob written durably (and, for the ZIP form, each package blob next to it), then one
 *      transaction records the version and its blobs (409 if another process's publish won); the
 *      blobs of a refused publish are removed again (unless another version references them).
 */
import type { Hono } from 'hono';
import { CtxpkgError, isCtxpkgError } from '@ctxpkg/format';
import { requirePublisher } from '../auth.js';
import { readBodyCapped } from '../body.js';
import { isoNow, principalOf, type Env, type RegistryDeps } from '../context.js';
import { runPublishGate } from '../gate.js';
import { jsonResponse } from '../http.js';
import { precedenceKey } from '../ordering.js';
import { packageRef, versionParam } from '../params.js';
import { sha256OfBytes } from '../store/blobs.js';
import type { RegistryStore, Visibility } from '../store/types.js';
import { buildTrustReport } from '../trust.js';
import { KeyedLock } from '../keyed-lock.js';

function versionExists(full: string, version: string, existing: { version: string; yanked: boolean }): CtxpkgError {
  return new CtxpkgError(
    'E_VERSION_EXISTS',
    existing.version === version
      ? `${full}@${version} already exists${existing.yanked ? ' (yanked)' : ''}; published versions are immutable`
      : `${full}@${version} has the same precedence as the published ${existing.version}; build metadata does not make a new version`,
    { hint: 'publish a new version number', details: { existing_version: existing.version } },
  );
}

/**
 * Write the verified blobs of a ZIP-form package next to the artifact, content-addressed
 * (spec/registry.md "Storage"), 16 at a time. They are derived from the durable artifact, so
 * they are written atomically without fsync (`durable: false`); a blob lost or damaged by a crash
 * is re-extracted from the artifact when read (routes/blobs.ts). Each written blob's hash is
 * appended to `pinned` (the caller releases them). Returns the rows for `commitPublish`, sorted.
 */
async function storePackageBlobs(
  store: RegistryStore,
  blobs: ReadonlyMap<string, Uint8Array>,
  pinned: string[],
): Promise<Array<{ sha256: string; size_bytes: number }>> {
  const list = [...blobs.values()];
  const rows: Array<{ sha256: string; size_bytes: number }> = [];
  for (let i = 0; i < list.length; i += 16) {
    const done = await Promise.allSettled(list.slice(i, i + 16).map((b) => store.putBlob(b, { durable: false })));
    for (const d of done) {
      if (d.status === 'fulfilled') {
        pinned.push(d.value.sha256);
        rows.push({ sha256: d.value.sha256, size_bytes: d.value.size });
      }
    }
    const failed = done.find((d): d is PromiseRejectedResult => d.status === 'rejected');
    if (failed) throw failed.reason;
  }
  return rows.sort((a, b) => (a.sha256 < b.sha256 ? -1 : a.sha256 > b.sha256 ? 1 : 0));
}

/** The `X-Ctxpkg-Visibility` request header: `public`, `private`, or null when absent. Throws `E_USAGE` (400). */
function requestedVisibility(header: string | undefined): Visibility | null {
  if (header === undefined || header.trim() === '') return null;
  const v = header.trim();
  if (v === 'public' || v === 'private') return v;
  throw new CtxpkgError('E_USAGE', 'the X-Ctxpkg-Visibility header must be public or private', { hint: '`ctxpkg publish --public` or `--private` sends it' });
}

export function registerPublishRoute(api: Hono<Env>, deps: RegistryDeps): void {
  const locks = new KeyedLock();
  api.put('/v1/packages/:ns/:name/:version', async (c) => {
    c.env.route = 'publish';
    try {
      const ref = packageRef(c.req.param('ns'), c.req.param('name'));
      const version = versionParam(c.req.param('version'));
      const principal = requirePublisher(await principalOf(c, deps), ref.namespace);
      const key = precedenceKey(version);
      const early = await deps.store.findEqualPrecedence(ref.namespace, ref.name, key);
      if (early) throw versionExists(ref.full, version, early);
      const asked = requestedVisibility(c.req.header('x-ctxpkg-visibility'));
      const bytes = await readBodyCapped(c.req.raw, deps.limits.maxPackageBytes);

      return await locks.run(`${ref.namespace}/${ref.name}/${key}`, async () => {
        // A concurrent publish of this version may have committed while we waited.
        const existing = await deps.store.findEqualPrecedence(ref.namespace, ref.name, key);
        if (existing) throw versionExists(ref.full, version, existing);
        // The signer key is checked right after the signature, before the gate's costly checks.
        const gate = await runPublishGate(bytes, ref, version, deps.limits, async (signer) => {
          const keys = await deps.store.listSignerKeys(ref.namespace);
          if (keys.length > 0 && !keys.some((k) => k.public_key === signer && k.revoked_at === null)) {
            throw new CtxpkgError('E_SIGNER_CHANGED', `the signing key ${signer} is not registered for namespace ${ref.namespace}`, {
              hint: `sign with a registered key, or have an owner of ${ref.namespace} run \`ctxpkg registry key add ${ref.namespace} ${signer} --registry <url>\` (--data/--db on the server)`,
              details: { signer_public_key: signer, registered_keys: keys.filter((k) => k.revoked_at === null).map((k) => k.public_key) },
            });
          }
        });

        if (asked !== null && gate.visibility !== null && asked !== gate.visibility) {
          throw new CtxpkgError('E_MANIFEST', `this publish asks for ${asked}, but the package's manifest declares visibility ${gate.visibility}`, {
            hint: `publish without --${asked} (the manifest decides), or rebuild the package without the visibility field`,
          });
        }
        const artifactSha256 = sha256OfBytes(bytes);
        const publishedAt = isoNow(deps.clock());
        await deps.store.putBlob(bytes);
        const pinned: string[] = [artifactSha256];
        let outcome;
        try {
          const blobs = await storePackageBlobs(deps.store, gate.blobs, pinned);
          outcome = await deps.store.commitPublish({
            namespace: ref.namespace,
            name: ref.name,
            version,
            precedence_key: key,
            artifact_sha256: artifactSha256,
            size_bytes: bytes.byteLength,
            integrity_sha256: gate.integrity_sha256,
            signer_public_key: gate.signer_public_key,
            visibility: asked ?? gate.visibility,
            description: gate.description,
            tags: gate.tags,
            dependencies: gate.dependencies,
            search_text: gate.search_text,
            blobs,
            trust_report: (signer) =>
              buildTrustReport({
                full: ref.full, version, artifactSha256, sizeBytes: bytes.byteLength, maxBytes: deps.limits.maxPackageBytes, gate, signer,
              }),
            published_at: publishedAt,
            published_by: principal.tokenId,
          });
        } finally {
          for (const sha of pinned) await deps.store.releaseBlob(sha);
        }
        deps.metrics.publishAccepted();
        void deps.witnesses.sync(); // the new checkpoint to the witnesses (never rejects)
        const path = `/v1/packages/${ref.namespace}/${ref.name}/${version}/download`;
        const location = deps.publicUrl ? deps.publicUrl.replace(/\/+$/, '') + path : path;
        return jsonResponse(
          201,
          {
            published: `${ref.full}@${version}`,
            artifact_sha256: artifactSha256,
            size_bytes: bytes.byteLength,
            integrity_sha256: gate.integrity_sha256,
            signer_public_key: gate.signer_public_key,
            visibility: outcome.visibility,
            published_at: publishedAt,
            trust_report: outcome.version.trust_report,
          },
          'no-store',
          { location },
        );
      });
    } catch (err) {
      deps.metrics.publishRejected(isCtxpkgError(err) ? err.code : 'E_INTERNAL');
      throw err;
    }
  });
}
