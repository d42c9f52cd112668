/**
 * Planning one append to the registry's transparency log (spec/transparency.md §2, §3), shared by
 * both store backends: given the log's state (origin, key seed, size, frontier) and the changes a
 * transaction makes, compute the entries to insert (a commitment for a private package, §9), the
 * complete-subtree hashes the append creates, and the signed checkpoint of the new tree. Pure:
 * the backend reads the state and writes the result inside the transaction of the change.
 */
import {
  appendLeaves,
  leafHash,
  logEntryFor,
  parsePackageName,
  signCheckpoint,
  utf8,
  type LogStatement,
  type StoredSubtree,
} from '@ctxpkg/format';

/** One state change to log: the statement, and whether its package is private after the change. */
export interface LogChange {
  statement: LogStatement;
  private: boolean;
}

/** What the log is before an append (read inside the transaction). */
export interface LogState {
  origin: string;
  /** The log key's 32-byte Ed25519 seed. */
  seed: Uint8Array;
  size: number;
  /** The frontier hashes of the tree of `size` (`frontierNodes(size)` order). */
  frontier: Uint8Array[];
}

/** One row of `tlog_entries`. */
export interface LogEntryRow {
  idx: number;
  /** The logged bytes (the leaf input). */
  entry: Uint8Array;
  namespace: string;
  /** Package name without the namespace; null for key statements. */
  package: string | null;
  version: string | null;
  /** The statement kind (also for a commitment: the registry knows what it committed to). */
  kind: LogStatement['kind'];
  /** For a commitment: the statement entry text and its nonce (the opening). */
  clear: string | null;
  nonce: string | null;
  /** The tree size after the transaction that appended it. */
  tree_size: number;
  at: string;
}

/** The result of `planAppend`: rows and hashes to insert, the new size, root and checkpoint note. */
export interface PlannedAppend {
  rows: LogEntryRow[];
  hashes: StoredSubtree[];
  size: number;
  root: Uint8Array;
  note: string;
}

/** POSIX seconds of an RFC 3339 time (the checkpoint's dated cosignature). */
export function posixSeconds(at: string): number {
  const t = Date.parse(at);
  return Number.isFinite(t) ? Math.floor(t / 1000) : 0;
}

/** Where a statement belongs: namespace (without `@`), package name, version. */
export function statementTarget(s: LogStatement): { namespace: string; package: string | null; version: string | null } {
  if ('namespace' in s) return { namespace: s.namespace.slice(1), package: null, version: null };
  const p = parsePackageName(s.package);
  return { namespace: p.namespace, package: p.name, version: 'version' in s ? s.version : null };
}

/**
 * Plan the append of `changes` at time `at`. `secretOf(namespace)` gives the 32-byte log secret of
 * a namespace with a private change (the backend loads or creates it first).
 */
export function planAppend(state: LogState, changes: readonly LogChange[], secretOf: (namespace: string) => Uint8Array, at: string): PlannedAppend {
  const size = state.size + changes.length;
  const rows: LogEntryRow[] = changes.map((c, i) => {
    const idx = state.size + i;
    const target = statementTarget(c.statement);
    const { entry, opening } = logEntryFor(c.statement, idx, c.private ? secretOf(target.namespace) : undefined);
    return {
      idx,
      entry: utf8(entry),
      ...target,
      kind: c.statement.kind,
      clear: opening?.entry ?? null,
      nonce: opening?.nonce ?? null,
      tree_size: size,
      at,
    };
  });
  const appended = appendLeaves(state.size, state.frontier, rows.map((r) => leafHash(r.entry)));
  const note = signCheckpoint({ origin: state.origin, size, rootHash: appended.root, extensions: [] }, state.seed, posixSeconds(at));
  return { rows, hashes: appended.stored, size, root: appended.root, note };
}

/** The default origin of a new log: `CTXPKG_REGISTRY_LOG_ORIGIN`, else `ctxpkg-registry/<16 random hex>`. */
export function newLogOrigin(env: Record<string, string | undefined>, random: Uint8Array): string {
  const o = env.CTXPKG_REGISTRY_LOG_ORIGIN?.trim();
  if (o) return o;
  return `ctxpkg-registry/${[...random.subarray(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** The current state a new log starts by logging (spec/transparency.md §2), from the store's rows. */
export interface BackfillInput {
  keys: Array<{ namespace: string; public_key: string; added_at: string; revoked_at: string | null }>;
  versions: Array<{ namespace: string; name: string; version: string; artifact_sha256: string; signer_public_key: string; published_at: string; yanked: boolean; private: boolean }>;
}

/** The changes that log `input`: keys (added, then revoked), versions by publication time, then yank flags. */
export function backfillChanges(input: BackfillInput): LogChange[] {
  const by = <T>(f: (x: T) => string) => (a: T, b: T) => (f(a) < f(b) ? -1 : f(a) > f(b) ? 1 : 0);
  const keys = [...input.keys].sort(by((k) => `${k.added_at}\u0000${k.namespace}\u0000${k.public_key}`));
  const versions = [...input.versions].sort(by((v) => `${v.published_at}\u0000${v.namespace}\u0000${v.name}\u0000${v.version}`));
  const out: LogChange[] = [];
  for (const k of keys) out.push({ statement: { kind: 'key-add', namespace: `@${k.namespace}`, key: k.public_key }, private: false });
  for (const k of keys) if (k.revoked_at !== null) out.push({ statement: { kind: 'key-revoke', namespace: `@${k.namespace}`, key: k.public_key }, private: false });
  for (const v of versions) {
    out.push({
      statement: { kind: 'publish', package: `@${v.namespace}/${v.name}`, version: v.version, artifact_sha256: v.artifact_sha256, signer: v.signer_public_key },
      private: v.private,
    });
  }
  for (const v of versions) if (v.yanked) out.push({ statement: { kind: 'yank', package: `@${v.namespace}/${v.name}`, version: v.version }, private: v.private });
  return out;
}
