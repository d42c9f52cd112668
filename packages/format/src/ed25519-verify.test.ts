import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { describe, expect, it, vi } from 'vitest';
import { ED25519_L, PROBE_MESSAGE, PROBE_MIXED_R, PROBE_PUBLIC_KEY, PROBE_VALID, verifyEd25519Strict } from './ed25519.js';
import { ed25519VerifyBackend, isCanonicalNonIdentityR, probeEd25519Backend, verifyEd25519StrictAsync } from './ed25519-verify.js';
import { utf8 } from './hash.js';
import { bytesToHex, hexToBytes } from './hex.js';
import { signManifest, signingMessage, verifySignature, verifySignatureAsync } from './signature.js';

const P = 2n ** 255n - 19n;
const T8 = 'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a'; // a point of order 8
const SMALL_ORDER = [
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  T8,
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  '0000000000000000000000000000000000000000000000000000000000000080',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
];

const le32 = (n: bigint): Uint8Array => {
  const o = new Uint8Array(32);
  for (let i = 0; i < 32; i++, n >>= 8n) o[i] = Number(n & 255n);
  return o;
};
const fromLE = (b: Uint8Array): bigint => {
  let n = 0n;
  for (let i = b.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(b[i]!);
  return n;
};
const cat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) (out.set(p, o), (o += p.length));
  return out;
};

/** A signature with a chosen R point (nonce scalar r plus an optional extra point), valid under the cofactored equation. */
function craft(seed: Uint8Array, msg: Uint8Array, r: bigint, extra?: ed.Point, rOverride?: Uint8Array): Uint8Array {
  const { scalar, pointBytes } = ed.utils.getExtendedPublicKey(seed);
  const Rb = rOverride ?? (extra ? ed.Point.BASE.multiply(r).add(extra) : ed.Point.BASE.multiply(r)).toBytes();
  const k = fromLE(sha512(cat(Rb, pointBytes, msg))) % ED25519_L;
  return cat(Rb, le32((r + k * scalar) % ED25519_L));
}

/** Deterministic PRNG (xorshift32 via Math.imul-free ops) for reproducible cases. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

type Case = { label: string; sig: Uint8Array; msg: Uint8Array; pub: Uint8Array };

function cases(): Case[] {
  const out: Case[] = [];
  const next = rng(0xc0ffee);
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => next() & 255);
  for (let i = 0; i < 24; i++) {
    const seed = bytes(32);
    const pub = ed.getPublicKey(seed);
    const msg = utf8(signingMessage(`pkg-${i}`, '1.0.0', bytesToHex(bytes(32))));
    const sig = ed.sign(msg, seed);
    out.push({ label: `valid ${i}`, sig, msg, pub });
    const flip = (b: Uint8Array, bit: number) => {
      const c = b.slice();
      c[bit >> 3]! ^= 1 << (bit & 7);
      return c;
    };
    out.push({ label: `R bit ${i}`, sig: flip(sig, next() % 256), msg, pub });
    out.push({ label: `S bit ${i}`, sig: flip(sig, 256 + (next() % 256)), msg, pub });
    out.push({ label: `msg bit ${i}`, sig, msg: flip(msg, next() % (msg.length * 8)), pub });
    out.push({ label: `key bit ${i}`, sig, msg, pub: flip(pub, next() % 256) });
    out.push({ label: `S+L ${i}`, sig: cat(sig.subarray(0, 32), le32(fromLE(sig.subarray(32)) + ED25519_L)), msg, pub });
    out.push({ label: `random ${i}`, sig: bytes(64), msg, pub });
    // R = identity with a valid cofactorless equation (S = k·a): the platform accepts, we must not.
    out.push({ label: `R identity ${i}`, sig: craft(seed, msg, 0n, undefined, hexToBytes(SMALL_ORDER[1]!)), msg, pub });
    // R with an order-8 component: valid under the cofactored equation only.
    out.push({ label: `R mixed ${i}`, sig: craft(seed, msg, BigInt(i + 1) * 0x1234567n, ed.Point.fromBytes(hexToBytes(T8))), msg, pub });
    // A with an order-8 component.
    const mixedA = ed.Point.fromBytes(pub).add(ed.Point.fromBytes(hexToBytes(T8))).toBytes();
    out.push({ label: `A mixed ${i}`, sig, msg, pub: mixedA });
    for (const so of SMALL_ORDER) {
      out.push({ label: `small-order R ${so.slice(0, 8)} ${i}`, sig: cat(hexToBytes(so), sig.subarray(32)), msg, pub });
    }
    // Non-canonical R: y = p + small (y ≥ p), and a valid R with the sign bit flipped.
    const yBig = le32(P + BigInt(next() % 19));
    out.push({ label: `R y≥p ${i}`, sig: cat(yBig, sig.subarray(32)), msg, pub });
  }
  for (const so of SMALL_ORDER) {
    out.push({ label: `small-order key ${so.slice(0, 8)} + zero sig`, sig: new Uint8Array(64), msg: utf8('x'), pub: hexToBytes(so) });
  }
  out.push({ label: 'identity key + zero sig', sig: new Uint8Array(64), msg: utf8(signingMessage('a', '1.0.0', 'b'.repeat(64))), pub: hexToBytes(SMALL_ORDER[1]!) });
  out.push({ label: 'non-canonical key y = p', sig: new Uint8Array(64), msg: utf8('x'), pub: hexToBytes('edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f') });
  out.push({ label: 'short signature', sig: new Uint8Array(63), msg: utf8('x'), pub: hexToBytes(PROBE_PUBLIC_KEY) });
  out.push({ label: 'probe mixed R', sig: hexToBytes(PROBE_MIXED_R), msg: utf8(PROBE_MESSAGE), pub: hexToBytes(PROBE_PUBLIC_KEY) });
  out.push({ label: 'probe valid', sig: hexToBytes(PROBE_VALID), msg: utf8(PROBE_MESSAGE), pub: hexToBytes(PROBE_PUBLIC_KEY) });
  return out;
}

describe('Ed25519 backend probe', () => {
  it('the probe vectors are what their comment says (re-derived with @noble/ed25519)', () => {
    const seed = new Uint8Array(32).fill(0x11);
    const msg = utf8(PROBE_MESSAGE);
    expect(bytesToHex(ed.getPublicKey(seed))).toBe(PROBE_PUBLIC_KEY);
    expect(bytesToHex(ed.sign(msg, seed))).toBe(PROBE_VALID);
    expect(bytesToHex(craft(seed, msg, 0x1234567890abcdef1234567890abcdefn, ed.Point.fromBytes(hexToBytes(T8))))).toBe(PROBE_MIXED_R);
    // Cofactored (ZIP-215 default) accepts the mixed-R signature; the strict rules do not.
    expect(ed.verify(hexToBytes(PROBE_MIXED_R), msg, hexToBytes(PROBE_PUBLIC_KEY))).toBe(true);
    expect(verifyEd25519Strict(hexToBytes(PROBE_MIXED_R), msg, hexToBytes(PROBE_PUBLIC_KEY))).toEqual({
      ok: false,
      reason: 'signature R is not in the prime-order subgroup',
    });
  });

  it('Node ≥ 20 qualifies WebCrypto Ed25519 as a cofactorless verifier', async () => {
    expect(await ed25519VerifyBackend()).toBe('webcrypto');
  });

  it('a cofactored or accept-everything platform is not used; a missing one falls back to noble', async () => {
    const cofactored = {
      importKey: async (_f: 'raw', key: Uint8Array) => key,
      verify: async (_a: unknown, key: unknown, sig: Uint8Array, data: Uint8Array) => ed.verify(sig, data, key as Uint8Array),
    };
    const yes = { importKey: async () => ({}), verify: async () => true };
    const throws = { importKey: async () => Promise.reject(new Error('NotSupportedError')), verify: async () => true };
    expect(await probeEd25519Backend(cofactored)).toBe('noble');
    expect(await probeEd25519Backend(yes)).toBe('noble');
    expect(await probeEd25519Backend(throws)).toBe('noble');
    expect(await probeEd25519Backend(undefined)).toBe('noble');
    expect(await probeEd25519Backend((globalThis as unknown as { crypto: { subtle: never } }).crypto.subtle)).toBe('webcrypto');
  });
});

describe('isCanonicalNonIdentityR', () => {
  it('refuses y ≥ p, the identity and x = 0 with the sign bit; accepts ordinary points', () => {
    expect(isCanonicalNonIdentityR(hexToBytes(PROBE_VALID).subarray(0, 32))).toBe(true);
    expect(isCanonicalNonIdentityR(hexToBytes(SMALL_ORDER[1]!))).toBe(false); // identity
    expect(isCanonicalNonIdentityR(hexToBytes('0100000000000000000000000000000000000000000000000000000000000080'))).toBe(false);
    expect(isCanonicalNonIdentityR(hexToBytes('ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff'))).toBe(false); // y = p − 1, sign
    expect(isCanonicalNonIdentityR(le32(P))).toBe(false);
    expect(isCanonicalNonIdentityR(le32(P - 2n))).toBe(true);
  });
});

describe('verifyEd25519StrictAsync gives the pure-JS verdicts (HB-11, HB-12)', () => {
  const all = cases();

  it('on vectors and random, mutated and crafted signatures: same verdict and reason on both backends', async () => {
    let valid = 0;
    for (const c of all) {
      const expected = verifyEd25519Strict(c.sig, c.msg, c.pub);
      if (expected.ok) valid++;
      expect(await verifyEd25519StrictAsync(c.sig, c.msg, c.pub), c.label).toEqual(expected);
      expect(await verifyEd25519StrictAsync(c.sig, c.msg, c.pub, { backend: 'noble' }), c.label).toEqual(expected);
    }
    // The corpus exercises both outcomes and the crafted cases the platform alone would accept.
    expect(valid).toBe(25);
    expect(all.length).toBeGreaterThan(400);
  });

  it('the crafted identity-R signature satisfies the cofactorless equation, yet is refused', async () => {
    const c = all.find((x) => x.label === 'R identity 0')!;
    const key = await globalThis.crypto.subtle.importKey('raw', c.pub, { name: 'Ed25519' }, false, ['verify']);
    expect(await globalThis.crypto.subtle.verify({ name: 'Ed25519' }, key, c.sig, c.msg)).toBe(true);
    expect(await verifyEd25519StrictAsync(c.sig, c.msg, c.pub)).toEqual({ ok: false, reason: 'signature R has small order' });
  });

  it('a valid signature is checked by the platform (one native verification)', async () => {
    const c = all.find((x) => x.label === 'valid 3')!;
    const spy = vi.spyOn(globalThis.crypto.subtle, 'verify');
    try {
      expect(await verifyEd25519StrictAsync(c.sig, c.msg, c.pub)).toEqual({ ok: true });
      expect(spy).toHaveBeenCalledTimes(1);
      spy.mockClear();
      expect(await verifyEd25519StrictAsync(c.sig, c.msg, c.pub, { backend: 'noble' })).toEqual({ ok: true });
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });

  it('verifySignatureAsync matches verifySignature on package signatures', async () => {
    const fields = { name: '@acme/x', version: '1.2.3', integrity: { sha256: 'c'.repeat(64) } };
    const good = signManifest(fields, new Uint8Array(32).fill(5));
    const variants: unknown[] = [
      good,
      undefined,
      null,
      { ...good, value: good.value.slice(0, 126) + (good.value.endsWith('0') ? '1' : '0') },
      { ...good, algorithm: 'Ed25519' },
      { ...good, public_key: good.public_key.toUpperCase() },
      'sig',
    ];
    for (const v of variants) {
      expect(await verifySignatureAsync(fields, v)).toEqual(verifySignature(fields, v));
      expect(await verifySignatureAsync({ ...fields, version: '1.2.4' }, v)).toEqual(verifySignature({ ...fields, version: '1.2.4' }, v));
    }
    expect(await verifySignatureAsync(fields, good)).toEqual({ status: 'valid', publicKey: good.public_key });
  });
});
