/**
 * The cached index.json is never stale (spec/registry.md §13 "Caching"): a change committed by
 * another process — here a child process writing through its own connection, as the admin CLI
 * does — is served on the very next request, on the synchronous hot path (package-row cache
 * dropped by `CommitProbe`, index document revalidated by the package's `revision`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePackage, newTestRegistry, type TestRegistry } from './__tests__/support.js';
import { startWriterChild, type WriterChild } from './__tests__/writer-process.js';

const KB = '/v1/packages/acme/kb';

let r: TestRegistry;
let writer: WriterChild | undefined;

/** Send one command to the writer process and wait until it has committed. */
const commit = (command: string): Promise<void> => writer!.send(command);

beforeAll(async () => {
  r = await newTestRegistry();
  for (const v of ['1.0.0', '1.1.0']) {
    const res = await r.put(`${KB}/${v}`, makePackage({ version: v }), r.tokens.acmePublish);
    expect(res.status).toBe(201);
  }
  writer = startWriterChild(r.dir);
});

afterAll(async () => {
  await writer?.stop();
  await r?.close();
});

/** Status, every header and the body: what "byte-identical" compares. */
async function snapshot(res: Response): Promise<string> {
  return JSON.stringify({ status: res.status, headers: [...res.headers.entries()].sort(), body: await res.text() });
}

/** An anonymous index request through `app.fetch` (what the HTTP adapter calls). */
function anonymousIndex(): Promise<Response> {
  return Promise.resolve(r.app.fetch(new Request(`http://registry.test${KB}/index.json`)));
}

/** The same, answered from warm caches: it must come without a promise (the synchronous hot path). */
function anonymousIndexNow(): Response {
  const res = r.app.fetch(new Request(`http://registry.test${KB}/index.json`));
  expect(res).not.toBeInstanceOf(Promise);
  return res as Response;
}

describe('index.json after commits by another process', () => {
  it('hides a package made private and shows it again at once, byte-identical to a missing one', async () => {
    const missing = await snapshot(await r.req('/v1/packages/acme/no-such-kb/index.json'));
    expect((await anonymousIndex()).status).toBe(200);
    expect(anonymousIndexNow().status).toBe(200);
    for (let i = 0; i < 10; i++) {
      await commit('visibility @acme/kb private');
      expect(await snapshot(await anonymousIndex())).toBe(missing);
      const owner = await r.req(`${KB}/index.json`, { token: r.tokens.acmeRead });
      expect(owner.status).toBe(200);
      expect(owner.headers.get('cache-control')).toBe('private, no-store');
      expect(((await owner.json()) as { visibility: string }).visibility).toBe('private');
      // Warm caches now: still hidden, still without a promise.
      expect(await snapshot(anonymousIndexNow())).toBe(missing);

      await commit('visibility @acme/kb public');
      const open = await anonymousIndex();
      expect(open.status).toBe(200);
      expect(open.headers.get('cache-control')).toBe('public, no-cache');
      expect(((await open.json()) as { visibility: string }).visibility).toBe('public');
      expect(anonymousIndexNow().status).toBe(200);
    }
    expect(writer!.stray).toEqual([]);
  });

  it('serves a yank and an un-yank on the next request', async () => {
    const latest = async () => {
      const idx = (await (await anonymousIndex()).json()) as { latest: string; versions: Array<{ version: string; yanked: boolean }> };
      return [idx.latest, idx.versions.map((v) => `${v.version}${v.yanked ? ' yanked' : ''}`)];
    };
    expect(await latest()).toEqual(['1.1.0', ['1.1.0', '1.0.0']]);
    for (let i = 0; i < 5; i++) {
      await commit('yank acme kb 1.1.0');
      expect(await latest()).toEqual(['1.0.0', ['1.0.0', '1.1.0 yanked']]);
      await commit('unyank acme kb 1.1.0');
      expect(await latest()).toEqual(['1.1.0', ['1.1.0', '1.0.0']]);
    }
  });
});
