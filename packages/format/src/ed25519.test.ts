import { describe, expect, it } from 'vitest';
import {
  ed25519PublicKey,
  ed25519PublicKeyPortable,
  ed25519Sign,
  ed25519SignBackend,
  ed25519SignPortable,
  PROBE_MESSAGE,
  PROBE_PUBLIC_KEY,
  PROBE_SEED_BYTE,
  PROBE_VALID,
} from './ed25519.js';
import { utf8 } from './hash.js';
import { bytesToHex } from './hex.js';

describe('Ed25519 signing backends', () => {
  it('Node ≥ 20 signs natively', () => {
    expect(ed25519SignBackend()).toBe('node');
  });

  it('native and pure-JS signatures and public keys are byte-identical (vectors, random seeds and messages)', () => {
    // FORMAT-FACTS §11.2 / HB-12.1 golden values, and the probe vector.
    const seed42 = new Uint8Array(32).fill(0x2a);
    const golden = utf8('203b3a412ef6e191b22e330e2c4177a2b7ea6a83fa2eba8246d846186176151b');
    expect(bytesToHex(ed25519PublicKey(seed42))).toBe('197f6b23e16c8532c6abc838facd5ea789be0c76b2920334039bfa8b3d368d61');
    expect(bytesToHex(ed25519Sign(golden, seed42))).toBe(
      '03f0b0d70f9a9e8525577cfda1d3eb39688d4d331e29d2415f549b3120550ec5455fdcb44d75649a31ed2bb9bf1b6b4d948ebc4a10ff9a7955079aac1e38de03',
    );
    const probeSeed = new Uint8Array(32).fill(PROBE_SEED_BYTE);
    expect(bytesToHex(ed25519PublicKey(probeSeed))).toBe(PROBE_PUBLIC_KEY);
    expect(bytesToHex(ed25519Sign(utf8(PROBE_MESSAGE), probeSeed))).toBe(PROBE_VALID);
    let x = 12345;
    const byte = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24);
    for (let i = 0; i < 40; i++) {
      const seed = Uint8Array.from({ length: 32 }, byte);
      const msg = Uint8Array.from({ length: i * 7 }, byte);
      expect(bytesToHex(ed25519PublicKey(seed))).toBe(bytesToHex(ed25519PublicKeyPortable(seed)));
      expect(bytesToHex(ed25519Sign(msg, seed))).toBe(bytesToHex(ed25519SignPortable(msg, seed)));
    }
  });
});
