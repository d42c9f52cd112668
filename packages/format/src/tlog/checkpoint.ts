/**
 * Transparency log checkpoints (c2sp.org/tlog-checkpoint@v1.0.0): a signed note whose text is
 * the log's origin, the tree size and the base64 root hash, one per line, then optional extension
 * lines.
 *
 * A ctxpkg registry signs each checkpoint twice with its one Ed25519 log key, under the origin as
 * key name: an Ed25519 note signature (type 0x01, what tlog-tiles requires) and a timestamped
 * cosignature (type 0x04, c2sp.org/tlog-cosignature) that dates the checkpoint, so a client can
 * tell a fresh view from a frozen one. Witnesses add their own timestamped cosignatures.
 */
import { encodeBase64 } from '../archive/bundle-blobs.js';
import { decodeCanonicalBase64 } from '../documents.js';
import { ed25519PublicKey } from '../ed25519.js';
import { CtxpkgError } from '../errors.js';
import { bytesToHex } from '../hex.js';
import { HASH_SIZE } from './merkle.js';
import {
  SIG_COSIGNATURE_V1,
  SIG_ED25519,
  formatVerifierKey,
  noteVerifier,
  openNote,
  parseNote,
  signNote,
  type NoteVerifier,
  type OpenedNote,
} from './note.js';

/** A tree head: the log's origin, its size in leaves, its RFC 6962 root hash. */
export interface Checkpoint {
  origin: string;
  size: number;
  rootHash: Uint8Array;
  /** Extension lines (opaque, non-empty); ctxpkg writes none. */
  extensions: string[];
}

function cpError(message: string): CtxpkgError {
  return new CtxpkgError('E_NOTE', message);
}

/** The checkpoint text (the note body): origin, size, base64 root, extensions, each + `\n`. */
export function formatCheckpoint(cp: Checkpoint): string {
  if (!cp.origin || /[\n]/.test(cp.origin)) throw cpError('a checkpoint origin is one non-empty line');
  if (!Number.isSafeInteger(cp.size) || cp.size < 0) throw cpError('a checkpoint size is a non-negative integer');
  if (cp.rootHash.length !== HASH_SIZE) throw cpError('a checkpoint root hash is 32 bytes');
  for (const e of cp.extensions) if (!e || e.includes('\n')) throw cpError('checkpoint extension lines are non-empty single lines');
  return [cp.origin, String(cp.size), encodeBase64(cp.rootHash), ...cp.extensions].map((l) => l + '\n').join('');
}

/**
 * Parse checkpoint text (a note body). Throws `E_NOTE` for fewer than three lines, an empty
 * origin, a size with leading zeros or beyond 2^53 − 1, a root that is not base64 of 32 bytes,
 * or an empty extension line.
 */
export function parseCheckpoint(text: string): Checkpoint {
  if (!text.endsWith('\n')) throw cpError('checkpoint text must end in a newline');
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) throw cpError('a checkpoint has at least three lines: origin, size, root hash');
  const [origin, size, root, ...extensions] = lines as [string, string, string, ...string[]];
  if (!origin) throw cpError('the checkpoint origin is empty');
  if (!/^(0|[1-9][0-9]{0,15})$/.test(size) || !Number.isSafeInteger(Number(size))) throw cpError(`bad checkpoint tree size ${JSON.stringify(size.slice(0, 20))}`);
  const rootHash = decodeCanonicalBase64(root);
  if (!rootHash || rootHash.length !== HASH_SIZE) throw cpError('the checkpoint root hash is not base64 of 32 bytes');
  if (extensions.some((e) => e === '')) throw cpError('checkpoint extension lines must be non-empty');
  return { origin, size: Number(size), rootHash, extensions };
}

/** The two verifiers of a registry log key: its Ed25519 note key and its timestamp cosignature key. */
export function logVerifiers(origin: string, publicKey: Uint8Array): { note: NoteVerifier; time: NoteVerifier } {
  return { note: noteVerifier(origin, SIG_ED25519, publicKey), time: noteVerifier(origin, SIG_COSIGNATURE_V1, publicKey) };
}

/** The verifier key text a client pins for a log (`<origin>+<id>+<base64(0x01 ‖ key)>`). */
export function logVerifierKey(origin: string, publicKey: Uint8Array): string {
  return formatVerifierKey(logVerifiers(origin, publicKey).note);
}

/**
 * Sign checkpoint `cp` with the log's 32-byte Ed25519 `seed` (key name = origin): a note
 * signature and a timestamped cosignature dated `timestamp` (POSIX seconds).
 */
export function signCheckpoint(cp: Checkpoint, seed: Uint8Array, timestamp: number): string {
  return signNote(
    formatCheckpoint(cp),
    [
      { name: cp.origin, type: SIG_ED25519, seed },
      { name: cp.origin, type: SIG_COSIGNATURE_V1, seed },
    ],
    timestamp,
  );
}

/** What a client trusts for one log. */
export interface CheckpointPolicy {
  /** The origin line the log must use. */
  origin: string;
  /** The log's Ed25519 public key (32 bytes). */
  logKey: Uint8Array;
  /** Witness cosigner keys (type 0x04) whose cosignatures are *required*. */
  witnesses?: readonly NoteVerifier[];
}

/** A checkpoint whose log signature (and required cosignatures) verified. */
export interface OpenedCheckpoint extends Checkpoint {
  /** The full signed note as received. */
  note: string;
  /** The note text (what was signed). */
  text: string;
  /** The newest verified timestamp (log or witness cosignature), POSIX seconds; undefined when none. */
  timestamp?: number;
  /** Names of the witnesses whose cosignatures verified. */
  witnessed: string[];
  opened: OpenedNote;
}

/**
 * Verify a checkpoint note against `policy`: it must carry a valid Ed25519 signature by the log
 * key under the origin, and a valid cosignature from every required witness. Unknown signatures
 * are ignored (key rotation, other witnesses). Throws `E_NOTE` (malformed; origin differs),
 * `E_LOG_KEY` (no signature by the pinned log key), `E_SIGNATURE_INVALID` (a known key's
 * signature fails), `E_WITNESS` (a required witness did not cosign).
 */
export async function openCheckpoint(note: string, policy: CheckpointPolicy): Promise<OpenedCheckpoint> {
  const log = logVerifiers(policy.origin, policy.logKey);
  const witnesses = policy.witnesses ?? [];
  let opened: OpenedNote;
  try {
    opened = await openNote(note, [log.note, log.time, ...witnesses]);
  } catch (e) {
    if (e instanceof CtxpkgError && e.code === 'E_SIGNATURE_INVALID' && /not signed by any known key/.test(e.message)) {
      throw new CtxpkgError('E_LOG_KEY', `the checkpoint is not signed by the log key of ${policy.origin} (${formatVerifierKey(log.note)})`, {
        hint: 'the registry changed its log key or is not the log you pinned; compare with the operator before trusting it',
        ...(e.details ? { details: e.details } : {}),
      });
    }
    throw e;
  }
  const cp = parseCheckpoint(opened.text);
  if (cp.origin !== policy.origin) throw cpError(`the checkpoint origin is ${JSON.stringify(cp.origin)}, expected ${JSON.stringify(policy.origin)}`);
  if (!opened.verified.some((s) => s.verifier === log.note)) {
    throw new CtxpkgError('E_LOG_KEY', `the checkpoint carries no Ed25519 signature by the log key of ${policy.origin}`);
  }
  const witnessed: string[] = [];
  for (const w of witnesses) {
    if (opened.verified.some((s) => s.verifier === w)) witnessed.push(w.name);
    else {
      throw new CtxpkgError('E_WITNESS', `the checkpoint of ${policy.origin} at tree size ${cp.size} is not cosigned by witness ${w.name}`, {
        hint: 'the witness has not cosigned this tree yet, or the registry is showing you a view the witness never saw',
        details: { witness: formatVerifierKey(w), tree_size: cp.size },
      });
    }
  }
  const times = opened.verified.flatMap((s) => (s.timestamp === undefined ? [] : [s.timestamp]));
  return {
    ...cp,
    note,
    text: opened.text,
    ...(times.length ? { timestamp: Math.max(...times) } : {}),
    witnessed,
    opened,
  };
}

/** A one-line description of a checkpoint for messages: `origin size N root <hex>`. */
export function describeCheckpoint(cp: Pick<Checkpoint, 'origin' | 'size' | 'rootHash'>): string {
  return `${cp.origin} size ${cp.size} root ${bytesToHex(cp.rootHash)}`;
}

/** The public key of a log seed (32 bytes). */
export function logPublicKey(seed: Uint8Array): Uint8Array {
  return ed25519PublicKey(seed);
}

/**
 * The timestamp (POSIX seconds) of the first cosignature-shaped line (4 + 8 + 64 bytes) by key
 * name `name` in `note`, **without verifying it** — for a log reading its own stored checkpoints
 * (to decide when to re-date one). Undefined when there is none or the note is malformed.
 */
export function unverifiedCosignatureTime(note: string, name: string): number | undefined {
  try {
    for (const s of parseNote(note).signatures) {
      if (s.name === name && s.signature.length === 72) {
        const t = new DataView(s.signature.buffer, s.signature.byteOffset, 8).getBigUint64(0);
        if (t <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(t);
      }
    }
  } catch {
    return undefined;
  }
  return undefined;
}
