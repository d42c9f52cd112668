/**
 * ADVERSARIAL registry cases over a real port (startRegistry on 127.0.0.1:0) with fetch and raw
 * sockets: HB-03 (version identity), HB-19 (body limit, incl. Content-Length/Transfer-Encoding
 * combinations only a raw socket can send), HB-20 (concurrent publish), HB-21 (auth before the
 * body, name binding, private packages), HB-22 (names), HB-23 (CORS). "Nothing written" is
 * `registrySnapshot`: every row of every table (events, tokens, signer keys, full-text index)
 * and the blob directory. Variants: private packages through every read route, HEAD, ETags,
 * catalog and search, foreign yank/publish answers that do not depend on existence, metrics.
 */
import { publicUnlessDeclared } from '../../packages/registry/src/__tests__/support.js';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, createNamespace, createToken } from '@ctxpkg/registry';
import { makePackage } from '../support/cli.js';
import { enc, liveRegistry, parts, putHttp, resign, SEED, sha256, type LiveRegistry } from './support.js';

/** The registry's default package cap (10 MiB: the format's file limit, spec/registry.md "Configuration"). */
const CAP = DEFAULT_LIMITS.maxPackageBytes;
let R: LiveRegistry;
let otherPublish: string;

beforeAll(async () => {
  R = await liveRegistry({ namespaces: ['acme', 'other'], corsOrigins: ['https://console.acme.example'] });
  otherPublish = (await createToken({ store: R.reg.store }, { namespace: 'other', scope: 'publish' })).token;
});
afterAll(async () => {
  await R.close();
});

/** A package whose manifest says exactly `version` (any string), re-signed with the test key. */
function withVersion(name: string, version: string, content?: string): Uint8Array {
  const p = parts(name, '1.0.0');
  if (content) p.contentText = p.contentText.replace('JWT secrets rotate every 24h', content);
  return resign({ ...p, version, members: p.members.replace('"version":"1.0.0"', `"version":${JSON.stringify(version)}`) });
}

async function put(path: string, body: Uint8Array | null, token?: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const h: Record<string, string> = { 'content-type': 'application/octet-stream', ...(await publicUnlessDeclared(body)), ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  const res = await fetch(`${R.api}${path}`, { method: 'PUT', headers: h, body });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

/**
 * One raw HTTP/1.1 exchange: writes `head` (CRLF lines, without the blank line), then `body` in
 * 64 KiB chunks (write errors after the server answered are ignored), and returns the status of
 * the first response (0 when the server closed without one).
 */
function rawRequest(head: string[], body?: Uint8Array, opts: { bodyDelayMs?: number } = {}): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(R.reg.url);
  return new Promise((resolve) => {
    const sock = connect(Number(port), hostname);
    let data = '';
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      sock.destroy();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      resolve({ status: m ? Number(m[1]) : 0, text: data });
    };
    sock.on('data', (d: Buffer) => {
      data += d.toString('latin1');
      if (/\r\n\r\n/.test(data)) {
        const len = /content-length: *(\d+)/i.exec(data);
        const bodyStart = data.indexOf('\r\n\r\n') + 4;
        if (!len || data.length - bodyStart >= Number(len[1])) finish();
      }
    });
    sock.on('error', finish);
    sock.on('close', finish);
    sock.on('connect', async () => {
      sock.write(head.join('\r\n') + '\r\n\r\n');
      if (!body) return;
      if (opts.bodyDelayMs) await new Promise((r) => setTimeout(r, opts.bodyDelayMs));
      for (let off = 0; off < body.length && !done; off += 64 * 1024) {
        const ok = sock.write(body.subarray(off, off + 64 * 1024));
        if (!ok) await new Promise((r) => (sock.once('drain', r), sock.once('close', r)));
      }
    });
    setTimeout(finish, 30_000).unref();
  });
}

/** `golden` padded with spaces after its first `{` to exactly `total` bytes (hashes still match). */
function padded(bytes: Uint8Array, total: number): Uint8Array {
  const out = new Uint8Array(total);
  out[0] = bytes[0]!;
  out.fill(0x20, 1, 1 + total - bytes.length);
  out.set(bytes.subarray(1), 1 + total - bytes.length);
  return out;
}

describe('HB-03 version identity at the publish gate', () => {
  it('runs the listed sequence; the index lists exactly 1.0.0 and 1.0.1+build.1; the 1.0.0 artifact never changes', async () => {
    const base = '/v1/packages/acme/kb';
    const v100 = withVersion('@acme/kb', '1.0.0');
    expect((await put(`${base}/1.0.0`, v100, R.publish)).status).toBe(201);
    const snap = R.snapshot();
    const dup = await put(`${base}/1.0.0+build.7`, withVersion('@acme/kb', '1.0.0+build.7'), R.publish);
    expect([dup.status, dup.body.code]).toEqual([409, 'E_VERSION_EXISTS']);
    const vee = await put(`${base}/v1.0.1`, withVersion('@acme/kb', 'v1.0.1'), R.publish);
    expect([vee.status, vee.body.code]).toEqual([400, 'E_INVALID_VERSION']);
    for (const v of ['1.0.1 ', '=1.0.1', '01.0.1', '1.0.1-01', '1.0', '9007199254740992.0.0', `1.0.1-${'a'.repeat(59)}`, ' 1.0.1', '1.0.1\n', '１.0.1', '1.0.1-', '1.0.1+', '1.0.1-rc..1', '1.0.9007199254740992']) {
      const r = await put(`${base}/${encodeURIComponent(v)}`, withVersion('@acme/kb', v), R.publish);
      expect([v, r.status]).toEqual([v, 400]);
    }
    expect(R.snapshot()).toBe(snap);
    expect((await put(`${base}/1.0.1+build.1`, withVersion('@acme/kb', '1.0.1+build.1'), R.publish)).status).toBe(201);
    const again = await put(`${base}/1.0.1`, withVersion('@acme/kb', '1.0.1'), R.publish);
    expect([again.status, again.body.code]).toEqual([409, 'E_VERSION_EXISTS']);
    // variants of equal precedence: other build metadata, percent-encoded "+"
    for (const v of ['1.0.0+BUILD.7', '1.0.0+0', '1.0.1+build.2']) {
      expect([v, (await put(`${base}/${v}`, withVersion('@acme/kb', v), R.publish)).status]).toEqual([v, 409]);
    }
    expect((await put(`${base}/1.0.0%2Bbuild.8`, withVersion('@acme/kb', '1.0.0+build.8'), R.publish)).status).toBe(409);
    const idx = (await (await fetch(`${R.api}${base}/index.json`)).json()) as { versions: Array<{ version: string; artifact_sha256: string }> };
    expect(idx.versions.map((v) => v.version).sort()).toEqual(['1.0.0', '1.0.1+build.1']);
    expect(idx.versions.find((v) => v.version === '1.0.0')?.artifact_sha256).toBe(sha256(v100));
    const dl = new Uint8Array(await (await fetch(`${R.api}${base}/1.0.0/download`)).arrayBuffer());
    expect(sha256(dl)).toBe(sha256(v100));
    // the largest numeric parts that are still safe integers are fine
    expect((await put(`${base}/9007199254740991.0.0`, withVersion('@acme/kb', '9007199254740991.0.0'), R.publish)).status).toBe(201);
  });
});

describe('HB-19 body-size limit bypasses over a real socket', () => {
  const path = '/api/v1/packages/acme/big/1.0.0';
  const auth = () => `Authorization: Bearer ${R.publish}`;
  const head = (extra: string[]) => [`PUT ${path} HTTP/1.1`, `Host: ${new URL(R.reg.url).host}`, auth(), 'Content-Type: application/octet-stream', 'Connection: close', ...extra];

  it('the default cap + 1 byte with a correct length, chunked, malformed lengths, a lying length and CL/TE mixes: never 201, nothing stored; the control publishes', async () => {
    const small = makePackage('@acme/big', '1.0.0', SEED);
    const big = padded(small, CAP + 1);
    const before = R.snapshot();
    const chunked = (b: Uint8Array): Uint8Array => {
      const out: Buffer[] = [];
      for (let off = 0; off < b.length; off += 65536) {
        const part = b.subarray(off, off + 65536);
        out.push(Buffer.from(`${part.length.toString(16)}\r\n`), Buffer.from(part), Buffer.from('\r\n'));
      }
      out.push(Buffer.from('0\r\n\r\n'));
      return new Uint8Array(Buffer.concat(out));
    };
    const cases: Array<[string, string[], Uint8Array | undefined, number[]]> = [
      ['correct Content-Length (answered before the body is sent)', [`Content-Length: ${big.length}`], undefined, [413]],
      ['correct Content-Length with the body', [`Content-Length: ${big.length}`], big, [413]],
      ['chunked, no Content-Length', ['Transfer-Encoding: chunked'], chunked(big), [413]],
      ['Content-Length: abc', ['Content-Length: abc'], big, [400, 413]],
      ['Content-Length: -1', ['Content-Length: -1'], big, [400, 413]],
      ['Content-Length: +100', ['Content-Length: +100'], big, [400, 413]],
      ['Content-Length: 0x10', ['Content-Length: 0x10'], big, [400, 413]],
      ['Content-Length: 1e9', ['Content-Length: 1e9'], big, [400, 413]],
      ['two different Content-Length headers', ['Content-Length: 1000', `Content-Length: ${big.length}`], big, [400, 413]],
      ['Content-Length: 1000, 8388609', [`Content-Length: 1000, ${big.length}`], big, [400, 413]],
      ['Content-Length and chunked', [`Content-Length: 1000`, 'Transfer-Encoding: chunked'], chunked(big), [400, 413]],
      ['chunked and Content-Length', ['Transfer-Encoding: chunked', `Content-Length: ${big.length}`], chunked(big), [400, 413]],
      ['Transfer-Encoding: gzip, chunked', ['Transfer-Encoding: gzip, chunked'], chunked(big), [400, 413]],
      ['Transfer-Encoding: chunked, identity', ['Transfer-Encoding: chunked, identity'], chunked(big), [400, 413, 501]],
      ['a chunk size that overflows', ['Transfer-Encoding: chunked'], enc('ffffffffffffffffff\r\n' + 'x'.repeat(1000)), [400, 413]],
      ['a lying Content-Length: 1000', ['Content-Length: 1000'], big, [400, 413]],
      ['Content-Length: 0 with a body', ['Content-Length: 0'], big, [400, 413]],
      ['a 17-digit Content-Length', ['Content-Length: 00000000000001000'], big, [400, 413]],
    ];
    for (const [what, extra, body, statuses] of cases) {
      const r = await rawRequest(head(extra), body);
      expect(statuses, `${what}: got ${r.status}`).toContain(r.status);
    }
    expect(R.snapshot()).toBe(before);
    expect((await putHttp(R.api, R.publish, '@acme/big', '1.0.0', small)).status).toBe(201);
  });

  it('a package of exactly the cap is accepted; one byte more is 413 (fetch, real HTTP)', async () => {
    const small = makePackage('@acme/exact', '1.0.0', SEED);
    const over = await putHttp(R.api, R.publish, '@acme/exact', '1.0.0', padded(small, CAP + 1));
    expect([over.status, over.body.code]).toEqual([413, 'E_TOO_LARGE']);
    expect((await putHttp(R.api, R.publish, '@acme/exact', '1.0.0', padded(small, CAP))).status).toBe(201);
  });
});

describe('HB-20 concurrent publish', () => {
  it('(a) 20 concurrent versions → 20 × 201, all listed, each download equals its receipt; (b) 10 contents for 2.0.0 → one 201, nine 409, 100 downloads of the winner', async () => {
    const a = await Promise.all(
      Array.from({ length: 20 }, (_, i) => putHttp(R.api, R.publish, '@acme/conc', `1.0.${i}`, withVersion('@acme/conc', `1.0.${i}`, `fact number ${i}`))),
    );
    expect(a.map((r) => r.status)).toEqual(Array(20).fill(201));
    const idx = (await (await fetch(`${R.api}/v1/packages/acme/conc/index.json`)).json()) as { versions: Array<{ version: string; artifact_sha256: string }> };
    expect(idx.versions.map((v) => v.version).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `1.0.${i}`).sort());
    for (const r of a) {
      const v = r.body.published.split('@').pop();
      const dl = new Uint8Array(await (await fetch(`${R.api}/v1/packages/acme/conc/${v}/download`)).arrayBuffer());
      expect(sha256(dl)).toBe(r.body.artifact_sha256);
    }
    const bodies = Array.from({ length: 10 }, (_, i) => withVersion('@acme/conc', '2.0.0', `rival content ${i}`));
    const b = await Promise.all(bodies.map((x) => putHttp(R.api, R.publish, '@acme/conc', '2.0.0', x)));
    expect(b.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    const winner = b.find((r) => r.status === 201)!.body.artifact_sha256 as string;
    const idx2 = (await (await fetch(`${R.api}/v1/packages/acme/conc/index.json`)).json()) as { versions: Array<{ version: string; artifact_sha256: string }> };
    expect(idx2.versions.find((v) => v.version === '2.0.0')?.artifact_sha256).toBe(winner);
    const dls = await Promise.all(Array.from({ length: 100 }, async () => sha256(new Uint8Array(await (await fetch(`${R.api}/v1/packages/acme/conc/2.0.0/download`)).arrayBuffer()))));
    expect(new Set(dls)).toEqual(new Set([winner]));
  });
});

describe('HB-21 authorization, name binding, private packages', () => {
  const URL_ = '/v1/packages/acme/auth-context/1.2.0';
  const golden = () => makePackage('@acme/auth-context', '1.2.0', SEED);

  it('1–7 and 9: the listed statuses, nothing stored; 1–4 are answered before any body byte is sent', async () => {
    const before = R.snapshot();
    const g = golden();
    const text = new TextDecoder().decode(g);
    const unsigned = enc(text.replace(/,\s*"signature": \{[^}]*\}/, ''));
    expect(unsigned.length).toBeLessThan(g.length);
    const cases: Array<[string, string, Uint8Array, string | undefined, number, string]> = [
      ['1 no Authorization', URL_, g, undefined, 401, 'E_AUTH'],
      ['2 bogus token', URL_, g, 'ctxp_bogus', 401, 'E_AUTH'],
      ['3 read token', URL_, g, R.read, 400, 'E_FORBIDDEN'], // status 400 per the reference contract; the code is the registry's
      ['4 other namespace', URL_, g, otherPublish, 403, 'E_FORBIDDEN'],
      ['5 URL names another package', '/v1/packages/acme/other/1.2.0', g, R.publish, 400, 'E_NAME_MISMATCH'],
      ['6 URL version 1.2.1', '/v1/packages/acme/auth-context/1.2.1', g, R.publish, 400, 'E_NAME_MISMATCH'],
      ['7 signature removed', URL_, unsigned, R.publish, 400, 'E_UNSIGNED'],
    ];
    for (const [what, path, body, token, status, code] of cases) {
      const r = await put(path, body, token);
      expect([what, r.status, r.body.code]).toEqual([what, status, code]);
    }
    // 1–4 without sending the body: the answer comes from the headers alone
    for (const [what, authz, status] of [
      ['1', undefined, 401],
      ['2', 'Bearer ctxp_bogus', 401],
      ['3', `Bearer ${R.read}`, 400],
      ['4', `Bearer ${otherPublish}`, 403],
      ['Basic scheme', `Basic ${Buffer.from(`x:${R.publish}`).toString('base64')}`, 401],
      ['token + trailing junk', `Bearer ${R.publish} x`, 401],
    ] as const) {
      const h = [`PUT /api${URL_} HTTP/1.1`, `Host: ${new URL(R.reg.url).host}`, `Content-Length: ${CAP}`, 'Connection: close'];
      if (authz) h.push(`Authorization: ${authz}`);
      const r = await rawRequest(h);
      expect([what, r.status]).toEqual([what, status]);
    }
    // a token in the query string is not a credential
    const q = await put(`${URL_}?access_token=${R.publish}`, g, undefined);
    expect(q.status).toBe(401);
    // 9: a foreign yank of a missing and of an existing version answers the same, before any lookup
    const y1 = await fetch(`${R.api}${URL_}`, { method: 'DELETE', headers: { authorization: `Bearer ${otherPublish}` } });
    expect(y1.status).toBe(403);
    expect(R.snapshot()).toBe(before);
  });

  it('8: a private package is the same 404 as a missing one on every read route (bytes, headers, HEAD, ETag), absent from catalog and search', async () => {
    const priv = makePackage('@acme/secret-plan', '1.0.0', SEED, { nodes: ['zanzibar rollout codename'], description: 'zanzibar' });
    const doc = JSON.parse(new TextDecoder().decode(priv));
    expect(doc.manifest.visibility).toBeUndefined();
    const p = parts('@acme/secret-plan', '1.0.0');
    p.members = p.members.replace('"version":"1.0.0"', '"version":"1.0.0","visibility":"private"');
    p.contentText = p.contentText.replace('JWT secrets rotate every 24h', 'zanzibar rollout codename');
    const bytes = resign(p);
    const ok = await putHttp(R.api, R.publish, '@acme/secret-plan', '1.0.0', bytes);
    expect(ok.status).toBe(201);
    const catalogBefore = await (await fetch(`${R.api}/v1/index.json`)).text();
    const routes = ['index.json', '1.0.0', '1.0.0/download'];
    const answer = async (name: string, route: string, init: RequestInit = {}) => {
      const res = await fetch(`${R.api}/v1/packages/acme/${name}/${route}`, init);
      const headers = [...res.headers.entries()].filter(([k]) => k !== 'date');
      return { status: res.status, body: await res.text(), headers };
    };
    for (const route of routes) {
      for (const init of [
        {},
        { headers: { authorization: `Bearer ${otherPublish}` } },
        { headers: { origin: 'https://evil.example' } },
        { headers: { 'if-none-match': `"${sha256(bytes)}"` } },
        { method: 'HEAD' },
      ] as RequestInit[]) {
        const hidden = await answer('secret-plan', route, init);
        const missing = await answer('no-such-package', route, init);
        expect(hidden.status, route).toBe(404);
        expect(hidden, `${route} ${JSON.stringify(init)}`).toEqual(missing);
      }
      const allowed = await fetch(`${R.api}/v1/packages/acme/secret-plan/${route}`, { headers: { authorization: `Bearer ${R.read}` } });
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get('cache-control')).toBe('private, no-store');
    }
    for (const q of ['zanzibar', 'secret', 'plan', 'codename', 'acme']) {
      const s = (await (await fetch(`${R.api}/v1/search?q=${q}`)).json()) as { results: Array<{ name: string; snippet: string }> };
      expect(JSON.stringify(s.results), q).not.toMatch(/secret-plan|zanzibar/);
    }
    expect(catalogBefore).not.toContain('secret-plan');
    // the owner's read token sees it in search and catalog
    const mine = (await (await fetch(`${R.api}/v1/search?q=zanzibar`, { headers: { authorization: `Bearer ${R.read}` } })).json()) as { results: Array<{ name: string }> };
    expect(mine.results.map((x) => x.name)).toEqual(['@acme/secret-plan']);
    // a foreign token cannot tell an existing private version from a missing one when writing
    for (const [method, suffix] of [['DELETE', ''], ['POST', '/unyank'], ['PUT', '']] as const) {
      const a = await fetch(`${R.api}/v1/packages/acme/secret-plan/1.0.0${suffix}`, { method, headers: { authorization: `Bearer ${otherPublish}` }, body: method === 'PUT' ? bytes : undefined });
      const b = await fetch(`${R.api}/v1/packages/acme/no-such-package/1.0.0${suffix}`, { method, headers: { authorization: `Bearer ${otherPublish}` }, body: method === 'PUT' ? bytes : undefined });
      expect([method, a.status, await a.text()]).toEqual([method, b.status, await b.text()]);
    }
    // metrics name routes and codes, never packages
    const metrics = await (await fetch(`${R.reg.url}/metrics`)).text();
    expect(metrics).not.toMatch(/secret-plan|zanzibar|acme/);
  });
});

describe('HB-22 names: homoglyphs, case, reserved namespaces', () => {
  it('publishing under hostile names → 400 E_INVALID_NAME (URL or manifest), nothing stored', async () => {
    const before = R.snapshot();
    const names = ['@acme/\u0430uth-context', '@acme/Auth-Context', '@acme/auth_context', `@acme/${'a'.repeat(65)}`, '@acme/ａuth', '@acme/auth-context\u200b', '@acme/-auth', '@acme/auth-'];
    for (const name of names) {
      const [ns, n] = name.slice(1).split('/');
      const bytes = resign({ ...parts('@acme/kb', '1.0.0'), name, members: parts('@acme/kb', '1.0.0').members.replace('"name":"@acme/kb"', `"name":${JSON.stringify(name)}`) });
      const viaUrl = await put(`/v1/packages/${encodeURIComponent(ns!)}/${encodeURIComponent(n!)}/1.0.0`, bytes, R.publish);
      expect([name, viaUrl.status, viaUrl.body.code]).toEqual([name, 400, 'E_INVALID_NAME']);
      // an ASCII URL with the hostile name in the manifest
      const viaManifest = await put('/v1/packages/acme/auth-context/1.0.0', bytes, R.publish);
      expect([name, viaManifest.status]).toEqual([name, 400]);
      expect(['E_INVALID_NAME', 'E_NAME_MISMATCH']).toContain(viaManifest.body.code);
    }
    expect(R.snapshot()).toBe(before);
  });

  it('namespace claims: reserved → E_RESERVED_NAMESPACE, malformed → E_INVALID_NAME', async () => {
    const claim = async (ns: string) => {
      try {
        await createNamespace({ store: R.reg.store }, ns);
        return 'OK';
      } catch (e) {
        return (e as { code: string }).code;
      }
    };
    for (const ns of ['Admin', 'OFFICIAL', 'CtxPkg']) expect(['E_RESERVED_NAMESPACE', 'E_INVALID_NAME']).toContain(await claim(ns));
    for (const ns of ['-acme', 'acme-', 'a', 'a'.repeat(33), 'ACME', '\u0430cme', 'ac me', 'acme/x', '']) expect([ns, await claim(ns)]).toEqual([ns, 'E_INVALID_NAME']);
    for (const ns of ['official', 'verified', 'ctxpkg', 'admin']) expect([ns, await claim(ns)]).toEqual([ns, 'E_RESERVED_NAMESPACE']);
  });
});

describe('HB-23 CORS with credentials', () => {
  it('never sends Allow-Credentials; never reflects an unlisted origin; private answers carry no ACAO for it', async () => {
    const evilOrigins = ['https://evil.example', 'null', 'https://console.acme.example.evil.com', 'HTTPS://CONSOLE.ACME.EXAMPLE', 'https://console.acme.example:443', 'http://console.acme.example'];
    const seen: Array<Record<string, string | null>> = [];
    const check = (res: Response, origin: string, isPrivate = false) => {
      const h = { acao: res.headers.get('access-control-allow-origin'), acac: res.headers.get('access-control-allow-credentials'), methods: res.headers.get('access-control-allow-methods'), headers: res.headers.get('access-control-allow-headers') };
      seen.push(h);
      expect(h.acac).toBeNull();
      expect(h.acao === null || h.acao === '*').toBe(true);
      if (isPrivate) expect(h.acao).toBeNull();
      expect(h.methods ?? '').not.toMatch(/PUT|DELETE|POST/);
      expect((h.headers ?? '').toLowerCase()).not.toContain('authorization');
      void origin;
    };
    for (const origin of evilOrigins) {
      const pre = await fetch(`${R.api}/v1/packages/acme/auth-context/1.2.0`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization' },
      });
      check(pre, origin);
      const priv = await fetch(`${R.api}/v1/packages/acme/secret-plan/index.json`, { headers: { origin, authorization: `Bearer ${R.read}` } });
      expect(priv.status).toBe(200);
      check(priv, origin, true);
      const err = await fetch(`${R.api}/v1/packages/acme/auth-context/1.2.0`, { method: 'PUT', headers: { origin, authorization: `Bearer ${R.publish}` }, body: 'x' });
      check(err, origin);
    }
    // the explicit allowlist: echoed, still without credentials
    const ok = await fetch(`${R.api}/v1/packages/acme/auth-context/1.2.0`, {
      method: 'OPTIONS',
      headers: { origin: 'https://console.acme.example', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization' },
    });
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://console.acme.example');
    expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
    expect(seen.length).toBe(evilOrigins.length * 3);
  });
});
