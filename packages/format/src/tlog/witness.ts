/**
 * The witness side and the request format of c2sp.org/tlog-witness `add-checkpoint`, as pure
 * functions: a log submits its new checkpoint with a consistency proof from the size the witness
 * last cosigned; the witness checks the log signature and the proof and answers timestamped
 * Ed25519 cosignature lines (c2sp.org/tlog-cosignature). Persisting the witness state atomically
 * (check old size, store new) is the caller's job.
 */
import { encodeBase64 } from '../archive/bundle-blobs.js';
import { decodeCanonicalBase64 } from '../documents.js';
import { CtxpkgError } from '../errors.js';
import { bytesToHex } from '../hex.js';
import { openCheckpoint } from './checkpoint.js';
import { EMPTY_TREE_HASH, HASH_SIZE, hashesEqual, verifyConsistency } from './merkle.js';
import { SIG_COSIGNATURE_V1, signatureLine, type NoteSigner } from './note.js';

/** The most consistency proof lines a request may carry (tlog-witness). */
export const MAX_WITNESS_PROOF_LINES = 63;

/** A parsed add-checkpoint request. */
export interface AddCheckpointRequest {
  oldSize: number;
  proof: Uint8Array[];
  /** The checkpoint note with its signatures. */
  checkpoint: string;
}

/** The request body: `old N`, proof lines (base64), a blank line, the checkpoint note. */
export function formatAddCheckpoint(req: AddCheckpointRequest): string {
  return `old ${req.oldSize}\n${req.proof.map((p) => encodeBase64(p) + '\n').join('')}\n${req.checkpoint}`;
}

/** Parse a request body. Throws `E_NOTE` when malformed (HTTP 400). */
export function parseAddCheckpoint(body: string): AddCheckpointRequest {
  const blank = body.indexOf('\n\n');
  if (blank < 0) throw new CtxpkgError('E_NOTE', 'add-checkpoint: missing the blank line before the checkpoint');
  const head = body.slice(0, blank).split('\n');
  const m = /^old (0|[1-9][0-9]{0,15})$/.exec(head[0] ?? '');
  if (!m || !Number.isSafeInteger(Number(m[1]))) throw new CtxpkgError('E_NOTE', 'add-checkpoint: the first line must be "old <size>"');
  const lines = head.slice(1);
  if (lines.length > MAX_WITNESS_PROOF_LINES) throw new CtxpkgError('E_NOTE', `add-checkpoint: at most ${MAX_WITNESS_PROOF_LINES} proof lines`);
  const proof = lines.map((l) => {
    const h = decodeCanonicalBase64(l);
    if (!h || h.length !== HASH_SIZE) throw new CtxpkgError('E_NOTE', 'add-checkpoint: a proof line is not base64 of a 32-byte hash');
    return h;
  });
  return { oldSize: Number(m[1]), proof, checkpoint: body.slice(blank + 2) };
}

/** What a witness remembers per log: the latest tree it cosigned. */
export interface WitnessTree {
  size: number;
  rootHash: Uint8Array;
}

/** A witness's answer: an HTTP status, a body and content type, and the state to persist on 200. */
export interface WitnessAnswer {
  status: 200 | 400 | 403 | 404 | 409 | 422;
  body: string;
  contentType: string;
  /** Present on 200: the tree the witness must record before answering. */
  next?: WitnessTree & { origin: string };
}

/**
 * Decide an add-checkpoint request (tlog-witness "add-checkpoint"). `logs` maps each known origin
 * to its Ed25519 log key; `last(origin)` is the tree the witness last cosigned (null: never);
 * `signer` is the witness's cosignature key (type 0x04); `now` POSIX seconds. Never throws for
 * bad input: every refusal is an answer with the status the spec names.
 */
export async function witnessAddCheckpoint(
  body: string,
  opts: { logs: ReadonlyMap<string, Uint8Array>; last: (origin: string) => WitnessTree | null; signer: NoteSigner; now: number },
): Promise<WitnessAnswer> {
  const text = (status: WitnessAnswer['status'], msg: string): WitnessAnswer => ({ status, body: msg + '\n', contentType: 'text/plain; charset=utf-8' });
  let req: AddCheckpointRequest;
  try {
    req = parseAddCheckpoint(body);
  } catch (e) {
    return text(400, (e as Error).message);
  }
  const origin = req.checkpoint.slice(0, Math.max(0, req.checkpoint.indexOf('\n')));
  const logKey = opts.logs.get(origin);
  if (!logKey) return text(404, `unknown log origin ${JSON.stringify(origin)}`);
  let cp;
  try {
    cp = await openCheckpoint(req.checkpoint, { origin, logKey });
  } catch (e) {
    const code = e instanceof CtxpkgError ? e.code : '';
    return text(code === 'E_NOTE' ? 400 : 403, (e as Error).message);
  }
  if (req.oldSize > cp.size) return text(400, `old size ${req.oldSize} is above the checkpoint size ${cp.size}`);
  const prev = opts.last(origin) ?? { size: 0, rootHash: EMPTY_TREE_HASH };
  if (req.oldSize !== prev.size) return { status: 409, body: `${prev.size}\n`, contentType: 'text/x.tlog.size' };
  if (cp.size === 0 && !hashesEqual(cp.rootHash, EMPTY_TREE_HASH)) return text(422, 'a checkpoint of size 0 must have the empty tree hash');
  try {
    verifyConsistency(prev.size, cp.size, prev.rootHash, cp.rootHash, req.proof);
  } catch (e) {
    return text(422, `not consistent with the cosigned tree of size ${prev.size} (${bytesToHex(prev.rootHash)}): ${(e as Error).message}`);
  }
  if (opts.signer.type !== SIG_COSIGNATURE_V1) throw new CtxpkgError('E_USAGE', 'a witness signs with a cosignature key (type 0x04)');
  const line = signatureLine(cp.text, opts.signer, opts.now);
  return { status: 200, body: line + '\n', contentType: 'text/plain; charset=utf-8', next: { origin, size: cp.size, rootHash: cp.rootHash } };
}
