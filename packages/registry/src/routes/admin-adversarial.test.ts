/**
 * Adversarial cases against remote administration (spec/registry.md §9, §14.1): an owner of one
 * namespace reaching another through path, body, case, Unicode or percent-encoding; owners
 * minting admin tokens; publish/read/revoked/expired tokens on admin routes; a token revoked on
 * one node used on another node of the same PostgreSQL database; existence oracles; oversized
 * bodies; token texts in logs, events and errors; labels that forge table rows.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { publicKeyFromSeed } from '@ctxpkg/format';
import { createNamespace, createToken, listEvents, revokeToken } from '../admin.js';
import { hashToken } from '../auth.js';
import { createApp } from '../app.js';
import { openPgStore } from '../store/pg.js';
import type { LogEntry } from '../options.js';
import { describeBackends, makePackage, newTestRegistry, OTHER_SEED, storageSnapshot, type TestRegistry } from '../__tests__/support.js';

const OTHER_KEY = publicKeyFromSeed(OTHER_SEED);

describeBackends('admin routes under attack', (backend) => {
  let r: TestRegistry;
  let admin: { token: string; id: string };
  let owner: { token: string; id: string };

  beforeEach(async () => {
    r = await newTestRegistry({}, backend);
    admin = await createToken({ store: r.store }, { scope: 'admin' });
    owner = await createToken({ store: r.store }, { namespace: 'acme', scope: 'owner' });
  });
  afterEach(async () => {
    await r.close();
  });

  const send = (method: string, path: string, token: string | undefined, body?: unknown, headers: Record<string, string> = {}) =>
    r.req(path, { method, token, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }), headers: { 'content-type': 'application/json', ...headers } });
  /** Storage, tokens and events: everything an admin request could change. */
  const snap = async () => (await storageSnapshot(r.store)) + JSON.stringify(await r.store.listTokens()) + JSON.stringify(await listEvents({ store: r.store }, { limit: 10_000 }));
  const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });

  it('an owner of acme cannot reach namespace other through case, Unicode, encoding or path tricks; nothing changes', async () => {
    expect((await r.put('/v1/packages/other/secret/1.0.0', makePackage({ name: '@other/secret', visibility: 'private' }), r.tokens.otherPublish)).status).toBe(201);
    const before = await snap();
    const otherNs = ['other', 'OTHER', 'Other', '%6Fther', '%4F%54%48%45%52', 'ot%68er', 'other%00', 'other%2F..%2Facme', 'other ', ' other', 'оther' /* Cyrillic о */, 'other\u200b', 'acme/../other', '..%2Fother', 'acme%2Fother'];
    for (const ns of otherNs) {
      const path = (p: string) => p.replace('{ns}', ns.includes('%') ? ns : encodeURIComponent(ns));
      const attempts: Array<[string, string, unknown?]> = [
        ['GET', path('/v1/admin/namespaces/{ns}/keys')],
        ['POST', path('/v1/admin/namespaces/{ns}/keys'), { public_key: OTHER_KEY }],
        ['DELETE', path(`/v1/admin/namespaces/{ns}/keys/${OTHER_KEY}`)],
        ['PUT', path('/v1/admin/packages/{ns}/secret/visibility'), { visibility: 'public' }],
        ['GET', path('/v1/admin/tokens?namespace={ns}')],
        ['GET', path('/v1/admin/events?namespace={ns}')],
        ['POST', '/v1/admin/tokens', { namespace: ns, scope: 'publish' }],
        ['POST', '/v1/admin/tokens', { namespace: decodeURIComponent(ns.replace(/%00/, '')), scope: 'owner' }],
      ];
      for (const [method, p, body] of attempts) {
        const res = await json(await send(method, p, owner.token, body));
        expect([ns, method, p, res.status >= 400 && res.status < 500]).toEqual([ns, method, p, true]);
        expect([ns, method, p, res.body.code]).not.toEqual([ns, method, p, undefined]);
      }
    }
    // Body members that try to smuggle a second namespace or an admin scope.
    for (const body of [
      '{"namespace":"acme","namespace":"other","scope":"publish"}',
      '{"namespace":"acme","scope":"publish","__proto__":{"namespace":"other"}}',
      '{"namespace":"other","scope":"publish","constructor":{}}',
      '{"scope":"admin","namespace":null}',
      '{"scope":"ADMIN"}',
      '{"scope":"admin "}',
      '{"scope":["admin"]}',
      '{"scope":"owner","namespace":"acme","scope":"admin"}',
    ]) {
      const res = await json(await send('POST', '/v1/admin/tokens', owner.token, body));
      expect([body, res.status >= 400 && res.status < 500]).toEqual([body, true]);
    }
    expect(await snap()).toBe(before);
    expect((await r.store.listTokens()).filter((t) => t.scope === 'admin').map((t) => t.id)).toEqual([admin.id]);
  });

  it('publish, read, revoked, expired and malformed tokens are refused on every admin route and whoami answers only for live tokens', async () => {
    let now = new Date('2026-12-05T09:00:00Z');
    await r.close();
    r = await newTestRegistry({ clock: () => now }, backend);
    admin = await createToken({ store: r.store, clock: () => now }, { scope: 'admin' });
    const expiring = await createToken({ store: r.store, clock: () => now }, { namespace: 'acme', scope: 'owner', expires: '1h' });
    const expiringAdmin = await createToken({ store: r.store, clock: () => now }, { scope: 'admin', expires: '1h' });
    const revoked = await createToken({ store: r.store }, { namespace: 'acme', scope: 'owner' });
    const revokedAdmin = await createToken({ store: r.store }, { scope: 'admin' });
    await revokeToken({ store: r.store }, revoked.id);
    await revokeToken({ store: r.store }, revokedAdmin.id);
    expect((await send('GET', '/v1/admin/tokens', expiringAdmin.token)).status).toBe(200);
    now = new Date('2026-12-05T10:00:00Z');
    const before = await snap();
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/v1/admin/namespaces'],
      ['POST', '/v1/admin/namespaces', { name: 'beta' }],
      ['GET', '/v1/admin/tokens'],
      ['POST', '/v1/admin/tokens', { scope: 'admin' }],
      ['POST', '/v1/admin/tokens', { namespace: 'acme', scope: 'owner' }],
      ['DELETE', `/v1/admin/tokens/${admin.id}`],
      ['GET', '/v1/admin/namespaces/acme/keys'],
      ['POST', '/v1/admin/namespaces/acme/keys', { public_key: OTHER_KEY }],
      ['PUT', '/v1/admin/packages/acme/kb/visibility', { visibility: 'private' }],
      ['GET', '/v1/admin/events'],
      ['POST', '/v1/admin/gc', {}],
      ['GET', '/v1/whoami'],
    ];
    const deadTokens = [expiring.token, expiringAdmin.token, revoked.token, revokedAdmin.token, 'ctxa_' + 'A'.repeat(43), admin.token.toUpperCase(), admin.token + 'x', admin.token.slice(0, -1)];
    for (const [method, path, body] of routes) {
      for (const t of deadTokens) {
        const res = await json(await send(method, path, t, body));
        expect([method, path, res.status, res.body.code]).toEqual([method, path, 401, 'E_AUTH']);
        expect(JSON.stringify(res.body)).not.toContain(t);
      }
      for (const header of [`Basic ${admin.token}`, `Bearer ${admin.token} ${admin.token}`, `Bearer\t${admin.token}`, `Token ${admin.token}`]) {
        const res = await r.req(path, { method, headers: { authorization: header, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
        expect([method, path, header.slice(0, 7), res.status]).toEqual([method, path, header.slice(0, 7), 401]);
        expect(await res.text()).not.toContain(admin.token);
      }
      if (path === '/v1/whoami') continue;
      for (const t of [r.tokens.acmePublish, r.tokens.acmeRead, r.tokens.otherPublish]) {
        const res = await json(await send(method, path, t, body));
        expect([method, path, res.status]).toEqual([method, path, 403]);
      }
    }
    expect(await snap()).toBe(before);
    // whoami names the caller's own token only: no label, hash, expiry or other tokens.
    const who = await json(await send('GET', '/v1/whoami', r.tokens.acmePublish));
    expect(Object.keys(who.body).sort()).toEqual(['namespace', 'scope', 'token_id']);
    expect(JSON.stringify(r.logs)).not.toMatch(/ctx[proa]_[A-Za-z0-9_-]{20}/);
  });

  it('an owner cannot revoke or learn of tokens outside its namespace, whatever form names them', async () => {
    const otherTok = (await r.store.listTokens('other'))[0]!;
    const before = await snap();
    const answer = async (id: string) => {
      const res = await json(await send('DELETE', `/v1/admin/tokens/${id}`, owner.token));
      return `${res.status} ${res.body.code} ${String(res.body.error).replace(/tok_[0-9a-f]{16}/, 'tok_X')}`;
    };
    // Existing tokens of another namespace (or admin tokens) answer exactly as missing ones.
    const missingId = await answer('tok_' + '0'.repeat(16));
    const missingHash = await answer('0'.repeat(64));
    expect(missingId).toMatch(/^404 E_NOT_FOUND/);
    expect(missingHash).toMatch(/^404 E_NOT_FOUND/);
    for (const id of [otherTok.id, admin.id]) expect([id, await answer(id)]).toEqual([id, missingId]);
    for (const h of [otherTok.token_sha256, hashToken(admin.token), hashToken(r.tokens.otherPublish)]) expect([h, await answer(h)]).toEqual([h, missingHash]);
    // Other spellings of those ids are refused as malformed, never matched loosely.
    for (const id of [otherTok.id.toUpperCase(), otherTok.token_sha256.toUpperCase(), `${otherTok.id}%20`, `%20${otherTok.id}`, encodeURIComponent(otherTok.id + '\n'), `${otherTok.id}.json`, `${otherTok.id}%00`]) {
      const a = await answer(id);
      expect([id, /^400 E_(USAGE|INVALID_NAME) /.test(a)]).toEqual([id, true]);
    }
    expect(await snap()).toBe(before);
  });

  it('the events log records every admin action with the acting token id and never a token text', async () => {
    const mk = await json(await send('POST', '/v1/admin/tokens', owner.token, { namespace: 'acme', scope: 'publish', label: 'ci' }));
    expect(mk.status).toBe(201);
    // First publish registers the signer key: the key event names the publishing token.
    expect((await r.put('/v1/packages/acme/kb/1.0.0', makePackage(), mk.body.token)).status).toBe(201);
    expect((await send('PUT', '/v1/admin/packages/acme/kb/visibility', owner.token, { visibility: 'private' })).status).toBe(200);
    expect((await send('POST', '/v1/admin/namespaces/acme/keys', owner.token, { public_key: OTHER_KEY })).status).toBe(200);
    expect((await send('DELETE', `/v1/admin/namespaces/acme/keys/${OTHER_KEY}`, owner.token)).status).toBe(200);
    expect((await send('DELETE', `/v1/admin/tokens/${mk.body.id}`, owner.token)).status).toBe(200);
    expect((await send('POST', '/v1/admin/namespaces', admin.token, { name: 'beta', owner: 'team b' })).status).toBe(201);
    expect((await send('POST', '/v1/admin/gc', admin.token, {})).status).toBe(200);
    const events = await listEvents({ store: r.store }, { limit: 100 });
    const ids = new Set((await r.store.listTokens()).map((t) => t.id));
    for (const e of events) {
      // Every actor is a token id of this registry or the local operator.
      expect([e.action, e.actor === 'local admin' || ids.has(e.actor)]).toEqual([e.action, true]);
    }
    const pubId = mk.body.id;
    const firstKey = events.find((e) => e.action === 'key:first-publish');
    expect(firstKey?.actor).toBe(pubId);
    const text = JSON.stringify(events) + JSON.stringify(r.logs);
    for (const t of [mk.body.token, admin.token, owner.token, r.tokens.acmePublish]) {
      expect(text).not.toContain(t);
      expect(text).not.toContain(hashToken(t));
    }
  });

  it('token texts sent in a URL never reach the request log or the error answer', async () => {
    const paths = [
      `/v1/admin/tokens/${owner.token}`,
      `/v1/admin/namespaces/${admin.token}/keys`,
      `/v1/whoami/${admin.token}`,
      `/v1/packages/acme/${r.tokens.acmePublish}/index.json`,
      `/api/v1/admin/tokens/${encodeURIComponent(admin.token)}`,
    ];
    for (const p of paths) {
      const res = await send(p.includes('/tokens/') ? 'DELETE' : 'GET', p, admin.token);
      expect([p, res.status >= 400]).toEqual([p, true]);
      // Nor the error answer (a token pasted where a namespace goes is not echoed back).
      const answer = await res.text();
      for (const t of [owner.token, admin.token, r.tokens.acmePublish]) expect([p, answer.includes(t.slice(5))]).toEqual([p, false]);
    }
    const logged = JSON.stringify(r.logs);
    for (const t of [owner.token, admin.token, r.tokens.acmePublish]) expect(logged).not.toContain(t.slice(5));
    expect(r.logs.filter((l) => l.msg === 'request')).toHaveLength(paths.length);
  });

  it('oversized and malformed admin bodies are refused before anything is written', async () => {
    const before = await snap();
    const big = JSON.stringify({ namespace: 'acme', scope: 'read', label: 'x'.repeat(20_000) });
    expect((await send('POST', '/v1/admin/tokens', admin.token, big)).status).toBe(413);
    expect((await send('POST', '/v1/admin/tokens', admin.token, big, { 'content-length': '10' })).status).toBeGreaterThanOrEqual(400);
    expect((await send('POST', '/v1/admin/tokens', admin.token, '{"scope":"admin"}', { 'content-length': 'abc' })).status).toBe(400);
    const stream = new ReadableStream<Uint8Array>({
      start(ctl) {
        for (let i = 0; i < 64; i++) ctl.enqueue(new Uint8Array(1024).fill(0x20));
        ctl.close();
      },
    });
    const chunked = await r.req('/v1/admin/namespaces', { method: 'POST', token: admin.token, body: stream, duplex: 'half' } as RequestInit & { token: string });
    expect(chunked.status).toBe(413);
    for (const body of ['{"name":"beta","owner":"x\\ny"}', '{"name":"beta","owner":"\\u001b[2J"}', '{"name":"beta","owner":"a\\u0085b"}', '{"name":"beta","owner":"a\\u202eb"}']) {
      const res = await json(await send('POST', '/v1/admin/namespaces', admin.token, body));
      expect([body, res.status, res.body.code]).toEqual([body, 400, 'E_USAGE']);
    }
    for (const label of ['a\nb', 'a\rb', 'a\tb', '\u001b]0;pwned\u0007', 'a\u009bb', 'a\u0085b', 'a\u2028b', 'a\u2029b', 'a\u202eb', 'a\u2066b']) {
      const res = await json(await send('POST', '/v1/admin/tokens', admin.token, { namespace: 'acme', scope: 'read', label }));
      expect([JSON.stringify(label), res.status, res.body.code]).toEqual([JSON.stringify(label), 400, 'E_USAGE']);
    }
    expect(await snap()).toBe(before);
    // Control: a plain Unicode label is fine.
    expect((await send('POST', '/v1/admin/tokens', admin.token, { namespace: 'acme', scope: 'read', label: 'équipe CI ✓' })).status).toBe(201);
  });

  it('an owner learns nothing about other namespaces from the answers (same status and text for existing and missing)', async () => {
    expect((await r.put('/v1/packages/other/secret/1.0.0', makePackage({ name: '@other/secret', visibility: 'private' }), r.tokens.otherPublish)).status).toBe(201);
    const norm = async (res: Response) => {
      const b = await json(res);
      return `${b.status} ${b.body.code} ${String(b.body.error).replace(/other|ghost|secret|nope/g, 'X')}`;
    };
    const pairs: Array<[string, string, unknown?]> = [
      ['PUT', '/v1/admin/packages/{ns}/{pkg}/visibility', { visibility: 'public' }],
      ['GET', '/v1/admin/namespaces/{ns}/keys'],
      ['POST', '/v1/admin/namespaces/{ns}/keys', { public_key: OTHER_KEY }],
      ['GET', '/v1/admin/events?namespace={ns}'],
      ['GET', '/v1/admin/tokens?namespace={ns}'],
    ];
    for (const [m, p, b] of pairs) {
      const existing = await norm(await send(m, p.replace('{ns}', 'other').replace('{pkg}', 'secret'), owner.token, b));
      const missing = await norm(await send(m, p.replace('{ns}', 'ghost').replace('{pkg}', 'nope'), owner.token, b));
      expect([m, p, existing]).toEqual([m, p, missing]);
    }
    const tokExisting = await norm(await send('POST', '/v1/admin/tokens', owner.token, { namespace: 'other', scope: 'read' }));
    const tokMissing = await norm(await send('POST', '/v1/admin/tokens', owner.token, { namespace: 'ghost', scope: 'read' }));
    expect(tokExisting).toBe(tokMissing);
  });

  it('a token revoked through one node is refused at once by another node of the same database', async () => {
    if (backend !== 'postgres') {
      // SQLite: a second store on the same data directory.
      const { openSqliteStore } = await import('../store/sqlite.js');
      const store2 = await openSqliteStore({ dataDir: r.dir });
      try {
        await crossNode(store2);
      } finally {
        await store2.close();
      }
      return;
    }
    const store2 = await openPgStore({ url: r.url!, poolSize: 2 });
    try {
      await crossNode(store2);
    } finally {
      await store2.close();
    }
  });

  async function crossNode(store2: Parameters<typeof createApp>[0]['store']): Promise<void> {
    const logs: LogEntry[] = [];
    const node2 = createApp({ store: store2, log: (e) => logs.push(e) });
    const call = (path: string, token: string, init: RequestInit = {}) =>
      Promise.resolve(node2.request(`http://node2.test${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }));
    // Warm both nodes (index cache, principal lookups), then revoke on node 1.
    expect((await call('/v1/whoami', owner.token)).status).toBe(200);
    expect((await call('/v1/admin/tokens', owner.token)).status).toBe(200);
    expect((await send('DELETE', `/v1/admin/tokens/${owner.id}`, admin.token)).status).toBe(200);
    expect((await call('/v1/whoami', owner.token)).status).toBe(401);
    expect((await call('/v1/admin/tokens', owner.token, { method: 'POST', body: JSON.stringify({ namespace: 'acme', scope: 'owner' }) })).status).toBe(401);
    // And the reverse: revoked on node 2, refused on node 1.
    expect((await call(`/v1/admin/tokens/${hashToken(r.tokens.acmePublish)}`, admin.token, { method: 'DELETE' })).status).toBe(200);
    expect((await r.put('/v1/packages/acme/kb/1.0.0', makePackage(), r.tokens.acmePublish)).status).toBe(401);
    const ev = await listEvents({ store: r.store }, { limit: 10 });
    expect(ev.filter((e) => e.action === 'token:revoke').map((e) => e.actor)).toEqual([admin.id, admin.id]);
  }
});
