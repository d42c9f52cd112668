import * as ed from '@noble/ed25519';
import { describe, expect, it } from 'vitest';
import { ED25519_L, verifyEd25519Strict } from './ed25519.js';
import { utf8 } from './hash.js';
import { bytesToHex, hexToBytes } from './hex.js';
import { signingMessage, signManifest, verifySignature, type SignedFields } from './signature.js';

const SEED42 = new Uint8Array(32).fill(0x2a);
const PUB42 = '197f6b23e16c8532c6abc838facd5ea789be0c76b2920334039bfa8b3d368d61';
const TEST_PKG: SignedFields = { name: 'test-pkg', version: '1.0.0', integrity: { sha256: 'a'.repeat(64) } };
const TEST_PKG_SIG = '312e4b8330014bf38e113d1d7ebd7f44a3c93626adc62785cf48ff0ab8cbbed1011ec5b36b49679fd257ca0103b3df0aeb889e428e47120675e8d28a81a8ce0d';

// FORMAT-FACTS §11.2 signature table, inline.
const VECTORS = [
  { f: TEST_PKG, seed: 0x2a, msg: '78c7fe6eb7513730d480070a1886763dec6a4d3d1928908b713d90b14a0dd2f4', pub: PUB42, value: TEST_PKG_SIG },
  {
    f: { name: 'vt-pkg', version: '1.0.0', integrity: { sha256: '39e35efb6265536becff30670bf72e3fece4e3faa2983add99a8383d5e76300d' } },
    seed: 9,
    msg: '401ed5bcaaa5af99afa9e9f9d293851754df3b8d320bab3bb1928b37f4ba9f52',
    pub: 'fd1724385aa0c75b64fb78cd602fa1d991fdebf76b13c58ed702eac835e9f618',
    value: 'c79e6a683c48b0c8f2f228b8c44559659cdb0bb66d353e56da5a930f5a6ebc6db78c0662d392776bc7054320ab356dcf8ba393a9463aa2ed2ab9dbf7c981c50f',
  },
  {
    f: { name: 'signed-test', version: '1.0.0', integrity: { sha256: '080bbc2ed4a6a6050eb65377233fa5e46b8a86383985f81d8641e318c78808bd' } },
    seed: 7,
    msg: 'fa8761de81911e3323d875f842d176b0a447e6df94b00c4809a1ef4ffb08e8e1',
    pub: 'ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c',
    value: 'e5924a5e7b0984413a11fee79a11db7e9de9f82e953d1199a5431cb8903c4953976d171c7e7bb8eb784ae313acaf5634f50cf6fcede9d5ab4e6972cd2c2c8d02',
  },
];

describe('signing (FORMAT-FACTS §4, §11.2)', () => {
  for (const v of VECTORS) {
    it(`${v.f.name}: message, public key and signature are byte-exact`, () => {
      expect(signingMessage(v.f.name, v.f.version, v.f.integrity.sha256)).toBe(v.msg);
      const sig = signManifest(v.f, new Uint8Array(32).fill(v.seed));
      expect(sig).toEqual({ algorithm: 'ed25519', public_key: v.pub, value: v.value });
      expect(verifySignature(v.f, sig)).toEqual({ status: 'valid', publicKey: v.pub });
    });
  }

  it('changing the name, version or sha256 makes verification fail', () => {
    const sig = { algorithm: 'ed25519', public_key: PUB42, value: TEST_PKG_SIG };
    for (const f of [{ ...TEST_PKG, name: 'other' }, { ...TEST_PKG, version: '1.0.1' }, { ...TEST_PKG, integrity: { sha256: 'b'.repeat(64) } }]) {
      expect(verifySignature(f, sig)).toMatchObject({ status: 'invalid', code: 'E_SIGNATURE_INVALID' });
    }
  });

  it('an absent signature is unsigned', () => {
    expect(verifySignature(TEST_PKG, undefined)).toEqual({ status: 'unsigned' });
    expect(verifySignature(TEST_PKG, null)).toEqual({ status: 'unsigned' });
  });

  it('HB-12.1: the golden message signed with the test key gives the exact golden value', () => {
    const m = '203b3a412ef6e191b22e330e2c4177a2b7ea6a83fa2eba8246d846186176151b';
    const value = bytesToHex(ed.sign(utf8(m), SEED42));
    expect(value).toBe('03f0b0d70f9a9e8525577cfda1d3eb39688d4d331e29d2415f549b3120550ec5455fdcb44d75649a31ed2bb9bf1b6b4d948ebc4a10ff9a7955079aac1e38de03');
    expect(verifyEd25519Strict(hexToBytes(value), utf8(m), hexToBytes(PUB42))).toEqual({ ok: true });
  });

  it('HB-12.2: a signature over the raw 32-byte digest is rejected', () => {
    const m = '203b3a412ef6e191b22e330e2c4177a2b7ea6a83fa2eba8246d846186176151b';
    const raw = '766652ec5e9d5a24337e7471bdbf8fc277aaea5457827e92fdb512758ddd89942071e5c7e5280ed72a9779bb4d5ba9810bf05dea70d13edd1b4927e369c66706';
    expect(ed.verify(hexToBytes(raw), hexToBytes(m), hexToBytes(PUB42))).toBe(true); // it is a real signature of the digest bytes…
    expect(verifyEd25519Strict(hexToBytes(raw), utf8(m), hexToBytes(PUB42)).ok).toBe(false); // …but not of the message
  });
});

describe('strict verification (HB-11)', () => {
  const good = { algorithm: 'ed25519', public_key: PUB42, value: TEST_PKG_SIG };
  const verdict = (sig: unknown) => verifySignature(TEST_PKG, sig);

  it('(a) S + L (malleated) is rejected although the group equation holds', () => {
    const sig = hexToBytes(TEST_PKG_SIG);
    let s = 0n;
    for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(sig[i]!);
    let t = s + ED25519_L;
    for (let i = 32; i < 64; i++) {
      sig[i] = Number(t & 255n);
      t >>= 8n;
    }
    expect(verdict({ ...good, value: bytesToHex(sig) })).toMatchObject({ status: 'invalid', code: 'E_SIGNATURE_INVALID' });
  });

  it('(a) golden S+L vector is rejected', () => {
    const m = '203b3a412ef6e191b22e330e2c4177a2b7ea6a83fa2eba8246d846186176151b';
    const malleated = '03f0b0d70f9a9e8525577cfda1d3eb39688d4d331e29d2415f549b3120550ec53233d21168d876f2078a235c9e154a62948ebc4a10ff9a7955079aac1e38de13';
    expect(verifyEd25519Strict(hexToBytes(malleated), utf8(m), hexToBytes(PUB42))).toEqual({ ok: false, reason: 'non-canonical signature (S ≥ L)' });
  });

  it('(b)-(e) encodings: extra nibble, non-hex, short key, embedded space, uppercase', () => {
    for (const sig of [
      { ...good, value: good.value + '0' },
      { ...good, value: good.value + 'zz' },
      { ...good, public_key: PUB42.slice(0, 62) },
      { ...good, value: good.value.slice(0, 64) + ' ' + good.value.slice(64) },
      { ...good, value: good.value.toUpperCase() },
      { ...good, public_key: PUB42.toUpperCase() },
      { ...good, value: 42 },
      'ed25519',
      [good],
    ]) {
      expect(verdict(sig)).toMatchObject({ status: 'invalid', code: 'E_SIGNATURE_ENCODING' });
    }
  });

  it('(f) algorithm must be exactly "ed25519"', () => {
    for (const algorithm of ['ED25519', 'ed448', '', 'Ed25519 ']) {
      expect(verdict({ ...good, algorithm })).toMatchObject({ status: 'invalid', code: 'E_UNSUPPORTED_ALGORITHM' });
    }
    expect(verdict({ public_key: PUB42, value: TEST_PKG_SIG })).toMatchObject({ code: 'E_UNSUPPORTED_ALGORITHM' });
  });

  it('the identity key with an all-zero signature is refused (it passes ZIP-215)', () => {
    const identity = '01' + '00'.repeat(31);
    const zero = '00'.repeat(64);
    expect(ed.verify(hexToBytes(zero), utf8(signingMessage('a', '1.0.0', 'b'.repeat(64))), hexToBytes(identity))).toBe(true);
    expect(verifySignature({ name: 'a', version: '1.0.0', integrity: { sha256: 'b'.repeat(64) } }, { algorithm: 'ed25519', public_key: identity, value: zero }))
      .toMatchObject({ status: 'invalid', code: 'E_SIGNATURE_INVALID' });
  });

  it('refuses every small-order public key and non-canonical encodings', () => {
    const smallOrder = [
      '0000000000000000000000000000000000000000000000000000000000000000',
      '0100000000000000000000000000000000000000000000000000000000000000',
      'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
      'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
      '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
    ];
    for (const k of smallOrder) {
      expect(verifyEd25519Strict(hexToBytes(TEST_PKG_SIG), utf8('x'), hexToBytes(k)).ok, k).toBe(false);
    }
    // y = p (non-canonical encoding of y = 0): refused as not canonical.
    const nonCanonical = 'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f';
    expect(verifyEd25519Strict(hexToBytes(TEST_PKG_SIG), utf8('x'), hexToBytes(nonCanonical))).toMatchObject({ ok: false });
  });

  it('refuses a key with a torsion component (mixed order), even with a matching cofactored equation', () => {
    const A = ed.Point.fromBytes(hexToBytes(PUB42));
    const T = ed.Point.fromBytes(hexToBytes('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a'));
    const mixed = A.add(T).toBytes();
    expect(verifyEd25519Strict(hexToBytes(TEST_PKG_SIG), utf8('x'), mixed)).toEqual({ ok: false, reason: 'public key is not in the prime-order subgroup' });
  });

  it('refuses R of small order', () => {
    const sig = new Uint8Array(64);
    sig.set(hexToBytes('0100000000000000000000000000000000000000000000000000000000000000'), 0);
    expect(verifyEd25519Strict(sig, utf8('x'), hexToBytes(PUB42))).toEqual({ ok: false, reason: 'signature R has small order' });
  });

  it('signManifest refuses malformed seeds with E_KEY', () => {
    expect(() => signManifest(TEST_PKG, new Uint8Array(31))).toThrow(/32 bytes/);
    expect(() => signManifest(TEST_PKG, 'xyz')).toThrow(/hex/);
  });
});
