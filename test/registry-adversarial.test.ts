/**
 * ADVERSARIAL registry cases driven by the reference-written golden package
 * (`../shared/vectors/acme-auth-context-2.0.0.ctxpkg`, signed with the test key):
 * HB-19 (body-size bypasses, in process — including what only `app.request` allows: a malformed
 * and a lying Content-Length) and HB-21 1–9 (auth before body, name binding, unsigned, private
 * 404s, foreign yank). The golden is version 2.0.0, so the cases use 2.0.0 where ADVERSARIAL says
 * 1.2.0. Generated-package variants of the same cases run in packages/registry/src/routes/*.test.ts.
 */
import { publicUnlessDeclared } from '../packages/registry/src/__tests__/support.js';
import { DEFAULT_LIMITS } from '@ctxpkg/registry';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makePackage, describeBackends, newTestRegistry, storageSnapshot, type TestRegistry } from '../packages/registry/src/__tests__/support.js';
import { describeShared, sharedBytes } from './support/shared.js';

const GOLDEN = 'vectors/acme-auth-context-2.0.0.ctxpkg';
const URL_GOLDEN = '/api/v1/packages/acme/auth-context/2.0.0';
/** The registry's default package cap (10 MiB: the format's file limit, spec/registry.md "Configuration"). */
const CAP = DEFAULT_LIMITS.maxPackageBytes;

let r: TestRegistry;

function edit(bytes: Uint8Array, from: RegExp | string, to: string): Uint8Array {
  const text = new TextDecoder().decode(bytes);
  const out = text.replace(from, to);
  expect(out).not.toBe(text);
  return new TextEncoder().encode(out);
}

/** Golden padded with spaces after its first `{` (outside content: hashes still match). */
function padded(bytes: Uint8Array, total: number): Uint8Array {
  const out = new Uint8Array(total);
  out[0] = bytes[0];
  out.fill(0x20, 1, 1 + total - bytes.length);
  out.set(bytes.subarray(1), 1 + total - bytes.length);
  return out;
}

/** A body stream over `bytes` in 64 KiB chunks, pulled on demand; reports how much was pulled. */
function stream(bytes: Uint8Array): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  let off = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(ctrl) {
        if (off >= bytes.length) return ctrl.close();
        const part = bytes.subarray(off, off + 64 * 1024);
        off += part.length;
        ctrl.enqueue(part);
      },
    },
    { highWaterMark: 0 },
  );
  return { body, pulled: () => off };
}

async function putRaw(path: string, body: BodyInitLike, headers: Record<string, string>): Promise<Response> {
  const visibility = body instanceof Uint8Array ? await publicUnlessDeclared(body) : {};
  return r.app.request(`http://registry.test${path}`, { method: 'PUT', body, headers: { ...visibility, ...headers }, duplex: 'half' } as RequestInit);
}
type BodyInitLike = RequestInit['body'];

describeBackends('registry-adversarial', (backend) => {
  describeShared('HB-19 body-size limit bypass (golden, in process)', () => {
    beforeEach(async () => {
      r = await newTestRegistry({}, backend);
    });
    afterEach(async () => {
      await r.close();
    });

    it('refuses the default cap + 1 byte four ways, stores nothing, never buffers more than cap + 64 KiB; the control publishes', async () => {
      const golden = sharedBytes(GOLDEN);
      const big = padded(golden, CAP + 1);
      const auth = { authorization: `Bearer ${r.tokens.acmePublish}` };
      const before = await storageSnapshot(r.store);

      const withLength = stream(big);
      expect((await putRaw(URL_GOLDEN, withLength.body, { ...auth, 'content-length': String(big.length) })).status).toBe(413);
      expect(withLength.pulled()).toBe(0);

      const chunked = stream(big);
      expect((await putRaw(URL_GOLDEN, chunked.body, auth)).status).toBe(413);
      expect(chunked.pulled()).toBeLessThanOrEqual(CAP + 64 * 1024);

      const malformed = stream(big);
      const m = await putRaw(URL_GOLDEN, malformed.body, { ...auth, 'content-length': 'abc' });
      expect([400, 413]).toContain(m.status);
      expect(malformed.pulled()).toBe(0);

      const lying = stream(big);
      expect((await putRaw(URL_GOLDEN, lying.body, { ...auth, 'content-length': '1000' })).status).toBe(413);
      expect(lying.pulled()).toBeLessThanOrEqual(1000 + 64 * 1024);

      expect(await storageSnapshot(r.store)).toBe(before);
      expect((await r.req('/v1/packages/acme/auth-context/index.json')).status).toBe(404);
      expect((await r.put(URL_GOLDEN, golden, r.tokens.acmePublish)).status).toBe(201);
    });
  });

  describeShared('HB-21 authorization, name binding, private packages (golden)', () => {
    beforeEach(async () => {
      r = await newTestRegistry({}, backend);
    });
    afterEach(async () => {
      await r.close();
    });

    it('decides 1-7 as specified and stores nothing', async () => {
      const golden = sharedBytes(GOLDEN);
      const before = await storageSnapshot(r.store);
      const cases: Array<[string, string, Uint8Array, string | undefined, number, string]> = [
        ['1 no Authorization', URL_GOLDEN, golden, undefined, 401, 'E_AUTH'],
        ['2 bogus token', URL_GOLDEN, golden, 'ctxp_bogus', 401, 'E_AUTH'],
        ['3 read token', URL_GOLDEN, golden, r.tokens.acmeRead, 400, 'E_FORBIDDEN'],
        ['4 other namespace', URL_GOLDEN, golden, r.tokens.otherPublish, 403, 'E_FORBIDDEN'],
        ['5 URL names another package', '/v1/packages/acme/other/2.0.0', golden, r.tokens.acmePublish, 400, 'E_NAME_MISMATCH'],
        ['6 URL version differs', '/v1/packages/acme/auth-context/2.0.1', golden, r.tokens.acmePublish, 400, 'E_NAME_MISMATCH'],
        ['7 signature removed', URL_GOLDEN, edit(golden, /,\n {4}"signature": \{[^}]*\}/, ''), r.tokens.acmePublish, 400, 'E_UNSIGNED'],
      ];
      for (const [label, path, body, token, status, code] of cases) {
        const res = await r.put(path, body, token);
        expect([label, res.status, ((await res.json()) as { code: string }).code]).toEqual([label, status, code]);
      }
      expect(await storageSnapshot(r.store)).toBe(before);
    });

    it('hides a private package (8) and refuses a foreign yank (9)', async () => {
      const golden = sharedBytes(GOLDEN);
      const priv = edit(golden, '"tags": [],\n', '"tags": [],\n    "visibility": "private",\n');
      expect((await r.put(URL_GOLDEN, priv, r.tokens.acmePublish)).status).toBe(201);
      const idx = '/v1/packages/acme/auth-context/index.json';
      const missing = await r.req('/v1/packages/acme/no-such/index.json');
      const missingText = await missing.text();
      for (const token of [undefined, r.tokens.otherPublish]) {
        const res = await r.req(idx, { token });
        expect(res.status).toBe(404);
        expect(await res.text()).toBe(missingText);
        expect([...res.headers.entries()]).toEqual([...missing.headers.entries()]);
      }
      const ok = await r.req(idx, { token: r.tokens.acmeRead });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('cache-control')).toBe('private, no-store');

      const before = await storageSnapshot(r.store);
      const yank = await r.req(URL_GOLDEN, { method: 'DELETE', token: r.tokens.otherPublish });
      expect(yank.status).toBeGreaterThanOrEqual(400);
      expect(yank.status).toBeLessThan(500);
      expect(await storageSnapshot(r.store)).toBe(before);
      const v = (await (await r.req(idx, { token: r.tokens.acmeRead })).json()) as { versions: Array<{ yanked: boolean }> };
      expect(v.versions[0].yanked).toBe(false);
    });

    it('HB-20 style: a generated package cannot take the golden version either', async () => {
      const golden = sharedBytes(GOLDEN);
      expect((await r.put(URL_GOLDEN, golden, r.tokens.acmePublish)).status).toBe(201);
      const rival = makePackage({ name: '@acme/auth-context', version: '2.0.0', description: 'rival' });
      expect((await r.put(URL_GOLDEN, rival, r.tokens.acmePublish)).status).toBe(409);
      const dl = new Uint8Array(await (await r.req('/v1/packages/acme/auth-context/2.0.0/download')).arrayBuffer());
      expect(Buffer.from(dl).equals(Buffer.from(golden))).toBe(true);
    });
  });
});
