/**
 * `.ctxpkg/sync.json`: what `ctxpkg sync` wrote, so that a later sync or an uninstall removes
 * exactly that (spec/pack.md "Sync record").
 *
 * `{ "format": "ctxpkg-sync-v1", "entries": [ { "path", "target", "kind": "block"|"file",
 *   "sha256": <hex of the block text or of the whole file>, "created": <sync created the file> } ] }`
 * Entries are sorted by path. A missing or unreadable record is treated as empty: managed blocks
 * and generated files are still recognised by their markers.
 */
import { join } from 'node:path';
import { SYNC_TARGETS, type SyncTarget } from '@ctxpkg/format';
import { readTextIfExists, writeFileAtomic } from '../fsutil.js';

export const SYNC_RECORD = join('.ctxpkg', 'sync.json');

export interface SyncEntry {
  path: string;
  target: SyncTarget;
  kind: 'block' | 'file';
  sha256: string;
  created: boolean;
}

export interface SyncRecord {
  format: 'ctxpkg-sync-v1';
  entries: SyncEntry[];
}

function validEntry(e: unknown): e is SyncEntry {
  if (typeof e !== 'object' || e === null) return false;
  const o = e as Record<string, unknown>;
  return (
    typeof o.path === 'string' &&
    (SYNC_TARGETS as readonly unknown[]).includes(o.target) &&
    (o.kind === 'block' || o.kind === 'file') &&
    typeof o.sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(o.sha256) &&
    typeof o.created === 'boolean'
  );
}

/** Read the record of `root` (empty when absent or not understood; invalid entries are dropped). */
export function readSyncRecord(root: string): SyncRecord {
  const text = readTextIfExists(join(root, SYNC_RECORD));
  const empty: SyncRecord = { format: 'ctxpkg-sync-v1', entries: [] };
  if (text === undefined) return empty;
  try {
    const v = JSON.parse(text) as { format?: unknown; entries?: unknown };
    if (v.format !== 'ctxpkg-sync-v1' || !Array.isArray(v.entries)) return empty;
    return { format: 'ctxpkg-sync-v1', entries: v.entries.filter(validEntry) };
  } catch {
    return empty;
  }
}

/** Write the record atomically (entries sorted by path). */
export function writeSyncRecord(root: string, entries: SyncEntry[]): void {
  const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const rec: SyncRecord = { format: 'ctxpkg-sync-v1', entries: sorted };
  writeFileAtomic(join(root, SYNC_RECORD), JSON.stringify(rec, null, 2) + '\n');
}
