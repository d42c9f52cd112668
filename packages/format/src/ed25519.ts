/**
 * Ed25519 with strict RFC 8032 verification (FORMAT-FACTS §4 "Library edge cases";
 * ADVERSARIAL HB-11, HB-12), pure JS via `@noble/ed25519` v3. `@noble/ed25519` with
 * `{ zip215: false }` already rejects non-canonical point encodings (y ≥ p, x = 0 with the sign
 * bit), S ≥ L and small-order public keys, but its group equation is cofactored; on top of it we
 * require, so that no two conforming verifiers can disagree:
 * - S < L checked explicitly (canonical S, before any curve arithmetic);
 * - the public key A is not of small order and is torsion-free (in the prime-order subgroup);
 * - R is not of small order and is torsion-free.
 * With A and R torsion-free the cofactored equation holds exactly when the cofactorless one does.
 * Honest signers always produce torsion-free A and R, so this rejects only crafted values
 * (e.g. the identity key with an all-zero signature, which verifies under ZIP-215).
 *
 * This file is the reference behaviour and the fallback; `ed25519-verify.ts` reaches the same
 * verdicts faster with the platform's WebCrypto Ed25519 where available.
 */
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { bytesToHex } from './hex.js';

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

/** Problems of a public key, by its hex: a pure function of the 32 bytes, so memoized (bounded). */
const keyProblems = new Map<string, string | null>();
const KEY_CACHE_MAX = 1024;

function computeKeyProblem(publicKey: Uint8Array): string | null {
  let A: ed.Point;
  try {
    A = ed.Point.fromBytes(publicKey, false);
  } catch {
    return 'public key is not a canonical curve point';
  }
  if (A.isSmallOrder()) return 'public key has small order';
  if (!A.isTorsionFree()) return 'public key is not in the prime-order subgroup';
  return null;
}

/**
 * The strict checks of a 32-byte public key A, in order: canonical encoding, not of small
 * order, torsion-free. Returns the failure reason, or `undefined` when A is acceptable.
 * The torsion check is a full scalar multiplication, so results are memoized per key (at most
 * 1024 keys; a package set is usually signed by a handful). Never throws.
 */
export function ed25519PublicKeyProblem(publicKey: Uint8Array): string | undefined {
  if (publicKey.length !== 32) return 'public key is not 32 bytes';
  const hex = bytesToHex(publicKey);
  let p = keyProblems.get(hex);
  if (p === undefined) {
    p = computeKeyProblem(publicKey);
    if (keyProblems.size >= KEY_CACHE_MAX) keyProblems.clear();
    keyProblems.set(hex, p);
  }
  return p ?? undefined;
}

/** The length and canonical-S checks that run before any curve arithmetic; `undefined` when they pass. */
export function ed25519PrecheckProblem(signature: Uint8Array, publicKey: Uint8Array): string | undefined {
  if (signature.length !== 64) return 'signature is not 64 bytes';
  if (publicKey.length !== 32) return 'public key is not 32 bytes';
  if (scalarLE(signature.subarray(32)) >= ED25519_L) return 'non-canonical signature (S ≥ L)';
  return undefined;
}

/**
 * Strict Ed25519 verification of `signature` (64 bytes) over `message` with `publicKey`
 * (32 bytes), in pure JS. Never throws for bad values; wrong lengths are reported as failures.
 * Check order (and so the reported reason): lengths, S < L, A (canonical, small order,
 * torsion), R (canonical, small order, torsion), the group equation.
 */
export function verifyEd25519Strict(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): StrictVerifyResult {
  const pre = ed25519PrecheckProblem(signature, publicKey);
  if (pre) return { ok: false, reason: pre };
  const keyProblem = ed25519PublicKeyProblem(publicKey);
  if (keyProblem) return { ok: false, reason: keyProblem };
  let R: ed.Point;
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
