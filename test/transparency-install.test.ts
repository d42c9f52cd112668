/**
 * Issue 15 "done when", driven through the CLI against in-process registries (spec/transparency.md):
 * install/update/audit verify every version against the registry's log; a registry that forks its
 * log for one client, rolls it back or freezes it is caught; a second key an owner added installs
 * without a prompt while an unlogged or revoked key is refused; a client configured with a witness
 * key requires its cosignature; `log watch` lists a namespace's new entries.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  SIG_COSIGNATURE_V1,
  buildPackage,
  formatVerifierKey,
  publicKeyFromSeed,
  verifierOf,
  witnessAddCheckpoint,
  type WitnessTree,
} from '@ctxpkg/format';
import { addSignerKey, createApp, createNamespace, createToken, openSqliteStore, revokeSignerKey, SqliteStore, type AppOptions } from '@ctxpkg/registry';
import { cli, createWorld, makePackage, putPackage, tempDir, type TestRegistry, type World } from './support/cli.js';

const SEED_A = new Uint8Array(32).fill(0x2a);
const SEED_B = new Uint8Array(32).fill(0x07);
const SEED_C = new Uint8Array(32).fill(0x33);

let world: World;
let project: string;
let home: string;
let token: string;
const opened: SqliteStore[] = [];

/** A registry at `host` over the SQLite data directory `dataDir`, with app options. */
async function registryAt(host: string, dataDir: string, opts: Partial<AppOptions> = {}): Promise<TestRegistry> {
  const store = await openSqliteStore({ dataDir });
  opened.push(store);
  const app = createApp({ store, ...opts });
  const reg: TestRegistry = {
    url: `http://${host}/api`,
    host,
    store,
    app,
    async namespace(ns) {
      await createNamespace({ store }, ns);
      return (await createToken({ store }, { namespace: ns, scope: 'publish' })).token;
    },
    async addKey(ns, seed) {
      await addSignerKey({ store }, ns, publicKeyFromSeed(seed));
    },
  };
  world.registries.set(host, reg);
  return reg;
}

const run = (args: string[], env: Record<string, string | undefined> = {}) =>
  cli(args, { cwd: project, home, fetch: world.fetch, env: { CTXPKG_REGISTRY: 'http://p.test/api', CTXPKG_HOME: join(home, '.ctxpkg'), ...env } });

beforeEach(async () => {
  world = createWorld();
  project = tempDir();
  home = tempDir('ctxpkg-home-');
  expect((await run(['init'])).code).toBe(0);
});

afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

async function standard(opts: Partial<AppOptions> = {}): Promise<{ P: TestRegistry; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'ctxpkg-tlog-'));
  const P = await registryAt('p.test', dir, opts);
  token = await P.namespace('acme');
  await putPackage(P, token, '@acme/base', '1.0.0', makePackage('@acme/base', '1.0.0', SEED_A));
  await putPackage(P, token, '@acme/auth', '1.0.0', makePackage('@acme/auth', '1.0.0', SEED_A, { deps: { '@acme/base': '^1.0.0' } }));
  return { P, dir };
}

const lock = () => JSON.parse(readFileSync(join(project, 'ctxpkg.lock'), 'utf8'));

describe('install and audit against the log', () => {
  it('first contact with a log says the key was pinned and names the tree size, never "consistent with the last one you saw" (new-user 2 item 11)', async () => {
    await standard();
    const first = await run(['install', '@acme/auth']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/transparency log of http:\/\/p\.test\/api: key pinned on first use \(tree size 3\)/);
    expect(first.stdout).not.toContain('consistent with the last one you saw');
  });

  it('records each package’s log index and tree in ctxpkg.lock, pins the log key, and audit re-verifies', async () => {
    const { P } = await standard();
    const r = await run(['install', '@acme/auth', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.transparency).toMatchObject({ checked: 2, key_changes: [] });
    expect(r.json.transparency.registries[0]).toMatchObject({ registry: P.url, size: 3, first_use: true, seen_before: false });
    const l = lock();
    expect(l.packages['@acme/base'].log).toEqual({ index: 1, origin: expect.stringMatching(/^ctxpkg-registry\//), tree_size: 2, root_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(l.packages['@acme/auth'].log).toMatchObject({ index: 2, tree_size: 3 });
    const text = await run(['install', '@acme/auth']);
    expect(text.stdout).toMatch(/transparency log of http:\/\/p\.test\/api: tree size 3 consistent with the last one you saw/);
    expect(text.stdout).toMatch(/2 packages proven in the log/);
    const st = await run(['log', 'status', '--json']);
    expect(st.code, st.stderr).toBe(0);
    expect(st.json.state.key).toBe(st.json.served.key);
    expect(st.json.state.packages).toEqual({ '@acme/auth': 3, '@acme/base': 2 });
    const a = await run(['audit', '--json']);
    expect(a.code, a.stderr).toBe(0);
    expect(a.json.packages.map((p: { status: string }) => p.status)).toEqual(['ok', 'ok']);
    // A lock record that does not match the log fails the audit, naming the package.
    const tampered = lock();
    tampered.packages['@acme/base'].log.index = 0;
    writeFileSync(join(project, 'ctxpkg.lock'), JSON.stringify(tampered, null, 2) + '\n');
    const bad = await run(['audit']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/E_LOG_INCONSISTENT[\s\S]*@acme\/base@1\.0\.0: ctxpkg\.lock records its publish entry at log index 0/);
    // A lock that recorded the package in another log (the registry's log replaced) is refused
    // too, also from a fresh home where the lock is the only anchor (attack pass 3).
    const moved = lock();
    moved.packages['@acme/base'].log.index = 1;
    moved.packages['@acme/base'].log.origin = 'evil/1';
    writeFileSync(join(project, 'ctxpkg.lock'), JSON.stringify(moved, null, 2) + '\n');
    const other = await run(['audit']);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/E_LOG_KEY[\s\S]*@acme\/base@1\.0\.0: ctxpkg\.lock recorded it in the log evil\/1, but http:\/\/p\.test\/api now serves the log ctxpkg-registry\//);
  });

  it('installs a private package with a read token: its entry is a commitment, opened by the index', async () => {
    const { P } = await standard();
    const res = await P.app.request(`${P.url}/v1/packages/acme/secret/1.0.0`, { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body: makePrivate('@acme/secret', '1.0.0') });
    expect(res.status).toBe(201);
    const read = (await createToken({ store: P.store }, { namespace: 'acme', scope: 'read' })).token;
    const r = await run(['install', '@acme/secret', '--json'], { CTXPKG_TOKEN: read });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.transparency.checked).toBe(1);
    expect(lock().packages['@acme/secret'].log).toMatchObject({ index: 3, tree_size: 4 });
    // The entry in the log is the commitment, not the name.
    const bundle = new Uint8Array(await (await P.app.request(`${P.url}/v1/log/tile/entries/000.p/4`)).arrayBuffer());
    expect(Buffer.from(bundle).toString('latin1')).not.toContain('secret');
    expect((await run(['audit'], { CTXPKG_TOKEN: read })).code).toBe(0);
  });

  it('refuses an index that does not match the log (another artifact for the same version)', async () => {
    const { P } = await standard();
    world.intercept = async (url, init) => {
      if (!url.pathname.endsWith('/acme/base/index.json')) return undefined;
      const doc = (await (await P.app.request(url.href, init)).json()) as { versions: Array<{ artifact_sha256: string }> };
      doc.versions[0]!.artifact_sha256 = 'e'.repeat(64);
      return new Response(JSON.stringify(doc), { headers: { 'content-type': 'application/json' } });
    };
    const r = await run(['install', '@acme/base']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/E_LOG_PROOF[\s\S]*is not the publish entry at index 1/);
    expect(() => readFileSync(join(project, 'ctxpkg.lock'))).toThrow();
  });
});

describe('a registry that misbehaves', () => {
  it('forking its log for one client is caught, and both checkpoints are printed', async () => {
    const { P, dir } = await standard();
    expect((await run(['install', '@acme/base'])).code).toBe(0);
    // The same registry (same log key and origin) with another history from here on.
    await P.store.close();
    opened.splice(opened.indexOf(P.store as SqliteStore), 1);
    const forkDir = mkdtempSync(join(tmpdir(), 'ctxpkg-fork-'));
    cpSync(dir, forkDir, { recursive: true });
    const honest = await registryAt('p.test', dir);
    await putPackage(honest, token, '@acme/base', '1.1.0', makePackage('@acme/base', '1.1.0', SEED_A));
    expect((await run(['update'])).code).toBe(0);
    const fork = await registryAt('p.test', forkDir);
    await putPackage(fork, token, '@acme/base', '1.1.0', makePackage('@acme/base', '1.1.0', SEED_A, { nodes: ['a different artifact for the same version'] }));
    await putPackage(fork, token, '@acme/base', '1.2.0', makePackage('@acme/base', '1.2.0', SEED_A));
    const before = readFileSync(join(project, 'ctxpkg.lock'), 'utf8');
    const r = await run(['update']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/E_LOG_INCONSISTENT: the tree of size 5 does not extend the tree of size 4: the log forked/);
    expect(r.stderr).toMatch(/seen before: ctxpkg-registry\/[0-9a-f]+ size 4 root [0-9a-f]{64}/);
    expect(r.stderr).toMatch(/--- checkpoint seen before ---[\s\S]*--- checkpoint now served ---/);
    expect(readFileSync(join(project, 'ctxpkg.lock'), 'utf8')).toBe(before);
    // Audit of the project says the same.
    expect((await run(['audit'])).stderr).toMatch(/forked/);
  });

  it('a rollback to an older tree is caught', async () => {
    const { P, dir } = await standard();
    await P.store.close();
    opened.splice(opened.indexOf(P.store as SqliteStore), 1);
    const oldDir = mkdtempSync(join(tmpdir(), 'ctxpkg-old-'));
    cpSync(dir, oldDir, { recursive: true });
    const now = await registryAt('p.test', dir);
    await putPackage(now, token, '@acme/style', '1.0.0', makePackage('@acme/style', '1.0.0', SEED_A));
    expect((await run(['install', '@acme/base'])).code).toBe(0);
    await registryAt('p.test', oldDir); // the registry restored from an old backup, say
    const r = await run(['install', '@acme/auth']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/E_LOG_INCONSISTENT: the registry served an older tree \(size 3 after 4\): a rollback/);
  });

  it('an older index of one package (hiding a yank) than this user saw before is caught', async () => {
    const { P } = await standard();
    expect((await run(['install', '@acme/base'])).code).toBe(0);
    const stale = await (await P.app.request(`${P.url}/v1/packages/acme/base/index.json`)).text();
    const y = await P.app.request(`${P.url}/v1/packages/acme/base/1.0.0`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    expect(y.status).toBe(200);
    const seen = await run(['update']);
    expect(seen.code, seen.stderr).toBe(0);
    expect(seen.stdout).toMatch(/@acme\/base@1\.0\.0 is yanked/);
    world.intercept = (url) => (url.pathname.endsWith('/acme/base/index.json') ? new Response(stale, { headers: { 'content-type': 'application/json' } }) : undefined);
    const r = await run(['update']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/E_LOG_INCONSISTENT: @acme\/base@1\.0\.0: the registry shows an older index of @acme\/base \(proven at tree size 2\) than you saw before \(tree size 4\)/);
  });

  it('a frozen checkpoint is a warning, and an error with --strict', async () => {
    await standard({ clock: () => new Date('2025-06-01T00:00:00Z') });
    const warm = await run(['install', '@acme/base']);
    expect(warm.code, warm.stderr).toBe(0);
    expect(warm.stderr).toMatch(/freeze warning: the transparency log of http:\/\/p\.test\/api looks frozen: its latest checkpoint .* is \d+ h old, more than the allowed 24 h/);
    const strict = await run(['install', '@acme/auth', '--strict']);
    expect(strict.code).toBe(5);
    expect(strict.stderr).toMatch(/E_LOG_STALE/);
    expect((await run(['install', '@acme/auth', '--log-max-age', '800d'])).code).toBe(0);
  });

  it('a registry that drops its log after serving one is refused', async () => {
    await standard();
    expect((await run(['install', '@acme/base'])).code).toBe(0);
    world.intercept = (url) => (url.pathname.endsWith('/v1/log') ? new Response('{}', { status: 404 }) : undefined);
    const r = await run(['install', '@acme/auth']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/E_LOG_INCONSISTENT: registry http:\/\/p\.test\/api served a transparency log .* before and serves none now/);
  });

  it('a log key other than the pinned one is refused', async () => {
    await standard();
    expect((await run(['install', '@acme/base'])).code).toBe(0);
    const other = formatVerifierKey(verifierOf({ name: 'evil.example/log', type: 1, seed: SEED_C }));
    const r = await run(['install', '@acme/auth'], { CTXPKG_LOG_KEY: other });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/E_LOG_KEY/);
  });
});

describe('signer keysets', () => {
  it('a second key an owner added installs without --accept-new-key, and is reported', async () => {
    const { P } = await standard();
    expect((await run(['install', '@acme/base'])).code).toBe(0);
    await P.addKey('acme', SEED_B);
    await putPackage(P, token, '@acme/base', '1.1.0', makePackage('@acme/base', '1.1.0', SEED_B));
    const r = await run(['update', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.transparency.key_changes).toEqual([
      { name: '@acme/base', version: '1.1.0', from: publicKeyFromSeed(SEED_A), to: publicKeyFromSeed(SEED_B), added_at: 3 },
    ]);
    expect(lock().packages['@acme/base'].signer_public_key).toBe(publicKeyFromSeed(SEED_B));
  });

  it('a key the log never shows added is refused, even with --accept-new-key', async () => {
    const { P } = await standard();
    expect((await run(['install', '@acme/base'])).code).toBe(0);
    // A misbehaving registry registers a key without logging it, then accepts a publish signed by it.
    (P.store as SqliteStore).db.prepare("INSERT INTO signer_keys (namespace, public_key, added_at, added_by) VALUES ('acme', ?, '2026-01-01T00:00:00Z', 'admin')").run(publicKeyFromSeed(SEED_C));
    await putPackage(P, token, '@acme/base', '1.1.0', makePackage('@acme/base', '1.1.0', SEED_C));
    for (const args of [['update'], ['update', '--accept-new-key']]) {
      const r = await run(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/E_SIGNER_UNLOGGED: @acme\/base@1\.1\.0 is signed by key [0-9a-f]{64}, which the log never shows added to @acme/);
    }
  });

  it('a key revoked before the version was published is refused', async () => {
    const { P } = await standard();
    await P.addKey('acme', SEED_B);
    expect((await run(['install', '@acme/base'])).code).toBe(0);
    await revokeSignerKey({ store: P.store }, 'acme', publicKeyFromSeed(SEED_B));
    // The registry quietly un-revokes it (not logged) and accepts a publish signed by it.
    (P.store as SqliteStore).db.prepare('UPDATE signer_keys SET revoked_at = NULL WHERE public_key = ?').run(publicKeyFromSeed(SEED_B));
    await putPackage(P, token, '@acme/base', '1.1.0', makePackage('@acme/base', '1.1.0', SEED_B));
    const r = await run(['update', '--accept-new-key']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/E_SIGNER_REVOKED: @acme\/base@1\.1\.0 is signed by key [0-9a-f]{64}, which was revoked for @acme at log index 4/);
  });
});

describe('witnesses', () => {
  it('a client configured with a witness key requires its cosignature, which the test witness gives', async () => {
    const witness = { name: 'witness.test/w1', type: SIG_COSIGNATURE_V1, seed: SEED_C };
    const vkey = formatVerifierKey(verifierOf(witness));
    const seen = new Map<string, WitnessTree>();
    const logs = new Map<string, Uint8Array>();
    // The test witness: c2sp.org/tlog-witness add-checkpoint over the pure witness code.
    world.intercept = async (url, init) => {
      if (url.host !== 'w.test') return undefined;
      const a = await witnessAddCheckpoint(String(init?.body ?? ''), { logs, last: (o) => seen.get(o) ?? null, signer: witness, now: Math.floor(Date.now() / 1000) });
      if (a.next) seen.set(a.next.origin, a.next);
      return new Response(a.body, { status: a.status, headers: { 'content-type': a.contentType } });
    };
    const dir = mkdtempSync(join(tmpdir(), 'ctxpkg-tlog-'));
    const store = await openSqliteStore({ dataDir: dir });
    const info = await store.log.info();
    logs.set(info.origin, Buffer.from(info.public_key, 'hex'));
    await store.close();
    const P = await registryAt('p.test', dir, { witnesses: [{ vkey, url: 'http://w.test/w1' }], fetch: world.fetch });
    token = await P.namespace('acme');
    await putPackage(P, token, '@acme/base', '1.0.0', makePackage('@acme/base', '1.0.0', SEED_A));
    expect((await run(['log', 'witness', 'add', vkey])).code).toBe(0);
    const r = await run(['install', '@acme/base']);
    expect(r.code, r.stderr).toBe(0);
    expect(seen.get(info.origin)?.size).toBe(2);
    // A witness that never cosigns this log: required, so the install fails.
    const absent = formatVerifierKey(verifierOf({ name: 'witness.test/w2', type: SIG_COSIGNATURE_V1, seed: SEED_B }));
    const f = await run(['install', '@acme/base'], { CTXPKG_LOG_WITNESSES: absent });
    expect(f.code).toBe(1);
    expect(f.stderr).toMatch(/E_WITNESS: the checkpoint of ctxpkg-registry\/[0-9a-f]+ at tree size 2 is not cosigned by witness witness\.test\/w2/);
  });
});

describe('registry log verify | key (admin)', () => {
  it('agrees with a healthy registry, names a change made behind the log, and prints the key clients pin', async () => {
    const { P, dir } = await standard();
    const ok = await run(['registry', 'log', 'verify', '--data', dir, '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json).toMatchObject({ size: 3, versions: 2, problems: [] });
    const key = await run(['registry', 'log', 'key', '--data', dir]);
    expect(key.stdout.split('\n')[0]).toBe(((await (await P.app.request(`${P.url}/v1/log`)).json()) as { key: string }).key);
    (P.store as SqliteStore).db.prepare("UPDATE versions SET yanked = 1, yanked_at = '2026-01-01T00:00:00Z'").run();
    const bad = await run(['registry', 'log', 'verify', '--data', dir]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/E_LOG_INCONSISTENT: the transparency log and the registry disagree: 2 problem\(s\); first: @acme\/(auth|base)@1\.0\.0: yanked is true, the log says false/);
  });
});

describe('log watch', () => {
  it('lists the new entries about a namespace since the last run, private ones opened with a token', async () => {
    const { P } = await standard();
    const other = await P.namespace('other');
    await putPackage(P, other, '@other/x', '1.0.0', makePackage('@other/x', '1.0.0', SEED_B));
    const first = await run(['log', 'watch', '--namespace', '@acme', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json.entries.map((e: { statement: string }) => e.statement.split(' ').slice(0, 3).join(' '))).toEqual([
      `key-add @acme ${publicKeyFromSeed(SEED_A)}`,
      'publish @acme/base 1.0.0',
      'publish @acme/auth 1.0.0',
    ]);
    expect((await run(['log', 'watch', '--namespace', '@acme', '--json'])).json.entries).toEqual([]);
    const priv = await createToken({ store: P.store }, { namespace: 'acme', scope: 'read' });
    const res = await P.app.request(`${P.url}/v1/packages/acme/secret/1.0.0`, { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body: makePrivate('@acme/secret', '1.0.0') });
    expect(res.status).toBe(201);
    const anon = await run(['log', 'watch', '--namespace', '@acme', '--json']);
    expect(anon.json.entries).toEqual([]);
    expect(anon.json.unopened).toBe(1);
    const withToken = await run(['log', 'watch', '--namespace', '@acme', '--from', '5', '--json'], { CTXPKG_TOKEN: priv.token });
    expect(withToken.json.entries).toEqual([{ index: 5, statement: expect.stringMatching(/^publish @acme\/secret 1\.0\.0 /), private: true }]);
  });
});

/** A small signed package whose manifest declares `visibility: "private"`. */
function makePrivate(name: string, version: string): Uint8Array {
  return buildPackage(
    {
      manifest: { name, version, description: 'private', created_at: '2026-01-02T03:04:05Z', visibility: 'private' } as never,
      content: { context_graph: { format: 'ctxpkg-graph-v2', nodes: [{ id: 'n1', type: 'gotcha', content: 'secret', activation: 1 }], edges: [] } },
    },
    { seed: SEED_A },
  ).bytes;
}
