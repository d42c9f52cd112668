/**
 * H7: can a change committed by another process be missed by the registry's caches (package-row
 * cache behind `CommitProbe`, the wal-index header probe; index bytes cache)? A child process
 * changes the data directory through its own connections — admin functions opening and closing
 * a store per command as the CLI does, WAL checkpoints of every mode (RESTART/TRUNCATE reset the
 * WAL, so the next commit starts again at frame 1), a connection held open — and every change must
 * be served on the very next request, from warm caches: a private package is never served
 * publicly, a yank is visible, a revoked token is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '@ctxpkg/registry';
import { makePackage, newTestRegistry, type TestRegistry } from '../../packages/registry/src/__tests__/support.js';
import { startWriterChild, type WriterChild } from '../../packages/registry/src/__tests__/writer-process.js';
import type { SqliteStore } from '../../packages/registry/src/store/sqlite.js';

const KB = '/v1/packages/acme/kb';
let r: TestRegistry;
let writer: WriterChild | undefined;

const send = (command: string): Promise<void> => writer!.send(command);

beforeAll(async () => {
  r = await newTestRegistry();
  for (const v of ['1.0.0', '1.1.0']) expect((await r.put(`${KB}/${v}`, makePackage({ version: v }), r.tokens.acmePublish)).status).toBe(201);
  writer = startWriterChild(r.dir);
});

afterAll(async () => {
  await writer?.stop();
  await r?.close();
});

const anon = async (path = `${KB}/index.json`): Promise<number> => (await Promise.resolve(r.app.fetch(new Request(`http://registry.test${path}`)))).status;
const latest = async (): Promise<string> => ((await (await Promise.resolve(r.app.fetch(new Request(`http://registry.test${KB}/index.json`)))).json()) as { latest: string }).latest;

describe('H7: commits by another process are never missed', () => {
  it('visibility flips around WAL checkpoints of every mode, warm caches before each change', async () => {
    expect((r.store as SqliteStore).commits.usesWalIndex).toBe(true);
    for (const mode of ['PASSIVE', 'FULL', 'RESTART', 'TRUNCATE', 'TRUNCATE', 'RESTART']) {
      for (let k = 0; k < 3; k++) expect(await anon()).toBe(200);
      await send(`checkpoint ${mode}`);
      expect(await anon()).toBe(200);
      await send('visibility @acme/kb private');
      expect([mode, await anon(), await anon(`${KB}/1.0.0`)]).toEqual([mode, 404, 404]);
      await send(`checkpoint ${mode}`);
      expect([mode, await anon()]).toEqual([mode, 404]);
      await send('visibility @acme/kb public');
      expect([mode, await anon()]).toEqual([mode, 200]);
    }
  });

  it('yank/unyank after a TRUNCATE checkpoint, with another connection held open', async () => {
    await send('hold-open');
    for (let i = 0; i < 5; i++) {
      expect(await latest()).toBe('1.1.0');
      await send('checkpoint TRUNCATE');
      await send('yank acme kb 1.1.0');
      expect(await latest()).toBe('1.0.0');
      await send('checkpoint TRUNCATE');
      await send('unyank acme kb 1.1.0');
      expect(await latest()).toBe('1.1.0');
    }
  });

  it('a token revoked by another process is refused on its next request (private package: owner sees it, then 401)', async () => {
    await send('visibility @acme/kb private');
    const t = (await createToken({ store: r.store }, { namespace: 'acme', scope: 'read' })).token;
    const get = async () => (await r.req(`${KB}/index.json`, { token: t })).status;
    for (let k = 0; k < 3; k++) expect(await get()).toBe(200);
    await send('checkpoint TRUNCATE');
    await send(`revoke ${t}`);
    expect(await get()).toBe(401);
    expect(await anon()).toBe(404);
    await send('visibility @acme/kb public');
  });

  it('200 alternating changes with truncating checkpoints between them: each one served on the next request', async () => {
    for (let i = 0; i < 100; i++) {
      await send('visibility @acme/kb private');
      expect(await anon()).toBe(404);
      if (i % 3 === 0) await send('checkpoint TRUNCATE');
      await send('visibility @acme/kb public');
      expect(await anon()).toBe(200);
    }
    expect(writer!.stray).toEqual([]);
  }, 120_000);
});
