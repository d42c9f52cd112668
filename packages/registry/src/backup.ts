/**
 * Backup, restore and verify (spec/registry.md §13 "Backup and restore"; issue 12 item 4).
 *
 * A backup file is UTF-8 JSON Lines, written by streaming a store's consistent snapshot
 * (`RegistryStore.snapshot`), so either backend backs up online and restores into either backend:
 *
 *   {"format":"ctxpkg-registry-backup-v1","backend":"sqlite"}
 *   {"t":"<table>","r":{…row…}}                                  one per row (snapshot.ts tables)
 *   {"b":"<sha256 hex>","n":<size in bytes>,"d":"<base64>"}       one per referenced blob, by hash
 *   {"end":{"rows":N,"blobs":M,"sha256":"<hex of every byte before this line>"}}
 *
 * It is written to `FILE.tmp-…` and renamed into place when complete. `restore` reads the file
 * twice: first it checks everything — the trailer's hash and counts, every blob's SHA-256 and
 * size, that every version's artifact and package blobs are present — and only then writes, into
 * an empty target: for a data directory, a sibling temporary directory renamed into place at the
 * end; for PostgreSQL, one transaction. A corrupt or truncated backup is refused with nothing written.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { CtxpkgError, isCtxpkgError } from '@ctxpkg/format';
import { sha256OfBytes } from './store/blobs.js';
import { openStore, type StoreLocation } from './store/open.js';
import { SNAPSHOT_TABLES, type SnapshotItem, type SnapshotTable } from './store/snapshot.js';
import type { RegistryStore } from './store/types.js';

export const BACKUP_FORMAT = 'ctxpkg-registry-backup-v1';

/** What a backup or restore handled. */
export interface BackupSummary {
  rows: number;
  blobs: number;
  /** Total bytes of blob content. */
  blob_bytes: number;
  /**
   * The newest time (ISO 8601) in the events log of the snapshot — its last publish, yank, key,
   * token or namespace change — or null for a registry without events. Anything the registry did
   * after this is not in the backup.
   */
  last_change_at: string | null;
  /**
   * The transparency log the snapshot holds: its origin and tree size (entries). A client that saw
   * a larger tree of this origin refuses the restored registry as a rollback until it grows back
   * through the same entries (README "Restoring an older backup"). Null for a backup made before
   * the log existed (restore starts one).
   */
  log: { origin: string; size: number } | null;
}

/** A summary with nothing counted yet. */
function emptySummary(): BackupSummary {
  return { rows: 0, blobs: 0, blob_bytes: 0, last_change_at: null, log: null };
}

/** Count one snapshot item into `summary`, noting the newest event and the log's origin and size. */
function countItem(summary: BackupSummary, item: SnapshotItem): void {
  if (item.kind !== 'row') {
    summary.blobs++;
    summary.blob_bytes += item.bytes.byteLength;
    return;
  }
  summary.rows++;
  const r = item.row;
  if (item.table === 'events' && typeof r.at === 'string' && (summary.last_change_at === null || r.at > summary.last_change_at)) summary.last_change_at = r.at;
  if (item.table === 'tlog_meta' && typeof r.origin === 'string') summary.log = { origin: r.origin, size: Number(r.size) };
}

type Target = StoreLocation | { store: RegistryStore };

async function withStore<T>(where: Target, fn: (store: RegistryStore) => Promise<T>): Promise<T> {
  if ('store' in where && where.store) return fn(where.store);
  const store = await openStore(where as StoreLocation);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/**
 * Write a consistent online snapshot of the registry at `where` to `outFile` (streamed; atomic
 * rename at the end). Throws `E_INTEGRITY` when a stored artifact is missing or corrupt (nothing
 * is left at `outFile`), `E_IO` when the file cannot be written.
 */
export async function backupRegistry(where: Target, outFile: string): Promise<BackupSummary> {
  const tmp = join(dirname(outFile), `.${basename(outFile)}.tmp-${randomBytes(6).toString('hex')}`);
  const out = createWriteStream(tmp, { mode: 0o600 });
  const hash = createHash('sha256');
  const failed = new Promise<never>((_, reject) => out.once('error', (err) => reject(new CtxpkgError('E_IO', `cannot write ${outFile}: ${err.message}`, { cause: err }))));
  failed.catch(() => undefined);
  const write = async (line: string): Promise<void> => {
    const text = line + '\n';
    hash.update(text);
    if (!out.write(text)) await Promise.race([new Promise<void>((r) => out.once('drain', () => r())), failed]);
  };
  const summary = emptySummary();
  try {
    await withStore(where, async (store) => {
      await write(JSON.stringify({ format: BACKUP_FORMAT, backend: store.backend }));
      for await (const item of store.snapshot()) {
        if (item.kind === 'row') await write(JSON.stringify({ t: item.table, r: item.row }));
        else await write(JSON.stringify({ b: item.sha256, n: item.bytes.byteLength, d: Buffer.from(item.bytes).toString('base64') }));
        countItem(summary, item);
      }
    });
    const trailer = JSON.stringify({ end: { rows: summary.rows, blobs: summary.blobs, sha256: hash.digest('hex') } }) + '\n';
    out.write(trailer);
    await Promise.race([new Promise<void>((r) => out.end(() => r())), failed]);
    const fh = await import('node:fs/promises').then((m) => m.open(tmp, 'r+'));
    await fh.sync();
    await fh.close();
    await rename(tmp, outFile);
    return summary;
  } catch (err) {
    out.destroy();
    await rm(tmp, { force: true });
    throw err;
  }
}

function corrupt(file: string, line: number, why: string): CtxpkgError {
  return new CtxpkgError('E_INTEGRITY', `${file} is not a usable backup (line ${line}): ${why}; nothing was restored`, {
    hint: 'use another backup file; this one was damaged or cut short',
    details: { line },
  });
}

/** Parse one line of a backup into an item (after the header, before the trailer), or null for the trailer. */
function parseLine(file: string, n: number, text: string): SnapshotItem | { end: { rows: number; blobs: number; sha256: string } } {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw corrupt(file, n, 'not a JSON line');
  }
  if (typeof v.t === 'string' && typeof v.r === 'object' && v.r !== null) {
    if (!(v.t in SNAPSHOT_TABLES)) throw corrupt(file, n, `unknown table ${JSON.stringify(v.t)}`);
    return { kind: 'row', table: v.t as SnapshotTable, row: v.r as Record<string, unknown> };
  }
  if (typeof v.b === 'string' && typeof v.d === 'string' && typeof v.n === 'number') {
    if (!/^[0-9a-f]{64}$/.test(v.b)) throw corrupt(file, n, 'a blob hash is not 64 lowercase hex characters');
    const bytes = Buffer.from(v.d, 'base64');
    if (bytes.byteLength !== v.n || bytes.toString('base64') !== v.d) throw corrupt(file, n, `blob ${v.b} has the wrong size or encoding`);
    if (sha256OfBytes(bytes) !== v.b) throw corrupt(file, n, `blob ${v.b} does not hash to its name`);
    return { kind: 'blob', sha256: v.b, bytes };
  }
  const end = v.end as { rows?: unknown; blobs?: unknown; sha256?: unknown } | undefined;
  if (end && typeof end.rows === 'number' && typeof end.blobs === 'number' && typeof end.sha256 === 'string') {
    return { end: { rows: end.rows, blobs: end.blobs, sha256: end.sha256 } };
  }
  throw corrupt(file, n, 'not a row, a blob or the trailer');
}

/** The items of a backup file, checked as they are read (hashes, sizes, order, trailer). */
async function* readBackup(file: string, check: { referenced?: Set<string>; stored?: Set<string> } = {}): AsyncGenerator<SnapshotItem> {
  let stream;
  try {
    await stat(file);
    stream = createReadStream(file, { encoding: 'utf8' });
  } catch (err) {
    throw new CtxpkgError('E_NOT_FOUND', `cannot read the backup ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const hash = createHash('sha256');
  let n = 0;
  let rows = 0;
  let blobs = 0;
  let ended = false;
  for await (const line of lines) {
    n++;
    if (ended) throw corrupt(file, n, 'data after the trailer');
    if (n === 1) {
      let head: { format?: unknown } = {};
      try {
        head = JSON.parse(line) as { format?: unknown };
      } catch {
        // reported below
      }
      if (head.format !== BACKUP_FORMAT) throw corrupt(file, n, `not a ${BACKUP_FORMAT} file`);
      hash.update(line + '\n');
      continue;
    }
    const item = parseLine(file, n, line);
    if ('end' in item) {
      if (item.end.sha256 !== hash.digest('hex')) throw corrupt(file, n, 'the file hash in the trailer does not match its content');
      if (item.end.rows !== rows || item.end.blobs !== blobs) throw corrupt(file, n, 'the trailer counts do not match the content');
      ended = true;
      continue;
    }
    hash.update(line + '\n');
    if (item.kind === 'row') {
      rows++;
      if (item.table === 'versions') check.referenced?.add(String(item.row.artifact_sha256));
      if (item.table === 'version_blobs') check.referenced?.add(String(item.row.blob_sha256));
    } else {
      blobs++;
      check.stored?.add(item.sha256);
    }
    yield item;
  }
  if (!ended) throw corrupt(file, n, 'the trailer is missing (the file was cut short)');
}

/**
 * Check the backup `file` completely, then restore it into the empty registry at `where`.
 * Throws `E_INTEGRITY` (corrupt, truncated or incomplete backup — nothing written), `E_EXISTS`
 * (the target is not empty), `E_NOT_FOUND` (no such file).
 */
export async function restoreRegistry(file: string, where: StoreLocation): Promise<BackupSummary> {
  const referenced = new Set<string>();
  const stored = new Set<string>();
  const summary = emptySummary();
  for await (const item of readBackup(file, { referenced, stored })) countItem(summary, item);
  const missing = [...referenced].filter((h) => !stored.has(h)).sort();
  if (missing.length > 0) throw corrupt(file, 0, `${missing.length} blob(s) the versions reference are missing, e.g. ${missing[0]}`);

  if (where.db !== undefined) {
    await withStore(where, (store) => store.restore(readBackup(file)));
    return summary;
  }
  // A data directory: build it beside the target and move it into place when complete.
  const target = where.dataDir;
  const existing = await readdir(target).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw new CtxpkgError('E_IO', `cannot read ${target}: ${err.message}`);
  });
  if (existing !== null && existing.length > 0) {
    throw new CtxpkgError('E_EXISTS', `${target} is not empty; restore into an empty or new data directory`, { hint: 'name a new directory with --data' });
  }
  await mkdir(dirname(target), { recursive: true });
  const building = `${target}.restoring-${randomBytes(6).toString('hex')}`;
  try {
    await withStore({ dataDir: building }, (store) => store.restore(readBackup(file)));
    if (existing !== null) await rmdir(target);
    await rename(building, target);
  } catch (err) {
    await rm(building, { recursive: true, force: true });
    throw err;
  }
  return summary;
}

/** One problem `verifyRegistry` found. */
export interface VerifyProblem {
  sha256: string;
  /** `artifact` (a version's bytes: serious) or `package-blob` (re-extractable from its artifact). */
  kind: 'artifact' | 'package-blob';
  problem: 'missing' | 'corrupt';
  /** The versions whose bytes these are (`@ns/name@version`, sorted): what clients cannot install. */
  versions: string[];
}

/**
 * Check a live store: every version's artifact and package blob is present and hashes to its
 * name. Returns the counts and every problem (a damaged package blob is repaired on its next read
 * from its artifact, so it is reported but not fatal).
 */
export async function verifyRegistry(where: Target): Promise<{ versions: number; blobs: number; problems: VerifyProblem[] }> {
  return withStore(where, async (store) => {
    const artifacts = new Set<string>();
    const packageBlobs = new Set<string>();
    // Which versions each blob serves, to name them in a problem (packages precede versions in a snapshot).
    const packages = new Map<string, string>();
    const usedBy = new Map<string, Set<string>>();
    const use = (sha: string, id: unknown, version: unknown): void => {
      const set = usedBy.get(sha) ?? new Set<string>();
      set.add(`${packages.get(String(id)) ?? `package ${String(id)}`}@${String(version)}`);
      usedBy.set(sha, set);
    };
    let versions = 0;
    const snap = store.snapshot()[Symbol.asyncIterator]();
    try {
      for (let it = await snap.next(); !it.done; it = await snap.next()) {
        const item = it.value;
        if (item.kind === 'blob') break;
        if (item.table === 'packages') packages.set(String(item.row.id), `@${String(item.row.namespace)}/${String(item.row.name)}`);
        if (item.table === 'versions') {
          versions++;
          artifacts.add(String(item.row.artifact_sha256));
          use(String(item.row.artifact_sha256), item.row.package_id, item.row.version);
        }
        if (item.table === 'version_blobs') {
          packageBlobs.add(String(item.row.blob_sha256));
          use(String(item.row.blob_sha256), item.row.package_id, item.row.version);
        }
      }
    } catch (err) {
      if (!isCtxpkgError(err) || err.code !== 'E_INTEGRITY') throw err;
    } finally {
      await snap.return?.(undefined);
    }
    const problems: VerifyProblem[] = [];
    const all = new Map<string, VerifyProblem['kind']>([...[...packageBlobs].map((h) => [h, 'package-blob'] as const), ...[...artifacts].map((h) => [h, 'artifact'] as const)]);
    for (const [sha, kind] of [...all].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      try {
        if (!(await store.readBlob(sha))) problems.push({ sha256: sha, kind, problem: 'missing', versions: [...(usedBy.get(sha) ?? [])].sort() });
      } catch (err) {
        if (!isCtxpkgError(err) || err.code !== 'E_INTEGRITY') throw err;
        problems.push({ sha256: sha, kind, problem: 'corrupt', versions: [...(usedBy.get(sha) ?? [])].sort() });
      }
    }
    return { versions, blobs: all.size, problems };
  });
}
