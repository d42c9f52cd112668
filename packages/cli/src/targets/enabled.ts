/**
 * Which targets `ctxpkg sync` writes (spec/pack.md §11 "Targets"):
 *
 * - `context.sync.targets` in ctxpkg.json, when present: exactly those;
 * - otherwise AGENTS.md, plus every agent detected in the project (one of its files or folders
 *   exists, the target modules' `detect`), plus every target that already has ctxpkg output on
 *   disk — so outputs are removed only when a target is removed by name (`sync --remove <t>`),
 *   never because detection changed.
 *
 * A detect path counts as a reason only when it is the user's: a file that holds nothing but a
 * ctxpkg block, a file ctxpkg generated, or a folder whose every file is one ctxpkg generated,
 * exists because of ctxpkg, not because the project uses the agent — such a target is on
 * because "ctxpkg output present" (new-user trial item 17: `claude: CLAUDE.md` was printed for a
 * CLAUDE.md that sync itself had created).
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SYNC_TARGETS, type SyncPolicy, type SyncTarget } from '@ctxpkg/format/pack/policy';
import { agentTarget } from './agents/index.js';
import { readTextIfExists } from '../fsutil.js';
import { findBlock, removeBlock } from './blocks.js';
import type { OwnedOutput } from './owned.js';
import { readSyncRecord, type SyncRecord } from './record.js';

export interface EnabledTargets {
  targets: SyncTarget[];
  /** True when `context.sync.targets` is absent (detection). */
  auto: boolean;
  /** Why each non-default target is on in auto mode: `cursor: .cursor`. */
  reasons: string[];
}

function exists(root: string, rel: string): boolean {
  try {
    lstatSync(join(root, ...rel.split('/')));
    return true;
  } catch {
    return false;
  }
}

/** Most entries looked at under one detect folder before it counts as the user's (bounded work). */
const MAX_SCAN = 1000;

/**
 * True when `rel` exists only because of ctxpkg: an owned generated file; an owned block file
 * with no other text that sync created (the record says so; without a record, a fresh clone:
 * any file whose only text is the block); or a folder (not a symbolic link) whose files are all
 * owned generated files and that sync created (the record; without one: any such folder). A
 * folder the user made stays the user's even when only ctxpkg's files are in it.
 */
function ctxpkgOnly(root: string, rel: string, owned: ReadonlyMap<string, OwnedOutput>, record: SyncRecord): boolean {
  const known = record.entries.length > 0;
  const o = owned.get(rel);
  if (o) {
    if (o.kind === 'file') return true;
    const entry = record.entries.find((e) => e.path === rel);
    if (known && entry && !entry.created) return false;
    const text = readTextIfExists(join(root, ...rel.split('/'))) ?? '';
    const st = findBlock(text);
    return st.kind === 'ok' && removeBlock(text, st).trim() === '';
  }
  if (known && !record.dirs.includes(rel)) return false;
  let seen = 0;
  let files = 0;
  const walk = (dir: string): boolean => {
    let entries;
    try {
      if (!lstatSync(join(root, ...dir.split('/'))).isDirectory()) return false;
      entries = readdirSync(join(root, ...dir.split('/')), { withFileTypes: true });
    } catch {
      return false;
    }
    for (const e of entries) {
      if (++seen > MAX_SCAN) return false;
      const p = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (!walk(p)) return false;
      } else if (owned.get(p)?.kind === 'file' || (owned.get(p)?.kind === 'mcp' && owned.get(p)?.onlyOurs === true)) files++;
      else return false;
    }
    return true;
  };
  return walk(rel) && files > 0;
}

/** The enabled targets of a project (see module docstring). */
export function enabledTargets(root: string, sync: Pick<SyncPolicy, 'targets'>, owned: readonly OwnedOutput[]): EnabledTargets {
  if (sync.targets !== null) return { targets: [...sync.targets], auto: false, reasons: [] };
  const on = new Set<SyncTarget>(['agents-md']);
  const reasons: string[] = [];
  const byPath = new Map(owned.map((o) => [o.path, o]));
  const record = readSyncRecord(root);
  for (const id of SYNC_TARGETS) {
    if (id === 'agents-md') continue;
    const found = agentTarget(id).detect.find((p) => exists(root, p) && !ctxpkgOnly(root, p, byPath, record));
    if (found !== undefined) {
      on.add(id);
      reasons.push(`${id}: ${found}`);
    } else if (owned.some((o) => o.target === id)) {
      on.add(id);
      reasons.push(`${id}: ctxpkg output present`);
    }
  }
  return { targets: SYNC_TARGETS.filter((t) => on.has(t)), auto: true, reasons };
}
