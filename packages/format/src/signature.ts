/**
 * Package signatures (FORMAT-FACTS §4; ADVERSARIAL HB-11, HB-12).
 *
 * Message: M = lowercase hex(SHA-256("ctxpkg-sign-v1:{name}:{version}:{integrity.sha256}")),
 * a 64-character ASCII string; Ed25519 signs the 64 ASCII bytes of M (not the 32 digest bytes).
 * Stored as `{ "algorithm": "ed25519", "public_key": <64 lowercase hex>, "value": <128 lowercase hex> }`.
 * Only name, version and integrity.sha256 are covered.
 */
import type { ErrorCode } from './errors.js';
import { CtxpkgError } from './errors.js';
import { ed25519PublicKey, ed25519Sign, verifyEd25519Strict, type StrictVerifyResult } from './ed25519.js';
import { verifyEd25519StrictAsync } from './ed25519-verify.js';
import { sha256Hex, utf8 } from './hash.js';
import { bytesToHex, hexToBytes, isLowerHex } from './hex.js';

/** The manifest's `signature` object. */
export interface ManifestSignature {
  algorithm: string;
  /** 64 lowercase hex characters (32-byte Ed25519 public key). */
  public_key: string;
  /** 128 lowercase hex characters (64-byte Ed25519 signature). */
  value: string;
}

/** The signed fields of a manifest. */
export interface SignedFields {
  name: string;
  version: string;
  integrity: { sha256: string };
}

/** Outcome of `verifySignature`. */
export type SignatureVerdict =
  | { status: 'valid'; publicKey: string }
  | { status: 'unsigned' }
  | {
      status: 'invalid';
      code: Extract<ErrorCode, 'E_SIGNATURE' | 'E_SIGNATURE_ENCODING' | 'E_SIGNATURE_INVALID' | 'E_UNSUPPORTED_ALGORITHM'>;
      message: string;
    };

/** The 64-character hex signing message for `name`, `version`, `integritySha256`. */
export function signingMessage(name: string, version: string, integritySha256: string): string {
  return sha256Hex(`ctxpkg-sign-v1:${name}:${version}:${integritySha256}`);
}

function seedBytes(seed: Uint8Array | string): Uint8Array {
  const bytes = typeof seed === 'string' ? hexToBytes(seed, 32, 'E_KEY', 'signing key seed') : seed;
  if (!(bytes instanceof Uint8Array) || bytes.length !== 32) throw new CtxpkgError('E_KEY', 'an Ed25519 seed must be 32 bytes');
  return bytes;
}

/**
 * Sign a manifest's name/version/integrity.sha256 with a 32-byte seed (bytes or 64 hex chars).
 * Deterministic. Throws `E_KEY` for a malformed seed.
 */
export function signManifest(fields: SignedFields, seed: Uint8Array | string): ManifestSignature {
  const s = seedBytes(seed);
  const message = signingMessage(fields.name, fields.version, fields.integrity.sha256);
  return {
    algorithm: 'ed25519',
    public_key: bytesToHex(ed25519PublicKey(s)),
    value: bytesToHex(ed25519Sign(utf8(message), s)),
  };
}

type Prepared = { verdict: SignatureVerdict } | { sig: Uint8Array; message: Uint8Array; pub: Uint8Array; publicKey: string };

/** The encoding checks shared by both verifiers, in order; then the bytes to verify. */
function prepare(fields: SignedFields, signature: unknown): Prepared {
  if (signature === null || signature === undefined) return { verdict: { status: 'unsigned' } };
  if (typeof signature !== 'object' || Array.isArray(signature)) {
    return { verdict: { status: 'invalid', code: 'E_SIGNATURE_ENCODING', message: 'signature must be an object {algorithm, public_key, value}' } };
  }
  const sig = signature as Record<string, unknown>;
  if (sig.algorithm !== 'ed25519') {
    return {
      verdict: {
        status: 'invalid',
        code: 'E_UNSUPPORTED_ALGORITHM',
        message: `unsupported signature algorithm: ${JSON.stringify(sig.algorithm)} (only "ed25519")`,
      },
    };
  }
  if (!isLowerHex(sig.public_key, 64)) {
    return { verdict: { status: 'invalid', code: 'E_SIGNATURE_ENCODING', message: 'signature.public_key must be exactly 64 lowercase hex characters' } };
  }
  if (!isLowerHex(sig.value, 128)) {
    return { verdict: { status: 'invalid', code: 'E_SIGNATURE_ENCODING', message: 'signature.value must be exactly 128 lowercase hex characters' } };
  }
  const message = utf8(signingMessage(fields.name, fields.version, fields.integrity.sha256));
  return { sig: hexToBytes(sig.value), message, pub: hexToBytes(sig.public_key), publicKey: sig.public_key };
}

function finish(publicKey: string, result: StrictVerifyResult): SignatureVerdict {
  if (!result.ok) {
    return {
      status: 'invalid',
      code: 'E_SIGNATURE_INVALID',
      message: `signature verification failed: ${result.reason} — the package was modified after signing or the signature is forged`,
    };
  }
  return { status: 'valid', publicKey };
}

/**
 * Strictly verify `signature` (the manifest's `signature` member, any shape) over `fields`, in
 * pure JS (`verifyEd25519Strict`). Never throws. `unsigned` when `signature` is null/undefined.
 * Failures: `E_UNSUPPORTED_ALGORITHM` (algorithm other than exactly `ed25519`),
 * `E_SIGNATURE_ENCODING` (not an object, or public_key/value not exactly 64/128 lowercase hex
 * characters), `E_SIGNATURE_INVALID` (non-canonical S, small-order or non-canonical key or R,
 * or mismatch). `verifySignatureAsync` gives the same verdicts faster.
 */
export function verifySignature(fields: SignedFields, signature: unknown): SignatureVerdict {
  const p = prepare(fields, signature);
  if ('verdict' in p) return p.verdict;
  return finish(p.publicKey, verifyEd25519Strict(p.sig, p.message, p.pub));
}

/**
 * `verifySignature` with the platform's Ed25519 where it qualifies (`verifyEd25519StrictAsync`,
 * ed25519-verify.ts): the same verdicts, codes and messages. Never rejects.
 */
export async function verifySignatureAsync(fields: SignedFields, signature: unknown): Promise<SignatureVerdict> {
  const p = prepare(fields, signature);
  if ('verdict' in p) return p.verdict;
  return finish(p.publicKey, await verifyEd25519StrictAsync(p.sig, p.message, p.pub));
}
