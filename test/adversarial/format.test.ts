/**
 * ADVERSARIAL format cases through the real product paths: HB-08 (`__proto__`/`constructor`),
 * HB-09 (lone surrogates), HB-11 (signature encodings), HB-12 (signing-message binding), the
 * format part of HB-22 — plus JSON-handler variants (escaped forbidden keys, escaped duplicate
 * keys, depth bombs, hundreds of thousands of keys, invalid UTF-8, BOM). Every hostile package is
 * otherwise valid and re-signed with the test key, then sent through
 *   1. a registry PUT over a real port → 4xx, registry storage unchanged;
 *   2. `ctxpkg install ./file` (in process) → exit ≠ 0, project byte-identical;
 *   3. `ctxpkg verify file` → exit 1;
 * and the prototype checks run in this same process afterwards.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ed25519Sign, hexToBytes, packageSha256, publicKeyFromSeed, readPackage, signManifest, verifyEd25519Strict } from '@ctxpkg/format';
import { createNamespace, createToken } from '@ctxpkg/registry';
import { cli, type RunResult } from '../support/cli.js';
import { describeShared, sharedBytes } from '../support/shared.js';
import { dec, enc, expectPrototypesIntact, liveRegistry, parts, projectSnapshot, putHttp, resign, SEED, temp, type LiveRegistry, type Parts } from './support.js';

let R: LiveRegistry;
let evilToken: string;
let home: string;

beforeAll(async () => {
  home = temp('ctxpkg-adv-home-');
  R = await liveRegistry({ namespaces: ['acme', 'evil'] });
  evilToken = (await createToken({ store: R.reg.store }, { namespace: 'evil', scope: 'publish' })).token;
});
afterAll(async () => {
  await R.close();
});

const run = (args: string[], cwd: string): Promise<RunResult> => cli(args, { cwd, home, fetch: globalThis.fetch, env: { CTXPKG_REGISTRY: R.api } });

const base = (): Parts => parts('@acme/kb', '1.0.0');
const withMembers = (f: (m: string) => string): Uint8Array => {
  const p = base();
  return resign({ ...p, members: f(p.members) });
};
const withContent = (f: (c: string) => string): Uint8Array => {
  const p = base();
  return resign({ ...p, contentText: f(p.contentText) });
};
const withText = (s: string): Uint8Array => withContent((c) => c.replace('JWT secrets rotate every 24h', s));

/** Replace the signature block of a re-signed package. */
function withSignature(f: (sig: Record<string, unknown>) => void, bytes = resign(base())): Uint8Array {
  const doc = JSON.parse(dec(bytes));
  f(doc.manifest.signature);
  const text = dec(bytes);
  const start = text.indexOf('"signature":');
  const end = text.indexOf('},"content":');
  return enc(text.slice(0, start) + `"signature":${JSON.stringify(doc.manifest.signature)}` + text.slice(end));
}

/**
 * Send `bytes` through the registry, a local install and verify; assert refusal with one of
 * `codes`, nothing written anywhere, prototypes intact.
 */
async function refusedEverywhere(label: string, bytes: Uint8Array, codes: string[]): Promise<void> {
  const before = R.snapshot();
  const put = await putHttp(R.api, R.publish, '@acme/kb', '1.0.0', bytes);
  expect([label, put.status]).toEqual([label, put.status >= 400 && put.status < 500 ? put.status : 'a 4xx']);
  expect(codes, `${label}: registry said ${JSON.stringify(put.body)}`).toContain(put.body.code);
  expect(R.snapshot(), label).toBe(before);

  const p = temp('ctxpkg-adv-proj-');
  await run(['init'], p);
  writeFileSync(join(p, 'hostile.ctxpkg'), bytes);
  const snap = projectSnapshot(p);
  const inst = await run(['install', './hostile.ctxpkg'], p);
  expect([label, inst.code]).toEqual([label, 1]);
  expect(codes.some((c) => inst.stderr.includes(c)), `${label}: ${inst.stderr}`).toBe(true);
  expect(projectSnapshot(p), label).toEqual(snap);
  const ver = await run(['verify', 'hostile.ctxpkg', '--require-signature'], p);
  expect([label, ver.code]).toEqual([label, 1]);
  expectPrototypesIntact();
}

describe('control: the re-signed base package passes every path', () => {
  it('publishes (201), installs locally and verifies', async () => {
    const bytes = resign(parts('@acme/control', '1.0.0'));
    expect((await putHttp(R.api, R.publish, '@acme/control', '1.0.0', bytes)).status).toBe(201);
    const p = temp('ctxpkg-adv-proj-');
    await run(['init'], p);
    writeFileSync(join(p, 'ok.ctxpkg'), bytes);
    const r = await run(['install', './ok.ctxpkg'], p);
    expect(r.code, r.stderr).toBe(0);
    expect((await run(['verify', 'ok.ctxpkg', '--require-signature'], p)).code).toBe(0);
  });
});

describe('HB-08 __proto__ / constructor keys', () => {
  const cases: Array<[string, () => Uint8Array, string[]]> = [
    ['(a) "__proto__" in the manifest', () => withMembers((m) => `${m},"__proto__":{"visibility":"private","kind":"addon"}`), ['E_FORBIDDEN_KEY']],
    ['(b) v2 map form "dependencies": {"__proto__": {"@evil/x": "*"}}', () => withMembers((m) => m.replace('"dependencies":[]', '"dependencies":{"__proto__":{"@evil/x":"*"}}')), ['E_FORBIDDEN_KEY', 'E_INVALID_NAME']],
    ['(c) "constructor": {"prototype": {"polluted": true}}', () => withMembers((m) => `${m},"constructor":{"prototype":{"polluted":true}}`), ['E_FORBIDDEN_KEY']],
    ['variant: "\\u005f_proto__" (escaped)', () => withMembers((m) => `${m},"\\u005f_proto__":{"polluted":true}`), ['E_FORBIDDEN_KEY']],
    ['variant: "c\\u006fnstructor" (escaped)', () => withMembers((m) => `${m},"c\\u006fnstructor":{"prototype":{"polluted":true}}`), ['E_FORBIDDEN_KEY']],
    ['variant: "prototype" in the manifest', () => withMembers((m) => `${m},"prototype":{"polluted":true}`), ['E_FORBIDDEN_KEY']],
    ['variant: "__proto__" inside a content node', () => withContent((c) => c.replace('"id": "N1"', '"id": "N1", "__proto__": {"polluted": true}')), ['E_FORBIDDEN_KEY']],
    ['variant: "__proto__" inside a dependency object', () => withMembers((m) => m.replace('"dependencies":[]', '"dependencies":[{"name":"@acme/x","version_req":"*","optional":false,"__proto__":{"polluted":true}}]')), ['E_FORBIDDEN_KEY']],
    ['variant: "__proto__" as the root member of the bundle', () => enc(dec(resign(base())).replace('{"manifest":', '{"__proto__":{"polluted":true},"manifest":')), ['E_FORBIDDEN_KEY']],
  ];
  for (const [what, make, codes] of cases) {
    it(`${what} → ${codes.join(' / ')} on every path; prototypes intact`, async () => {
      await refusedEverywhere(what, make(), codes);
    });
  }

  it('(b) through a registry install: the refused package\'s dependency @evil/x is never requested', async () => {
    const bytes = withMembers((m) => m.replace('"dependencies":[]', '"dependencies":{"__proto__":{"@evil/x":"*"}}'));
    const { evilHost, sha256 } = await import('./support.js');
    const ev = await evilHost((req) => {
      if (req.url?.endsWith('/acme/kb/index.json')) return { status: 200, body: JSON.stringify({ name: '@acme/kb', versions: [{ version: '1.0.0', artifact_sha256: sha256(bytes), yanked: false }] }) };
      if (req.url?.endsWith('/acme/kb/1.0.0/download')) return { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: bytes };
      return { status: 404 };
    });
    try {
      const p = temp('ctxpkg-adv-proj-');
      await run(['init'], p);
      const snap = projectSnapshot(p);
      const r = await cli(['install', '@acme/kb@^1'], { cwd: p, home, fetch: globalThis.fetch, env: { CTXPKG_REGISTRY: `${ev.url}/api` } });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/E_FORBIDDEN_KEY|E_INVALID_NAME/);
      expect(ev.requests.filter((q) => q.url?.includes('evil'))).toEqual([]);
      expect(projectSnapshot(p)).toEqual(snap);
      expectPrototypesIntact();
    } finally {
      await ev.close();
    }
  });
});

describe('HB-09 lone UTF-16 surrogates (re-signed: the hash passes)', () => {
  const cases: Array<[string, () => Uint8Array]> = [
    ['(a) fact value "x\\ud800y"', () => withText('x\\ud800y')],
    ['(b) "x\\udc00y"', () => withText('x\\udc00y')],
    ['(c) a content object key "\\ud800"', () => withContent((c) => c.replace('"context_graph"', '"\\ud800": 1, "context_graph"'))],
    ['variant: reversed pair "\\ude00\\ud83d"', () => withText('\\ude00\\ud83d')],
    ['variant: high surrogate then an escaped non-surrogate "\\ud800\\u0041"', () => withText('\\ud800\\u0041')],
    ['variant: high surrogate at the end of the string "x\\udbff"', () => withText('x\\udbff')],
    ['variant: lone surrogate in the manifest description', () => withMembers((m) => m.replace('"description":"adversarial base"', '"description":"a\\udc00"'))],
    ['variant: raw CESU-8 bytes ED A0 80 (no escape)', () => {
      const b = withText('XSURRX');
      const t = Buffer.from(b);
      const i = t.indexOf('XSURRX');
      return new Uint8Array(Buffer.concat([t.subarray(0, i), Buffer.from([0xed, 0xa0, 0x80]), t.subarray(i + 6)]));
    }],
  ];
  for (const [what, make] of cases) {
    it(`${what} → E_INVALID_JSON on every path`, async () => {
      await refusedEverywhere(what, make(), ['E_INVALID_JSON', 'E_INTEGRITY']);
    });
  }
  it('the exact listed cases (a)–(c) are E_INVALID_JSON (not an integrity failure): the hash was re-computed', async () => {
    for (const [, make] of cases.slice(0, 3)) {
      await expect(readPackage(make())).rejects.toMatchObject({ code: 'E_INVALID_JSON' });
    }
  });
  it('(d) the valid pair "\\ud83d\\ude00" publishes, installs and reaches the merged graph as 😀', async () => {
    const p0 = parts('@acme/emoji', '1.0.0');
    const bytes = resign({ ...p0, contentText: p0.contentText.replace('JWT secrets rotate every 24h', '\\ud83d\\ude00') });
    expect((await putHttp(R.api, R.publish, '@acme/emoji', '1.0.0', bytes)).status).toBe(201);
    const p = temp('ctxpkg-adv-proj-');
    await run(['init'], p);
    const r = await run(['install', '@acme/emoji@1.0.0', '--json'], p);
    expect(r.code, r.stderr).toBe(0);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(p, '.ctxpkg', 'graph', 'merged.json'), 'utf8')).toContain('😀');
  });
});

describe('HB-11 signature encoding strictness (on a ctxpkg-written package)', () => {
  const L = 2n ** 252n + 27742317777372353535851937790883648493n;
  const malleate = (hex: string): string => {
    const b = Buffer.from(hex, 'hex');
    let s = 0n;
    for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(b[i]!);
    s += L;
    for (let i = 32; i < 64; i++) {
      b[i] = Number(s & 255n);
      s >>= 8n;
    }
    return b.toString('hex');
  };
  const SIG = ['E_SIGNATURE_ENCODING', 'E_SIGNATURE_INVALID', 'E_UNSUPPORTED_ALGORITHM', 'E_SIGNATURE'];
  const cases: Array<[string, (s: Record<string, unknown>) => void]> = [
    ['(a) S+L (malleated)', (s) => (s.value = malleate(s.value as string))],
    ['(b) value + "0" (129 hex)', (s) => (s.value = `${s.value}0`)],
    ['(c) value + "zz"', (s) => (s.value = `${s.value}zz`)],
    ['(d) public_key trimmed to 62 hex', (s) => (s.public_key = (s.public_key as string).slice(0, 62))],
    ['(e) a space in the middle of value', (s) => (s.value = `${(s.value as string).slice(0, 64)} ${(s.value as string).slice(64)}`)],
    ['(f) "ED25519"', (s) => (s.algorithm = 'ED25519')],
    ['(f) "ed448"', (s) => (s.algorithm = 'ed448')],
    ['variant: "ed25519 " (trailing space)', (s) => (s.algorithm = 'ed25519 ')],
    ['variant: uppercase hex value', (s) => (s.value = (s.value as string).toUpperCase())],
    ['variant: "0x"-prefixed public key', (s) => (s.public_key = `0x${s.public_key}`)],
    ['variant: leading space in value', (s) => (s.value = ` ${s.value}`)],
    ['variant: value as an array of numbers', (s) => (s.value = [...Buffer.from(s.value as string, 'hex')])],
    ['variant: the small-order key (y = -1) with R = identity, S = 0', (s) => {
      s.public_key = 'ec' + 'ff'.repeat(30) + '7f';
      s.value = '01' + '00'.repeat(63);
    }],
    ['variant: the identity key with an all-zero signature', (s) => {
      s.public_key = '01' + '00'.repeat(31);
      s.value = '00'.repeat(64);
    }],
    ['variant: another valid key, same value', (s) => (s.public_key = publicKeyFromSeed(new Uint8Array(32).fill(7)))],
  ];
  for (const [what, f] of cases) {
    it(`${what} → signature failure on every path`, async () => {
      await refusedEverywhere(what, withSignature(f), what.includes('array') ? [...SIG, 'E_MANIFEST'] : SIG);
    });
  }
});

describe('HB-12 signing-message binding', () => {
  it('the product signer gives the exact HB-12 golden value over the 64 ASCII hex characters; the raw-digest signature is rejected', () => {
    const m = '203b3a412ef6e191b22e330e2c4177a2b7ea6a83fa2eba8246d846186176151b';
    const value = Buffer.from(ed25519Sign(enc(m), SEED)).toString('hex');
    expect(value).toBe('03f0b0d70f9a9e8525577cfda1d3eb39688d4d331e29d2415f549b3120550ec5455fdcb44d75649a31ed2bb9bf1b6b4d948ebc4a10ff9a7955079aac1e38de03');
    const raw = '766652ec5e9d5a24337e7471bdbf8fc277aaea5457827e92fdb512758ddd89942071e5c7e5280ed72a9779bb4d5ba9810bf05dea70d13edd1b4927e369c66706';
    expect(verifyEd25519Strict(hexToBytes(raw), enc(m), hexToBytes(publicKeyFromSeed(SEED))).ok).toBe(false);
  });

  it('a signature over the raw 32-byte digest of the signing message is refused on every path', async () => {
    const bytes = resign(base());
    const doc = JSON.parse(dec(bytes));
    const { createHash } = await import('node:crypto');
    const digest = createHash('sha256').update(`ctxpkg-sign-v1:@acme/kb:1.0.0:${doc.manifest.integrity.sha256}`).digest();
    const rawSig = Buffer.from(ed25519Sign(new Uint8Array(digest), SEED)).toString('hex');
    await refusedEverywhere('raw-digest signature', withSignature((s) => (s.value = rawSig), bytes), ['E_SIGNATURE_INVALID']);
  });

  it('3. rename attack: @evil/auth-context with recomputed sha256 → integrity passes, signature fails; registry 400 in the evil namespace too', async () => {
    const p = parts('@acme/auth-context', '1.2.0');
    const good = JSON.parse(dec(resign(p)));
    const name = '@evil/auth-context';
    good.manifest.name = name;
    good.manifest.integrity.sha256 = packageSha256(name, '1.2.0', good.manifest.integrity.content_hash);
    const text = dec(resign(p));
    const bytes = enc(text.replace('"name":"@acme/auth-context"', `"name":"${name}"`).replace(/"sha256":"[0-9a-f]{64}"/, `"sha256":"${good.manifest.integrity.sha256}"`));
    const before = R.snapshot();
    const r = await putHttp(R.api, evilToken, name, '1.2.0', bytes);
    expect([r.status, r.body.code]).toEqual([400, 'E_SIGNATURE_INVALID']);
    expect(R.snapshot()).toBe(before);
    const pr = temp('ctxpkg-adv-proj-');
    writeFileSync(join(pr, 'x.ctxpkg'), bytes);
    const v = await run(['verify', 'x.ctxpkg', '--json'], pr);
    expect(v.code).toBe(1);
    expect(JSON.stringify(v.json)).toMatch(/sha256[^}]*pass/);
  });

  it('4. version bump 1.2.1 with recomputed sha256 → the signature fails (registry 400)', async () => {
    const p = parts('@acme/auth-context', '1.2.0');
    const text = dec(resign(p));
    const doc = JSON.parse(text);
    const sha = packageSha256('@acme/auth-context', '1.2.1', doc.manifest.integrity.content_hash);
    const bytes = enc(text.replace('"version":"1.2.0"', '"version":"1.2.1"').replace(/"sha256":"[0-9a-f]{64}"/, `"sha256":"${sha}"`));
    const r = await putHttp(R.api, R.publish, '@acme/auth-context', '1.2.1', bytes);
    expect([r.status, r.body.code]).toEqual([400, 'E_SIGNATURE_INVALID']);
  });
});

describeShared('HB-12 on the reference-written golden (shared vectors)', () => {
  it('the product signer reproduces the golden signature byte for byte; the golden publishes and installs', async () => {
    const golden = sharedBytes('vectors/acme-auth-context-2.0.0.ctxpkg');
    const m = JSON.parse(dec(golden)).manifest;
    expect(signManifest({ name: m.name, version: m.version, integrity: m.integrity }, SEED)).toEqual(m.signature);
    expect((await putHttp(R.api, R.publish, '@acme/base', '1.2.0', resign(parts('@acme/base', '1.2.0')))).status).toBe(201);
    expect((await putHttp(R.api, R.publish, m.name, m.version, golden)).status).toBe(201);
    const p = temp('ctxpkg-adv-proj-');
    await run(['init'], p);
    const r = await run(['install', `${m.name}@${m.version}`], p);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('JSON-handler variants (re-signed, so only the JSON is hostile)', () => {
  it('a key repeated through an escape ("n\\u0061me") → E_DUPLICATE_KEY on every path', async () => {
    await refusedEverywhere('escaped duplicate', withMembers((m) => `${m},"n\\u0061me":"@acme/kb"`), ['E_DUPLICATE_KEY']);
  });
  it('a second "content" member at the root → E_DUPLICATE_KEY (the reference hashes the first, parses the last)', async () => {
    const bytes = resign(base());
    const t = dec(bytes);
    await refusedEverywhere('duplicate content', enc(t.slice(0, -1) + ',"content":{"context_graph":{"format":"ctxpkg-graph-v2","nodes":[],"edges":[]}}}'), ['E_DUPLICATE_KEY']);
  });
  it('100,000 nested arrays in content → E_JSON_DEPTH, no stack overflow, on every path', async () => {
    await refusedEverywhere('depth bomb', withContent((c) => c.replace('"context_graph"', `"x": ${'['.repeat(100_000)}${']'.repeat(100_000)}, "context_graph"`)), ['E_JSON_DEPTH']);
  });
  it('200,000 keys in one object → refused (unknown field), not hung', async () => {
    const many = '{' + Array.from({ length: 200_000 }, (_, i) => `"k${i}":1`).join(',') + '}';
    await refusedEverywhere('many keys', withContent((c) => c.replace('"context_graph"', `"x": ${many}, "context_graph"`)), ['E_CONTENT', 'E_TOO_LARGE']);
  });
  it('a UTF-8 BOM before the bundle, and invalid UTF-8 in a string → E_INVALID_JSON on every path', async () => {
    await refusedEverywhere('BOM', new Uint8Array(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(resign(base()))])), ['E_INVALID_JSON']);
    const t = Buffer.from(withText('XBADX'));
    const i = t.indexOf('XBADX');
    await refusedEverywhere('overlong UTF-8', new Uint8Array(Buffer.concat([t.subarray(0, i), Buffer.from([0xc0, 0xaf]), t.subarray(i + 5)])), ['E_INVALID_JSON']);
  });
  it('a name spelled with JSON escapes ("@acme\\/kb", "\\u0040acme/kb") is the same name: it binds to @acme/kb and nothing else', async () => {
    const bytes = withMembers((m) => m.replace('"name":"@acme/kb"', '"name":"\\u0040acme\\/kb"'));
    expect((await readPackage(bytes)).manifest.name).toBe('@acme/kb');
    const other = await putHttp(R.api, R.publish, '@acme/kb2', '1.0.0', bytes);
    expect([other.status, other.body.code]).toEqual([400, 'E_NAME_MISMATCH']);
  });
});

describe('HB-22 (format part): a re-signed file with a hostile name', () => {
  for (const name of ['@acme/\u0430uth-context', '@acme/Auth-Context', '@acme/auth_context', `@acme/${'a'.repeat(65)}`, '@acme/auth-context\u200b', '@acme/ａuth', '@acme/../../x', '@acme/a/b', '@ACME/x']) {
    it(`${JSON.stringify(name)} → E_INVALID_NAME on every path`, async () => {
      const p = base();
      await refusedEverywhere(name, resign({ ...p, name, members: p.members.replace('"name":"@acme/kb"', `"name":${JSON.stringify(name)}`) }), ['E_INVALID_NAME', 'E_NAME_MISMATCH']);
    });
  }
});
