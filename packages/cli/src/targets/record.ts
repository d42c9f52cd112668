/**
 * `.ctxpkg/sync.json`: what `ctxpkg sync` wrote on this machine (spec/pack.md §11 "Ownership"):
 *
 * `{ "format": "ctxpkg-sync-v2", "entries": [ { "path", "target", "kind": "block"|"file"|"mcp",
 *   "sha256": <hex of the block text, of the whole file, or of the MCP entry's canonical JSON>,
 *   "created": <sync created the file>, "sep": <what sync put between the user's text and its
 *   block>, "inserted": <the characters sync inserted into an MCP config> } ], "dirs": [<folders
 *   sync created>] }`, entries sorted by path.
 *
 * Ownership never depends on this record: every block and generated file carries its own hash in
 * its markers and generated files have `ctxpkg` names, so a fresh clone (where `.ctxpkg/` is not
 * committed) finds exactly what sync wrote. The record adds what the files cannot say: whether
 * sync created a file or folder (removed again when empty) and the exact separator before a
 * block (so install → uninstall leaves the file byte-identical). A missing or unreadable record
 * is treated as empty; `ctxpkg-sync-v1` records are read too.
 */
import { join } from 'node:path';
import { syncTargetOf, type SyncTarget } from '@ctxpkg/format/pack/policy';
import { readTextIfExists, writeFileAtomic } from '../fsutil.js';

export const SYNC_RECORD = join('.ctxpkg', 'sync.json');

export interface SyncEntry {
  path: string;
  target: SyncTarget;
  /** `mcp`: the ctxpkg server entry in an agent's MCP config (`sha256` of its canonical JSON). */
  kind: 'block' | 'file' | 'mcp';
  sha256: string;
  created: boolean;
  /** Blocks only: the text sync put between the user's text and the block. */
  sep?: string;
  /** `mcp` only: the exact run of characters sync inserted (cut out again on removal). */
  inserted?: string;
}

export interface SyncRecord {
  format: 'ctxpkg-sync-v2';
  entries: SyncEntry[];
  /** Folders sync created (POSIX, relative), removed again when sync empties them. */
  dirs: string[];
}

function validEntry(e: unknown): SyncEntry | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const o = e as Record<string, unknown>;
  const target = typeof o.target === 'string' ? syncTargetOf(o.target) : undefined;
  if (
    typeof o.path !== 'string' ||
    target === undefined ||
    (o.kind !== 'block' && o.kind !== 'file' && o.kind !== 'mcp') ||
    (o.inserted !== undefined && (typeof o.inserted !== 'string' || o.inserted.length > 65536)) ||
    typeof o.sha256 !== 'string' ||
    !/^[0-9a-f]{64}$/.test(o.sha256) ||
    typeof o.created !== 'boolean' ||
    (o.sep !== undefined && (typeof o.sep !== 'string' || !/^\n{0,2}$/.test(o.sep)))
  ) {
    return undefined;
  }
  return { path: o.path, target, kind: o.kind, sha256: o.sha256, created: o.created, ...(typeof o.sep === 'string' ? { sep: o.sep } : {}), ...(typeof o.inserted === 'string' ? { inserted: o.inserted } : {}) };
}

/** Read the record of `root` (empty when absent or not understood; invalid entries are dropped). */
export function readSyncRecord(root: string): SyncRecord {
  const text = readTextIfExists(join(root, SYNC_RECORD));
  const empty: SyncRecord = { format: 'ctxpkg-sync-v2', entries: [], dirs: [] };
  if (text === undefined) return empty;
  try {
    const v = JSON.parse(text) as { format?: unknown; entries?: unknown; dirs?: unknown };
    if ((v.format !== 'ctxpkg-sync-v1' && v.format !== 'ctxpkg-sync-v2') || !Array.isArray(v.entries)) return empty;
    const dirs = Array.isArray(v.dirs) ? v.dirs.filter((d): d is string => typeof d === 'string') : [];
    return { format: 'ctxpkg-sync-v2', entries: v.entries.map(validEntry).filter((e): e is SyncEntry => e !== undefined), dirs };
  } catch {
    return empty;
  }
}

/** Write the record atomically (entries sorted by path, folders sorted). */
export function writeSyncRecord(root: string, entries: SyncEntry[], dirs: Iterable<string>): void {
  const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const rec: SyncRecord = { format: 'ctxpkg-sync-v2', entries: sorted, dirs: [...new Set(dirs)].sort() };
  writeFileAtomic(join(root, SYNC_RECORD), JSON.stringify(rec, null, 2) + '\n');
}
