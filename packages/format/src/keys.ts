/**
 * Signing keys (FORMAT-FACTS §4 "Key file"): the key file holds the 32-byte Ed25519 seed as 64
 * lowercase hex characters with no newline (written mode 0600 by the CLI). On read the text is
 * trimmed and must be 64 hex characters in either case; anything else is corrupt (`E_KEY`).
 */
import { CtxpkgError } from './errors.js';
import { ed25519PublicKey, ed25519RandomSeed } from './ed25519.js';
import { sha256Hex } from './hash.js';
import { bytesToHex, hexToBytes, isLowerHex } from './hex.js';

/** 32 fresh random bytes from the runtime CSPRNG. */
export function generateSeed(): Uint8Array {
  return ed25519RandomSeed();
}

/** Public key (64 lowercase hex) for a seed given as 32 bytes or 64 hex characters. Throws `E_KEY`. */
export function publicKeyFromSeed(seed: Uint8Array | string): string {
  const bytes = typeof seed === 'string' ? hexToBytes(seed, 32, 'E_KEY', 'seed') : seed;
  if (!(bytes instanceof Uint8Array) || bytes.length !== 32) throw new CtxpkgError('E_KEY', 'an Ed25519 seed must be 32 bytes');
  return bytesToHex(ed25519PublicKey(bytes));
}

/** Key file text for a seed: 64 lowercase hex characters, no newline. */
export function formatKeyFile(seed: Uint8Array): string {
  if (!(seed instanceof Uint8Array) || seed.length !== 32) throw new CtxpkgError('E_KEY', 'an Ed25519 seed must be 32 bytes');
  return bytesToHex(seed);
}

/** Parse key file text (trimmed; 64 hex characters, either case) into the 32-byte seed. Throws `E_KEY`. */
export function parseKeyFile(text: string): Uint8Array {
  const t = text.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(t)) {
    throw new CtxpkgError('E_KEY', 'the signing key file is corrupt: expected 64 hex characters (an Ed25519 seed)', {
      hint: 'restore the key from a backup, or create a new one with `ctxpkg keygen --force` (a new key is a new publisher identity)',
    });
  }
  return hexToBytes(t, 32, 'E_KEY', 'seed');
}

/**
 * Short human fingerprint of a public key (64 lowercase hex): the first 8 bytes of SHA-256 over
 * the 32 raw key bytes, as 4 colon-separated groups of 4 lowercase hex digits, e.g.
 * `ab12:cd34:ef56:7890` (spec/format.md "Keys"). Throws `E_KEY` for a malformed key.
 */
export function keyFingerprint(publicKeyHex: string): string {
  if (!isLowerHex(publicKeyHex, 64)) throw new CtxpkgError('E_KEY', 'a public key must be 64 lowercase hex characters');
  const h = sha256Hex(hexToBytes(publicKeyHex));
  return `${h.slice(0, 4)}:${h.slice(4, 8)}:${h.slice(8, 12)}:${h.slice(12, 16)}`;
}
