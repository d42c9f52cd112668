import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makePackage, describeBackends, newTestRegistry, type TestRegistry } from '../__tests__/support.js';

let r: TestRegistry;
describeBackends('catalog-routes', (backend) => {
  beforeEach(async () => {
    r = await newTestRegistry({}, backend);
    const pkgs = [
      { name: '@acme/auth-kb', description: 'authentication gotchas', tags: ['auth', 'jwt'], nodes: [{ content: 'JWT secrets rotate every 24h', type: 'fact' }] },
      { name: '@acme/db-kb', description: 'database conventions', tags: ['postgres'], nodes: [{ content: 'Always run migrations inside a transaction', type: 'convention' }] },
      { name: '@acme/hidden-kb', description: 'internal runbook', tags: ['ops'], visibility: 'private' as const, nodes: [{ content: 'The pager rotation lives in the wiki', type: 'procedure' }] },
    ];
    for (const p of pkgs) {
      const [, ns, name] = /^@([^/]+)\/(.+)$/.exec(p.name)!;
      const res = await r.put(`/v1/packages/${ns}/${name}/1.0.0`, makePackage(p), r.tokens.acmePublish);
      expect(res.status).toBe(201);
    }
  });
  afterEach(async () => {
    await r.close();
  });

  const names = (body: any, key: 'packages' | 'results') => body[key].map((p: { name: string }) => p.name);

  describe('GET /v1/index.json (catalog)', () => {
    it('lists public packages sorted by name for anonymous callers and other namespaces', async () => {
      for (const token of [undefined, r.tokens.otherPublish]) {
        const res = await r.req('/v1/index.json', { token });
        expect(res.headers.get('cache-control')).toBe('public, no-cache');
        const body = (await res.json()) as any;
        expect(body.schema).toBe('ctxpkg-registry-catalog-v1');
        expect(names(body, 'packages')).toEqual(['@acme/auth-kb', '@acme/db-kb']);
        expect(body.packages[0]).toMatchObject({ latest: '1.0.0', description: 'authentication gotchas', tags: ['auth', 'jwt'], visibility: 'public' });
      }
    });

    it('includes private packages for their namespace, privately cached', async () => {
      const res = await r.req('/v1/index.json', { token: r.tokens.acmeRead });
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      expect(names(await res.json(), 'packages')).toEqual(['@acme/auth-kb', '@acme/db-kb', '@acme/hidden-kb']);
    });

    it('is byte-identical for outsiders with or without a private package', async () => {
      const before = await (await r.req('/v1/index.json')).text();
      const res = await r.put('/v1/packages/acme/another-secret/1.0.0', makePackage({ name: '@acme/another-secret', visibility: 'private' }), r.tokens.acmePublish);
      expect(res.status).toBe(201);
      expect(await (await r.req('/v1/index.json')).text()).toBe(before);
    });

    it('pages with limit and after', async () => {
      const p1 = (await (await r.req('/v1/index.json?limit=1')).json()) as any;
      expect(names(p1, 'packages')).toEqual(['@acme/auth-kb']);
      expect(p1.next).toBe('@acme/auth-kb');
      const p2 = (await (await r.req(`/v1/index.json?limit=1&after=${encodeURIComponent(p1.next)}`)).json()) as any;
      expect(names(p2, 'packages')).toEqual(['@acme/db-kb']);
      expect(p2.next).toBeNull();
      expect((await r.req('/v1/index.json?limit=0')).status).toBe(400);
      expect((await r.req('/v1/index.json?limit=abc')).status).toBe(400);
    });
  });

  describe('GET /v1/search', () => {
    it.each([
      ['node content', 'migrations transaction', ['@acme/db-kb']],
      ['a tag', 'jwt', ['@acme/auth-kb']],
      ['a description word', 'conventions', ['@acme/db-kb']],
      ['a name', 'auth', ['@acme/auth-kb']],
      ['a prefix', 'migrat', ['@acme/db-kb']],
      ['nothing', 'kubernetes', []],
    ])('finds packages by %s', async (_l, q, expected) => {
      const body = (await (await r.req(`/v1/search?q=${encodeURIComponent(q)}`)).json()) as any;
      expect(names(body, 'results')).toEqual(expected);
    });

    it('never returns private packages to outsiders, and does to their namespace', async () => {
      const outsider = await r.req('/v1/search?q=pager', { token: r.tokens.otherPublish });
      expect(names(await outsider.json(), 'results')).toEqual([]);
      const anon = await (await r.req('/v1/search?q=pager')).text();
      expect(anon).toBe(await (await r.req('/v1/search?q=pager', { token: r.tokens.otherPublish })).text());
      const insider = await r.req('/v1/search?q=pager', { token: r.tokens.acmeRead });
      expect(insider.headers.get('cache-control')).toBe('private, no-store');
      const body = (await insider.json()) as any;
      expect(names(body, 'results')).toEqual(['@acme/hidden-kb']);
      expect(body.results[0].snippet).toContain('[pager]');
    });

    it('treats search syntax as text and refuses empty or oversized queries', async () => {
      expect((await r.req('/v1/search?q=' + encodeURIComponent('jwt OR NEAR("x") * :'))).status).toBe(200);
      expect((await r.req('/v1/search?q=')).status).toBe(400);
      expect((await r.req('/v1/search')).status).toBe(400);
      expect((await r.req('/v1/search?q=' + 'a'.repeat(257))).status).toBe(400);
    });
  });
});
