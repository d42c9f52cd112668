/**
 * Which targets `ctxpkg sync` writes (spec/pack.md §11 "Targets"):
 *
 * - `context.sync.targets` in ctxpkg.json, when present: exactly those;
 * - otherwise AGENTS.md, plus every agent detected in the project (one of its files or folders
 *   exists, the target modules' `detect`), plus every target that already has ctxpkg output on
 *   disk — so outputs are removed only when a target is removed by name (`sync --remove <t>`),
 *   never because detection changed.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { SYNC_TARGETS, type SyncPolicy, type SyncTarget } from '@ctxpkg/format';
import { agentTarget } from './agents/index.js';
import type { OwnedOutput } from './owned.js';

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

/** The enabled targets of a project (see module docstring). */
export function enabledTargets(root: string, sync: Pick<SyncPolicy, 'targets'>, owned: readonly OwnedOutput[]): EnabledTargets {
  if (sync.targets !== null) return { targets: [...sync.targets], auto: false, reasons: [] };
  const on = new Set<SyncTarget>(['agents-md']);
  const reasons: string[] = [];
  for (const id of SYNC_TARGETS) {
    if (id === 'agents-md') continue;
    const found = agentTarget(id).detect.find((p) => exists(root, p));
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
