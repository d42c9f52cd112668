/**
 * The registry over a real port (startRegistry, port 0): every route and error class through
 * fetch, the body-size cap over real sockets (HB-19), and the reference-written golden package
 * publishing and downloading byte-identical (FORMAT-FACTS §3.5, §9).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPackage } from '@ctxpkg/format';
import { DEFAULT_LIMITS, createNamespace, createToken, startRegistry, type RunningRegistry } from '@ctxpkg/registry';
import { makePackage, OTHER_SEED } from '../packages/registry/src/__tests__/support.js';
import { describeShared, sharedBytes } from './support/shared.js';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
/** The registry's default package cap (10 MiB: the format's file limit, spec/registry.md "Configuration"). */
const CAP = DEFAULT_LIMITS.maxPackageBytes;

let dir: string;
let reg: RunningRegistry;
let publish: string;
let read: string;
let otherPublish: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ctxpkg-http-'));
  reg = await startRegistry({ dataDir: dir, port: 0 });
  await createNamespace({ dataDir: dir }, 'acme');
  await createNamespace({ dataDir: dir }, 'other');
  publish = (await createToken({ dataDir: dir }, { namespace: 'acme', scope: 'publish' })).token;
  read = (await createToken({ dataDir: dir }, { namespace: 'acme', scope: 'read' })).token;
  otherPublish = (await createToken({ dataDir: dir }, { namespace: 'other', scope: 'publish' })).token;
});

afterAll(async () => {
  await reg?.close();
  await rm(dir, { recursive: true, force: true });
});

function call(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
  const { token, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token) headers.set('authorization', `Bearer ${token}`);
  // Packages here are read anonymously: publish them public (the registry's default is private).
  if (rest.method === 'PUT' && !headers.has('x-ctxpkg-visibility')) headers.set('x-ctxpkg-visibility', 'public');
  return fetch(reg.url + path, { ...rest, headers });
}

/** Send a raw HTTP request and return the status line's code (or the socket error). */
function rawStatus(head: string, body: Uint8Array | null, chunkBytes = 64 * 1024): Promise<number | string> {
  const u = new URL(reg.url);
  return new Promise((resolve) => {
    const sock = connect(Number(u.port), u.hostname);
    let buf = '';
    let done = false;
    const finish = (v: number | string) => {
      if (!done) {
        done = true;
        sock.destroy();
        resolve(v);
      }
    };
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(buf);
      if (m) finish(Number(m[1]));
    });
    sock.on('error', (e) => finish(`socket error: ${e.message}`));
    sock.on('close', () => finish(`closed: ${buf.slice(0, 80)}`));
    sock.write(head);
    if (body) {
      let off = 0;
      const pump = () => {
        while (off < body.length && !done) {
          const next = body.subarray(off, off + chunkBytes);
          off += next.length;
          if (!sock.write(next)) return void sock.once('drain', pump);
        }
      };
      pump();
    }
  });
}

/** The control package padded with spaces after the first `{` (outside content: hashes still match). */
function padded(bytes: Uint8Array, total: number): Uint8Array {
  const out = new Uint8Array(total);
  out[0] = bytes[0];
  out.fill(0x20, 1, 1 + total - bytes.length);
  out.set(bytes.subarray(1), 1 + total - bytes.length);
  return out;
}

describe('registry over HTTP: routes', () => {
  it('publishes, lists, downloads, versions, yanks and un-yanks', async () => {
    const bytes = makePackage({ version: '1.0.0' });
    const put = await call('/v1/packages/acme/kb/1.0.0', { method: 'PUT', body: bytes, token: publish });
    expect(put.status).toBe(201);
    const receipt = (await put.json()) as { artifact_sha256: string };
    expect(receipt.artifact_sha256).toBe(sha(bytes));
    const idx = (await (await call('/api/v1/packages/acme/kb/index.json')).json()) as any;
    expect(idx.versions[0]).toMatchObject({ version: '1.0.0', artifact_sha256: sha(bytes) });
    const dl = await call('/v1/packages/acme/kb/1.0.0/download');
    const got = new Uint8Array(await dl.arrayBuffer());
    expect(sha(got)).toBe(sha(bytes));
    expect(dl.headers.get('x-ctxpkg-sha256')).toBe(sha(bytes));
    expect((await call('/v1/packages/acme/kb/1.0.0')).status).toBe(200);
    expect((await call('/v1/packages/acme/kb/1.0.0', { method: 'DELETE', token: publish })).status).toBe(200);
    expect((await call('/v1/packages/acme/kb/1.0.0/unyank', { method: 'POST', token: publish })).status).toBe(200);
    expect(((await (await call('/v1/index.json')).json()) as any).packages.map((p: any) => p.name)).toContain('@acme/kb');
    expect(((await (await call('/v1/search?q=mutex')).json()) as any).results.length).toBeGreaterThan(0);
    expect((await call('/healthz')).status).toBe(200);
    expect(await (await call('/metrics')).text()).toContain('ctxpkg_publishes_total');
  });

  it('answers every error class with { error, code } and the mapped status', async () => {
    const cases: Array<[string, RequestInit & { token?: string }, number, string]> = [
      ['/v1/packages/acme/kb/1.1.0', { method: 'PUT', body: makePackage({ version: '1.1.0' }) }, 401, 'E_AUTH'],
      ['/v1/packages/acme/kb/1.1.0', { method: 'PUT', body: makePackage({ version: '1.1.0' }), token: read }, 400, 'E_FORBIDDEN'],
      ['/v1/packages/acme/kb/1.1.0', { method: 'PUT', body: makePackage({ version: '1.1.0' }), token: otherPublish }, 403, 'E_FORBIDDEN'],
      ['/v1/packages/acme/kb/1.1.0', { method: 'PUT', body: makePackage({ version: '1.1.0', seed: OTHER_SEED }), token: publish }, 400, 'E_SIGNER_CHANGED'],
      ['/v1/packages/acme/kb/1.0.0', { method: 'PUT', body: makePackage({ version: '1.0.0', description: 'x' }), token: publish }, 409, 'E_VERSION_EXISTS'],
      ['/v1/packages/acme/nope/index.json', {}, 404, 'E_NOT_FOUND'],
      ['/v1/packages/acme/Bad_Name/index.json', {}, 400, 'E_INVALID_NAME'],
      ['/v1/packages/acme/kb/01.0.0/download', {}, 400, 'E_INVALID_VERSION'],
    ];
    for (const [path, init, status, code] of cases) {
      const res = await call(path, init);
      expect([path, res.status]).toEqual([path, status]);
      const body = (await res.json()) as { error: string; code: string };
      expect(body.code).toBe(code);
      expect(typeof body.error).toBe('string');
    }
  });
});

describe('registry over HTTP: body-size cap (HB-19)', () => {
  const control = () => makePackage({ name: '@acme/big', version: '1.0.0' });
  const head = (extra: string) =>
    `PUT /v1/packages/acme/big/1.0.0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${publish}\r\nContent-Type: application/octet-stream\r\n${extra}\r\n`;

  it('refuses the default cap + 1 byte with a correct Content-Length, chunked, malformed and lying lengths; accepts the control', async () => {
    const big = padded(control(), CAP + 1);
    expect(big.length).toBe(10 * 1024 * 1024 + 1);
    expect(await rawStatus(head(`Content-Length: ${big.length}\r\n`), big)).toBe(413);
    expect(
      await new Promise<number>((resolve, reject) => {
        const u = new URL(reg.url);
        const req = httpRequest({ host: u.hostname, port: u.port, method: 'PUT', path: '/v1/packages/acme/big/1.0.0', headers: { authorization: `Bearer ${publish}` } });
        req.on('response', (res) => resolve(res.statusCode ?? 0));
        req.on('error', reject);
        let off = 0;
        const pump = () => {
          while (off < big.length) {
            const part = big.subarray(off, off + 256 * 1024);
            off += part.length;
            if (!req.write(part)) return void req.once('drain', pump);
          }
          req.end();
        };
        pump();
      }),
    ).toBe(413);
    const malformed = await rawStatus(head('Content-Length: abc\r\n'), big);
    expect([400, 413]).toContain(malformed);
    const lying = await rawStatus(head('Content-Length: 1000\r\n'), big);
    expect(typeof lying === 'number' && lying >= 400 && lying < 500).toBe(true);
    expect((await call('/v1/packages/acme/big/index.json', { token: publish })).status).toBe(404);
    const ok = await call('/v1/packages/acme/big/1.0.0', { method: 'PUT', body: control(), token: publish });
    expect(ok.status).toBe(201);
  });

  it('accepts a package of exactly the cap', async () => {
    const exact = padded(makePackage({ name: '@acme/big', version: '1.0.1' }), CAP);
    const res = await call('/v1/packages/acme/big/1.0.1', { method: 'PUT', body: exact, token: publish });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { size_bytes: number }).size_bytes).toBe(CAP);
  });
});

describeShared('registry over HTTP: the reference-written golden package', () => {
  it('publishes and downloads byte-identical, and its index hash is the exact file hash', async () => {
    const golden = sharedBytes('vectors/acme-auth-context-2.0.0.ctxpkg');
    const put = await call('/v1/packages/acme/auth-context/2.0.0', { method: 'PUT', body: golden, token: publish });
    expect(put.status).toBe(201);
    const dl = new Uint8Array(await (await call('/v1/packages/acme/auth-context/2.0.0/download')).arrayBuffer());
    expect(Buffer.from(dl).equals(Buffer.from(golden))).toBe(true);
    const idx = (await (await call('/v1/packages/acme/auth-context/index.json')).json()) as any;
    expect(idx.versions[0]).toMatchObject({
      version: '2.0.0',
      artifact_sha256: sha(golden),
      size_bytes: golden.length,
      integrity_sha256: 'b110a1fad0d75b3e03aa4cdf349630c82e9bc1fda889a05f82c5fd9210ad56a8',
      dependencies: [{ name: '@acme/base', version_req: '^1.2', optional: false }],
    });
    expect((await readPackage(dl, { requireSignature: true })).signer).toBe(idx.versions[0].signer_public_key);
    // HB-27 (c): a republish with different bytes is 409 and changes nothing.
    const other = new TextEncoder().encode(new TextDecoder().decode(golden).replace('"description": "auth"', '"description": "auth!"'));
    expect((await call('/v1/packages/acme/auth-context/2.0.0', { method: 'PUT', body: other, token: publish })).status).toBe(409);
    const again = new Uint8Array(await (await call('/v1/packages/acme/auth-context/2.0.0/download')).arrayBuffer());
    expect(sha(again)).toBe(sha(golden));
  });
});
