/** `GET /v1/whoami` (spec/registry.md §9): the caller's own token's namespace and scope, nothing else. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeToken } from '../admin.js';
import { newTestRegistry, type TestRegistry } from '../__tests__/support.js';

describe('GET /v1/whoami', () => {
  let r: TestRegistry;
  beforeAll(async () => {
    r = await newTestRegistry({ basePath: '/api' });
  });
  afterAll(async () => r.close());

  it('names the namespace and scope of the token sent, uncached, also under the base path', async () => {
    for (const path of ['/v1/whoami', '/api/v1/whoami']) {
      const res = await r.req(path, { token: r.tokens.acmePublish });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toMatchObject({ namespace: 'acme', scope: 'publish', token_id: expect.stringMatching(/^tok_[0-9a-f]{16}$/) });
    }
    expect(await (await r.req('/v1/whoami', { token: r.tokens.acmeRead })).json()).toMatchObject({ namespace: 'acme', scope: 'read' });
    expect(await (await r.req('/v1/whoami', { token: r.tokens.otherPublish })).json()).toMatchObject({ namespace: 'other', scope: 'publish' });
  });

  it('401 E_AUTH without a token, with an unknown one, and with a revoked one', async () => {
    const anon = await r.req('/v1/whoami');
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toContain('Bearer');
    expect(await anon.json()).toMatchObject({ code: 'E_AUTH' });
    expect((await r.req('/v1/whoami', { token: 'ctxp_' + 'A'.repeat(43) })).status).toBe(401);
    await revokeToken({ store: r.store }, r.tokens.acmeRead);
    expect((await r.req('/v1/whoami', { token: r.tokens.acmeRead })).status).toBe(401);
  });
});
