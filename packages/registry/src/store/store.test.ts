import { mkdtemp, readdir, rm, writeFile, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256OfBytes } from './blobs.js';
import { openSqliteStore, SqliteStore } from './sqlite.js';
import { openPgStore } from './pg.js';
import { PG_SCHEMA_VERSION } from './pg-schema.js';
import type { PublishRecord } from './types.js';
import { SCHEMA_VERSION } from './schema.js';
import { describeBackends, openTestStore, type AnyStore, type BackendName } from '../__tests__/backends.js';
import { rawSql } from '../__tests__/support.js';

const KEY_A = 'a'.repeat(64);
const KEY_B = 'b'.repeat(64);
const T0 = '2026-01-02T03:04:05Z';

let dir: string;
let url: string | undefined;
let store: AnyStore;
let cleanup: () => Promise<void>;

/** A second handle on the same data, as another process opens it. */
function reopen(): Promise<AnyStore> {
  return url === undefined ? openSqliteStore({ dataDir: dir }) : openPgStore({ url });
}

async function publish(version: string, over: Partial<PublishRecord> = {}, bytes?: Uint8Array) {
  const body = bytes ?? new TextEncoder().encode(`package ${version} ${JSON.stringify(over)}`);
  const { sha256 } = await store.putBlob(body);
  try {
    return await store.commitPublish({
      namespace: 'acme', name: 'kb', version, precedence_key: version.split('+')[0], artifact_sha256: sha256,
      size_bytes: body.byteLength, integrity_sha256: 'c'.repeat(64), signer_public_key: KEY_A, visibility: 'public',
      description: `kb ${version}`, tags: ['auth'], dependencies: [{ name: '@acme/base', version_req: '^1', optional: false }],
      search_text: `@acme/kb token refresh races ${version}`, trust_report: (signer) => ({ signer }), published_at: T0,
      published_by: 'tok_1', ...over,
    });
  } finally {
    await store.releaseBlob(sha256);
  }
}

async function blobCount(): Promise<number> {
  return (await store.listBlobs()).length;
}

describeBackends('store', (backend: BackendName) => {
beforeEach(async () => {
  ({ store, dir, url, cleanup } = await openTestStore(backend));
  await store.createNamespace({ name: 'acme', owner: 'ops', created_at: T0 });
});

afterEach(async () => {
  await cleanup();
});

describe('SqliteStore publish', () => {
  it('records the first signer key, then refuses an unregistered one', async () => {
    const first = await publish('1.0.0');
    expect(first.signer).toBe('first-publish');
    expect(first.version.trust_report).toEqual({ signer: 'first-publish' });
    expect((await store.listSignerKeys('acme')).map((k) => [k.public_key, k.added_by])).toEqual([[KEY_A, 'first-publish']]);
    // An owner registers keys from their own machine: the hint names the key and the remote form.
    await expect(publish('1.1.0', { signer_public_key: KEY_B })).rejects.toMatchObject({ code: 'E_SIGNER_CHANGED', hint: expect.stringContaining(`ctxpkg registry key add acme ${KEY_B} --registry <url>`) });
    await store.addSignerKey('acme', KEY_B, T0);
    expect((await publish('1.1.0', { signer_public_key: KEY_B })).signer).toBe('registered');
    await store.revokeSignerKey('acme', KEY_A, T0);
    await expect(publish('1.2.0', { signer_public_key: KEY_A })).rejects.toMatchObject({ code: 'E_SIGNER_CHANGED' });
  });

  it('refuses an existing version and an equal-precedence version, leaving the stored bytes alone', async () => {
    const original = await publish('1.0.0');
    const before = await store.readBlob(original.version.artifact_sha256);
    await expect(publish('1.0.0', { description: 'other bytes' })).rejects.toMatchObject({ code: 'E_VERSION_EXISTS' });
    await expect(publish('1.0.0+build.7')).rejects.toMatchObject({ code: 'E_VERSION_EXISTS' });
    const after = await store.getVersion('acme', 'kb', '1.0.0');
    expect(after?.artifact_sha256).toBe(original.version.artifact_sha256);
    expect(Buffer.from((await store.readBlob(original.version.artifact_sha256))!)).toEqual(Buffer.from(before!));
    expect(await blobCount()).toBe(1);
    expect((await store.listVersions('acme', 'kb')).map((v) => v.version)).toEqual(['1.0.0']);
  });

  it('enforces equal precedence by a database constraint, not only by the pre-check', async () => {
    const { version } = await publish('1.0.0');
    const [pkg] = await rawSql(store, "SELECT id FROM packages WHERE name = 'kb'");
    await expect(
      rawSql(
        store,
        `INSERT INTO versions (package_id, version, precedence_key, artifact_sha256, size_bytes, integrity_sha256, signer_public_key,
         description, tags_json, dependencies_json, search_text, trust_report_json, published_at, published_by)
         VALUES (?, '1.0.0+x', '1.0.0', ?, 1, 'x', 'x', '', '[]', '[]', '', '{}', ?, 't')`,
        [pkg!.id, version.artifact_sha256, T0],
      ),
    ).rejects.toThrow(/UNIQUE|unique/);
  });

  it('refuses a visibility change by publish and keeps a yanked version number taken', async () => {
    await publish('1.0.0', { visibility: 'private' });
    await expect(publish('1.1.0', { visibility: 'public' })).rejects.toMatchObject({ code: 'E_VISIBILITY' });
    // A publish that asks for nothing gets the package's visibility.
    expect((await publish('1.1.0', { visibility: null })).visibility).toBe('private');
    await store.setYanked('acme', 'kb', '1.0.0', true, T0, 'tok_1');
    await expect(publish('1.0.0')).rejects.toMatchObject({ code: 'E_VERSION_EXISTS' });
  });

  it('creates a package private when its first publish asks for no visibility (npm\'s rule for scoped packages)', async () => {
    const first = await publish('1.0.0', { visibility: null });
    expect(first.visibility).toBe('private');
    expect((await store.getPackage('acme', 'kb'))?.visibility).toBe('private');
    expect((await publish('1.1.0', { visibility: 'private' })).visibility).toBe('private');
  });

  it('refuses a publish into a namespace that does not exist', async () => {
    await expect(publish('1.0.0', { namespace: 'nope' })).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
  });
});

describe('concurrent commits', () => {
  it('lets exactly one of 20 racing publishes of one version win, leaving one blob', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => publish('3.0.0', {}, new TextEncoder().encode(`contender ${i}`))),
    );
    expect(results.filter((x) => x.status === 'fulfilled')).toHaveLength(1);
    const codes = results.filter((x): x is PromiseRejectedResult => x.status === 'rejected').map((x) => x.reason.code);
    expect(codes).toEqual(Array(19).fill('E_VERSION_EXISTS'));
    expect(await blobCount()).toBe(1);
  });

  it('keeps one winner when two connections (processes) race on the constraint', async () => {
    const second = await reopen();
    try {
      const blobs = await Promise.all(Array.from({ length: 10 }, (_, i) => store.putBlob(new TextEncoder().encode(`racer ${i}`))));
      const rec = (s: AnyStore, i: number) =>
        s.commitPublish({
          namespace: 'acme', name: 'kb', version: i % 2 ? '4.0.0' : '4.0.0+b', precedence_key: '4.0.0', artifact_sha256: blobs[i]!.sha256,
          size_bytes: 1, integrity_sha256: 'c'.repeat(64), signer_public_key: KEY_A, visibility: 'public', description: '', tags: [],
          dependencies: [], search_text: '', trust_report: () => ({}), published_at: T0, published_by: 't',
        });
      const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => rec(i % 2 ? store : second, i)));
      expect(results.filter((x) => x.status === 'fulfilled')).toHaveLength(1);
      expect((await store.listVersions('acme', 'kb')).filter((v) => v.precedence_key === '4.0.0')).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});

describe('yank, catalog and search', () => {
  it('tracks latest and the revision through yank and un-yank', async () => {
    await publish('1.0.0');
    await publish('2.0.0');
    const rev0 = (await store.getPackage('acme', 'kb'))!.revision;
    const y = await store.setYanked('acme', 'kb', '2.0.0', true, T0, 'tok_1');
    expect(y.yanked).toBe(true);
    expect((await store.catalog({ namespaces: [] }, { limit: 10 }))[0].latest).toBe('1.0.0');
    expect((await store.getPackage('acme', 'kb'))!.revision).toBeGreaterThan(rev0);
    await store.setYanked('acme', 'kb', '2.0.0', false, T0, 'tok_1');
    expect((await store.catalog({ namespaces: [] }, { limit: 10 }))[0].latest).toBe('2.0.0');
    await expect(store.setYanked('acme', 'kb', '9.0.0', true, T0, 't')).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
  });

  it('searches node content and hides private packages from other namespaces', async () => {
    await publish('1.0.0', { visibility: 'private', search_text: 'JWT secrets rotate every 24h' });
    expect(await store.search({ namespaces: [] }, 'rotate', { limit: 10 })).toEqual([]);
    const hits = await store.search({ namespaces: ['acme'] }, 'ROTATE jwt', { limit: 10 });
    expect(hits.map((h) => h.name)).toEqual(['kb']);
    expect(hits[0].snippet).toContain('[rotate]');
    expect(await store.search({ namespaces: ['acme'] }, 'NEAR OR " *', { limit: 10 })).toEqual([]);
    expect(await store.catalog({ namespaces: [] }, { limit: 10 })).toEqual([]);
  });

  it('pages the catalog by full name', async () => {
    await store.createNamespace({ name: 'a-b', owner: 'x', created_at: T0 });
    await store.createNamespace({ name: 'a1', owner: 'x', created_at: T0 });
    for (const ns of ['a-b', 'a1']) {
      await store.addSignerKey(ns, KEY_A, T0);
      await publish('1.0.0', { namespace: ns });
    }
    await publish('1.0.0');
    const all = (await store.catalog({ namespaces: [] }, { limit: 10 })).map((e) => `@${e.namespace}/${e.name}`);
    expect(all).toEqual(['@a-b/kb', '@a1/kb', '@acme/kb']);
    const page2 = await store.catalog({ namespaces: [] }, { limit: 10, after: '@a1/kb' });
    expect(page2.map((e) => e.namespace)).toEqual(['acme']);
  });
});

describe('blobs', () => {
  it('removes the blob of a refused publish but never a referenced one', async () => {
    const bytes = new TextEncoder().encode('same bytes');
    await publish('1.0.0', {}, bytes);
    await expect(publish('1.0.0', {}, bytes)).rejects.toMatchObject({ code: 'E_VERSION_EXISTS' });
    expect(Buffer.from((await store.readBlob(sha256OfBytes(bytes)))!)).toEqual(Buffer.from(bytes));
    await expect(publish('1.0.0', {}, new TextEncoder().encode('loser'))).rejects.toMatchObject({ code: 'E_VERSION_EXISTS' });
    expect(await blobCount()).toBe(1);
  });

  it.runIf(backend === 'sqlite')('collects orphan blobs and stale temp files, respecting the grace period', async () => {
    if (!(store instanceof SqliteStore)) return;
    await publish('1.0.0');
    const orphan = await store.blobs.put(new TextEncoder().encode('orphan'));
    await writeFile(join(dir, 'blobs', 'tmp', 'half.tmp'), 'partial');
    expect((await store.collectGarbage({ graceMs: 3_600_000, now: Date.now() })).removed).toBe(0);
    const old = new Date(Date.now() - 7_200_000);
    await utimes(store.blobs.pathOf(orphan.sha256), old, old);
    expect((await store.collectGarbage({ graceMs: 3_600_000, now: Date.now() })).removed).toBe(1);
    expect((await store.collectGarbage({ graceMs: 0, now: Date.now() + 1 })).removed).toBe(1);
    expect(await readdir(join(dir, 'blobs', 'tmp'))).toEqual([]);
    expect(await blobCount()).toBe(1);
  });

  it.runIf(backend === 'postgres')('collects orphan blobs after the grace period, and pins of live publishes only until then', async () => {
    await publish('1.0.0');
    const orphan = await store.putBlob(new TextEncoder().encode('orphan'));
    const pinned = await store.putBlob(new TextEncoder().encode('a publish in flight'));
    await store.releaseBlob(orphan.sha256); // unpinned and unreferenced: deleted at once
    expect(await store.readBlob(orphan.sha256)).toBeNull();
    const again = await store.putBlob(new TextEncoder().encode('orphan'));
    await rawSql(store, 'UPDATE blobs SET pins = 0 WHERE sha256 = ?', [again.sha256]); // as if released by a node that then died
    expect((await store.collectGarbage({ graceMs: 3_600_000, now: Date.now() })).removed).toBe(0);
    expect((await store.collectGarbage({ graceMs: 3_600_000, now: Date.now() + 7_200_000 })).removed).toBe(2);
    expect(await store.readBlob(pinned.sha256)).toBeNull(); // its node's pin is older than the grace period
    expect(await blobCount()).toBe(1);
  });

  it('detects a corrupted blob on read', async () => {
    const { version } = await publish('1.0.0');
    await store.close();
    if (url === undefined) {
      await writeFile(join(dir, 'blobs', 'sha256', version.artifact_sha256.slice(0, 2), version.artifact_sha256.slice(2, 4), version.artifact_sha256), 'tampered');
    }
    store = await reopen();
    if (url !== undefined) await rawSql(store, 'UPDATE blobs SET bytes = ? WHERE sha256 = ?', [Buffer.from('tampered'), version.artifact_sha256]);
    await expect(store.readBlob(version.artifact_sha256)).rejects.toMatchObject({ code: 'E_INTEGRITY' });
  });

  it('never serves a cached package row after another connection changed it', async () => {
    await publish('1.0.0');
    expect((await store.getPackage('acme', 'kb'))?.visibility).toBe('public');
    expect(await store.getPackage('acme', 'nope')).toBeNull();
    const other = await reopen();
    try {
      await other.setPackageVisibility('acme', 'kb', 'private', T0, 'admin');
      expect((await store.getPackage('acme', 'kb'))?.visibility).toBe('private');
      await store.setPackageVisibility('acme', 'kb', 'public', T0, 'admin');
      expect((await other.getPackage('acme', 'kb'))?.visibility).toBe('public');
      expect((await store.getPackage('acme', 'kb'))?.visibility).toBe('public');
    } finally {
      await other.close();
    }
    await publish('1.0.0', { name: 'nope' });
    expect(await store.getPackage('acme', 'nope')).not.toBeNull();
  });

  it('keeps everything across a reopen', async () => {
    await publish('1.0.0');
    await store.close();
    store = await reopen();
    expect((await store.listVersions('acme', 'kb')).map((v) => v.version)).toEqual(['1.0.0']);
    expect(await store.getNamespace('acme')).toMatchObject({ owner: 'ops' });
  });
});

describe('tokens and namespaces', () => {
  it('stores tokens by hash, revokes by id or hash, and refuses unknown namespaces', async () => {
    const rec = { id: 'tok_1', token_sha256: 'e'.repeat(64), namespace: 'acme', scope: 'publish' as const, label: null, created_at: T0, expires_at: null, revoked_at: null };
    await store.insertToken(rec);
    expect(await store.findTokenByHash('e'.repeat(64))).toEqual(rec);
    expect((await store.revokeToken('e'.repeat(64), T0)).revoked_at).toBe(T0);
    expect((await store.revokeToken('tok_1', '2030-01-01T00:00:00Z')).revoked_at).toBe(T0);
    await expect(store.revokeToken('tok_x', T0)).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
    await expect(store.insertToken({ ...rec, id: 'tok_2', token_sha256: 'f'.repeat(64), namespace: 'zz' })).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
    await expect(store.createNamespace({ name: 'acme', owner: 'y', created_at: T0 })).rejects.toMatchObject({ code: 'E_EXISTS' });
  });
});

describe('schema and package blobs', () => {
  it.runIf(backend === 'sqlite')('migrates a schema-1 data directory: adds version_blobs and records the new version', async () => {
    if (!(store instanceof SqliteStore)) return;
    await publish('1.0.0');
    store.db.exec("DROP TABLE version_blobs; UPDATE meta SET value = '1' WHERE key = 'schema_version'");
    await store.close();
    const reopened = await openSqliteStore({ dataDir: dir });
    store = reopened;
    expect(reopened.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: String(SCHEMA_VERSION) });
    expect(reopened.db.prepare('SELECT COUNT(*) AS n FROM version_blobs').get()).toEqual({ n: 0 });
    expect((await store.listVersions('acme', 'kb')).map((v) => v.version)).toEqual(['1.0.0']);
  });

  it('records package blobs with the version; only public packages expose them', async () => {
    const blob = new TextEncoder().encode('blob bytes');
    const { sha256 } = await store.putBlob(blob, { durable: false });
    await publish('1.0.0', { blobs: [{ sha256, size_bytes: blob.length }] });
    await store.releaseBlob(sha256);
    expect(Buffer.from((await store.readBlob(sha256))!).toString()).toBe("blob bytes");
    const rec = await store.findPublicBlob(sha256);
    expect(rec).toMatchObject({ sha256, size_bytes: blob.length });
    expect(rec?.artifact_sha256).toBe((await store.getVersion('acme', 'kb', '1.0.0'))?.artifact_sha256);
    await store.setPackageVisibility('acme', 'kb', 'private', T0, 'test');
    expect(await store.findPublicBlob(sha256)).toBeNull();
    expect((await store.collectGarbage({ graceMs: 0, now: Date.now() + 10_000 })).removed).toBe(0);
    expect(await store.readBlob(sha256)).not.toBeNull();
  });
});

  it.runIf(backend === 'sqlite')('refuses a data directory of a newer schema as an environment error (exit 9), not a bug', async () => {
    await rawSql(store, "UPDATE meta SET value = ? WHERE key = 'schema_version'", [String(SCHEMA_VERSION + 1)]);
    const err = await reopen().then(() => null, (e: unknown) => e);
    expect(err).toMatchObject({ code: 'E_ENVIRONMENT', message: expect.stringContaining(`has schema ${SCHEMA_VERSION + 1}, newer than this ctxpkg knows (${SCHEMA_VERSION})`) });
    expect((err as { hint: string }).hint).toContain('never migrated down');
  });

  it.runIf(backend === 'postgres')('records its migrations, applies each once, and refuses a newer schema', async () => {
    const applied = await rawSql(store, 'SELECT version FROM schema_migrations ORDER BY version');
    expect(applied.map((r) => r.version)).toEqual(Array.from({ length: PG_SCHEMA_VERSION }, (_, i) => i + 1));
    await Promise.all([reopen(), reopen()].map(async (p) => (await p).close())); // concurrent starts migrate nothing twice
    expect(await rawSql(store, 'SELECT count(*)::int AS n FROM schema_migrations')).toEqual([{ n: PG_SCHEMA_VERSION }]);
    await rawSql(store, 'INSERT INTO schema_migrations (version) VALUES (?)', [PG_SCHEMA_VERSION + 1]);
    await expect(reopen()).rejects.toMatchObject({ code: 'E_ENVIRONMENT', hint: expect.stringContaining('never migrated down') });
  });
});
