/**
 * C2SP signed notes (c2sp.org/signed-note@v1.0.0) with Ed25519 signatures (type 0x01) and
 * timestamped Ed25519 checkpoint cosignatures (type 0x04, c2sp.org/tlog-cosignature).
 *
 * A note is a text ending in a newline, a blank line, then signature lines
 * `— <key name> base64(key ID (4 bytes, big-endian) ‖ signature)`. The key ID is
 * `SHA-256(name ‖ 0x0A ‖ type ‖ public key)[:4]`. A verifier key ("vkey") is
 * `<name>+<hex key ID>+base64(type ‖ public key)`.
 *
 * Verification follows the spec's rules: signatures from unknown keys (name and ID not both
 * matching a known key) are ignored; a known key whose signature fails rejects the whole note;
 * a note with no verified signature from a known key is rejected.
 */
import { decodeCanonicalBase64 } from '../documents.js';
import { encodeBase64 } from '../archive/bundle-blobs.js';
import { ed25519PublicKey, ed25519Sign } from '../ed25519.js';
import { verifyEd25519StrictAsync } from '../ed25519-verify.js';
import { CtxpkgError } from '../errors.js';
import { sha256Bytes, utf8 } from '../hash.js';
import { bytesToHex } from '../hex.js';

/** Signature type byte: Ed25519 over the note text. */
export const SIG_ED25519 = 0x01;
/** Signature type byte: timestamped Ed25519 checkpoint cosignature (cosignature/v1). */
export const SIG_COSIGNATURE_V1 = 0x04;

/** The largest note we parse, in bytes (a checkpoint with a hundred cosignatures is ~15 KB). */
export const MAX_NOTE_BYTES = 64 * 1024;
/** The most signature lines a note may carry (the spec requires accepting at least 16). */
export const MAX_NOTE_SIGNATURES = 100;

/** One signature line of a note, undecoded beyond its key ID. */
export interface NoteSignature {
  /** The key name. */
  name: string;
  /** The 32-bit key ID (big-endian first four bytes of the decoded signature). */
  keyId: number;
  /** The signature bytes after the key ID. */
  signature: Uint8Array;
  /** The whole line without its final newline, exactly as it appeared. */
  line: string;
}

/** A note split into its text (including the final newline) and its signature lines. */
export interface ParsedNote {
  text: string;
  signatures: NoteSignature[];
}

/** A public key that may have signed a note. */
export interface NoteVerifier {
  name: string;
  keyId: number;
  /** `SIG_ED25519` or `SIG_COSIGNATURE_V1`. */
  type: number;
  /** 32-byte Ed25519 public key. */
  publicKey: Uint8Array;
}

/** A private key that signs notes: key name, signature type and the 32-byte Ed25519 seed. */
export interface NoteSigner {
  name: string;
  type: number;
  seed: Uint8Array;
}

function noteError(message: string): CtxpkgError {
  return new CtxpkgError('E_NOTE', message);
}

/** Key names: non-empty, no Unicode space, no `+` (signed-note "Format"). */
export function isValidKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+\u0085\u0000-\u001f\u007f]/.test(name);
}

/** `SHA-256(name ‖ "\n" ‖ type ‖ publicKey)[:4]` as an unsigned 32-bit integer. */
export function noteKeyId(name: string, type: number, publicKey: Uint8Array): number {
  const h = sha256Bytes(utf8(name), new Uint8Array([0x0a, type]), publicKey);
  return ((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0;
}

function keyIdHex(id: number): string {
  return id.toString(16).padStart(8, '0');
}

/** The verifier of an Ed25519 key: name, type (0x01 or 0x04), key ID computed per the spec. */
export function noteVerifier(name: string, type: number, publicKey: Uint8Array): NoteVerifier {
  if (!isValidKeyName(name)) throw noteError(`invalid key name ${JSON.stringify(name)} (no spaces or "+")`);
  if (type !== SIG_ED25519 && type !== SIG_COSIGNATURE_V1) throw noteError(`unsupported signature type 0x${type.toString(16)}`);
  if (publicKey.length !== 32) throw noteError('an Ed25519 public key is 32 bytes');
  return { name, keyId: noteKeyId(name, type, publicKey), type, publicKey };
}

/** The verifier matching a signer (public key derived from its seed). */
export function verifierOf(signer: NoteSigner): NoteVerifier {
  return noteVerifier(signer.name, signer.type, ed25519PublicKey(signer.seed));
}

/** Encode a verifier key: `<name>+<8 hex key ID>+base64(type ‖ public key)`. */
export function formatVerifierKey(v: NoteVerifier): string {
  const material = new Uint8Array(33);
  material[0] = v.type;
  material.set(v.publicKey, 1);
  return `${v.name}+${keyIdHex(v.keyId)}+${encodeBase64(material)}`;
}

/**
 * Parse a verifier key (signed-note "Verifier keys"). Throws `E_NOTE` when it is malformed, of
 * a type other than Ed25519 (0x01) or Ed25519 cosignature (0x04), or when its key ID does not
 * match its name and key.
 */
export function parseVerifierKey(vkey: string): NoteVerifier {
  // The name and the key ID never contain "+"; the base64 key may.
  const a = vkey.indexOf('+');
  const b = a < 0 ? -1 : vkey.indexOf('+', a + 1);
  if (a < 0 || b < 0) throw noteError('a verifier key is <name>+<key id>+<base64 key>');
  const [name, id, b64] = [vkey.slice(0, a), vkey.slice(a + 1, b), vkey.slice(b + 1)];
  if (!/^[0-9a-f]{8}$/.test(id)) throw noteError('the key ID of a verifier key is 8 lowercase hex digits');
  const material = decodeCanonicalBase64(b64);
  if (!material || material.length !== 33) throw noteError('the key of a verifier key must be base64 of a type byte and a 32-byte Ed25519 key');
  const v = noteVerifier(name, material[0]!, material.subarray(1));
  if (keyIdHex(v.keyId) !== id) throw noteError(`verifier key ${name}: the key ID ${id} does not match the key (expected ${keyIdHex(v.keyId)})`);
  return v;
}

const SIG_PREFIX = '\u2014 ';

/**
 * Split a signed note into text and signature lines. Throws `E_NOTE` when it is not valid
 * UTF-8 without control characters other than newline, exceeds `MAX_NOTE_BYTES` or
 * `MAX_NOTE_SIGNATURES`, has no blank line before the signatures, no signature, or a signature
 * line that is not `— <name> <base64 of at least 5 bytes>`.
 */
export function parseNote(note: string | Uint8Array): ParsedNote {
  let text: string;
  if (typeof note === 'string') text = note;
  else {
    if (note.length > MAX_NOTE_BYTES) throw noteError(`a signed note is at most ${MAX_NOTE_BYTES} bytes`);
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(note);
    } catch {
      throw noteError('a signed note must be valid UTF-8');
    }
  }
  if (utf8(text).length > MAX_NOTE_BYTES) throw noteError(`a signed note is at most ${MAX_NOTE_BYTES} bytes`);
  if (/[\u0000-\u0009\u000b-\u001f]/.test(text)) throw noteError('a signed note must not contain control characters other than newline');
  if (/[\ud800-\udfff]/u.test(text)) throw noteError('a signed note must be valid UTF-8');
  const split = text.lastIndexOf('\n\n');
  if (split < 0 || !text.endsWith('\n')) throw noteError('a signed note is text, a blank line and signature lines, each ending in a newline');
  const body = text.slice(0, split + 1);
  const lines = text.slice(split + 2, -1).split('\n');
  if (lines.length > MAX_NOTE_SIGNATURES) throw noteError(`a signed note carries at most ${MAX_NOTE_SIGNATURES} signatures`);
  const signatures: NoteSignature[] = [];
  for (const line of lines) {
    if (!line.startsWith(SIG_PREFIX)) throw noteError(`malformed signature line ${JSON.stringify(line.slice(0, 80))}`);
    const rest = line.slice(SIG_PREFIX.length);
    const sp = rest.indexOf(' ');
    if (sp <= 0 || rest.indexOf(' ', sp + 1) >= 0) throw noteError(`malformed signature line ${JSON.stringify(line.slice(0, 80))}`);
    const name = rest.slice(0, sp);
    const bytes = decodeCanonicalBase64(rest.slice(sp + 1));
    if (!isValidKeyName(name) || !bytes || bytes.length < 5) throw noteError(`malformed signature line ${JSON.stringify(line.slice(0, 80))}`);
    const keyId = ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
    signatures.push({ name, keyId, signature: bytes.subarray(4), line });
  }
  return { text: body, signatures };
}

/** The message a cosignature v1 signs: `cosignature/v1\ntime <T>\n` + the checkpoint text. */
export function cosignatureMessage(text: string, timestamp: number): Uint8Array {
  return utf8(`cosignature/v1\ntime ${timestamp}\n${text}`);
}

function checkTimestamp(t: number): void {
  if (!Number.isSafeInteger(t) || t < 0) throw new CtxpkgError('E_USAGE', `a cosignature timestamp is a non-negative integer of seconds, got ${String(t)}`);
}

/**
 * One signature line for `text` (a note text ending in a newline) by `signer`. For a cosignature
 * (type 0x04) `timestamp` (POSIX seconds) is required and signed. Throws `E_NOTE` for text that
 * does not end in a newline or a bad key name, `E_USAGE` for a missing or bad timestamp.
 */
export function signatureLine(text: string, signer: NoteSigner, timestamp?: number): string {
  if (!text.endsWith('\n')) throw noteError('note text must end in a newline');
  const v = verifierOf(signer);
  let sig: Uint8Array;
  if (signer.type === SIG_COSIGNATURE_V1) {
    if (timestamp === undefined) throw new CtxpkgError('E_USAGE', 'a cosignature needs a timestamp');
    checkTimestamp(timestamp);
    const s = ed25519Sign(cosignatureMessage(text, timestamp), signer.seed);
    sig = new Uint8Array(8 + 64);
    new DataView(sig.buffer).setBigUint64(0, BigInt(timestamp));
    sig.set(s, 8);
  } else {
    sig = ed25519Sign(utf8(text), signer.seed);
  }
  const all = new Uint8Array(4 + sig.length);
  new DataView(all.buffer).setUint32(0, v.keyId);
  all.set(sig, 4);
  return `${SIG_PREFIX}${v.name} ${encodeBase64(all)}`;
}

/**
 * A signed note: `text`, a blank line, one signature line per signer (in order), each ending in
 * a newline. `timestamp` (POSIX seconds) is used by cosignature signers.
 */
export function signNote(text: string, signers: readonly NoteSigner[], timestamp?: number): string {
  if (signers.length === 0) throw new CtxpkgError('E_USAGE', 'a signed note needs at least one signer');
  return `${text}\n${signers.map((s) => signatureLine(text, s, timestamp) + '\n').join('')}`;
}

/** A signature that verified, with its key and (for cosignatures) its timestamp in POSIX seconds. */
export interface VerifiedSignature {
  verifier: NoteVerifier;
  line: string;
  timestamp?: number;
}

/** The result of `openNote`: the text, verified signatures, and the lines of unknown keys. */
export interface OpenedNote {
  text: string;
  verified: VerifiedSignature[];
  /** Lines from keys not among the verifiers (ignored, kept so they can be passed on). */
  unknown: string[];
}

/**
 * Parse and verify a signed note against `verifiers` (signed-note "Signatures"). Each signature
 * whose name and key ID match a verifier is verified (strict Ed25519); others are ignored.
 * Throws `E_NOTE` when malformed, or when a verifier's name and ID appear twice among the
 * verifiers; `E_SIGNATURE_INVALID` when a known key's signature fails (the whole note is
 * rejected) or when no known key signed it.
 */
export async function openNote(note: string | Uint8Array, verifiers: readonly NoteVerifier[]): Promise<OpenedNote> {
  const parsed = parseNote(note);
  const known = new Map<string, NoteVerifier>();
  for (const v of verifiers) {
    const k = `${v.name}+${v.keyId}`;
    const prev = known.get(k);
    if (prev && bytesToHex(prev.publicKey) !== bytesToHex(v.publicKey)) throw noteError(`ambiguous key ${v.name}+${keyIdHex(v.keyId)}`);
    known.set(k, v);
  }
  const verified: VerifiedSignature[] = [];
  const unknown: string[] = [];
  const seen = new Set<string>();
  for (const s of parsed.signatures) {
    const v = known.get(`${s.name}+${s.keyId}`);
    if (!v) {
      unknown.push(s.line);
      continue;
    }
    let ok = false;
    let timestamp: number | undefined;
    if (v.type === SIG_COSIGNATURE_V1) {
      if (s.signature.length === 72) {
        const t = new DataView(s.signature.buffer, s.signature.byteOffset, 8).getBigUint64(0);
        if (t < 2n ** 63n && t <= BigInt(Number.MAX_SAFE_INTEGER)) {
          timestamp = Number(t);
          ok = (await verifyEd25519StrictAsync(s.signature.subarray(8), cosignatureMessage(parsed.text, timestamp), v.publicKey)).ok;
        }
      }
    } else {
      ok = s.signature.length === 64 && (await verifyEd25519StrictAsync(s.signature, utf8(parsed.text), v.publicKey)).ok;
    }
    if (!ok) {
      throw new CtxpkgError('E_SIGNATURE_INVALID', `the signature of ${s.name}+${keyIdHex(s.keyId)} on the note does not verify`, {
        details: { key: `${s.name}+${keyIdHex(s.keyId)}` },
      });
    }
    const k = `${s.name}+${s.keyId}`;
    if (seen.has(k)) continue; // the same key twice: one verified signature
    seen.add(k);
    verified.push({ verifier: v, line: s.line, ...(timestamp !== undefined ? { timestamp } : {}) });
  }
  if (verified.length === 0) {
    throw new CtxpkgError('E_SIGNATURE_INVALID', 'the note is not signed by any known key', {
      details: { signers: parsed.signatures.map((s) => `${s.name}+${keyIdHex(s.keyId)}`) },
    });
  }
  return { text: parsed.text, verified, unknown };
}
