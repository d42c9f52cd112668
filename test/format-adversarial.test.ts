/**
 * ADVERSARIAL.md cases in the JSON / format / integrity / signature areas: HB-08, HB-09,
 * HB-11, HB-12, HB-22 (format part). HB-25 is covered in packages/format/src/documents.test.ts.
 * Each hostile input is otherwise valid and re-signed with the test key (seed 32×0x2a), so only
 * the defect is wrong. Self-contained cases build their own package; the `describeShared`
 * block repeats the signature cases on the reference-written golden package.
 */
import { describe, expect, it } from 'vitest';
import {
  compactJsonText, computeIntegrity, packageSha256, readPackage, signManifest, verifyPackage, writePackage, type CtxpkgError,
  type PackageContent,
} from '@ctxpkg/format';
import { describeShared, sharedBytes } from './support/shared.js';

const SEED = new Uint8Array(32).fill(0x2a);
const T = '2026-01-02T03:04:05Z';
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

function content(nodeText = 'JWT secrets rotate every 24h'): PackageContent {
  return {
    context_graph: {
      format: 'ctxpkg-graph-v2',
      nodes: [
        { id: 'N1', type: 'fact', content: nodeText, activation: 1 },
        { id: 'N2', type: 'gotcha', content: 'races', activation: 0.9 },
      ],
      edges: [{ from: 'N1', to: 'N2', type: 'has_gotcha', weight: 0.9 }],
    },
  };
}

/** A valid signed package as {manifest object, content text}. */
function golden(): { manifest: Record<string, unknown>; contentText: string } {
  const text = dec(writePackage({ manifest: { name: '@acme/auth-context', version: '1.2.0', created_at: T }, content: content() }, { seed: SEED }));
  const m = JSON.parse(text).manifest;
  const start = text.indexOf('"content": ') + '"content": '.length;
  return { manifest: m, contentText: text.slice(start, text.length - 2) };
}

/** Re-sign: integrity from the content text, signature by the test key; manifest members as raw text. */
function resign(manifestMembers: string, name: string, version: string, contentText: string): Uint8Array {
  const integrity = computeIntegrity(name, version, compactJsonText(contentText));
  const sig = signManifest({ name, version, integrity }, SEED);
  return enc(`{"manifest":{${manifestMembers},"integrity":${JSON.stringify(integrity)},"signature":${JSON.stringify(sig)}},"content":${contentText}}`);
}

function members(m: Record<string, unknown>, drop: string[] = ['integrity', 'signature']): string {
  return Object.entries(m)
    .filter(([k]) => !drop.includes(k))
    .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
    .join(',');
}

async function code(b: Uint8Array, opts = {}): Promise<string> {
  try {
    await readPackage(b, opts);
    return 'OK';
  } catch (e) {
    return (e as CtxpkgError).code;
  }
}

function prototypesIntact(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(({} as Record<string, unknown>).visibility).toBeUndefined();
  expect(Object.getPrototypeOf({})).toBe(Object.prototype);
}

describe('HB-08: __proto__ / constructor keys', () => {
  const g = golden();
  const ok = members(g.manifest);

  it('control: the re-signed golden reads', async () => {
    expect(await code(resign(ok, '@acme/auth-context', '1.2.0', g.contentText))).toBe('OK');
  });

  it('(a) "__proto__" in the manifest → E_FORBIDDEN_KEY', async () => {
    const b = resign(`${ok},"__proto__":{"visibility":"private","kind":"addon"}`, '@acme/auth-context', '1.2.0', g.contentText);
    expect(await code(b)).toBe('E_FORBIDDEN_KEY');
    prototypesIntact();
  });

  it('(b) "__proto__" as a dependency-map key → refused (E_FORBIDDEN_KEY before any name lookup)', async () => {
    const m = members(g.manifest, ['integrity', 'signature', 'dependencies']);
    expect(await code(resign(`${m},"dependencies":{"__proto__":{"@evil/x":"*"}}`, '@acme/auth-context', '1.2.0', g.contentText))).toBe('E_FORBIDDEN_KEY');
    // the same map with a non-scoped key reaches the name rules
    expect(await code(resign(`${m},"dependencies":{"evil":"*"}`, '@acme/auth-context', '1.2.0', g.contentText))).toBe('E_INVALID_NAME');
    prototypesIntact();
  });

  it('(c) "constructor": {"prototype": …} in the manifest → E_FORBIDDEN_KEY', async () => {
    expect(await code(resign(`${ok},"constructor":{"prototype":{"polluted":true}}`, '@acme/auth-context', '1.2.0', g.contentText))).toBe('E_FORBIDDEN_KEY');
    prototypesIntact();
  });
});

describe('HB-09: lone UTF-16 surrogates (re-signed, so the hash passes)', () => {
  const g = golden();
  const m = members(g.manifest);
  const withNode = (escaped: string) => g.contentText.replace('JWT secrets rotate every 24h', escaped);

  it('(a) "x\\ud800y" and (b) "x\\udc00y" → E_INVALID_JSON', async () => {
    expect(await code(resign(m, '@acme/auth-context', '1.2.0', withNode('x\\ud800y')))).toBe('E_INVALID_JSON');
    expect(await code(resign(m, '@acme/auth-context', '1.2.0', withNode('x\\udc00y')))).toBe('E_INVALID_JSON');
  });

  it('(c) an object key "\\ud800" → E_INVALID_JSON', async () => {
    const c = g.contentText.replace('"context_graph"', '"\\ud800": 1, "context_graph"');
    expect(await code(resign(m, '@acme/auth-context', '1.2.0', c))).toBe('E_INVALID_JSON');
  });

  it('(d) the valid pair "\\ud83d\\ude00" verifies', async () => {
    const pkg = await readPackage(resign(m, '@acme/auth-context', '1.2.0', withNode('\\ud83d\\ude00')));
    expect(pkg.content.context_graph!.nodes[0]!.content).toBe('😀');
  });
});

function signatureCases(load: () => { manifest: Record<string, unknown>; contentText: string }) {
  const mutate = async (f: (sig: Record<string, string>) => void) => {
    const g = load();
    const sig = { ...(g.manifest.signature as Record<string, string>) };
    f(sig);
    const text = `{"manifest":{${members(g.manifest, ['signature'])},"signature":${JSON.stringify(sig)}},"content":${g.contentText}}`;
    return verifyPackage(enc(text));
  };
  const sigCode = (r: Awaited<ReturnType<typeof verifyPackage>>) => r.errors.find((e) => e.path === 'manifest.signature')?.code;

  it('HB-11 (a) S+L (malleated) → E_SIGNATURE_INVALID', async () => {
    const r = await mutate((sig) => {
      const L = 2n ** 252n + 27742317777372353535851937790883648493n;
      const b = Buffer.from(sig.value!, 'hex');
      let s = 0n;
      for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(b[i]!);
      s += L;
      for (let i = 32; i < 64; i++) {
        b[i] = Number(s & 255n);
        s >>= 8n;
      }
      sig.value = b.toString('hex');
    });
    expect(r.valid).toBe(false);
    expect(sigCode(r)).toBe('E_SIGNATURE_INVALID');
  });

  it('HB-11 (b)-(e) encodings → E_SIGNATURE_ENCODING', async () => {
    for (const f of [
      (s: Record<string, string>) => (s.value += '0'),
      (s: Record<string, string>) => (s.value += 'zz'),
      (s: Record<string, string>) => (s.public_key = s.public_key!.slice(0, 62)),
      (s: Record<string, string>) => (s.value = s.value!.slice(0, 64) + ' ' + s.value!.slice(64)),
    ]) {
      const r = await mutate(f);
      expect(r.valid).toBe(false);
      expect(r.checks.signature.status).toBe('fail');
      expect(sigCode(r)).toBe('E_SIGNATURE_ENCODING');
    }
  });

  it('HB-11 (f) "ED25519" and "ed448" → E_UNSUPPORTED_ALGORITHM', async () => {
    for (const algorithm of ['ED25519', 'ed448']) {
      const r = await mutate((s) => (s.algorithm = algorithm));
      expect(sigCode(r)).toBe('E_UNSUPPORTED_ALGORITHM');
    }
  });

  it('the identity key with an all-zero signature is refused', async () => {
    const r = await mutate((s) => {
      s.public_key = '01' + '00'.repeat(31);
      s.value = '00'.repeat(64);
    });
    expect(sigCode(r)).toBe('E_SIGNATURE_INVALID');
  });

  it('HB-12.3 rename attack: integrity recomputed for @evil/auth-context → integrity passes, signature fails', async () => {
    const g = load();
    const version = g.manifest.version as string;
    const ch = (g.manifest.integrity as { content_hash: string }).content_hash;
    const integrity = { ...(g.manifest.integrity as object), sha256: packageSha256('@evil/auth-context', version, ch) };
    const m = { ...g.manifest, name: '@evil/auth-context', integrity };
    const r = await verifyPackage(enc(`{"manifest":${JSON.stringify(m)},"content":${g.contentText}}`));
    expect(r.checks.content_hash.status).toBe('pass');
    expect(r.checks.sha256.status).toBe('pass');
    expect(r.checks.signature.status).toBe('fail');
    expect(r.valid).toBe(false);
  });

  it('HB-12.4 version bump with recomputed sha256 → signature fails', async () => {
    const g = load();
    const ch = (g.manifest.integrity as { content_hash: string }).content_hash;
    const m = { ...g.manifest, version: '9.9.9', integrity: { ...(g.manifest.integrity as object), sha256: packageSha256(g.manifest.name as string, '9.9.9', ch) } };
    const r = await verifyPackage(enc(`{"manifest":${JSON.stringify(m)},"content":${g.contentText}}`));
    expect(r.checks.sha256.status).toBe('pass');
    expect(r.checks.signature.status).toBe('fail');
  });
}

describe('HB-11 / HB-12 on a package written by ctxpkg', () => {
  signatureCases(golden);
});

describeShared('HB-11 / HB-12 on the reference-written golden package', () => {
  const load = () => {
    const text = dec(sharedBytes('vectors/acme-auth-context-2.0.0.ctxpkg'));
    const start = text.indexOf('"content": ') + '"content": '.length;
    return { manifest: JSON.parse(text).manifest as Record<string, unknown>, contentText: text.slice(start, text.length - 2) };
  };
  it('control: the golden verifies as loaded here', async () => {
    const g = load();
    expect((await verifyPackage(enc(`{"manifest":${JSON.stringify(g.manifest)},"content":${g.contentText}}`))).valid).toBe(true);
  });
  signatureCases(load);
});

describe('HB-22 (format part): a re-signed file with a homoglyph or malformed name', () => {
  for (const name of ['@acme/аuth-context', '@acme/Auth-Context', '@acme/auth_context', `@acme/${'a'.repeat(65)}`, '@org/team/service', '../../x', '/tmp/x']) {
    it(`${JSON.stringify(name)} → E_INVALID_NAME`, async () => {
      const g = golden();
      const m = members({ ...g.manifest, name });
      expect(await code(resign(m, name, '1.2.0', g.contentText))).toBe('E_INVALID_NAME');
    });
  }
});
