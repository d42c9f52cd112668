import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  computeFromTiles,
  consistencyProof,
  decodeCanonicalBase64,
  decodeEntryBundle,
  encodeLogEntry,
  entryBundlePath,
  formatLogEntry,
  leafHash,
  openCheckpoint,
  openCommitment,
  parseLogEntry,
  parseVerifierKey,
  tilePath,
  tileWidthAt,
  treeHash,
  verifyConsistency,
  verifyEntryInclusion,
  type Tile,
} from '@ctxpkg/format';
import { addSignerKey, revokeSignerKey, setPackageVisibility } from '../admin.js';
import { describeBackends, makePackage, newTestRegistry, rawSql, TEST_PUBLIC_KEY, type BackendName, type TestRegistry } from '../__tests__/support.js';
import { openTestStore } from '../__tests__/backends.js';
import { SqliteStore } from '../store/sqlite.js';
import { verifyRegistryLog } from './replay.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backupRegistry, restoreRegistry } from '../backup.js';
import { openStore } from '../store/open.js';
import { createApp } from '../app.js';
import { createToken } from '../admin.js';
import { BACKENDS, freshPgUrl } from '../__tests__/backends.js';
import { openSqliteStore } from '../store/sqlite.js';
import { openPgStore } from '../store/pg.js';

const OTHER_KEY = 'c'.repeat(63) + 'd';

describeBackends('transparency log', (backend: BackendName) => {
  let r: TestRegistry;
  beforeEach(async () => {
    r = await newTestRegistry({}, backend);
  });
  afterEach(async () => {
    await r.close();
  });

  const info = async () => (await (await r.req('/v1/log')).json()) as { origin: string; key: string; size: number; witnesses: string[] };
  const policy = async () => {
    const i = await info();
    return { origin: i.origin, logKey: parseVerifierKey(i.key).publicKey };
  };
  const checkpoint = async () => openCheckpoint(await (await r.req('/v1/log/checkpoint')).text(), await policy());
  const fetchTile = (token?: string) => async (t: Tile) => new Uint8Array(await (await r.req(`/v1/log/${tilePath(t)}`, { token })).arrayBuffer());
  const publish = async (o: Parameters<typeof makePackage>[0] = {}) => {
    const res = await r.put(`/v1/packages/acme/${(o.name ?? '@acme/kb').split('/')[1]}/${o.version ?? '1.0.0'}`, makePackage(o), r.tokens.acmePublish);
    expect(res.status).toBe(201);
    return (await res.json()) as { artifact_sha256: string };
  };
  const index = async (name = 'kb', token?: string) => (await (await r.req(`/v1/packages/acme/${name}/index.json`, { token })).json()) as any;

  it('signs checkpoints with its log key and serves them under both mounts', async () => {
    const i = await info();
    expect(i.origin).toMatch(/^ctxpkg-registry\/[0-9a-f]{16}$/);
    expect(((await (await r.req('/api/v1/log')).json()) as { key: string }).key).toBe(i.key);
    const cp = await checkpoint();
    expect(cp.size).toBe(0);
    expect(cp.timestamp).toBeGreaterThan(1_700_000_000);
    const res = await r.req('/v1/log/checkpoint');
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('logs a first publish (key, then version) and proves it in index.json', async () => {
    const { artifact_sha256 } = await publish();
    const cp = await checkpoint();
    expect(cp.size).toBe(2);
    const doc = await index();
    expect(doc.log.origin).toBe(cp.origin);
    const head = await openCheckpoint(doc.log.checkpoint, await policy());
    expect(head.size).toBe(2);
    const v = doc.versions[0];
    expect(Object.keys(v).at(-1)).toBe('log');
    const entry = encodeLogEntry({ kind: 'publish', package: '@acme/kb', version: '1.0.0', artifact_sha256, signer: TEST_PUBLIC_KEY });
    verifyEntryInclusion(entry, v.log.index, v.log.proof.map((p: string) => decodeCanonicalBase64(p)!), head);
    expect(doc.log.keys).toEqual([expect.objectContaining({ kind: 'key-add', key: TEST_PUBLIC_KEY, index: 0 })]);
    verifyEntryInclusion(encodeLogEntry({ kind: 'key-add', namespace: '@acme', key: TEST_PUBLIC_KEY }), 0, doc.log.keys[0].proof.map((p: string) => decodeCanonicalBase64(p)!), head);
    // A different artifact is not in the log.
    const other = encodeLogEntry({ kind: 'publish', package: '@acme/kb', version: '1.0.0', artifact_sha256: 'f'.repeat(64), signer: TEST_PUBLIC_KEY });
    expect(() => verifyEntryInclusion(other, v.log.index, v.log.proof.map((p: string) => decodeCanonicalBase64(p)!), head)).toThrow();
  });

  it('serves tiles and entry bundles from which consistency and every leaf check out', async () => {
    await publish();
    const before = await checkpoint();
    await publish({ version: '1.1.0' });
    const yank = await r.req('/v1/packages/acme/kb/1.0.0', { method: 'DELETE', token: r.tokens.acmePublish });
    expect(yank.status).toBe(200);
    await addSignerKey({ store: r.store }, 'acme', OTHER_KEY);
    const after = await checkpoint();
    expect(after.size).toBe(5);
    const proof = await computeFromTiles(after.size, fetchTile(), (read) => consistencyProof(before.size, after.size, read));
    verifyConsistency(before.size, after.size, before.rootHash, after.rootHash, proof);
    expect(await computeFromTiles(after.size, fetchTile(), (read) => treeHash(after.size, read))).toEqual(after.rootHash);
    const bundleRes = await r.req(`/v1/log/${entryBundlePath(0, 5)}`);
    expect(bundleRes.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const entries = decodeEntryBundle(new Uint8Array(await bundleRes.arrayBuffer()));
    expect(entries.map((e) => parseLogEntry(e).kind)).toEqual(['key-add', 'publish', 'publish', 'yank', 'key-add']);
    const tile0 = await fetchTile()({ level: 0, index: 0, width: 5 });
    entries.forEach((e, i) => expect(tile0.subarray(i * 32, i * 32 + 32)).toEqual(leafHash(e)));
    // Beyond the tree, or not a tlog-tiles path: 404.
    expect((await r.req(`/v1/log/${entryBundlePath(0, 6)}`)).status).toBe(404);
    expect((await r.req('/v1/log/tile/0/000')).status).toBe(404);
    expect((await r.req('/v1/log/tile/0/0')).status).toBe(404);
    expect((await r.req('/v1/log/nothing')).status).toBe(404);
    expect(tileWidthAt(0, 0, 5)).toBe(5);
    // The index shows the yank entry and bumps with the key change.
    const doc = await index();
    const v100 = doc.versions.find((v: any) => v.version === '1.0.0');
    expect(v100.yanked).toBe(true);
    expect(v100.log.yank.index).toBe(3);
    expect(doc.log.keys.map((k: any) => k.key)).toEqual([TEST_PUBLIC_KEY, OTHER_KEY]);
    await revokeSignerKey({ store: r.store }, 'acme', OTHER_KEY);
    expect((await index()).log.keys.map((k: any) => k.kind)).toEqual(['key-add', 'key-add', 'key-revoke']);
    // Idempotent changes log nothing.
    await revokeSignerKey({ store: r.store }, 'acme', OTHER_KEY);
    await r.req('/v1/packages/acme/kb/1.0.0', { method: 'DELETE', token: r.tokens.acmePublish });
    expect((await checkpoint()).size).toBe(6);
  });

  it('never shows a private package name in anonymous log answers, and opens it for its namespace', async () => {
    const { artifact_sha256 } = await publish({ name: '@acme/secret-plans', visibility: 'private' });
    await r.req('/v1/packages/acme/secret-plans/1.0.0', { method: 'DELETE', token: r.tokens.acmePublish });
    const cp = await checkpoint();
    const anon: string[] = [await (await r.req('/v1/log/checkpoint')).text(), JSON.stringify(await info())];
    for (let level = 0; tileWidthAt(level, 0, cp.size) > 0; level++) {
      anon.push(Buffer.from(await fetchTile()({ level, index: 0, width: tileWidthAt(level, 0, cp.size) })).toString('latin1'));
    }
    const bundle = new Uint8Array(await (await r.req(`/v1/log/${entryBundlePath(0, cp.size)}`)).arrayBuffer());
    anon.push(Buffer.from(bundle).toString('latin1'));
    for (const text of anon) expect(text).not.toMatch(/secret-plans/);
    const entries = decodeEntryBundle(bundle).map((e) => parseLogEntry(e));
    expect(entries.map((e) => e.kind)).toEqual(['key-add', 'commitment', 'commitment']);
    // Anonymous: no index, no openings.
    expect((await r.req('/v1/packages/acme/secret-plans/index.json')).status).toBe(404);
    expect((await r.req('/v1/log/openings/acme')).status).toBe(401);
    expect((await r.req('/v1/log/openings/acme', { token: r.tokens.otherPublish })).status).toBe(403);
    // The namespace's read token gets the index with the nonce, and the openings.
    const doc = await index('secret-plans', r.tokens.acmeRead);
    const v = doc.versions[0];
    const clear = formatLogEntry({ kind: 'publish', package: '@acme/secret-plans', version: '1.0.0', artifact_sha256, signer: TEST_PUBLIC_KEY });
    expect(openCommitment(entries[1]!, { entry: clear, nonce: v.log.nonce })).toMatchObject({ kind: 'publish' });
    const op = (await (await r.req('/v1/log/openings/acme', { token: r.tokens.acmeRead })).json()) as any;
    expect(op.openings.map((o: any) => o.index)).toEqual([1, 2]);
    expect(openCommitment(entries[2]!, op.openings[1])).toEqual({ kind: 'yank', package: '@acme/secret-plans', version: '1.0.0' });
    // Made public: the visibility change is in clear, and the index shows the openings to everyone.
    await setPackageVisibility({ store: r.store }, '@acme/secret-plans', 'public');
    const pub = await index('secret-plans');
    expect(pub.versions[0].log.nonce).toBe(v.log.nonce);
    const last = decodeEntryBundle(new Uint8Array(await (await r.req(`/v1/log/${entryBundlePath(0, 4)}`)).arrayBuffer()))[3]!;
    expect(parseLogEntry(last)).toEqual({ kind: 'visibility', package: '@acme/secret-plans', visibility: 'public' });
  });

  it('registry log verify: the replay agrees with the database, and names every tampering', async () => {
    await publish();
    await publish({ name: '@acme/secret-plans', visibility: 'private' });
    await r.req('/v1/packages/acme/kb/1.0.0', { method: 'DELETE', token: r.tokens.acmePublish });
    await addSignerKey({ store: r.store }, 'acme', OTHER_KEY);
    await setPackageVisibility({ store: r.store }, '@acme/kb', 'private');
    const ok = await verifyRegistryLog(r.store);
    expect(ok.problems).toEqual([]);
    expect(ok).toMatchObject({ size: 6, versions: 2 });
    // State changed behind the log's back, and a stored hash damaged: both named.
    await rawSql(r.store, backend === 'sqlite' ? 'UPDATE versions SET yanked = 0' : 'UPDATE versions SET yanked = FALSE');
    await rawSql(r.store, 'UPDATE tlog_hashes SET hash = ? WHERE level = 1 AND idx = 0', [Buffer.alloc(32)]);
    const bad = await verifyRegistryLog(r.store);
    expect(bad.problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/@acme\/kb@1\.0\.0: yanked is false, the log says true/), 'stored hash 1/0 does not match the entries']),
    );
  });

  it('a refused publish appends nothing', async () => {
    await publish();
    const res = await r.put('/v1/packages/acme/kb/1.0.0', makePackage({ description: 'other' }), r.tokens.acmePublish);
    expect(res.status).toBe(409);
    expect((await checkpoint()).size).toBe(2);
  });
});

describeBackends('transparency log start', (backend: BackendName) => {
  it('a store that predates the log starts it by logging its state, and the proofs hold', async () => {
    const r = await newTestRegistry({}, backend);
    try {
      await r.put('/v1/packages/acme/kb/1.0.0', makePackage(), r.tokens.acmePublish);
      await r.put('/v1/packages/acme/kb/1.1.0', makePackage({ version: '1.1.0' }), r.tokens.acmePublish);
      await r.req('/v1/packages/acme/kb/1.0.0', { method: 'DELETE', token: r.tokens.acmePublish });
      for (const t of ['tlog_entries', 'tlog_hashes', 'tlog_checkpoints', 'tlog_meta']) await rawSql(r.store, `DELETE FROM ${t}`);
      await r.store.close();
      const store = r.url === undefined ? await openSqliteStore({ dataDir: r.dir }) : await openPgStore({ url: r.url });
      try {
        const entries = await store.log.entries(0, 100);
        expect(entries.map((e) => `${e.kind} ${e.version ?? ''}`)).toEqual(['key-add ', 'publish 1.0.0', 'publish 1.1.0', 'yank 1.0.0']);
        const cp = await store.log.checkpoint();
        expect(cp!.size).toBe(4);
        expect(store instanceof SqliteStore || backend === 'postgres').toBe(true);
      } finally {
        await store.close();
      }
    } finally {
      await r.close().catch(() => undefined);
    }
  });
});

describeBackends('transparency log across backup and restore', (backend: BackendName) => {
  it('a restored registry keeps its log: same origin and key, same checkpoint, proofs still hold, replay agrees', async () => {
    const r = await newTestRegistry({}, backend);
    const tmp = await mkdtemp(join(tmpdir(), 'ctxpkg-tlog-backup-'));
    try {
      await r.put('/v1/packages/acme/kb/1.0.0', makePackage(), r.tokens.acmePublish);
      await r.put('/v1/packages/acme/secret/1.0.0', makePackage({ name: '@acme/secret', visibility: 'private' }), r.tokens.acmePublish);
      const before = await r.store.log.info();
      const cpBefore = await r.store.log.checkpoint();
      const file = join(tmp, 'backup.jsonl');
      await backupRegistry({ store: r.store }, file);
      for (const target of BACKENDS) {
        const where = target === 'sqlite' ? { dataDir: join(tmp, `restored-${backend}`) } : { db: await freshPgUrl() };
        await restoreRegistry(file, where);
        const store = await openStore(where);
        try {
          expect(await store.log.info()).toEqual(before);
          expect((await store.log.checkpoint())!.root).toEqual(cpBefore!.root);
          expect((await verifyRegistryLog(store)).problems).toEqual([]);
          // Publishing into the restored registry extends the same log.
          const app = createApp({ store });
          const tok = (await createToken({ store }, { namespace: 'acme', scope: 'publish' })).token;
          const res = await app.request('http://r/v1/packages/acme/kb/1.1.0', { method: 'PUT', body: makePackage({ version: '1.1.0' }), headers: { authorization: `Bearer ${tok}` } });
          expect(res.status).toBe(201);
          expect((await store.log.info()).size).toBe(before.size + 1);
          expect((await verifyRegistryLog(store)).problems).toEqual([]);
        } finally {
          await store.close();
        }
      }
    } finally {
      await r.close();
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe('openTestStore', () => {
  it('gives a store whose log exists from the start', async () => {
    const { store, cleanup } = await openTestStore('sqlite');
    try {
      expect((await store.log.info()).size).toBe(0);
    } finally {
      await cleanup();
    }
  });
});
