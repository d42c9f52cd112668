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
 * verdicts faster with the platform's WebCrypto Ed25519 where available. Signing uses the
 * runtime's native Ed25519 when it reproduces a known vector (same bytes: Ed25519 is
 * deterministic), else noble.
 */
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { bytesToHex } from './hex.js';
import { nodeBuiltin } from './builtin.js';

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

/**
 * Probe vectors (shared with ed25519-verify.ts). Key: seed 32 × 0x11. `PROBE_VALID` is its
 * RFC 8032 signature of `PROBE_MESSAGE`. `PROBE_MIXED_R` = R ‖ S with R = [r]B + T (T the
 * order-8 point c7176a70…ac037a, r = 0x1234567890abcdef1234567890abcdef),
 * k = SHA-512(R ‖ A ‖ M) mod L, S = r + k·a mod L: the cofactored equation holds, the
 * cofactorless one does not (ed25519-verify.test.ts re-derives both with @noble/ed25519).
 */
export const PROBE_SEED_BYTE = 0x11;
export const PROBE_PUBLIC_KEY = 'd04ab232742bb4ab3a1368bd4615e4e6d0224ab71a016baf8520a332c9778737';
export const PROBE_MESSAGE = 'ctxpkg ed25519 backend probe: cofactorless verification';
export const PROBE_VALID =
  '4dc9cd76be593461bee19a2eb3c69bfed1e8a60d85c68e2348386b80ed2129937cd27bd96e59435dba3d846ccfe4130090f78666a04dff14202fca6181a60c05';
export const PROBE_MIXED_R =
  '11cafa6189fadaeb44521804c87f0e5cbc49236185e67e41742c3dbcfc553d920bb8835976a93a562285d6cf3cdcf115a916eccc55cd13de78d6fcd5aab4970c';

type KeyObject = { export(o: { format: 'der'; type: 'spki' }): Uint8Array };
type NodeCrypto = {
  createPrivateKey(o: { key: Uint8Array; format: 'der'; type: 'pkcs8' }): KeyObject;
  createPublicKey(k: KeyObject): KeyObject;
  sign(alg: null, data: Uint8Array, key: KeyObject): Uint8Array;
};
type NativeEd = { sign(message: Uint8Array, seed: Uint8Array): Uint8Array; publicKey(seed: Uint8Array): Uint8Array };

/** DER prefix of an Ed25519 PKCS#8 private key (RFC 8410): the 32-byte seed follows. */
const PKCS8_PREFIX = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];

/**
 * The runtime's native Ed25519 signer (`node:crypto`, reached through `process.getBuiltinModule`
 * as in hash.ts: a feature probe, no import, no I/O). Used only when it reproduces the probe
 * vector's public key and signature exactly; Ed25519 signing is deterministic, so both backends
 * give the same bytes (tested). Probed on first use.
 */
function probeNativeSigner(): NativeEd | null {
  try {
    const c = nodeBuiltin<NodeCrypto>('node:crypto');
    if (!c || typeof c.createPrivateKey !== 'function' || typeof c.createPublicKey !== 'function' || typeof c.sign !== 'function') return null;
    const crypto = c as NodeCrypto;
    // Importing a key costs ~10× a signature, and a registry signs with the same log key on every
    // append: keep the last few key objects (keyed by the seed, which is in memory anyway).
    const keys = new Map<string, KeyObject>();
    const publics = new Map<string, Uint8Array>();
    const key = (seed: Uint8Array) => {
      const id = bytesToHex(seed);
      let k = keys.get(id);
      if (!k) {
        const der = new Uint8Array(48);
        der.set(PKCS8_PREFIX, 0);
        der.set(seed, 16);
        k = crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
        if (keys.size >= 8) keys.delete(keys.keys().next().value as string);
        keys.set(id, k);
      }
      return k;
    };
    const native: NativeEd = {
      sign: (message, seed) => new Uint8Array(crypto.sign(null, message, key(seed))),
      publicKey: (seed) => {
        const id = bytesToHex(seed);
        let p = publics.get(id);
        if (!p) {
          p = new Uint8Array(crypto.createPublicKey(key(seed)).export({ format: 'der', type: 'spki' }).subarray(12));
          if (publics.size >= 8) publics.delete(publics.keys().next().value as string);
          publics.set(id, p);
        }
        return p.slice();
      },
    };
    const seed = new Uint8Array(32).fill(PROBE_SEED_BYTE);
    const msg = new TextEncoder().encode(PROBE_MESSAGE);
    if (bytesToHex(native.publicKey(seed)) !== PROBE_PUBLIC_KEY || bytesToHex(native.sign(msg, seed)) !== PROBE_VALID) return null;
    return native;
  } catch {
    return null;
  }
}

let nativeSigner: NativeEd | null | undefined;
const signer = (): NativeEd | null => (nativeSigner === undefined ? (nativeSigner = probeNativeSigner()) : nativeSigner);

/** Which implementation signs and derives public keys in this runtime (`node`: node:crypto, probed). */
export function ed25519SignBackend(): 'node' | 'noble' {
  return signer() ? 'node' : 'noble';
}

/**
 * Deterministic Ed25519 signature (RFC 8032, 64 bytes) of `message` with the 32-byte `seed`:
 * the runtime's native signer when it qualifies, else `@noble/ed25519` (same bytes).
 */
export function ed25519Sign(message: Uint8Array, seed: Uint8Array): Uint8Array {
  const n = signer();
  return n ? n.sign(message, seed) : ed.sign(message, seed);
}

/** The 32-byte public key of a 32-byte seed (native when available, same bytes as noble). */
export function ed25519PublicKey(seed: Uint8Array): Uint8Array {
  const n = signer();
  return n ? n.publicKey(seed) : ed.getPublicKey(seed);
}

/** `ed25519Sign` in pure JS (`@noble/ed25519`), whatever the runtime offers. */
export function ed25519SignPortable(message: Uint8Array, seed: Uint8Array): Uint8Array {
  return ed.sign(message, seed);
}

/** `ed25519PublicKey` in pure JS (`@noble/ed25519`). */
export function ed25519PublicKeyPortable(seed: Uint8Array): Uint8Array {
  return ed.getPublicKey(seed);
}

/** 32 random bytes from the runtime's CSPRNG (WebCrypto `getRandomValues`). */
export function ed25519RandomSeed(): Uint8Array {
  return ed.utils.randomSecretKey();
}
