import { describe, expect, it } from 'vitest';
import { CtxpkgError } from './errors.js';
import { formatKeyFile, generateSeed, keyFingerprint, parseKeyFile, publicKeyFromSeed } from './keys.js';

const SEED42 = new Uint8Array(32).fill(0x2a);
const PUB42 = '197f6b23e16c8532c6abc838facd5ea789be0c76b2920334039bfa8b3d368d61';

describe('keys (FORMAT-FACTS §4 key file, §11.1 keys.rs tests)', () => {
  it('derives the reference public keys', () => {
    expect(publicKeyFromSeed(SEED42)).toBe(PUB42);
    expect(publicKeyFromSeed('2a'.repeat(32))).toBe(PUB42);
    expect(publicKeyFromSeed(new Uint8Array(32).fill(7))).toBe('ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c');
  });

  it('key file is 64 lowercase hex without newline and round-trips', () => {
    const text = formatKeyFile(SEED42);
    expect(text).toBe('2a'.repeat(32));
    expect(parseKeyFile(text)).toEqual(SEED42);
    expect(parseKeyFile(`  ${text.toUpperCase()}\n`)).toEqual(SEED42);
  });

  it('refuses corrupt key files with E_KEY', () => {
    for (const bad of ['zz', 'a'.repeat(63), 'a'.repeat(65), '', `${'a'.repeat(62)}zz`]) {
      expect(() => parseKeyFile(bad)).toThrow(CtxpkgError);
      try {
        parseKeyFile(bad);
      } catch (e) {
        expect((e as CtxpkgError).code).toBe('E_KEY');
      }
    }
    expect(() => formatKeyFile(new Uint8Array(31))).toThrow(/32 bytes/);
    expect(() => publicKeyFromSeed('abc')).toThrow(/hex/);
  });

  it('generates fresh 32-byte seeds', () => {
    const a = generateSeed();
    const b = generateSeed();
    expect(a).toHaveLength(32);
    expect(a).not.toEqual(b);
  });

  it('fingerprint is 4 groups of 4 hex digits of SHA-256(public key bytes)', () => {
    const fp = keyFingerprint(PUB42);
    expect(fp).toMatch(/^[0-9a-f]{4}(:[0-9a-f]{4}){3}$/);
    expect(fp).toBe(keyFingerprint(PUB42));
    expect(fp).not.toBe(keyFingerprint(publicKeyFromSeed(new Uint8Array(32).fill(7))));
    expect(() => keyFingerprint(PUB42.toUpperCase())).toThrow(/lowercase/);
  });
});
