/**
 * Remote administration (spec/registry.md §14.1): the admin routes on both backends — roles
 * checked per route (admin, namespace owner, never publish/read), an owner confined to its own
 * namespace and never minting admin tokens, every change in the events log with the acting token
 * id, token texts in exactly one answer and in no log line.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publicKeyFromSeed } from '@ctxpkg/format';
import { createToken, LOCAL_ADMIN, listEvents, revokeToken } from '../admin.js';
import { hashToken } from '../auth.js';
import pg from 'pg';
import { describeBackends, makePackage, newTestRegistry, OTHER_SEED, type TestRegistry } from '../__tests__/support.js';
import { freshPgUrl, pgUnavailable } from '../__tests__/backends.js';
import { MIGRATIONS } from '../store/pg-schema.js';
import { openPgStore } from '../store/pg.js';

const OTHER_KEY = publicKeyFromSeed(OTHER_SEED);

describeBackends('admin routes', (backend) => {
  let r: TestRegistry;
  let admin: { token: string; id: string };
  let owner: { token: string; id: string };

  beforeEach(async () => {
    r = await newTestRegistry({}, backend);
    admin = await createToken({ store: r.store }, { scope: 'admin', label: 'laptop' });
    owner = await createToken({ store: r.store }, { namespace: 'acme', scope: 'owner' });
  });
  afterEach(async () => {
    await r.close();
  });

  const send = (method: string, path: string, token: string | undefined, body?: unknown) =>
    r.req(path, { method, token, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });

  it('needs a token, and refuses publish and read tokens on every route with 403 E_FORBIDDEN', async () => {
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/v1/admin/namespaces'],
      ['POST', '/v1/admin/namespaces', { name: 'beta' }],
      ['GET', '/v1/admin/tokens'],
      ['POST', '/v1/admin/tokens', { namespace: 'acme', scope: 'read' }],
      ['GET', '/v1/admin/namespaces/acme/keys'],
      ['POST', '/v1/admin/namespaces/acme/keys', { public_key: OTHER_KEY }],
      ['PUT', '/v1/admin/packages/acme/kb/visibility', { visibility: 'private' }],
      ['GET', '/v1/admin/events'],
      ['POST', '/v1/admin/gc', {}],
    ];
    for (const [method, path, body] of routes) {
      const anon = await json(await send(method, path, undefined, body));
      expect([method, path, anon.status, anon.body.code]).toEqual([method, path, 401, 'E_AUTH']);
      for (const t of [r.tokens.acmePublish, r.tokens.acmeRead]) {
        const res = await json(await send(method, path, t, body));
        expect([method, path, res.status, res.body.code]).toEqual([method, path, 403, 'E_FORBIDDEN']);
      }
    }
    // Nothing changed: no namespace, no token, no key.
    expect((await r.store.listNamespaces()).map((n) => n.name)).toEqual(['acme', 'other']);
    expect(await r.store.listSignerKeys('acme')).toEqual([]);
    const whoami = await json(await send('GET', '/v1/whoami', owner.token));
    expect(whoami.body).toEqual({ token_id: owner.id, scope: 'owner', namespace: 'acme' });
    expect((await json(await send('GET', '/v1/whoami', admin.token))).body).toEqual({ token_id: admin.id, scope: 'admin', namespace: null });
  });

  it('an admin token administers every namespace and mints any token, recorded under its id', async () => {
    const ns = await json(await send('POST', '/v1/admin/namespaces', admin.token, { name: 'beta', owner: 'team-b' }));
    expect(ns).toMatchObject({ status: 201, body: { name: 'beta', owner: 'team-b' } });
    expect((await json(await send('POST', '/v1/admin/namespaces', admin.token, { name: 'beta' }))).body.code).toBe('E_EXISTS');
    const made = await json(await send('POST', '/v1/admin/tokens', admin.token, { namespace: 'beta', scope: 'owner', expires: '30d', label: 'team b' }));
    expect(made.status).toBe(201);
    expect(made.body.token).toMatch(/^ctxo_[A-Za-z0-9_-]{43}$/);
    expect(made.body).toMatchObject({ namespace: 'beta', scope: 'owner', label: 'team b' });
    const second = await json(await send('POST', '/v1/admin/tokens', admin.token, { scope: 'admin' }));
    expect(second.body).toMatchObject({ namespace: null, scope: 'admin' });
    expect(second.body.token).toMatch(/^ctxa_/);
    expect((await json(await send('POST', '/v1/admin/tokens', admin.token, { scope: 'admin', namespace: 'beta' }))).body.code).toBe('E_USAGE');
    expect((await json(await send('POST', '/v1/admin/tokens', admin.token, { scope: 'read', namespace: 'nope' }))).status).toBe(404);

    const list = await json(await send('GET', '/v1/admin/tokens', admin.token));
    expect(list.body.tokens.map((t: { id: string }) => t.id)).toContain(made.body.id);
    const listed = JSON.stringify(list.body);
    expect(listed).not.toContain('token_sha256');
    for (const secret of [made.body.token, second.body.token, admin.token]) expect(listed).not.toContain(secret);

    // The admin token reads only public packages and never publishes.
    const pub = await json(await r.put('/v1/packages/acme/kb/1.0.0', makePackage(), admin.token));
    expect([pub.status, pub.body.code]).toEqual([403, 'E_FORBIDDEN']);

    const ev = await json(await send('GET', '/v1/admin/events?limit=10', admin.token));
    const mine = ev.body.events.filter((e: { actor: string }) => e.actor === admin.id).map((e: { action: string; namespace: string | null; detail: string }) => [e.action, e.namespace]);
    expect(mine).toEqual([
      ['token:create:admin', null],
      ['token:create:owner', 'beta'],
      ['namespace:create', 'beta'],
    ]);
    // Local actions are recorded as the local admin.
    expect(ev.body.events.find((e: { detail: string }) => e.detail === owner.id).actor).toBe(LOCAL_ADMIN);

    const gc = await json(await send('POST', '/v1/admin/gc', admin.token, { grace_seconds: 0 }));
    expect(gc).toEqual({ status: 200, body: { removed: 0 } });
    expect((await listEvents({ store: r.store }, { limit: 1 }))[0]).toMatchObject({ action: 'gc', namespace: null, actor: admin.id, detail: 'removed 0' });
  });

  it('an owner token administers its own namespace only and never mints an admin token', async () => {
    for (const scope of ['read', 'publish', 'owner']) {
      const t = await json(await send('POST', '/v1/admin/tokens', owner.token, { namespace: 'acme', scope }));
      expect([scope, t.status, t.body.namespace]).toEqual([scope, 201, 'acme']);
    }
    for (const body of [{ namespace: 'other', scope: 'read' }, { scope: 'admin' }, { namespace: 'nope', scope: 'publish' }]) {
      const t = await json(await send('POST', '/v1/admin/tokens', owner.token, body));
      expect([JSON.stringify(body), t.status, t.body.code]).toEqual([JSON.stringify(body), 403, 'E_FORBIDDEN']);
    }
    expect((await json(await send('POST', '/v1/admin/namespaces', owner.token, { name: 'mine' }))).status).toBe(403);
    expect((await json(await send('POST', '/v1/admin/gc', owner.token, {}))).status).toBe(403);

    // Lists: its own namespace (asked or not), never another's.
    const ns = await json(await send('GET', '/v1/admin/namespaces', owner.token));
    expect(ns.body.namespaces.map((n: { name: string }) => n.name)).toEqual(['acme']);
    const toks = await json(await send('GET', '/v1/admin/tokens', owner.token));
    expect(new Set(toks.body.tokens.map((t: { namespace: string }) => t.namespace))).toEqual(new Set(['acme']));
    expect((await send('GET', '/v1/admin/tokens?namespace=other', owner.token)).status).toBe(403);
    expect((await send('GET', '/v1/admin/events?namespace=other', owner.token)).status).toBe(403);

    // Revoke: its namespace's tokens; another namespace's token answers as a missing one.
    const otherTok = (await r.store.listTokens('other'))[0]!;
    const foreign = await json(await send('DELETE', `/v1/admin/tokens/${otherTok.id}`, owner.token));
    expect([foreign.status, foreign.body.code]).toEqual([404, 'E_NOT_FOUND']);
    expect((await r.store.listTokens('other'))[0]!.revoked_at).toBeNull();
    const missing = await json(await send('DELETE', '/v1/admin/tokens/tok_0000000000000000', owner.token));
    expect(missing.body.error).toBe(foreign.body.error.replace(otherTok.id, 'tok_0000000000000000'));
    const revoked = await json(await send('DELETE', `/v1/admin/tokens/${hashToken(r.tokens.acmeRead)}`, owner.token));
    expect(revoked.body).toMatchObject({ namespace: 'acme', scope: 'read' });
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    expect((await r.req('/v1/index.json', { token: r.tokens.acmeRead })).status).toBe(401);
    const text = await json(await send('DELETE', `/v1/admin/tokens/${r.tokens.acmePublish}`, owner.token));
    expect([text.status, text.body.code]).toEqual([400, 'E_USAGE']);

    // An owner token publishes in its namespace and sees its private packages.
    expect((await r.put('/v1/packages/acme/kb/1.0.0', makePackage({ visibility: 'private' }), owner.token)).status).toBe(201);
    expect((await r.req('/v1/packages/acme/kb/index.json', { token: owner.token })).status).toBe(200);

    // Keys and visibility of its namespace; not of another.
    // recorded as added by the namespace's owner (it read "admin" before schema 6)
    expect((await json(await send('POST', '/v1/admin/namespaces/acme/keys', owner.token, { public_key: OTHER_KEY }))).body).toMatchObject({ namespace: 'acme', public_key: OTHER_KEY, added_by: 'owner', revoked_at: null });
    expect((await send('POST', '/v1/admin/namespaces/other/keys', owner.token, { public_key: OTHER_KEY })).status).toBe(403);
    expect((await json(await send('GET', '/v1/admin/namespaces/acme/keys', owner.token))).body.keys).toHaveLength(2); // first-publish + added
    expect((await json(await send('DELETE', `/v1/admin/namespaces/acme/keys/${OTHER_KEY}`, owner.token))).body.revoked_at).toEqual(expect.any(String));
    const notKey = await json(await send('DELETE', `/v1/admin/namespaces/acme/keys/${'0'.repeat(64)}`, owner.token));
    expect([notKey.status, notKey.body.code]).toEqual([404, 'E_NOT_FOUND']);

    const vis = await json(await send('PUT', '/v1/admin/packages/acme/kb/visibility', owner.token, { visibility: 'public' }));
    expect(vis.body).toMatchObject({ namespace: 'acme', name: 'kb', visibility: 'public' });
    expect((await r.req('/v1/packages/acme/kb/index.json')).status).toBe(200);
    expect((await send('PUT', '/v1/admin/packages/other/kb/visibility', owner.token, { visibility: 'public' })).status).toBe(403);
    const noPkg = await json(await send('PUT', '/v1/admin/packages/acme/nope/visibility', owner.token, { visibility: 'public' }));
    expect([noPkg.status, noPkg.body.error]).toEqual([404, 'package @acme/nope does not exist']);

    const ev = await json(await send('GET', '/v1/admin/events?limit=100', owner.token));
    expect(new Set(ev.body.events.map((e: { namespace: string }) => e.namespace))).toEqual(new Set(['acme']));
    const byOwner = ev.body.events.filter((e: { actor: string }) => e.actor === owner.id).map((e: { action: string }) => e.action);
    expect(byOwner).toEqual(['visibility:public', 'key:revoke', 'key:add', 'publish', 'key:first-publish', 'token:revoke', 'token:create:owner', 'token:create:publish', 'token:create:read']);

    // A revoked owner token is refused on its next request.
    await revokeToken({ store: r.store }, owner.id);
    expect((await send('GET', '/v1/admin/namespaces', owner.token)).status).toBe(401);
  });

  it('refuses malformed bodies with 400 E_USAGE and writes nothing; never logs a token', async () => {
    const bad: Array<[string, string, string]> = [
      ['POST', '/v1/admin/tokens', '{"scope":"read","namespace":"acme","extra":1}'],
      ['POST', '/v1/admin/tokens', '[1]'],
      ['POST', '/v1/admin/tokens', 'not json'],
      ['POST', '/v1/admin/tokens', '{"scope":"root","namespace":"acme"}'],
      ['POST', '/v1/admin/tokens', '{"scope":"read","namespace":"acme","expires":"yesterday"}'],
      ['PUT', '/v1/admin/packages/acme/kb/visibility', '{"visibility":"Private"}'],
      ['POST', '/v1/admin/gc', '{"grace_seconds":"1h"}'],
    ];
    const before = (await r.store.listTokens()).length;
    for (const [method, path, body] of bad) {
      const res = await json(await r.req(path, { method, token: admin.token, body, headers: { 'content-type': 'application/json' } }));
      expect([path, body, res.status, res.body.code]).toEqual([path, body, 400, 'E_USAGE']);
    }
    expect((await r.store.listTokens()).length).toBe(before);
    const made = await json(await send('POST', '/v1/admin/tokens', admin.token, { namespace: 'acme', scope: 'publish' }));
    const logged = JSON.stringify(r.logs);
    for (const secret of [made.body.token, admin.token, owner.token]) expect(logged).not.toContain(secret);
    expect(r.logs.some((l) => l.route === 'admin_token_create' && l.token_id === admin.id)).toBe(true);
  });
});

describe('schema upgrade to token roles', () => {
  it('a SQLite store of schema 5 keeps its signer keys and then records keys an owner adds as owner', async () => {
    const { openSqliteStore } = await import('../store/sqlite.js');
    const { addSignerKey, createNamespace } = await import('../admin.js');
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'ctxpkg-schema5-'));
    try {
      let store = await openSqliteStore({ dataDir: dir });
      await createNamespace({ store }, 'acme');
      await addSignerKey({ store }, 'acme', 'a'.repeat(64));
      // Back to the schema-5 signer_keys table (as written by the previous release).
      store.db.exec(`
        CREATE TABLE signer_keys_old (namespace TEXT NOT NULL REFERENCES namespaces(name), public_key TEXT NOT NULL CHECK (length(public_key) = 64),
          added_at TEXT NOT NULL, added_by TEXT NOT NULL CHECK (added_by IN ('first-publish', 'admin')), revoked_at TEXT, PRIMARY KEY (namespace, public_key));
        INSERT INTO signer_keys_old SELECT namespace, public_key, added_at, added_by, revoked_at FROM signer_keys;
        DROP TABLE signer_keys; ALTER TABLE signer_keys_old RENAME TO signer_keys;
        UPDATE meta SET value = '5' WHERE key = 'schema_version';`);
      expect(() => store.db.prepare("INSERT INTO signer_keys VALUES ('acme', ?, 't', 'owner', NULL)").run('c'.repeat(64))).toThrow(/CHECK/);
      await store.close();
      store = await openSqliteStore({ dataDir: dir });
      expect(store.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: '6' });
      await addSignerKey({ store, caller: { scope: 'owner', namespace: 'acme', tokenId: 'tok_0123456789abcdef' } }, 'acme', 'b'.repeat(64));
      expect((await store.listSignerKeys('acme')).map((k) => [k.public_key[0], k.added_by])).toEqual([['a', 'admin'], ['b', 'owner']]);
      expect(() => store.db.prepare("INSERT INTO signer_keys VALUES ('acme', ?, 't', 'someone', NULL)").run('d'.repeat(64))).toThrow(/CHECK/);
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a SQLite store of schema 4 keeps its tokens and events and accepts owner and admin tokens', async () => {
    const { openSqliteStore } = await import('../store/sqlite.js');
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'ctxpkg-schema4-'));
    try {
      let store = await openSqliteStore({ dataDir: dir });
      const { createNamespace } = await import('../admin.js');
      await createNamespace({ store }, 'acme');
      const old = await createToken({ store }, { namespace: 'acme', scope: 'publish' });
      // Back to the schema-4 tables (as written by the previous release).
      store.db.exec(`
        CREATE TABLE tokens_old (id TEXT PRIMARY KEY, token_sha256 TEXT NOT NULL UNIQUE CHECK (length(token_sha256) = 64),
          namespace TEXT NOT NULL REFERENCES namespaces(name), scope TEXT NOT NULL CHECK (scope IN ('publish', 'read')),
          label TEXT, created_at TEXT NOT NULL, expires_at TEXT, revoked_at TEXT);
        INSERT INTO tokens_old SELECT id, token_sha256, namespace, scope, label, created_at, expires_at, revoked_at FROM tokens;
        DROP TABLE tokens; ALTER TABLE tokens_old RENAME TO tokens;
        CREATE TABLE events_old (id INTEGER PRIMARY KEY, at TEXT NOT NULL, action TEXT NOT NULL, namespace TEXT NOT NULL,
          name TEXT, version TEXT, actor TEXT NOT NULL, detail TEXT);
        INSERT INTO events_old SELECT * FROM events; DROP TABLE events; ALTER TABLE events_old RENAME TO events;
        UPDATE meta SET value = '4' WHERE key = 'schema_version';`);
      expect(() => store.db.prepare("INSERT INTO tokens VALUES ('tok_x', ?, NULL, 'admin', NULL, 't', NULL, NULL)").run('a'.repeat(64))).toThrow();
      await store.close();
      store = await openSqliteStore({ dataDir: dir });
      expect(store.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: '6' });
      expect((await store.listTokens()).map((t) => t.id)).toEqual([old.id]);
      expect((await store.findTokenByHash(hashToken(old.token)))?.scope).toBe('publish');
      expect((await listEvents({ store })).map((e) => e.action)).toEqual(['token:create:publish', 'namespace:create']);
      expect((await createToken({ store }, { scope: 'admin' })).namespace).toBeNull();
      expect((await createToken({ store }, { namespace: 'acme', scope: 'owner' })).scope).toBe('owner');
      // The constraint holds: an admin token has no namespace, every other one has one.
      expect(() => store.db.prepare("INSERT INTO tokens VALUES ('tok_y', ?, 'acme', 'admin', NULL, 't', NULL, NULL)").run('b'.repeat(64))).toThrow(/CHECK/);
      expect(() => store.db.prepare("INSERT INTO tokens VALUES ('tok_z', ?, NULL, 'owner', NULL, 't', NULL, NULL)").run('c'.repeat(64))).toThrow(/CHECK/);
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(Boolean(pgUnavailable))('a PostgreSQL database of schema 2 migrates to 3 with its tokens and takes owner and admin tokens', async () => {
    const url = await freshPgUrl();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
      for (const [i, sql] of MIGRATIONS.slice(0, 2).entries()) {
        await c.query(sql);
        await c.query('INSERT INTO schema_migrations (version) VALUES ($1)', [i + 1]);
      }
      await c.query("INSERT INTO namespaces VALUES ('acme', 'admin', 't')");
      await c.query("INSERT INTO tokens VALUES ('tok_0123456789abcdef', $1, 'acme', 'publish', NULL, 't', NULL, NULL)", ['d'.repeat(64)]);
      await expect(c.query("INSERT INTO tokens VALUES ('tok_1', $1, NULL, 'admin', NULL, 't', NULL, NULL)", ['e'.repeat(64)])).rejects.toThrow();
    } finally {
      await c.end();
    }
    const store = await openPgStore({ url, poolSize: 2 });
    try {
      expect((await store.listTokens()).map((t) => [t.id, t.scope, t.namespace])).toEqual([['tok_0123456789abcdef', 'publish', 'acme']]);
      expect((await createToken({ store }, { scope: 'admin' })).namespace).toBeNull();
      expect((await createToken({ store }, { namespace: 'acme', scope: 'owner' })).scope).toBe('owner');
      await expect(store.pool.query("INSERT INTO tokens VALUES ('tok_2', $1, 'acme', 'admin', NULL, 't', NULL, NULL)", ['f'.repeat(64)])).rejects.toThrow(/check constraint/);
      expect((await listEvents({ store }, { limit: 5 })).map((e) => [e.action, e.namespace])).toEqual([['token:create:owner', 'acme'], ['token:create:admin', null]]);
    } finally {
      await store.close();
    }
  });
});
