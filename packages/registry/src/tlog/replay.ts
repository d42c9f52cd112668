/**
 * `ctxpkg registry log verify` (spec/transparency.md §7): replay the whole log against the
 * database and the blobs. Every entry is parsed (commitments opened with the namespace secret and
 * their nonce recomputed), every stored hash and every checkpoint recomputed from the entries (and
 * each checkpoint's signature checked), and the state the log describes compared with the
 * database: one publish entry per version with its artifact hash and signer, the yank flags, the
 * signer keysets, the visibility, and every artifact blob present and hashing right.
 */
import {
  appendLeaves,
  bytesToHex,
  commitmentNonce,
  frontierNodes,
  hexToBytes,
  keysetAt,
  leafHash,
  openCheckpoint,
  openCommitment,
  parseLogEntry,
  statementNamespace,
  type LogEntry,
  type LogStatement,
  type LoggedKeyEvent,
} from '@ctxpkg/format';
import type { LogEntryRecord, RegistryStore } from '../store/types.js';

/** What `verifyRegistryLog` found. `problems` is empty when the log and the database agree. */
export interface LogVerifyReport {
  origin: string;
  size: number;
  checkpoints: number;
  versions: number;
  problems: string[];
}

const BATCH = 1024;

function statementOf(e: LogEntryRecord, logged: LogEntry, secret: Uint8Array | null, problems: string[]): LogStatement | undefined {
  if (logged.kind !== 'commitment') {
    if (e.opening) problems.push(`entry ${e.index}: a statement in clear carries an opening`);
    return logged;
  }
  if (!e.opening) {
    problems.push(`entry ${e.index}: a commitment without its opening`);
    return undefined;
  }
  try {
    const s = openCommitment(logged, e.opening);
    if (!secret) problems.push(`entry ${e.index}: the namespace ${e.namespace} has no commitment secret`);
    else if (commitmentNonce(secret, e.index, e.opening.entry) !== e.opening.nonce) problems.push(`entry ${e.index}: the nonce is not the one the namespace secret gives`);
    return s;
  } catch (err) {
    problems.push(`entry ${e.index}: ${(err as Error).message}`);
    return undefined;
  }
}

/** Replay and compare (see module comment). Reads only; never throws for a disagreement. */
export async function verifyRegistryLog(store: RegistryStore): Promise<LogVerifyReport> {
  const log = store.log;
  const info = await log.info();
  const problems: string[] = [];
  const secrets = new Map<string, Uint8Array | null>();
  const secretOf = async (ns: string) => {
    if (!secrets.has(ns)) secrets.set(ns, await log.secret(ns));
    return secrets.get(ns)!;
  };
  const publishes = new Map<string, { index: number; artifact: string; signer: string; private: boolean }>();
  const yanks = new Map<string, boolean>();
  const visibility = new Map<string, 'public' | 'private'>();
  const keyEvents = new Map<string, LoggedKeyEvent[]>();
  const checkpointSizes = new Set<number>([0]);

  let size = 0;
  let frontier: Uint8Array[] = [];
  const checkpointRoots = new Map<number, Uint8Array>();
  checkpointRoots.set(0, appendLeaves(0, [], []).root);
  for (let start = 0; start < info.size; start += BATCH) {
    const batch = await log.entries(start, BATCH);
    if (batch.length === 0) break;
    // Leaves and stored hashes, one transaction group (same tree_size) at a time, for the roots.
    const stored: Array<{ level: number; index: number; hash: Uint8Array }> = [];
    let i = 0;
    while (i < batch.length) {
      let j = i;
      while (j < batch.length && batch[j]!.tree_size === batch[i]!.tree_size) j++;
      const group = batch.slice(i, j);
      group.forEach((e, k) => {
        if (e.index !== size + k) problems.push(`entry ${size + k} is missing (found ${e.index})`);
      });
      const r = appendLeaves(size, frontier, group.map((e) => leafHash(e.entry)));
      stored.push(...r.stored);
      size = r.size;
      frontier = r.frontier;
      if (group[group.length - 1]!.tree_size === size) checkpointRoots.set(size, r.root);
      checkpointSizes.add(group[0]!.tree_size);
      i = j;
    }
    const byLevel = new Map<number, Array<{ index: number; hash: Uint8Array }>>();
    for (const s of stored) (byLevel.get(s.level) ?? byLevel.set(s.level, []).get(s.level)!).push(s);
    for (const [level, list] of byLevel) {
      const first = list[0]!.index;
      const have = await log.hashRange(level, first, list[list.length - 1]!.index - first + 1);
      for (const s of list) {
        const h = have[s.index - first];
        if (!h || bytesToHex(h) !== bytesToHex(s.hash)) problems.push(`stored hash ${level}/${s.index} does not match the entries`);
      }
    }
    for (const e of batch) {
      let logged: LogEntry;
      try {
        logged = parseLogEntry(e.entry);
      } catch (err) {
        problems.push(`entry ${e.index}: ${(err as Error).message}`);
        continue;
      }
      const s = statementOf(e, logged, logged.kind === 'commitment' ? await secretOf(e.namespace) : null, problems);
      if (!s) continue;
      if (s.kind !== e.kind || statementNamespace(s) !== `@${e.namespace}`) problems.push(`entry ${e.index}: the row says ${e.kind} in @${e.namespace}, the entry ${s.kind} in ${statementNamespace(s)}`);
      const isPrivate = logged.kind === 'commitment';
      if (s.kind === 'publish') {
        const id = `${s.package}@${s.version}`;
        if (publishes.has(id)) problems.push(`entry ${e.index}: ${id} is published twice`);
        publishes.set(id, { index: e.index, artifact: s.artifact_sha256, signer: s.signer, private: isPrivate });
        if (!visibility.has(s.package)) visibility.set(s.package, isPrivate ? 'private' : 'public');
      } else if (s.kind === 'yank' || s.kind === 'unyank') yanks.set(`${s.package}@${s.version}`, s.kind === 'yank');
      else if (s.kind === 'visibility') visibility.set(s.package, s.visibility);
      else {
        const list = keyEvents.get(s.namespace) ?? [];
        list.push({ index: e.index, kind: s.kind, key: s.key });
        keyEvents.set(s.namespace, list);
      }
    }
  }
  if (size !== info.size) problems.push(`the log says size ${info.size} but holds ${size} entries`);
  if (frontierNodes(size).length !== frontier.length) problems.push('the frontier does not match the size');

  // Checkpoints: the root of every size a transaction ended at, signed by the log key.
  const policy = { origin: info.origin, logKey: hexToBytes(info.public_key) };
  let checkpoints = 0;
  for (const s of [...checkpointSizes].sort((a, b) => a - b)) {
    const cp = await log.checkpoint(s);
    if (!cp) {
      problems.push(`no checkpoint for tree size ${s}`);
      continue;
    }
    checkpoints++;
    const want = checkpointRoots.get(s);
    if (!want || bytesToHex(want) !== bytesToHex(cp.root)) problems.push(`the checkpoint of size ${s} has another root than the entries give`);
    try {
      const o = await openCheckpoint(cp.note, policy);
      if (o.size !== s || bytesToHex(o.rootHash) !== bytesToHex(cp.root)) problems.push(`the signed checkpoint of size ${s} says size ${o.size} root ${bytesToHex(o.rootHash)}`);
    } catch (err) {
      problems.push(`the checkpoint of size ${s}: ${(err as Error).message}`);
    }
  }

  // The database against the log.
  let versions = 0;
  const namespaces = (await store.listNamespaces()).map((n) => n.name);
  const seen = new Set<string>();
  for (const ns of namespaces) {
    const active = (await store.listSignerKeys(ns)).filter((k) => k.revoked_at === null).map((k) => k.public_key).sort();
    const logged = keysetAt(keyEvents.get(`@${ns}`) ?? [], Number.MAX_SAFE_INTEGER);
    if (active.join() !== logged.join()) problems.push(`@${ns}: the database's active keys [${active.join(', ')}] differ from the logged keyset [${logged.join(', ')}]`);
    let after: string | undefined;
    for (;;) {
      const page = await store.catalog({ namespaces }, { limit: 500, ...(after ? { after } : {}) });
      for (const p of page.filter((x) => x.namespace === ns)) {
        const full = `@${p.namespace}/${p.name}`;
        if (visibility.get(full) !== p.visibility) problems.push(`${full}: visibility is ${p.visibility}, the log says ${visibility.get(full) ?? 'nothing'}`);
        for (const v of await store.listVersions(p.namespace, p.name)) {
          versions++;
          const id = `${full}@${v.version}`;
          seen.add(id);
          const pub = publishes.get(id);
          if (!pub) problems.push(`${id} has no publish entry`);
          else if (pub.artifact !== v.artifact_sha256 || pub.signer !== v.signer_public_key) problems.push(`${id}: the database's artifact or signer differs from entry ${pub.index}`);
          if ((yanks.get(id) ?? false) !== v.yanked) problems.push(`${id}: yanked is ${v.yanked}, the log says ${yanks.get(id) ?? false}`);
          try {
            if (!(await store.readBlob(v.artifact_sha256))) problems.push(`${id}: artifact blob ${v.artifact_sha256} is missing`);
          } catch (err) {
            problems.push(`${id}: ${(err as Error).message}`);
          }
        }
      }
      if (page.length < 500) break;
      after = `@${page[page.length - 1]!.namespace}/${page[page.length - 1]!.name}`;
    }
  }
  for (const id of publishes.keys()) if (!seen.has(id)) problems.push(`${id} is logged as published but is not in the database`);
  return { origin: info.origin, size, checkpoints, versions, problems };
}
