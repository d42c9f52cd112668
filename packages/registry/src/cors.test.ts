import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makePackage, describeBackends, newTestRegistry, type TestRegistry } from './__tests__/support.js';

const EVIL = 'https://evil.example';
const GOOD = 'https://app.example.com';

let r: TestRegistry;
const seen: Response[] = [];
async function req(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
  const res = await r.req(path, init);
  seen.push(res);
  return res;
}

describeBackends('cors', (backend) => {
  beforeEach(async () => {
    r = await newTestRegistry({ corsOrigins: [GOOD] }, backend);
    await r.put('/v1/packages/acme/public-kb/1.0.0', makePackage({ name: '@acme/public-kb' }), r.tokens.acmePublish);
    await r.put('/v1/packages/acme/secret-kb/1.0.0', makePackage({ name: '@acme/secret-kb', visibility: 'private' }), r.tokens.acmePublish);
  });
  afterEach(async () => {
    for (const res of seen.splice(0)) expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    await r.close();
  });

  describe('CORS (HB-23)', () => {
    it('answers a credentialed-looking preflight from an arbitrary origin with read-only, credential-free CORS', async () => {
      const res = await req('/api/v1/packages/acme/auth-context/1.2.0', {
        method: 'OPTIONS',
        headers: { origin: EVIL, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD');
      expect(res.headers.get('access-control-allow-headers') ?? '').not.toMatch(/authorization/i);
    });

    it('never reflects an arbitrary origin, and gives it no CORS access to private answers', async () => {
      const priv = await req('/v1/packages/acme/secret-kb/index.json', { headers: { origin: EVIL }, token: r.tokens.acmeRead });
      expect(priv.status).toBe(200);
      expect(priv.headers.get('access-control-allow-origin')).toBeNull();
      const pub = await req('/v1/packages/acme/public-kb/index.json', { headers: { origin: EVIL } });
      expect(pub.headers.get('access-control-allow-origin')).toBe('*');
      const put = await req('/v1/packages/acme/public-kb/2.0.0', { method: 'DELETE', headers: { origin: EVIL }, token: r.tokens.acmePublish });
      expect(put.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('reflects an allow-listed origin with Vary: Origin, still without credentials', async () => {
      const pre = await req('/v1/packages/acme/public-kb/1.0.0', {
        method: 'OPTIONS',
        headers: { origin: GOOD, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization' },
      });
      expect(pre.headers.get('access-control-allow-origin')).toBe(GOOD);
      expect(pre.headers.get('access-control-allow-headers')).toContain('authorization');
      const res = await req('/v1/packages/acme/secret-kb/index.json', { headers: { origin: GOOD }, token: r.tokens.acmeRead });
      expect(res.headers.get('access-control-allow-origin')).toBe(GOOD);
      expect(res.headers.get('vary')).toContain('Origin');
    });

    it('gives the hidden-package 404 and the missing-package 404 the same CORS headers', async () => {
      const a = await req('/v1/packages/acme/secret-kb/index.json', { headers: { origin: EVIL } });
      const b = await req('/v1/packages/acme/none-kb/index.json', { headers: { origin: EVIL } });
      expect([...a.headers.entries()]).toEqual([...b.headers.entries()]);
    });
  });
});
