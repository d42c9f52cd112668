/**
 * Issue 11 item 6 — the client never trusts a registry's resource use.
 *
 * A hostile (or broken) registry on 127.0.0.1:0, reached through the real `fetch` (undici, which
 * decodes gzip/deflate/br itself): every response body is read through one capped, timed reader
 * (client.ts `readBody`): decoded bytes are counted while streaming, so a gzip bomb stops at the
 * cap (an index at `MAX_INDEX_BYTES`, an artifact at `MAX_DOWNLOAD_BYTES`, an error body at 64 KiB);
 * a registry that never answers, stalls mid-body or trickles forever is cut off by the
 * headers/idle/total timeouts (`CTXPKG_HTTP_TIMEOUT`, `CTXPKG_HTTP_TOTAL_TIMEOUT`, seconds), with
 * an error naming the registry. Varied: gzip, deflate and brotli bombs; index, download and
 * error bodies; silence before headers, after part of the body, and a one-byte trickle.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Transform } from 'node:stream';
import { constants, createBrotliCompress, createDeflate, createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_DOWNLOAD_BYTES, MAX_INDEX_BYTES, RegistryClient } from '../../packages/cli/src/client.js';
import { cli, makePackage, tempDir } from '../support/cli.js';
import { SEED, sha256 } from './support.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let server: Server;
let base: string;
let handler: Handler = (_q, r) => r.end();
const open = new Set<ServerResponse>();

beforeAll(async () => {
  server = createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    req.resume();
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const ENCODERS: Record<string, () => Transform> = {
  gzip: () => createGzip({ level: 1 }),
  deflate: () => createDeflate({ level: 1 }),
  br: () => createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }),
};

/** Stream `prefix` then `total` bytes of spaces through an encoder, stopping when the client goes away. */
function bomb(res: ServerResponse, encoding: string, status: number, prefix: string, total: number): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-encoding': encoding });
  const enc = ENCODERS[encoding]!();
  enc.pipe(res);
  enc.on('error', () => undefined);
  res.on('error', () => undefined);
  const chunk = Buffer.alloc(1 << 20, 0x20);
  let sent = 0;
  enc.write(prefix);
  const pump = (): void => {
    while (sent < total && !res.destroyed) {
      sent += chunk.length;
      if (!enc.write(chunk)) return void enc.once('drain', pump);
    }
    if (!res.destroyed) enc.end();
  };
  pump();
}

const install = (cwd: string, env: Record<string, string> = {}) =>
  cli(['install', '@acme/kb@^1.0.0'], { cwd, fetch: globalThis.fetch, env: { CTXPKG_REGISTRY: base, ...env } });

async function project(): Promise<string> {
  const p = tempDir('ctxpkg-resp-');
  expect((await cli(['init'], { cwd: p, fetch: globalThis.fetch })).code).toBe(0);
  return p;
}

function heapAfter<T>(fn: () => Promise<T>): Promise<{ value: T; growthMiB: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage();
  return fn().then((value) => {
    const after = process.memoryUsage();
    return { value, growthMiB: (after.rss - before.rss) / 2 ** 20 };
  });
}

describe('issue 11.6: decoded-size caps while streaming', () => {
  for (const encoding of Object.keys(ENCODERS)) {
    it(`an index that is a ${encoding} bomb (1 GiB decoded) stops at the cap: E_TOO_LARGE naming the registry`, async () => {
      handler = (_req, res) => bomb(res, encoding, 200, '{"name":"@acme/kb","versions":[', 1 << 30);
      const p = await project();
      const { value: r, growthMiB } = await heapAfter(() => install(p));
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/E_TOO_LARGE: .*index of @acme\/kb from registry http:\/\/127\.0\.0\.1:\d+\/api .*more than 8388608 bytes/);
      expect(r.stderr).toMatch(new RegExp(`${encoding}`));
      expect(growthMiB).toBeLessThan(200);
    });
  }

  it('a 40 MiB plain index is refused at the cap, not parsed whole', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const entry = JSON.stringify({ version: '1.0.0', artifact_sha256: '0'.repeat(64), yanked: false }) + ',';
      const chunk = Buffer.from(entry.repeat(Math.ceil((1 << 20) / entry.length)));
      res.write('{"name":"@acme/kb","versions":[');
      let sent = 0;
      const pump = (): void => {
        while (sent < 40 << 20 && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('{}]}');
      };
      pump();
    };
    const r = await install(await project());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/E_TOO_LARGE: .*index of @acme\/kb/);
  });

  it('an error answer with a gzip-bomb body is read only up to 64 KiB', async () => {
    handler = (_req, res) => bomb(res, 'gzip', 500, '{"error":"boom', 1 << 30);
    const r = await install(await project());
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/E_REGISTRY/);
  });

  it('an artifact download that decodes past the cap is stopped (the index was honest)', async () => {
    const bytes = makePackage('@acme/kb', '1.0.0', SEED);
    handler = (req, res) => {
      if (req.url?.endsWith('/index.json')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ name: '@acme/kb', versions: [{ version: '1.0.0', artifact_sha256: sha256(bytes), yanked: false }] }));
      } else bomb(res, 'gzip', 200, '', 1 << 30);
    };
    const r = await install(await project());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`E_TOO_LARGE: .*@acme/kb@1\\.0\\.0.*${MAX_DOWNLOAD_BYTES}`));
  });

  it('the caps are the documented constants', () => {
    expect(MAX_INDEX_BYTES).toBe(8 * 1024 * 1024);
    expect(MAX_DOWNLOAD_BYTES).toBe(10 * 1024 * 1024);
  });
});

describe('issue 11.6: timeouts', () => {
  const FAST = { CTXPKG_HTTP_TIMEOUT: '0.5', CTXPKG_HTTP_TOTAL_TIMEOUT: '2' };

  it('a registry that never answers: headers timeout, E_NETWORK naming the registry and the setting', async () => {
    handler = () => undefined; // accept, read, never answer
    const r = await install(await project(), FAST);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/E_NETWORK: registry http:\/\/127\.0\.0\.1:\d+\/api did not answer within 0\.5 s/);
    expect(r.stderr).toMatch(/CTXPKG_HTTP_TIMEOUT/);
  });

  it('a registry that stalls after part of the body: idle timeout', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"name":"@acme/kb","versions":[');
    };
    const r = await install(await project(), FAST);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/E_NETWORK: registry http:\/\/127\.0\.0\.1:\d+\/api sent nothing for 0\.5 s/);
  });

  it('a registry that trickles one byte every 100 ms forever: total timeout', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), 100);
      res.on('close', () => clearInterval(t));
    };
    const r = await install(await project(), FAST);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/E_NETWORK: registry http:\/\/127\.0\.0\.1:\d+\/api did not finish .* within 2 s/);
    expect(r.stderr).toMatch(/CTXPKG_HTTP_TOTAL_TIMEOUT/);
  });

  it('bad timeout settings are E_USAGE naming the variable', async () => {
    for (const v of ['0', '-1', 'abc', 'Infinity', '']) {
      const r = await install(await project(), { CTXPKG_HTTP_TIMEOUT: v });
      expect(r.code, v).toBe(2);
      expect(r.stderr).toMatch(/E_USAGE: CTXPKG_HTTP_TIMEOUT/);
    }
  });

  it('the client API takes timeouts directly (milliseconds)', async () => {
    handler = () => undefined;
    const c = new RegistryClient({ fetch: globalThis.fetch, settings: { project: { registries: {} }, user: { registries: {}, tokens: {} }, env: {} } as never, timeouts: { headersMs: 200, idleMs: 200, totalMs: 1000 } });
    await expect(c.index(base, '@acme/kb')).rejects.toMatchObject({ code: 'E_NETWORK' });
    await vi.waitFor(() => expect(open.size).toBe(0), { timeout: 3000 }); // the request was aborted, not left open
  });
});
