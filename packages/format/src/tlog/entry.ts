/**
 * The entries of a ctxpkg registry's transparency log (spec/transparency.md §3).
 *
 * An entry is two lines of ASCII: the format tag `ctxpkg-log v1` and one statement, its fields
 * separated by single spaces (names, versions and hex never contain spaces):
 *
 *   publish @ns/name <version> <artifact sha256> <signer public key>
 *   yank @ns/name <version>            unyank @ns/name <version>
 *   key-add @ns <public key>           key-revoke @ns <public key>
 *   visibility @ns/name public|private
 *   commitment <hmac>                  (a statement about a private package, hidden)
 *
 * A statement about a private package is logged as a commitment
 * `HMAC-SHA256(key = nonce, statement entry)`, where the 32-byte nonce is
 * `HMAC-SHA256(key = the namespace's secret, "ctxpkg-log-nonce v1\n" ‖ index ‖ "\n" ‖ entry)`:
 * readers of the public log learn that some private change happened, not which; a reader who may
 * see the package is given the opening (the entry and its nonce) and checks it against the leaf.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { CtxpkgError } from '../errors.js';
import { utf8 } from '../hash.js';
import { bytesToHex, hexToBytes, isLowerHex } from '../hex.js';
import { isValidVersion, parsePackageName, validateNamespaceClaim } from '../names.js';

/** The first line of every entry. */
export const LOG_ENTRY_TAG = 'ctxpkg-log v1';

/** A statement a consumer relies on, in clear. */
export type LogStatement =
  | { kind: 'publish'; package: string; version: string; artifact_sha256: string; signer: string }
  | { kind: 'yank'; package: string; version: string }
  | { kind: 'unyank'; package: string; version: string }
  | { kind: 'key-add'; namespace: string; key: string }
  | { kind: 'key-revoke'; namespace: string; key: string }
  | { kind: 'visibility'; package: string; visibility: 'public' | 'private' };

/** What the log holds: a statement in clear, or a commitment to one about a private package. */
export type LogEntry = LogStatement | { kind: 'commitment'; commitment: string };

/** The opening of a commitment: the statement's entry text and the nonce (64 lowercase hex). */
export interface CommitmentOpening {
  entry: string;
  nonce: string;
}

function entryError(message: string): CtxpkgError {
  return new CtxpkgError('E_LOG_PROOF', `malformed log entry: ${message}`);
}

function checkPackage(p: string): void {
  parsePackageName(p);
}

function checkNamespace(ns: string): void {
  if (!ns.startsWith('@')) throw entryError(`namespace ${JSON.stringify(ns)} must start with "@"`);
  try {
    validateNamespaceClaim(ns.slice(1));
  } catch (e) {
    // Reserved names are refused when claimed, not here: only the syntax matters in the log.
    if (!(e instanceof CtxpkgError) || e.code !== 'E_RESERVED_NAMESPACE') throw e;
  }
}

function checkHex(h: string, what: string): void {
  if (!isLowerHex(h, 64)) throw entryError(`${what} must be 64 lowercase hex characters`);
}

function checkVersion(v: string): void {
  if (!isValidVersion(v)) throw entryError(`invalid version ${JSON.stringify(v.slice(0, 80))}`);
}

/** The fields of a statement in order (validated). Throws `E_INVALID_NAME`, `E_LOG_PROOF`. */
function fields(e: LogEntry): string[] {
  switch (e.kind) {
    case 'publish':
      checkPackage(e.package);
      checkVersion(e.version);
      checkHex(e.artifact_sha256, 'artifact sha256');
      checkHex(e.signer, 'signer key');
      return [e.package, e.version, e.artifact_sha256, e.signer];
    case 'yank':
    case 'unyank':
      checkPackage(e.package);
      checkVersion(e.version);
      return [e.package, e.version];
    case 'key-add':
    case 'key-revoke':
      checkNamespace(e.namespace);
      checkHex(e.key, 'signer key');
      return [e.namespace, e.key];
    case 'visibility':
      checkPackage(e.package);
      if (e.visibility !== 'public' && e.visibility !== 'private') throw entryError('visibility must be public or private');
      return [e.package, e.visibility];
    case 'commitment':
      checkHex(e.commitment, 'commitment');
      return [e.commitment];
    default:
      throw entryError(`unknown kind ${JSON.stringify((e as { kind: unknown }).kind)}`);
  }
}

/** The entry text (`ctxpkg-log v1\n<kind> <fields…>\n`). Throws for invalid fields. */
export function formatLogEntry(e: LogEntry): string {
  return `${LOG_ENTRY_TAG}\n${[e.kind, ...fields(e)].join(' ')}\n`;
}

/** The entry bytes (ASCII) that the log hashes as a leaf. */
export function encodeLogEntry(e: LogEntry): Uint8Array {
  return utf8(formatLogEntry(e));
}

const ARITY: Record<string, number> = { publish: 4, yank: 2, unyank: 2, 'key-add': 2, 'key-revoke': 2, visibility: 2, commitment: 1 };

/**
 * Parse entry bytes or text. Throws `E_LOG_PROOF` (malformed) or `E_INVALID_NAME` (a name field).
 * The parse is exact: `formatLogEntry(parseLogEntry(x))` is `x`.
 */
export function parseLogEntry(entry: Uint8Array | string): LogEntry {
  const text = typeof entry === 'string' ? entry : new TextDecoder().decode(entry);
  if (text.length > 1024) throw entryError('longer than 1024 characters');
  const lines = text.split('\n');
  if (lines.length !== 3 || lines[0] !== LOG_ENTRY_TAG || lines[2] !== '') throw entryError(`expected "${LOG_ENTRY_TAG}" and one statement line`);
  const parts = lines[1]!.split(' ');
  const kind = parts[0]!;
  const n = ARITY[kind];
  if (n === undefined || parts.length !== n + 1) throw entryError(`unknown statement ${JSON.stringify(lines[1]!.slice(0, 80))}`);
  const f = parts.slice(1);
  let e: LogEntry;
  switch (kind) {
    case 'publish':
      e = { kind, package: f[0]!, version: f[1]!, artifact_sha256: f[2]!, signer: f[3]! };
      break;
    case 'yank':
    case 'unyank':
      e = { kind, package: f[0]!, version: f[1]! };
      break;
    case 'key-add':
    case 'key-revoke':
      e = { kind, namespace: f[0]!, key: f[1]! };
      break;
    case 'visibility':
      e = { kind, package: f[0]!, visibility: f[1] as 'public' | 'private' };
      break;
    default:
      e = { kind: 'commitment', commitment: f[0]! };
  }
  if (formatLogEntry(e) !== text) throw entryError('not in canonical form');
  return e;
}

/** The namespace (`@ns`) a statement is about. */
export function statementNamespace(s: LogStatement): string {
  return 'namespace' in s ? s.namespace : '@' + parsePackageName(s.package).namespace;
}

const NONCE_LABEL = 'ctxpkg-log-nonce v1\n';

/**
 * The nonce of the commitment at log `index` to `entry` (the statement's entry text):
 * `HMAC-SHA256(secret, "ctxpkg-log-nonce v1\n" ‖ index ‖ "\n" ‖ entry)`, 64 lowercase hex.
 * `secret` is the namespace's 32-byte log secret, kept by the registry. Including the index makes
 * two equal statements (yank, unyank, yank) commit to different values.
 */
export function commitmentNonce(secret: Uint8Array, index: number, entry: string): string {
  if (secret.length < 32) throw new CtxpkgError('E_USAGE', 'a namespace log secret is at least 32 bytes');
  return bytesToHex(hmac(sha256, secret, utf8(`${NONCE_LABEL}${index}\n${entry}`)));
}

/** The commitment to `entry` under `nonce` (64 hex): `HMAC-SHA256(nonce, entry)`, 64 lowercase hex. */
export function commitmentOf(entry: string, nonce: string): string {
  return bytesToHex(hmac(sha256, hexToBytes(nonce, 32, 'E_LOG_PROOF', 'commitment nonce'), utf8(entry)));
}

/**
 * Open a commitment entry: the statement inside `opening`, after checking that it is well-formed
 * and that `HMAC(nonce, entry)` is the logged commitment. Throws `E_LOG_PROOF` when it is not.
 */
export function openCommitment(logged: LogEntry, opening: CommitmentOpening): LogStatement {
  if (logged.kind !== 'commitment') throw entryError('the logged entry is not a commitment');
  const statement = parseLogEntry(opening.entry);
  if (statement.kind === 'commitment') throw entryError('a commitment cannot open to another commitment');
  if (!isLowerHex(opening.nonce, 64) || commitmentOf(opening.entry, opening.nonce) !== logged.commitment) {
    throw new CtxpkgError('E_LOG_PROOF', 'the opening does not match the logged commitment');
  }
  return statement;
}

/**
 * The entry a registry logs for `statement`: the statement itself, or — when `secret` is given
 * (a private package) — a commitment to it at `index`, with its opening.
 */
export function logEntryFor(statement: LogStatement, index: number, secret?: Uint8Array): { entry: string; opening?: CommitmentOpening } {
  const clear = formatLogEntry(statement);
  if (!secret) return { entry: clear };
  const nonce = commitmentNonce(secret, index, clear);
  return { entry: formatLogEntry({ kind: 'commitment', commitment: commitmentOf(clear, nonce) }), opening: { entry: clear, nonce } };
}
