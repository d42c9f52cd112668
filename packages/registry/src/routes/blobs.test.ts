/**
 * Package blobs at the registry: stored content-addressed next to the artifact at publish,
 * recorded per version, served by `GET /v1/blobs/sha256/{hex}` for public packages only (the
 * private case answers the constant 404 byte for byte), repaired from the artifact when damaged,
 * kept by garbage collection, and removed again with a refused publish.
 */
import { createHash } from 'node:crypto';
import { chmod, rm, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { archiveToJsonBundle, jsonBundleToArchive, writePackage } from '@ctxpkg/format';
import { describeBackends, newTestRegistry, OTHER_SEED, rawSql, storageSnapshot, TEST_SEED, type AnyStore, type TestRegistry } from '../__tests__/support.js';
import { createApp } from '../app.js';
import { openPgStore } from '../store/pg.js';
import { openSqliteStore, SqliteStore } from '../store/sqlite.js';

const enc = new TextEncoder();
const hex = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

let r: TestRegistry;
describeBackends('blob-route', (backend) => {
  beforeEach(async () => {
    r = await newTestRegistry({}, backend);
  });
  afterEach(async () => {
    await r.close();
  });

  /** A signed ZIP-form package whose node `big` references `blob`. */
  async function zipPackage(name: string, version: string, blob: Uint8Array, o: { visibility?: 'private'; seed?: Uint8Array } = {}): Promise<Uint8Array> {
    const ref = `sha256-${hex(blob)}`;
    const json = writePackage(
      {
        manifest: { name, version, description: 'blob test', created_at: '2026-01-02T03:04:05Z', ...(o.visibility ? { visibility: o.visibility } : {}) },
        content: {
          context_graph: {
            format: 'ctxpkg-graph-v2',
            nodes: [
              { id: 'small', type: 'fact', content: 'inline', activation: 1 },
              { id: 'big', type: 'procedure', content: 'runbook', activation: 1, blob_ref: ref },
            ],
            edges: [],
          },
        },
      },
      { seed: o.seed ?? TEST_SEED },
    );
    return jsonBundleToArchive(json, { blobs: new Map([[ref, blob]]) });
  }

  async function publish(name: string, version: string, bytes: Uint8Array, token = r.tokens.acmePublish): Promise<Response> {
    const [ns, n] = name.slice(1).split('/');
    return r.put(`/v1/packages/${ns}/${n}/${version}`, bytes, token);
  }

  async function snapshot(res: Response): Promise<string> {
    return JSON.stringify({ status: res.status, headers: [...res.headers.entries()].sort(), body: await res.text() });
  }

  describe('package blobs at the registry', () => {
    const BLOB = enc.encode('step 1: drain the queue\nstep 2: rotate the key\n'.repeat(50));

    it('publish stores each blob next to the artifact and records it; GET serves the exact bytes', async () => {
      const zip = await zipPackage('@acme/kb', '1.0.0', BLOB);
      expect((await publish('@acme/kb', '1.0.0', zip)).status).toBe(201);
      const rows = await rawSql(r.store, 'SELECT blob_sha256, size_bytes, version FROM version_blobs');
      expect(rows.map((x) => ({ ...x, size_bytes: Number(x.size_bytes) }))).toEqual([{ blob_sha256: hex(BLOB), size_bytes: BLOB.length, version: '1.0.0' }]);
      expect((await r.store.listBlobs()).map((b) => b.sha256).sort()).toEqual([hex(BLOB), hex(zip)].sort());

      const res = await r.req(`/v1/blobs/sha256/${hex(BLOB)}`);
      expect(res.status).toBe(200);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(BLOB);
      expect(res.headers.get('etag')).toBe(`"${hex(BLOB)}"`);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-ctxpkg-sha256')).toBe(hex(BLOB));
      expect((await r.req(`/api/v1/blobs/sha256/${hex(BLOB)}`, { headers: { 'if-none-match': `"${hex(BLOB)}"` } })).status).toBe(304);
      // The download still serves the artifact unchanged.
      const dl = await r.req('/v1/packages/acme/kb/1.0.0/download');
      expect(hex(new Uint8Array(await dl.arrayBuffer()))).toBe(hex(zip));
    });

    it('a blob only private packages carry answers the same 404 as a missing one, with any token', async () => {
      const secret = enc.encode('internal runbook: the private deploy steps\n'.repeat(20));
      expect((await publish('@acme/internal', '1.0.0', await zipPackage('@acme/internal', '1.0.0', secret, { visibility: 'private' }))).status).toBe(201);
      const missing = await snapshot(await r.req(`/v1/blobs/sha256/${'0'.repeat(64)}`));
      const hiddenPackage = await snapshot(await r.req('/v1/packages/acme/nothing-here/index.json'));
      expect(JSON.parse(missing).status).toBe(404);
      expect(missing).toBe(hiddenPackage);
      for (const token of [undefined, r.tokens.acmeRead, r.tokens.acmePublish, r.tokens.otherPublish]) {
        expect(await snapshot(await r.req(`/v1/blobs/sha256/${hex(secret)}`, { token }))).toBe(missing);
      }
      // Made public by an owner: served; the same bytes in a public package are public anyway.
      await rawSql(r.store, "UPDATE packages SET visibility = 'public', revision = revision + 1 WHERE name = 'internal'");
      expect((await r.req(`/v1/blobs/sha256/${hex(secret)}`)).status).toBe(200);
    });

    it('refuses a malformed digest with 400 and the artifact hash of a JSON bundle with the 404', async () => {
      for (const bad of ['ABC', 'A'.repeat(64), `sha256-${'a'.repeat(64)}`, 'a'.repeat(63)]) {
        const res = await r.req(`/v1/blobs/sha256/${bad}`);
        expect(res.status).toBe(400);
        expect(((await res.json()) as { code: string }).code).toBe('E_USAGE');
      }
      const json = writePackage(
        { manifest: { name: '@acme/plain', version: '1.0.0', description: 'x', created_at: '2026-01-02T03:04:05Z' }, content: { context_graph: { format: 'ctxpkg-graph-v2', nodes: [], edges: [] } } },
        { seed: TEST_SEED },
      );
      expect((await publish('@acme/plain', '1.0.0', json)).status).toBe(201);
      expect((await r.req(`/v1/blobs/sha256/${hex(json)}`)).status).toBe(404); // artifacts are not blobs
    });

    /** Damage a stored blob the way each backend can be damaged: a lost or rewritten file, a rewritten row. */
    async function damage(sha: string, how: 'delete' | 'rewrite', store: AnyStore = r.store): Promise<void> {
      if (store instanceof SqliteStore) {
        const path = store.blobs.pathOf(sha);
        if (how === 'delete') return rm(path);
        await chmod(path, 0o644);
        return writeFile(path, 'damaged by a crash');
      }
      // A row referenced by a version cannot be deleted (foreign key): only its bytes can rot.
      await rawSql(store, 'UPDATE blobs SET bytes = ? WHERE sha256 = ?', [Buffer.from('damaged by a crash'), sha]);
    }

    /** A store on the same data as `r.store`, as a freshly started process opens it (no cached bytes). */
    async function reopen(): Promise<AnyStore> {
      return r.store instanceof SqliteStore ? openSqliteStore({ dataDir: r.dir }) : openPgStore({ url: r.url as string });
    }

    it('a deleted or damaged blob is re-extracted from the artifact', async () => {
      expect((await publish('@acme/kb', '1.0.0', await zipPackage('@acme/kb', '1.0.0', BLOB))).status).toBe(201);
      await damage(hex(BLOB), 'delete');
      expect(new Uint8Array(await (await r.req(`/v1/blobs/sha256/${hex(BLOB)}`)).arrayBuffer())).toEqual(BLOB);
      await r.store.close();
      const store = await reopen();
      const app = createApp({ store });
      await damage(hex(BLOB), 'rewrite', store);
      const res = await app.request(`http://registry.test/v1/blobs/sha256/${hex(BLOB)}`);
      expect(res.status).toBe(200);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(BLOB);
      expect(hex((await store.readBlob(hex(BLOB)))!)).toBe(hex(BLOB));
      await store.close();
      r.store = await reopen();
      expect(hex((await r.store.readBlob(hex(BLOB)))!)).toBe(hex(BLOB));
    });

    it('a deleted blob of a JSON bundle (blobs member) is re-extracted from that artifact', async () => {
      const bundle = await archiveToJsonBundle(await zipPackage('@acme/kbjson', '1.0.0', BLOB));
      expect(bundle[0]).toBe(0x7b); // a JSON bundle, not a ZIP
      expect((await publish('@acme/kbjson', '1.0.0', bundle)).status).toBe(201);
      await damage(hex(BLOB), 'delete');
      const res = await r.req(`/v1/blobs/sha256/${hex(BLOB)}`);
      expect(res.status).toBe(200);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(BLOB);
      expect(hex((await r.store.readBlob(hex(BLOB)))!)).toBe(hex(BLOB));
    });

    it('garbage collection keeps package blobs; a refused publish removes the blobs it wrote', async () => {
      expect((await publish('@acme/kb', '1.0.0', await zipPackage('@acme/kb', '1.0.0', BLOB))).status).toBe(201);
      expect((await r.store.collectGarbage({ graceMs: 0, now: Date.now() + 10_000 })).removed).toBe(0);
      expect((await r.req(`/v1/blobs/sha256/${hex(BLOB)}`)).status).toBe(200);

      const before = await storageSnapshot(r.store);
      const other = enc.encode('a blob nobody stored yet\n'.repeat(10));
      // Signed by an unregistered key: the gate passes, the signer check in the transaction refuses.
      const res = await publish('@acme/kb', '1.1.0', await zipPackage('@acme/kb', '1.1.0', other, { seed: OTHER_SEED }));
      expect(res.status).toBe(400);
      expect(await storageSnapshot(r.store)).toBe(before);
      // A second version sharing the blob stores no second copy.
      expect((await publish('@acme/kb', '1.2.0', await zipPackage('@acme/kb', '1.2.0', BLOB))).status).toBe(201);
      expect(await rawSql(r.store, 'SELECT version FROM version_blobs ORDER BY version')).toEqual([{ version: '1.0.0' }, { version: '1.2.0' }]);
      expect((await r.store.listBlobs()).filter((b) => b.sha256 === hex(BLOB))).toHaveLength(1);
    });
  });
});
