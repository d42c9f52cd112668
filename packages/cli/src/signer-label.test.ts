import { describe, expect, it } from 'vitest';
import { keyFingerprint, publicKeyFromSeed } from '@ctxpkg/format';
import { signerLabel } from './signer-label.js';

describe('signerLabel', () => {
  const key = publicKeyFromSeed(new Uint8Array(32).fill(0x2a));
  it('shows the fingerprint and the start of the public key the registry and lockfile record', () => {
    expect(signerLabel(key)).toBe(`${keyFingerprint(key)} (public key ${key.slice(0, 16)}…)`);
    expect(signerLabel(key, { full: true })).toBe(`${keyFingerprint(key)} (public key ${key})`);
  });
  it('says unsigned for no key and never throws for a malformed one', () => {
    expect(signerLabel(undefined)).toBe('unsigned');
    expect(signerLabel('')).toBe('unsigned');
    expect(signerLabel('XYZ')).toBe('XYZ');
  });
});
