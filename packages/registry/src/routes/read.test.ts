import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makePackage, describeBackends, newTestRegistry, sha256Hex, storageSnapshot, type TestRegistry } from '../__tests__/support.js';

let r: TestRegistry;
describeBackends('read-routes', (backend) => {
  beforeEach(async () => {
    r = await newTestRegistry({}, backend);
  });
  afterEach(async () => {
    await r.close();
  });

  const KB = '/v1/packages/acme/kb';

  async function publish(version: string, extra: Parameters<typeof makePackage>[0] = {}, name = 'kb'): Promise<Uint8Array> {
    const bytes = makePackage({ name: `@acme/${name}`, version, ...extra });
    const res = await r.put(`/v1/packages/acme/${name}/${version}`, bytes, r.tokens.acmePublish);
    expect(res.status).toBe(201);
    return bytes;
  }

  /** Status, every header and the body: what "byte-identical" compares. */
  async function snapshot(res: Response): Promise<string> {
    return JSON.stringify({ status: res.status, headers: [...res.headers.entries()].sort(), body: await res.text() });
  }

  describe('index.json', () => {
    it('lists latest first (first non-yanked), then the rest by descending precedence', async () => {
      for (const v of ['1.0.0', '1.2.0', '1.10.0', '2.0.0-rc.1']) await publish(v);
      expect((await r.req(`${KB}/1.10.0`, { method: 'DELETE', token: r.tokens.acmePublish })).status).toBe(200);
      const res = await r.req(`${KB}/index.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, no-cache');
      const idx = (await res.json()) as Record<string, any>;
      expect(idx).toMatchObject({ schema: 'ctxpkg-registry-package-v1', name: '@acme/kb', latest: '1.2.0', visibility: 'public' });
      expect(idx.versions.map((v: any) => [v.version, v.yanked])).toEqual([
        ['1.2.0', false], ['2.0.0-rc.1', false], ['1.10.0', true], ['1.0.0', false],
      ]);
      expect(Object.keys(idx.versions[0])).toEqual([
        'version', 'artifact_sha256', 'size_bytes', 'signer_public_key', 'yanked', 'published_at', 'integrity_sha256', 'dependencies', 'log',
      ]);
      expect(Object.keys(idx)).toEqual(['schema', 'name', 'latest', 'visibility', 'versions', 'log']);
      expect(idx.versions[0].artifact_sha256).toMatch(/^[0-9a-f]{64}$/);
    });

    it('answers 304 for a matching If-None-Match and a fresh ETag after a change', async () => {
      await publish('1.0.0');
      const first = await r.req(`${KB}/index.json`);
      const etag = first.headers.get('etag') as string;
      expect((await r.req(`${KB}/index.json`, { headers: { 'if-none-match': etag } })).status).toBe(304);
      await publish('1.1.0');
      const after = await r.req(`${KB}/index.json`, { headers: { 'if-none-match': etag } });
      expect(after.status).toBe(200);
      expect(after.headers.get('etag')).not.toBe(etag);
    });

    it('serves the API under /api as well as at the root', async () => {
      await publish('1.0.0');
      const a = await (await r.req(`/api${KB}/index.json`)).text();
      expect(a).toBe(await (await r.req(`${KB}/index.json`)).text());
    });
  });

  describe('download and version', () => {
    it('serves the exact bytes with hash, ETag and immutable caching; yanked stays downloadable', async () => {
      const bytes = await publish('1.0.0');
      const res = await r.req(`${KB}/1.0.0/download`);
      expect(res.status).toBe(200);
      const got = new Uint8Array(await res.arrayBuffer());
      expect(Buffer.from(got).equals(Buffer.from(bytes))).toBe(true);
      const sha = await sha256Hex(bytes);
      expect(res.headers.get('x-ctxpkg-sha256')).toBe(sha);
      expect(res.headers.get('etag')).toBe(`"${sha}"`);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-ctxpkg-yanked')).toBe('false');
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      const idx = (await (await r.req(`${KB}/index.json`)).json()) as any;
      expect(idx.versions[0].artifact_sha256).toBe(sha);
      expect((await r.req(`${KB}/1.0.0/download`, { headers: { 'if-none-match': `"${sha}"` } })).status).toBe(304);
      await r.req(`${KB}/1.0.0`, { method: 'DELETE', token: r.tokens.acmePublish });
      const yanked = await r.req(`${KB}/1.0.0/download`);
      expect(yanked.status).toBe(200);
      expect(yanked.headers.get('x-ctxpkg-yanked')).toBe('true');
      expect(Buffer.from(await yanked.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    });

    it('answers HEAD with the headers and no body', async () => {
      const bytes = await publish('1.0.0');
      const res = await r.req(`${KB}/1.0.0/download`, { method: 'HEAD' });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ctxpkg-sha256')).toBe(await sha256Hex(bytes));
      expect((await res.arrayBuffer()).byteLength).toBe(0);
    });

    it('returns one version with its trust report', async () => {
      await publish('1.0.0');
      const v = (await (await r.req(`${KB}/1.0.0`)).json()) as any;
      expect(v).toMatchObject({ schema: 'ctxpkg-registry-version-v1', name: '@acme/kb', version: '1.0.0', yanked: false, yanked_at: null });
      expect(v.trust_report.schema).toBe('ctxpkg-trust-report-v1');
    });

    it('says which version is missing in a visible package, and 400s on bad versions', async () => {
      await publish('1.0.0');
      const res = await r.req(`${KB}/9.9.9/download`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as any).error).toContain('@acme/kb@9.9.9');
      expect((await r.req(`${KB}/v1.0.0/download`)).status).toBe(400);
    });
  });

  describe('yank and un-yank', () => {
    it('yanks and un-yanks idempotently with a publish token of the namespace', async () => {
      await publish('1.0.0');
      await publish('1.1.0');
      const y = await r.req(`${KB}/1.1.0`, { method: 'DELETE', token: r.tokens.acmePublish });
      expect(y.status).toBe(200);
      expect(await y.json()).toMatchObject({ name: '@acme/kb', version: '1.1.0', yanked: true });
      expect((await r.req(`${KB}/1.1.0`, { method: 'DELETE', token: r.tokens.acmePublish })).status).toBe(200);
      expect(((await (await r.req(`${KB}/index.json`)).json()) as any).latest).toBe('1.0.0');
      const u = await r.req(`${KB}/1.1.0/unyank`, { method: 'POST', token: r.tokens.acmePublish });
      expect(await u.json()).toMatchObject({ yanked: false, yanked_at: null });
      expect(((await (await r.req(`${KB}/index.json`)).json()) as any).latest).toBe('1.1.0');
    });

    it('refuses yanks without the right token and changes nothing (HB-21 9)', async () => {
      await publish('1.0.0');
      const before = await storageSnapshot(r.store);
      expect((await r.req(`${KB}/1.0.0`, { method: 'DELETE' })).status).toBe(401);
      expect((await r.req(`${KB}/1.0.0`, { method: 'DELETE', token: r.tokens.acmeRead })).status).toBe(400);
      expect((await r.req(`${KB}/1.0.0`, { method: 'DELETE', token: r.tokens.otherPublish })).status).toBe(403);
      expect((await r.req(`${KB}/1.0.0/unyank`, { method: 'POST', token: r.tokens.otherPublish })).status).toBe(403);
      expect(await storageSnapshot(r.store)).toBe(before);
      const missing = await r.req(`${KB}/3.0.0`, { method: 'DELETE', token: r.tokens.acmePublish });
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as any).error).toContain('3.0.0');
    });
  });

  describe('private packages (HB-21 8)', () => {
    const routes = ['/index.json', '/1.0.0', '/1.0.0/download'];

    it('answer callers who may not see them exactly like a package that does not exist', async () => {
      await publish('1.0.0', { visibility: 'private' }, 'secret-kb');
      for (const tail of routes) {
        for (const token of [undefined, r.tokens.otherPublish]) {
          const hidden = await snapshot(await r.req(`/v1/packages/acme/secret-kb${tail}`, { token }));
          const missing = await snapshot(await r.req(`/v1/packages/acme/no-such-kb${tail}`, { token }));
          expect(hidden).toBe(missing);
          expect(JSON.parse(hidden).status).toBe(404);
          const otherNs = await snapshot(await r.req(`/v1/packages/zz/no-such-kb${tail}`, { token }));
          expect(hidden).toBe(otherNs);
        }
      }
    });

    it('are served to tokens of their namespace with Cache-Control: private, no-store', async () => {
      const bytes = await publish('1.0.0', { visibility: 'private' }, 'secret-kb');
      for (const token of [r.tokens.acmeRead, r.tokens.acmePublish]) {
        for (const tail of routes) {
          const res = await r.req(`/v1/packages/acme/secret-kb${tail}`, { token });
          expect(res.status).toBe(200);
          expect(res.headers.get('cache-control')).toBe('private, no-store');
        }
      }
      const dl = await r.req('/v1/packages/acme/secret-kb/1.0.0/download', { token: r.tokens.acmeRead });
      expect(Buffer.from(await dl.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    });
  });
});
