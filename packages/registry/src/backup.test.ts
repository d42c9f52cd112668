/**
 * Backup, restore and verify on both backends (issue 12 item 4): a backup taken while publishes
 * run restores — into SQLite and into PostgreSQL — with every version byte-identical; a corrupt
 * or truncated backup is refused with nothing written; verify finds damaged blobs.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNamespace, createToken } from './admin.js';
import { createApp } from './app.js';
import { backupRegistry, restoreRegistry, verifyRegistry } from './backup.js';
import { startRegistry, type RunningRegistry } from './server.js';
import { openStore, type StoreLocation } from './store/open.js';
import { BACKENDS, describeBackends, freshPgUrl, type BackendName } from './__tests__/backends.js';
import { makePackage, rawSql } from './__tests__/support.js';
import { SqliteStore } from './store/sqlite.js';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'ctxpkg-backup-'));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function location(backend: BackendName, name: string): Promise<StoreLocation> {
  return backend === 'sqlite' ? { dataDir: join(tmp, name) } : { db: await freshPgUrl() };
}

/** Every version of @acme/kb in the store at `where`, downloaded through an app over it. */
async function downloads(where: StoreLocation): Promise<Map<string, string>> {
  const store = await openStore(where);
  try {
    const app = createApp({ store });
    const idx = (await (await app.request('http://r/v1/packages/acme/kb/index.json')).json()) as { versions: Array<{ version: string; artifact_sha256: string }> };
    const out = new Map<string, string>();
    for (const v of idx.versions) {
      const bytes = new Uint8Array(await (await app.request(`http://r/v1/packages/acme/kb/${v.version}/download`)).arrayBuffer());
      expect(sha(bytes)).toBe(v.artifact_sha256);
      out.set(v.version, sha(bytes));
    }
    return out;
  } finally {
    await store.close();
  }
}

describeBackends('backup and restore', (backend) => {
  let reg: RunningRegistry | undefined;
  afterEach(async () => {
    await reg?.close();
    reg = undefined;
  });

  it('a backup taken while publishes run restores into every backend, every version byte-identical', async () => {
    const source = await location(backend, 'source');
    reg = await startRegistry({ ...source, port: 0 });
    await createNamespace(source, 'acme');
    const token = (await createToken(source, { namespace: 'acme', scope: 'publish' })).token;
    const published = new Map<string, string>();
    const put = async (version: string) => {
      const bytes = makePackage({ version, description: `build ${version}` });
      const res = await fetch(`${reg!.url}/v1/packages/acme/kb/${version}`, { method: 'PUT', body: bytes, headers: { authorization: `Bearer ${token}`, 'x-ctxpkg-visibility': 'public' } });
      expect(res.status).toBe(201);
      published.set(version, sha(bytes));
    };
    for (let i = 0; i < 5; i++) await put(`1.0.${i}`);
    const file = join(tmp, 'registry.backup');
    const running = (async () => {
      for (let i = 5; i < 25; i++) await put(`1.0.${i}`);
    })();
    const summary = await backupRegistry(source, file);
    await running;
    expect(summary.blobs).toBeGreaterThanOrEqual(5);
    // The summary says how old the snapshot is: its newest event and the log's size, which counts a
    // key-add and a publish entry for the first version, one publish entry per later one.
    expect(summary.log).toEqual({ origin: expect.stringMatching(/^ctxpkg-registry\/[0-9a-f]{16}$/), size: summary.blobs + 1 });
    expect(summary.last_change_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    // No file of the temporary copy stays behind (-wal/-shm included; new-user 2 item 14).
    const leftovers = async (w: StoreLocation) => ('dataDir' in w && w.dataDir ? (await readdir(w.dataDir)).filter((f) => f.startsWith('snapshot.')) : []);
    expect(await leftovers(source)).toEqual([]);
    for (const target of BACKENDS) {
      const where = await location(target, `restored-${target}`);
      const restored = await restoreRegistry(file, where);
      expect(restored).toEqual(summary);
      expect(await leftovers(where)).toEqual([]);
      const got = await downloads(where);
      expect(got.size).toBe(summary.blobs);
      for (const [v, h] of got) expect(h).toBe(published.get(v));
      for (let i = 0; i < 5; i++) expect(got.has(`1.0.${i}`)).toBe(true);
      // The restored registry keeps its tokens and takes new publishes.
      const store = await openStore(where);
      try {
        const app = createApp({ store });
        const res = await app.request('http://r/v1/packages/acme/kb/9.0.0', { method: 'PUT', body: makePackage({ version: '9.0.0' }), headers: { authorization: `Bearer ${token}`, 'x-ctxpkg-visibility': 'public' } });
        expect(res.status).toBe(201);
        expect((await store.auditEvents({ limit: 1000 })).filter((e) => e.action === 'publish').length).toBe(summary.blobs + 1);
      } finally {
        await store.close();
      }
      await expect(restoreRegistry(file, where)).rejects.toMatchObject({ code: 'E_EXISTS', hint: expect.stringContaining(target === 'sqlite' ? '--data' : 'createdb') });
    }
  }, 180_000);

  it('refuses a corrupt or truncated backup and writes nothing', async () => {
    const source = await location(backend, 'source');
    await (await openStore(source)).close();
    await createNamespace(source, 'acme');
    const store = await openStore(source);
    try {
      const app = createApp({ store });
      const token = (await createToken({ store }, { namespace: 'acme', scope: 'publish' })).token;
      for (const v of ['1.0.0', '1.1.0']) {
        expect((await app.request(`http://r/v1/packages/acme/kb/${v}`, { method: 'PUT', body: makePackage({ version: v }), headers: { authorization: `Bearer ${token}`, 'x-ctxpkg-visibility': 'public' } })).status).toBe(201);
      }
      const file = join(tmp, 'ok.backup');
      await backupRegistry({ store }, file);
      const text = await readFile(file, 'utf8');
      const lines = text.split('\n');
      const blobLine = lines.findIndex((l) => l.startsWith('{"b":'));
      const flipped = lines.slice();
      const d = flipped[blobLine]!.indexOf('"d":"') + 10;
      flipped[blobLine] = flipped[blobLine]!.slice(0, d) + (flipped[blobLine]![d] === 'A' ? 'B' : 'A') + flipped[blobLine]!.slice(d + 1);
      const cases: Array<[string, string]> = [
        ['a flipped byte in a blob', flipped.join('\n')],
        ['the trailer cut off', lines.slice(0, -2).join('\n') + '\n'],
        ['a blob line removed', lines.filter((_, i) => i !== blobLine).join('\n')],
        ['a row edited', text.replace('"visibility":"public"', '"visibility":"private"')],
      ];
      for (const [label, body] of cases) {
        const bad = join(tmp, 'bad.backup');
        await writeFile(bad, body);
        for (const target of BACKENDS) {
          const where = await location(target, `never-${target}`);
          await expect(restoreRegistry(bad, where), label).rejects.toMatchObject({ code: 'E_INTEGRITY' });
          if (where.dataDir !== undefined) await expect(stat(where.dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
          else {
            const s = await openStore(where);
            try {
              expect(await s.listNamespaces()).toEqual([]);
              expect(await s.listBlobs()).toEqual([]);
            } finally {
              await s.close();
            }
          }
        }
      }
    } finally {
      await store.close();
    }
  }, 120_000);

  it('verify reports a corrupt artifact in a live store', async () => {
    const source = await location(backend, 'source');
    await (await openStore(source)).close();
    await createNamespace(source, 'acme');
    const store = await openStore(source);
    try {
      const app = createApp({ store });
      const token = (await createToken({ store }, { namespace: 'acme', scope: 'publish' })).token;
      const bytes = makePackage({ version: '1.0.0' });
      expect((await app.request('http://r/v1/packages/acme/kb/1.0.0', { method: 'PUT', body: bytes, headers: { authorization: `Bearer ${token}`, 'x-ctxpkg-visibility': 'public' } })).status).toBe(201);
      expect(await verifyRegistry({ store })).toEqual({ versions: 1, blobs: 1, problems: [] });
      if (store instanceof SqliteStore) await writeFile(store.blobs.pathOf(sha(bytes)), 'rot');
      else await rawSql(store, 'UPDATE blobs SET bytes = ? WHERE sha256 = ?', [Buffer.from('rot'), sha(bytes)]);
    } finally {
      await store.close();
    }
    expect(await verifyRegistry(source)).toEqual({ versions: 1, blobs: 1, problems: [{ sha256: sha(bytes0()), kind: 'artifact', problem: 'corrupt', versions: ['@acme/kb@1.0.0'] }] });
    await expect(backupRegistry(source, join(tmp, 'x.backup'))).rejects.toMatchObject({ code: 'E_INTEGRITY' });
    await expect(stat(join(tmp, 'x.backup'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

function bytes0(): Uint8Array {
  return makePackage({ version: '1.0.0' });
}
