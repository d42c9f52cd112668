/**
 * Strict Ed25519 verification with the platform's WebCrypto Ed25519 (`globalThis.crypto.subtle`,
 * native code on Node ≥ 20), reaching exactly the verdicts of the pure-JS `verifyEd25519Strict`
 * (ed25519.ts; FORMAT-FACTS §4, ADVERSARIAL HB-11, HB-12) at a fraction of the cost.
 *
 * How the verdicts stay identical:
 * 1. Our own checks run first, unchanged: lengths, S < L, and the public key A (canonical, not of
 *    small order, torsion-free — memoized per key, see `ed25519PublicKeyProblem`).
 * 2. The platform checks the group equation. It is used only when a one-time probe shows it is a
 *    **cofactorless** verifier: it accepts a valid signature, rejects it over another message, and
 *    rejects a signature whose R carries an order-8 component (`PROBE_MIXED_R` in ed25519.ts, valid under the
 *    cofactored equation). Otherwise every call uses the pure-JS path.
 * 3. When the platform accepts, [S]B − [k]A equals the point R. A is torsion-free, so R lies in the
 *    prime-order subgroup: it is torsion-free, and of small order only if it is the identity. What
 *    is left of the strict R checks is therefore byte arithmetic: R is canonical (y < p; x = 0 with
 *    the sign bit happens only for y = ±1) and not the identity (y = 1).
 * 4. Anything else — the platform rejects, R fails step 3, the platform throws — is decided by the
 *    pure-JS path, which also names the reason. So a forged or tampered signature costs what it
 *    always did; a valid one costs one native verification.
 */
import {
  ed25519PrecheckProblem,
  ed25519PublicKeyProblem,
  PROBE_MESSAGE,
  PROBE_MIXED_R,
  PROBE_PUBLIC_KEY,
  PROBE_VALID,
  verifyEd25519Strict,
  type StrictVerifyResult,
} from './ed25519.js';
import { utf8 } from './hash.js';
import { bytesToHex, hexToBytes } from './hex.js';

/** Which implementation checks the group equation. */
export type Ed25519Backend = 'webcrypto' | 'noble';

/** The structural part of WebCrypto we use (no DOM lib needed). */
export interface SubtleEd25519 {
  importKey(format: 'raw', key: Uint8Array, alg: { name: 'Ed25519' }, extractable: false, usages: ['verify']): Promise<unknown>;
  verify(alg: { name: 'Ed25519' }, key: unknown, signature: Uint8Array, data: Uint8Array): Promise<boolean>;
}

const ALG = { name: 'Ed25519' } as const;
const P = 2n ** 255n - 19n;

function platformSubtle(): SubtleEd25519 | undefined {
  const c = (globalThis as { crypto?: { subtle?: unknown } }).crypto;
  const s = c?.subtle as Partial<SubtleEd25519> | undefined;
  return s && typeof s.importKey === 'function' && typeof s.verify === 'function' ? (s as SubtleEd25519) : undefined;
}

/**
 * Decide whether `s` (the platform's `crypto.subtle`, or `undefined` when absent) qualifies as a cofactorless
 * Ed25519 verifier (module comment, step 2): `webcrypto` when it does, else `noble`. Never rejects.
 */
export async function probeEd25519Backend(s: SubtleEd25519 | undefined): Promise<Ed25519Backend> {
  if (!s) return 'noble';
  try {
    const key = await s.importKey('raw', hexToBytes(PROBE_PUBLIC_KEY), ALG, false, ['verify']);
    const msg = utf8(PROBE_MESSAGE);
    const valid = await s.verify(ALG, key, hexToBytes(PROBE_VALID), msg);
    const otherMessage = await s.verify(ALG, key, hexToBytes(PROBE_VALID), utf8(PROBE_MESSAGE + '.'));
    const mixed = await s.verify(ALG, key, hexToBytes(PROBE_MIXED_R), msg);
    return valid === true && otherMessage === false && mixed === false ? 'webcrypto' : 'noble';
  } catch {
    return 'noble';
  }
}

let backend: Promise<Ed25519Backend> | undefined;

/**
 * The backend `verifyEd25519StrictAsync` uses in this runtime: `webcrypto` when the platform has
 * a cofactorless Ed25519 verifier (probed once per process), else `noble`. Never rejects.
 */
export function ed25519VerifyBackend(): Promise<Ed25519Backend> {
  return (backend ??= probeEd25519Backend(platformSubtle()));
}

/** Imported platform keys by public key hex (bounded; keys are few). */
const platformKeys = new Map<string, Promise<unknown>>();

function platformKey(s: SubtleEd25519, publicKey: Uint8Array): Promise<unknown> {
  const hex = bytesToHex(publicKey);
  let k = platformKeys.get(hex);
  if (!k) {
    if (platformKeys.size >= 256) platformKeys.clear();
    k = s.importKey('raw', publicKey.slice(), ALG, false, ['verify']);
    platformKeys.set(hex, k);
    k.catch(() => platformKeys.delete(hex));
  }
  return k;
}

/**
 * True when the 32-byte R encoding is canonical and not the identity (step 3 of the module
 * comment): y (the low 255 bits, little-endian) < p, y ≠ 1, and not (sign bit set and y = p − 1).
 */
export function isCanonicalNonIdentityR(r: Uint8Array): boolean {
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? r[i]! & 0x7f : r[i]!);
  const sign = r[31]! >> 7;
  return y < P && y !== 1n && !(sign === 1 && y === P - 1n);
}

/**
 * Strict Ed25519 verification of `signature` (64 bytes) over `message` with `publicKey`
 * (32 bytes): the same verdict and reason as `verifyEd25519Strict`, computed with the platform
 * where it qualifies (module comment). `backend` forces one path (tests compare both);
 * `webcrypto` is honoured only when the probe qualified the platform, else `noble` runs.
 * Never throws or rejects for bad values.
 */
export async function verifyEd25519StrictAsync(
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
  opts: { backend?: Ed25519Backend } = {},
): Promise<StrictVerifyResult> {
  const available = await ed25519VerifyBackend();
  const s = available === 'webcrypto' && opts.backend !== 'noble' ? platformSubtle() : undefined;
  if (!s) return verifyEd25519Strict(signature, message, publicKey);
  const pre = ed25519PrecheckProblem(signature, publicKey);
  if (pre) return { ok: false, reason: pre };
  const keyProblem = ed25519PublicKeyProblem(publicKey);
  if (keyProblem) return { ok: false, reason: keyProblem };
  let accepted = false;
  try {
    accepted = (await s.verify(ALG, await platformKey(s, publicKey), signature, message)) === true;
  } catch {
    accepted = false;
  }
  if (accepted && isCanonicalNonIdentityR(signature.subarray(0, 32))) return { ok: true };
  return verifyEd25519Strict(signature, message, publicKey);
}
