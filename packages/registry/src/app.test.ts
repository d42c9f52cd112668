import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from './app.js';
import { makePackage, describeBackends, newTestRegistry, storageSnapshot, type TestRegistry } from './__tests__/support.js';
import type { RegistryStore } from './store/types.js';

let r: TestRegistry;
describeBackends('app', (backend) => {
  beforeEach(async () => {
    r = await newTestRegistry({}, backend);
  });
  afterEach(async () => {
    await r.close();
  });

  describe('path safety (HB-21/HB-22: encoded slashes, traversal)', () => {
    it.each([
      '/v1/packages/acme/..%2F..%2Fetc/1.0.0/download',
      '/v1/packages/acme%2Fkb/x/index.json',
      '/v1/packages/acme/kb%2f1.0.0/download',
      '/v1/packages/acme/kb%5c..%5cx/index.json',
      '/v1/packages/acme/kb%00/index.json',
      '/v1/packages/acme/%2e%2e/index.json',
      '/v1/packages/acme/kb/1.0.0%2F..%2F2.0.0/download',
    ])('refuses %s with 4xx and touches nothing', async (path) => {
      await r.put('/v1/packages/acme/kb/1.0.0', makePackage(), r.tokens.acmePublish);
      const before = await storageSnapshot(r.store);
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await r.req(path, { method, token: r.tokens.acmePublish, ...(method === 'PUT' ? { body: makePackage() } : {}) });
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
      }
      expect(await storageSnapshot(r.store)).toBe(before);
    });

    it('answers an encoded slash with 400 E_INVALID_NAME', async () => {
      const res = await r.req('/v1/packages/acme/..%2F..%2Fetc/index.json');
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'E_INVALID_NAME' });
    });
  });

  describe('errors, health and metrics', () => {
    it('answers unknown routes and methods with a JSON 404', async () => {
      const res = await r.req('/v2/nothing');
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(await res.json()).toMatchObject({ code: 'E_NOT_FOUND' });
    });

    it('reports health', async () => {
      const res = await r.req('/healthz');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok', backend: r.backend });
      expect((await r.req('/api/healthz')).status).toBe(200);
    });

    it('counts requests by route and status, latency, publishes and rejections by code', async () => {
      await r.put('/v1/packages/acme/kb/1.0.0', makePackage(), r.tokens.acmePublish);
      await r.put('/v1/packages/acme/kb/1.0.0', makePackage(), r.tokens.acmePublish);
      await r.put('/v1/packages/acme/kb/1.1.0', makePackage({ version: '1.1.0', seed: null }), r.tokens.acmePublish);
      await r.req('/v1/packages/acme/kb/index.json');
      const text = await (await r.req('/metrics')).text();
      expect(text).toContain('ctxpkg_http_requests_total{method="PUT",route="publish",status="201"} 1');
      expect(text).toContain('ctxpkg_http_requests_total{method="PUT",route="publish",status="409"} 1');
      expect(text).toContain('ctxpkg_http_requests_total{method="GET",route="index",status="200"} 1');
      expect(text).toMatch(/ctxpkg_http_request_duration_seconds_bucket\{le="\+Inf",route="publish"\} 3/);
      expect(text).toContain('ctxpkg_publishes_total 1');
      expect(text).toContain('ctxpkg_publish_rejections_total{code="E_VERSION_EXISTS"} 1');
      expect(text).toContain('ctxpkg_publish_rejections_total{code="E_UNSIGNED"} 1');
      expect(text).not.toContain('acme');
    });

    it('logs one JSON line per request and never a token', async () => {
      await r.put('/v1/packages/acme/kb/1.0.0', makePackage(), r.tokens.acmePublish);
      await r.req('/v1/packages/acme/kb/index.json', { token: r.tokens.acmeRead });
      await r.req('/v1/index.json', { token: 'ctxp_' + 'B'.repeat(43) });
      expect(r.logs.map((l) => [l.route, l.status])).toEqual([['publish', 201], ['index', 200], ['catalog', 401]]);
      expect(r.logs[2].code).toBe('E_AUTH');
      const all = JSON.stringify(r.logs);
      for (const t of [...Object.values(r.tokens), 'ctxp_' + 'B'.repeat(43)]) expect(all).not.toContain(t);
      expect(all).not.toContain('ctxp_');
    });

    it('turns an unexpected store failure into a generic 500 and logs it', async () => {
      const broken = new Proxy(r.store, {
        get(target, prop, recv) {
          if (prop === 'getPackage') return async () => { throw new Error('disk on fire'); };
          return Reflect.get(target, prop, recv) as unknown;
        },
      }) as RegistryStore;
      const logs: unknown[] = [];
      const app = createApp({ store: broken, log: (e) => logs.push(e) });
      const res = await app.request('http://x/v1/packages/acme/kb/index.json');
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ error: 'internal error', code: 'E_INTERNAL' });
      expect(JSON.stringify(logs)).toContain('disk on fire');
    });

    it('mounts under a custom base path, or at the root only', async () => {
      const custom = createApp({ store: r.store, basePath: '/registry/api' });
      expect((await custom.request('http://x/registry/api/healthz')).status).toBe(200);
      expect((await custom.request('http://x/api/healthz')).status).toBe(404);
      const rootOnly = createApp({ store: r.store, basePath: '' });
      expect((await rootOnly.request('http://x/api/healthz')).status).toBe(404);
      expect((await rootOnly.request('http://x/healthz')).status).toBe(200);
      expect(() => createApp({ store: r.store, basePath: '/../x' })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    });
  });

  describe('refused tokens', () => {
    it('a revoked token is 401 with a hint for a new token of the same namespace and scope', async () => {
      const { revokeToken } = await import('./admin.js');
      for (const [token, scope] of [[r.tokens.acmeRead, 'read'], [r.tokens.acmePublish, 'publish']] as const) {
        await revokeToken({ store: r.store }, token);
        const res = await r.req('/v1/packages/acme/kb/index.json', { token });
        expect(res.status).toBe(401);
        const body = (await res.json()) as { code: string; hint: string };
        expect(body.code).toBe('E_AUTH');
        expect(body.hint).toContain(`--namespace acme --scope ${scope}`);
      }
    });
  });
});
