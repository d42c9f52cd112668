/**
 * Finding what `ctxpkg sync` wrote, from the files alone (spec/pack.md §11 "Ownership"): a block
 * in an agent's always-on file whose markers carry its hash, and generated files named
 * `ctxpkg.<ext>` / `ctxpkg-<slug>.<ext>` in an agent's rule folder whose block hash covers their
 * frontmatter and body. Works in a fresh clone: nothing here reads `.ctxpkg/`.
 */
import { readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { SyncTarget } from '@ctxpkg/format';
import { readTextIfExists } from '../fsutil.js';
import { AGENT_TARGETS, type AgentTarget } from './agents/index.js';
import { findBlock, type BlockState } from './blocks.js';
import { outputPathProblem } from './output-path.js';

/** An output of ctxpkg on disk. `edited`: its hash no longer matches (left alone, reported). */
export interface OwnedOutput {
  path: string;
  target: SyncTarget;
  kind: 'block' | 'file';
  edited: boolean;
}

/** The block of a generated file: its hash covers the frontmatter before the begin marker. */
export function fileBlock(text: string): BlockState {
  return findBlock(text, (start) => text.slice(0, start));
}

/** Folders (with the file extension) where `t` generates whole files. */
export function generatedDirs(t: AgentTarget): Array<{ dir: string; ext: string }> {
  const out: Array<{ dir: string; ext: string }> = [];
  if (t.alwaysOn.kind === 'file') {
    const p = t.alwaysOn.path;
    out.push({ dir: posix.dirname(p), ext: p.slice(p.indexOf('.', p.lastIndexOf('/') + 1)) });
  }
  if (t.scoped && !out.some((o) => o.dir === t.scoped?.dir && o.ext === t.scoped.ext)) out.push({ dir: t.scoped.dir, ext: t.scoped.ext });
  return out;
}

const NAME = /^ctxpkg(-[a-z0-9._-]+)?$/;

/** Is `name` a generated file name for extension `ext` (`ctxpkg.md`, `ctxpkg-acme__x--api.md`)? */
export function isGeneratedName(name: string, ext: string): boolean {
  return name.endsWith(ext) && NAME.test(name.slice(0, name.length - ext.length));
}

/** Every output of ctxpkg in `root`, sorted by path (symlinked or outside paths are not read). */
export function findOwnedOutputs(root: string): OwnedOutput[] {
  const out = new Map<string, OwnedOutput>();
  for (const t of AGENT_TARGETS.values()) {
    if (t.alwaysOn.kind === 'block') {
      const path = t.alwaysOn.path;
      if (!out.has(path) && outputPathProblem(root, path) === undefined) {
        const text = readTextIfExists(join(root, path));
        const st = text === undefined ? undefined : findBlock(text);
        if (st?.kind === 'ok') out.set(path, { path, target: t.id, kind: 'block', edited: st.edited });
      }
    }
    for (const { dir, ext } of generatedDirs(t)) {
      let names: string[];
      try {
        names = readdirSync(join(root, dir));
      } catch {
        continue;
      }
      for (const name of names.sort()) {
        const path = `${dir}/${name}`;
        if (!isGeneratedName(name, ext) || out.has(path) || outputPathProblem(root, path) !== undefined) continue;
        const text = readTextIfExists(join(root, path));
        const st = text === undefined ? undefined : fileBlock(text);
        if (st?.kind === 'ok') out.set(path, { path, target: t.id, kind: 'file', edited: st.edited });
      }
    }
  }
  return [...out.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
