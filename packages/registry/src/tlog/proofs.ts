/**
 * Proofs from the store's stored hashes, and the log members of a package's index document
 * (spec/transparency.md §4): the checkpoint of the package's last change, an inclusion proof for
 * each version's publish entry and last yank entry, and the namespace's logged keys.
 */
import { encodeBase64, inclusionProof, type SubtreeReader } from '@ctxpkg/format';
import type { LogEntryRecord, LogStore, VersionRecord } from '../store/types.js';

/**
 * Run `compute` over the log's stored hashes: one pass records the subtrees it reads, one batched
 * read fetches them, a second pass computes. Throws what `compute` or the store throws.
 */
export async function withStoredHashes<T>(log: LogStore, compute: (read: SubtreeReader) => T): Promise<T> {
  const wanted = new Map<string, { level: number; index: number }>();
  const zero = new Uint8Array(32);
  compute((level, index) => {
    wanted.set(`${level}/${index}`, { level, index });
    return zero;
  });
  const list = [...wanted.values()];
  const hashes = await log.nodes(list);
  const got = new Map(list.map((n, i) => [`${n.level}/${n.index}`, hashes[i]!]));
  return compute((level, index) => got.get(`${level}/${index}`)!);
}

/** One logged item in an index document: its index, inclusion proof (base64) and, for a commitment, its nonce. */
export interface IndexLogItem {
  index: number;
  proof: string[];
  nonce?: string;
}

/** The `log` member of a version entry. */
export interface IndexVersionLog extends IndexLogItem {
  yank?: IndexLogItem;
}

/** The `log` member of an index document. */
export interface IndexLog {
  origin: string;
  checkpoint: string;
  keys: Array<{ kind: 'key-add' | 'key-revoke'; key: string } & IndexLogItem>;
}

/** The log members of one package's index document; null when the log holds nothing about it. */
export async function packageIndexLog(
  log: LogStore,
  namespace: string,
  name: string,
): Promise<{ log: IndexLog; versions: Map<string, IndexVersionLog>; yanks: Map<string, 'yank' | 'unyank'> } | null> {
  const entries = await log.packageEntries(namespace, name);
  if (!entries.some((e) => e.name !== null)) return null;
  const head = Math.max(...entries.map((e) => e.tree_size));
  const cp = await log.checkpoint(head);
  if (!cp) return null;
  const publishes = new Map<string, LogEntryRecord>();
  const yanks = new Map<string, LogEntryRecord>();
  const keys: LogEntryRecord[] = [];
  for (const e of entries) {
    if (e.kind === 'publish' && e.version !== null && !publishes.has(e.version)) publishes.set(e.version, e);
    else if ((e.kind === 'yank' || e.kind === 'unyank') && e.version !== null) yanks.set(e.version, e);
    else if (e.kind === 'key-add' || e.kind === 'key-revoke') keys.push(e);
  }
  const items = [...publishes.values(), ...yanks.values(), ...keys];
  const proofs = await withStoredHashes(log, (read) => new Map(items.map((e) => [e.index, inclusionProof(e.index, head, read)])));
  const item = (e: LogEntryRecord): IndexLogItem => ({
    index: e.index,
    proof: proofs.get(e.index)!.map(encodeBase64),
    ...(e.opening ? { nonce: e.opening.nonce } : {}),
  });
  const versions = new Map<string, IndexVersionLog>();
  for (const [v, e] of publishes) {
    const y = yanks.get(v);
    versions.set(v, { ...item(e), ...(y ? { yank: item(y) } : {}) });
  }
  const lines = await log.cosignatures(head);
  return {
    log: {
      origin: (await log.signer()).origin,
      checkpoint: cp.note + lines.map((l) => l + '\n').join(''),
      keys: keys.map((e) => {
        const key = new TextDecoder().decode(e.entry).trimEnd().split(' ').pop()!;
        return { kind: e.kind as 'key-add' | 'key-revoke', key, ...item(e) };
      }),
    },
    versions,
    yanks: new Map([...yanks].map(([v, e]) => [v, e.kind as 'yank' | 'unyank'])),
  };
}

/**
 * A package's versions and its log members read so that they agree: every version has its publish
 * entry and its yank flag equals its last yank entry. The two are separate reads, so a change
 * committed between them (by any node) is caught and both are read again (at most 5 times).
 */
export async function consistentIndexParts(
  store: { listVersions(ns: string, name: string): Promise<VersionRecord[]>; log: LogStore },
  namespace: string,
  name: string,
): Promise<[VersionRecord[], Awaited<ReturnType<typeof packageIndexLog>>]> {
  for (let attempt = 0; ; attempt++) {
    const versions = await store.listVersions(namespace, name);
    const log = await packageIndexLog(store.log, namespace, name);
    const agree =
      log === null ||
      versions.every((v) => {
        const l = log.versions.get(v.version);
        if (!l) return false;
        const lastYank = log.yanks.get(v.version);
        return (lastYank === 'yank') === v.yanked;
      });
    if (agree || attempt >= 4) return [versions, log];
  }
}
