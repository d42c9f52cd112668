/**
 * What `install`, `update` and `audit` check against a registry's transparency log
 * (spec/transparency.md §5, §6): the log key pinned on first use, the latest checkpoint (signed,
 * witnessed as configured, consistent with the one this user accepted before, fresh enough), and
 * for each version from an index: its index checkpoint (consistent with the latest, not older than
 * the tree recorded in ctxpkg.lock), the inclusion of its publish entry, of its yank entry, and of
 * its namespace's key entries, and whether its signer key was logged and not revoked when it was
 * published.
 */
import {
  CtxpkgError,
  bytesToHex,
  checkConsistent,
  checkpointFreshness,
  commitmentOf,
  decodeCanonicalBase64,
  describeCheckpoint,
  encodeLogEntry,
  formatLogEntry,
  hexToBytes,
  openCheckpoint,
  parseCheckpoint,
  parseNote,
  parseVerifierKey,
  signerStatusAt,
  tilePath,
  verifyEntryInclusion,
  type CheckpointPolicy,
  type LockLogRecord,
  type LoggedKeyEvent,
  type LogStatement,
  type NoteVerifier,
  type OpenedCheckpoint,
  type SeenCheckpoint,
  type TileFetcher,
} from '@ctxpkg/format';
import type { PackageIndex } from '../client.js';
import type { CliDeps } from '../deps.js';
import type { LogFetcher } from './fetcher.js';
import { readLogState, writeLogState, type LogState } from './state.js';

/** How strict the checks are. */
export interface LogCheckOptions {
  /** A stale checkpoint is an error (`E_LOG_STALE`), not a warning. */
  strict: boolean;
  /** The allowed age of the latest checkpoint, in seconds. */
  maxAgeSeconds: number;
}

/** One registry's log as this run sees it. */
export interface LogView {
  registry: string;
  origin: string;
  policy: CheckpointPolicy;
  latest: OpenedCheckpoint;
  /** Age of the latest checkpoint in seconds (null: undated). */
  age: number | null;
  fetchTile: TileFetcher;
  /** The state to store for this user once the run accepted the view. */
  next: LogState;
  /** True when this run pinned the key (first use). */
  firstUse: boolean;
  /** True when this user had seen a checkpoint of this log before (and `latest` was proven consistent with it). */
  seenBefore: boolean;
}

/** What the log says about one installed version. */
export interface VersionLogResult {
  record: LockLogRecord;
  /** The signer key the log has for the version (what the downloaded package must be signed by). */
  signer: string;
  /** Log index of the `key-add` that made the signer acceptable. */
  keyAddedAt: number;
}

const DURATION = /^([1-9][0-9]{0,6})([smhdw])$/;
const UNIT: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** Parse a maximum age (`90m`, `24h`, `7d`) to seconds. Throws `E_USAGE`. */
export function parseMaxAge(text: string): number {
  const m = DURATION.exec(text.trim());
  if (!m) throw new CtxpkgError('E_USAGE', `a log age must look like 90m, 24h or 7d, got ${JSON.stringify(text)}`);
  return Number(m[1]) * UNIT[m[2]!]!;
}

/** The default allowed age of a checkpoint: 24 hours. */
export const DEFAULT_MAX_AGE_SECONDS = 86_400;

function proofOf(list: unknown, what: string): Uint8Array[] {
  if (!Array.isArray(list) || list.length > 64) throw new CtxpkgError('E_LOG_PROOF', `${what}: the inclusion proof is not a list of hashes`);
  return list.map((p) => {
    const h = typeof p === 'string' ? decodeCanonicalBase64(p) : undefined;
    if (!h || h.length !== 32) throw new CtxpkgError('E_LOG_PROOF', `${what}: an inclusion proof hash is not base64 of 32 bytes`);
    return h;
  });
}

interface LoggedItem {
  index: number;
  proof: Uint8Array[];
  nonce?: string;
}

function itemOf(v: unknown, what: string): LoggedItem {
  const o = v as { index?: unknown; proof?: unknown; nonce?: unknown } | undefined;
  if (!o || typeof o !== 'object' || typeof o.index !== 'number' || !Number.isSafeInteger(o.index) || o.index < 0) {
    throw new CtxpkgError('E_LOG_PROOF', `${what}: no log index`);
  }
  if (o.nonce !== undefined && (typeof o.nonce !== 'string' || !/^[0-9a-f]{64}$/.test(o.nonce))) throw new CtxpkgError('E_LOG_PROOF', `${what}: a bad commitment nonce`);
  return { index: o.index, proof: proofOf(o.proof, what), ...(typeof o.nonce === 'string' ? { nonce: o.nonce } : {}) };
}

/** The leaf bytes a statement is logged as: in clear, or as the commitment the nonce opens. */
function loggedBytes(s: LogStatement, nonce?: string): Uint8Array {
  return nonce === undefined ? encodeLogEntry(s) : encodeLogEntry({ kind: 'commitment', commitment: commitmentOf(formatLogEntry(s), nonce) });
}

function seen(note: string): SeenCheckpoint {
  const cp = parseCheckpoint(parseNote(note).text);
  return { origin: cp.origin, size: cp.size, rootHash: cp.rootHash, note };
}

/** The per-run checker: one view per registry, shared by every package of the run. */
export class LogChecker {
  readonly warnings: string[] = [];
  private readonly views = new Map<string, Promise<LogView | null>>();
  private readonly opened = new Map<string, Promise<OpenedCheckpoint>>();

  constructor(
    private readonly fetcher: LogFetcher,
    private readonly deps: Pick<CliDeps, 'env' | 'homeDir' | 'clock'>,
    private readonly opts: LogCheckOptions,
  ) {}

  /** The registry's log, checked (see module comment); null when it serves none and never did. */
  view(registry: string): Promise<LogView | null> {
    let v = this.views.get(registry);
    if (!v) {
      v = this.load(registry);
      this.views.set(registry, v);
    }
    return v;
  }

  private open(note: string, policy: CheckpointPolicy): Promise<OpenedCheckpoint> {
    const key = `${policy.witnesses?.length ?? 0}\n${note}`;
    let p = this.opened.get(key);
    if (!p) {
      p = openCheckpoint(note, policy);
      this.opened.set(key, p);
    }
    return p;
  }

  private async load(registry: string): Promise<LogView | null> {
    const state = readLogState(this.deps, registry);
    const info = await this.fetcher.info(registry);
    if (!info) {
      if (state) {
        throw new CtxpkgError('E_LOG_INCONSISTENT', `registry ${registry} served a transparency log (${state.origin}) before and serves none now`, {
          hint: 'a registry cannot drop its log; ask its operator. To trust it again without a log, delete your state file for it (see `ctxpkg log status`)',
          details: { registry, origin: state.origin },
        });
      }
      return null;
    }
    const envKey = this.deps.env.CTXPKG_LOG_KEY?.trim();
    const pinned = envKey || state?.key || info.key;
    let logKey: NoteVerifier;
    try {
      logKey = parseVerifierKey(pinned);
    } catch (err) {
      throw new CtxpkgError('E_LOG_KEY', `${envKey ? 'CTXPKG_LOG_KEY' : `the log key of ${registry}`} is not a verifier key: ${(err as Error).message}`);
    }
    if (info.key !== pinned) {
      throw new CtxpkgError('E_LOG_KEY', `registry ${registry} presents log key ${info.key}, but you pinned ${pinned}`, {
        hint: 'the registry changed its log key or is not the registry you used before; confirm with its operator before trusting it',
        details: { registry, pinned, presented: info.key },
      });
    }
    const witnessKeys = [...new Set([...(state?.witnesses ?? []), ...(this.deps.env.CTXPKG_LOG_WITNESSES ?? '').split(',').map((w) => w.trim()).filter(Boolean)])];
    const witnesses = witnessKeys.map((w) => {
      try {
        return parseVerifierKey(w);
      } catch (err) {
        throw new CtxpkgError('E_USAGE', `witness key ${JSON.stringify(w)}: ${(err as Error).message}`);
      }
    });
    const policy: CheckpointPolicy = { origin: logKey.name, logKey: logKey.publicKey, witnesses };
    const fetchTile: TileFetcher = (t) => this.fetcher.tile(registry, tilePath(t));
    const note = await this.fetcher.checkpoint(registry);
    const latest = await this.open(note, policy);
    if (state?.checkpoint) await checkConsistent(seen(state.checkpoint), { ...latest, note }, fetchTile);
    const now = Math.floor(this.deps.clock().getTime() / 1000);
    const fresh = checkpointFreshness(latest.timestamp, now, this.opts.maxAgeSeconds);
    if (fresh.stale) {
      const what = `the transparency log of ${registry} looks frozen: its latest checkpoint (${describeCheckpoint(latest)}) is ${
        fresh.age === null ? 'undated' : `${Math.round(fresh.age / 3600)} h old`
      }, more than the allowed ${Math.round(this.opts.maxAgeSeconds / 3600)} h`;
      if (this.opts.strict) {
        throw new CtxpkgError('E_LOG_STALE', what, {
          hint: 'the registry (or a cache in front of it) may be hiding newer entries; retry later, or raise --log-max-age if the registry is simply idle and not re-signing',
          details: { registry, age_seconds: fresh.age, max_age_seconds: this.opts.maxAgeSeconds },
        });
      }
      this.warnings.push(`freeze warning: ${what} (--strict makes this an error)`);
    }
    return {
      registry,
      origin: logKey.name,
      policy,
      latest,
      age: fresh.age,
      fetchTile,
      firstUse: !state && !envKey,
      seenBefore: Boolean(state?.checkpoint),
      next: { registry, origin: logKey.name, key: pinned, checkpoint: note, witnesses: state?.witnesses ?? [], watch: state?.watch ?? {}, packages: { ...(state?.packages ?? {}) } },
    };
  }

  /**
   * Check `version` of `idx` (an index fetched from `view.registry`) against the log. `recorded`
   * is the package's record in ctxpkg.lock: the index must not be older than its tree (rollback),
   * and when `sameVersion` the publish entry must be the recorded one. Throws `E_LOG_PROOF`,
   * `E_LOG_INCONSISTENT`, `E_LOG_KEY`, `E_SIGNER_UNLOGGED`, `E_SIGNER_REVOKED`.
   */
  async checkVersion(view: LogView, idx: PackageIndex, version: string, lock?: { record: LockLogRecord; sameVersion: boolean }): Promise<VersionLogResult> {
    const recorded = lock?.record;
    const id = `${idx.name}@${version}`;
    const log = idx.log as { checkpoint?: unknown; keys?: unknown } | undefined;
    const entry = idx.versions.find((v) => v.version === version);
    if (!log || typeof log.checkpoint !== 'string' || !entry) {
      throw new CtxpkgError('E_LOG_PROOF', `${id}: registry ${view.registry} keeps a transparency log, but its index of ${idx.name} carries no log data`, {
        hint: 'the registry is not proving what it serves; do not install from it until its operator explains',
      });
    }
    const cp = await this.open(log.checkpoint, { origin: view.policy.origin, logKey: view.policy.logKey });
    const cpSeen = { ...cp, note: log.checkpoint };
    if (cp.size > view.latest.size) {
      throw new CtxpkgError('E_LOG_INCONSISTENT', `${id}: the index is proven against a tree (size ${cp.size}) larger than the registry's latest checkpoint (size ${view.latest.size})`, {
        details: { index_checkpoint: log.checkpoint, latest: view.latest.note },
      });
    }
    await checkConsistent(cpSeen, { ...view.latest }, view.fetchTile);
    const seenBefore = view.next.packages[idx.name];
    if (seenBefore !== undefined && cp.size < seenBefore) {
      throw new CtxpkgError('E_LOG_INCONSISTENT', `${id}: the registry shows an older index of ${idx.name} (proven at tree size ${cp.size}) than you saw before (tree size ${seenBefore}): a rollback of this package`, {
        hint: 'the registry may be hiding a newer state of this package (a yank, a key revocation); do not install from it until its operator explains',
        details: { package: idx.name, seen: seenBefore, served: cp.size, index_checkpoint: log.checkpoint },
      });
    }
    view.next.packages[idx.name] = Math.max(seenBefore ?? 0, cp.size);
    // A log's origin is made with it and never changes (spec/transparency.md §4): a lock that
    // recorded this package in another log is a registry whose log was replaced — every check
    // against the recorded tree would be skipped, so a rollback would pass where the lock is the
    // only anchor (CI with a fresh home; attack pass 3 of 2026-12-07).
    if (recorded && recorded.origin !== view.origin) {
      throw new CtxpkgError('E_LOG_KEY', `${id}: ctxpkg.lock recorded it in the log ${recorded.origin}, but ${view.registry} now serves the log ${view.origin}: the registry's log was replaced`, {
        hint: 'a log is never replaced in normal operation (a restore keeps it); do not install from this registry until its operator explains — if the log was replaced on purpose, delete the "log" member of this package in ctxpkg.lock to record the new one',
        details: { package: id, recorded: recorded.origin, served: view.origin },
      });
    }
    if (recorded) {
      const rec: SeenCheckpoint = { origin: recorded.origin, size: recorded.tree_size, rootHash: hexToBytes(recorded.root_hash, 32, 'E_LOCKFILE', 'log root_hash') };
      if (cp.size < recorded.tree_size) {
        throw new CtxpkgError('E_LOG_INCONSISTENT', `${id}: the registry shows an older index (proven at tree size ${cp.size}) than ctxpkg.lock recorded (tree size ${recorded.tree_size}): a rollback of this package\n  recorded:    ${describeCheckpoint(rec)}\n  now served:  ${describeCheckpoint(cp)}`, {
          hint: 'the registry may be hiding a newer state of this package (a yank, a key revocation); do not install from it until its operator explains',
          details: { package: id, recorded, served: { size: cp.size, root: bytesToHex(cp.rootHash) } },
        });
      }
      await checkConsistent(rec, { ...view.latest }, view.fetchTile);
    }
    const what = `${id} in the log of ${view.registry}`;
    const v = itemOf(entry.log, what);
    if (recorded && lock?.sameVersion && recorded.index !== v.index) {
      throw new CtxpkgError('E_LOG_INCONSISTENT', `${id}: ctxpkg.lock records its publish entry at log index ${recorded.index}, the registry now says ${v.index}`);
    }
    const signer = entry.signer_public_key ?? '';
    const publish: LogStatement = { kind: 'publish', package: idx.name, version, artifact_sha256: entry.artifact_sha256, signer };
    try {
      verifyEntryInclusion(loggedBytes(publish, v.nonce), v.index, v.proof, cp);
    } catch (err) {
      throw new CtxpkgError('E_LOG_PROOF', `${id}: the registry's index does not match its log: artifact ${entry.artifact_sha256} signed by ${signer} is not the publish entry at index ${v.index} (${(err as Error).message})`, {
        hint: 'the registry serves you something it did not log for everyone; do not install it',
        details: { package: id, index: v.index, artifact_sha256: entry.artifact_sha256, signer },
      });
    }
    const yank = (entry.log as { yank?: unknown }).yank;
    if (yank !== undefined) {
      const y = itemOf(yank, `${what} (yank)`);
      const s: LogStatement = { kind: entry.yanked ? 'yank' : 'unyank', package: idx.name, version };
      try {
        verifyEntryInclusion(loggedBytes(s, y.nonce), y.index, y.proof, cp);
      } catch {
        throw new CtxpkgError('E_LOG_PROOF', `${id}: the index says yanked=${entry.yanked}, but its last logged yank entry (index ${y.index}) says otherwise`);
      }
    } else if (entry.yanked) {
      throw new CtxpkgError('E_LOG_PROOF', `${id}: the index says it is yanked, but shows no logged yank entry`);
    }
    const ns = '@' + idx.name.slice(1, idx.name.indexOf('/'));
    const events: LoggedKeyEvent[] = [];
    for (const k of Array.isArray(log.keys) ? log.keys : []) {
      const kk = k as { kind?: unknown; key?: unknown };
      if ((kk.kind !== 'key-add' && kk.kind !== 'key-revoke') || typeof kk.key !== 'string' || !/^[0-9a-f]{64}$/.test(kk.key)) {
        throw new CtxpkgError('E_LOG_PROOF', `${id}: a malformed key entry in the index`);
      }
      const it = itemOf(k, `${ns} key ${kk.key}`);
      verifyEntryInclusion(loggedBytes({ kind: kk.kind, namespace: ns, key: kk.key }, it.nonce), it.index, it.proof, cp);
      events.push({ index: it.index, kind: kk.kind, key: kk.key });
    }
    const verdict = signerStatusAt(events, signer, v.index);
    if (!verdict.ok) {
      if (verdict.reason === 'unlogged') {
        throw new CtxpkgError('E_SIGNER_UNLOGGED', `${id} is signed by key ${signer}, which the log never shows added to ${ns} before the version's publish entry (index ${v.index})`, {
          hint: 'a key that is not in the log was never registered for everyone to see; --accept-new-key does not override this. Ask the namespace owner to add the key (`ctxpkg registry key add`)',
          details: { package: id, signer, publish_index: v.index },
        });
      }
      throw new CtxpkgError('E_SIGNER_REVOKED', `${id} is signed by key ${signer}, which was revoked for ${ns} at log index ${verdict.revokedAt}, before the version's publish entry (index ${v.index})`, {
        hint: 'a version signed by a revoked key is refused; --accept-new-key does not override this',
        details: { package: id, signer, revoked_at: verdict.revokedAt, publish_index: v.index },
      });
    }
    return { record: { index: v.index, origin: view.origin, tree_size: cp.size, root_hash: bytesToHex(cp.rootHash) }, signer, keyAddedAt: verdict.addedAt };
  }

  /** Store, for this user, every registry view this run accepted (the latest checkpoints). */
  async save(): Promise<void> {
    for (const p of this.views.values()) {
      const v = await p.catch(() => null);
      if (!v) continue;
      // Keep the larger of what another process stored meanwhile and this run's checkpoint.
      const now = readLogState(this.deps, v.registry);
      const stored = now?.checkpoint ? seen(now.checkpoint) : undefined;
      const next = stored && stored.size > v.latest.size ? { ...v.next, checkpoint: now!.checkpoint } : v.next;
      const packages = { ...next.packages };
      for (const [k, n] of Object.entries(now?.packages ?? {})) packages[k] = Math.max(packages[k] ?? 0, n);
      writeLogState(this.deps, { ...next, witnesses: now?.witnesses ?? next.witnesses, watch: { ...next.watch, ...(now?.watch ?? {}) }, packages });
    }
  }
}
