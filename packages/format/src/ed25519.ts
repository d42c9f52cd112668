/**
 * Ed25519 with strict RFC 8032 verification (FORMAT-FACTS §4 "Library edge cases";
 * ADVERSARIAL HB-11, HB-12). `@noble/ed25519` v3 with `{ zip215: false }` already rejects
 * non-canonical point encodings (y ≥ p, x = 0 with the sign bit), S ≥ L and small-order public
 * keys; on top of it we require, so that no two conforming verifiers can disagree:
 * - S < L checked explicitly (canonical S, before any curve arithmetic);
 * - the public key A is not of small order and is torsion-free (in the prime-order subgroup);
 * - R is not of small order and is torsion-free.
 * Honest signers always produce torsion-free A and R, so this rejects only crafted values
 * (e.g. the identity key with an all-zero signature, which verifies under ZIP-215).
 */
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';

ed.hashes.sha512 = sha512;

/** The group order L = 2^252 + 27742317777372353535851937790883648493. */
export const ED25519_L = 2n ** 252n + 27742317777372353535851937790883648493n;

function scalarLE(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]!);
  return n;
}

/** Why a strict verification failed (`ok: false`), for messages. */
export type StrictVerifyResult = { ok: true } | { ok: false; reason: string };

/**
 * Strict Ed25519 verification of `signature` (64 bytes) over `message` with `publicKey`
 * (32 bytes). Never throws for bad values; wrong lengths are reported as failures.
 */
export function verifyEd25519Strict(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): StrictVerifyResult {
  if (signature.length !== 64) return { ok: false, reason: 'signature is not 64 bytes' };
  if (publicKey.length !== 32) return { ok: false, reason: 'public key is not 32 bytes' };
  if (scalarLE(signature.subarray(32)) >= ED25519_L) return { ok: false, reason: 'non-canonical signature (S ≥ L)' };
  let A: ed.Point;
  let R: ed.Point;
  try {
    A = ed.Point.fromBytes(publicKey, false);
  } catch {
    return { ok: false, reason: 'public key is not a canonical curve point' };
  }
  if (A.isSmallOrder()) return { ok: false, reason: 'public key has small order' };
  if (!A.isTorsionFree()) return { ok: false, reason: 'public key is not in the prime-order subgroup' };
  try {
    R = ed.Point.fromBytes(signature.subarray(0, 32), false);
  } catch {
    return { ok: false, reason: 'signature R is not a canonical curve point' };
  }
  if (R.isSmallOrder()) return { ok: false, reason: 'signature R has small order' };
  if (!R.isTorsionFree()) return { ok: false, reason: 'signature R is not in the prime-order subgroup' };
  let valid = false;
  try {
    valid = ed.verify(signature, message, publicKey, { zip215: false });
  } catch {
    valid = false;
  }
  return valid ? { ok: true } : { ok: false, reason: 'signature does not match' };
}

/** Deterministic Ed25519 signature (RFC 8032) of `message` with the 32-byte `seed`. */
export function ed25519Sign(message: Uint8Array, seed: Uint8Array): Uint8Array {
  return ed.sign(message, seed);
}

/** The 32-byte public key of a 32-byte seed. */
export function ed25519PublicKey(seed: Uint8Array): Uint8Array {
  return ed.getPublicKey(seed);
}

/** 32 random bytes from the runtime's CSPRNG (WebCrypto `getRandomValues`). */
export function ed25519RandomSeed(): Uint8Array {
  return ed.utils.randomSecretKey();
}
