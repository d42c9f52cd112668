import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOCK_FILE } from './server-lock.js';
import { startRegistry } from './server.js';
import { openSqliteStore } from './store/sqlite.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ctxpkg-srv-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('startRegistry', () => {
  it('listens on a free port, answers, and closes idempotently', async () => {
    const reg = await startRegistry({ dataDir: dir });
    expect(reg.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(reg.port).toBeGreaterThan(0);
    expect(reg.publicUrl).toBe(reg.url);
    expect((await fetch(`${reg.url}/api/healthz`)).status).toBe(200);
    await Promise.all([reg.close(), reg.close()]);
    await expect(fetch(`${reg.url}/healthz`)).rejects.toThrow();
    expect(await readdir(dir)).not.toContain(LOCK_FILE);
  });

  it('refuses a second server on the same data directory, and takes over a stale lock', async () => {
    const first = await startRegistry({ dataDir: dir });
    try {
      await expect(startRegistry({ dataDir: dir })).rejects.toMatchObject({ code: 'E_LOCKED' });
    } finally {
      await first.close();
    }
    await writeFile(join(dir, LOCK_FILE), '2147483646'); // a pid that does not exist
    const second = await startRegistry({ dataDir: dir });
    await second.close();
  });

  it('collects orphan blobs and temp files left by a crash at startup', async () => {
    const store = await openSqliteStore({ dataDir: dir });
    await store.blobs.put(new TextEncoder().encode('orphan from an interrupted publish'));
    await writeFile(join(dir, 'blobs', 'tmp', 'half-written.tmp'), 'partial');
    await store.close();
    const reg = await startRegistry({ dataDir: dir });
    await reg.close();
    const files = await readdir(join(dir, 'blobs'), { recursive: true });
    expect(files.filter((f) => /[0-9a-f]{64}$/.test(String(f)) || String(f).endsWith('.tmp'))).toEqual([]);
  });

  it('reports a busy port and invalid options as errors', async () => {
    const first = await startRegistry({ dataDir: dir });
    const other = await mkdtemp(join(tmpdir(), 'ctxpkg-srv2-'));
    try {
      await expect(startRegistry({ dataDir: other, port: first.port })).rejects.toMatchObject({ code: 'E_IO' });
      await expect(startRegistry({ dataDir: other, port: 70000 })).rejects.toMatchObject({ code: 'E_USAGE' });
      // The failed starts released the lock of `other`.
      const ok = await startRegistry({ dataDir: other });
      await ok.close();
    } finally {
      await first.close();
      await rm(other, { recursive: true, force: true });
    }
  });
});
