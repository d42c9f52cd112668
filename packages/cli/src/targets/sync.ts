/**
 * `ctxpkg sync`: write the agent instruction files from the merged graph, record what was
 * written, and remove what an earlier sync wrote that is no longer wanted (spec/pack.md "Sync").
 *
 * Rules:
 * - Everything is computed first (a budget error writes nothing); then each file is written
 *   atomically; then `.ctxpkg/sync.json` is written.
 * - A managed block whose body no longer matches the hash in its begin marker, a malformed block,
 *   or a generated file whose bytes differ from what sync recorded (or, without a record, whose
 *   block was edited) is left alone with a warning, and dropped from the record.
 * - An agent file that is a symbolic link (or not a regular file), or whose directory resolves
 *   outside the project, is never read or written: skipped with the reason (output-path.ts).
 * - An output no longer wanted (package uninstalled, target disabled) is removed only when it is
 *   unedited: a block is cut out (the file is deleted when sync created it and nothing else is
 *   left); a generated file is deleted, and then empty `.cursor/rules`, `.cursor`,
 *   `.github/instructions` directories.
 */
import { createHash } from 'node:crypto';
import { readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SYNC_TARGETS, type SyncTarget } from '@ctxpkg/format';
import { readTextIfExists, writeFileAtomic } from '../fsutil.js';
import { checkDerivedDirs } from '../project-dirs.js';
import { appendBlock, findBlock, makeBlock, removeBlock, replaceBlock } from './blocks.js';
import type { ProjectContext } from './context.js';
import { outputPathProblem } from './output-path.js';
import { briefBody, packageFiles, type DesiredOutput } from './outputs.js';
import { readSyncRecord, writeSyncRecord, type SyncEntry } from './record.js';

export interface SyncOptions {
  /** Targets for this run (default: `context.sync.targets`). */
  targets?: readonly SyncTarget[];
  /** RFC 3339 time for expiry decisions (default: the caller's clock). */
  now: string;
  /** Compute and report, write nothing. */
  dryRun?: boolean;
}

export interface SyncReport {
  targets: SyncTarget[];
  written: string[];
  unchanged: string[];
  removed: string[];
  /** Left alone (edited by the user, malformed, or not ours), with the reason. */
  skipped: Array<{ path: string; reason: string }>;
  notes: string[];
}

const sha = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');
const GENERATED_DIRS: Record<'cursor' | 'copilot', { dir: string; re: RegExp }> = {
  cursor: { dir: '.cursor/rules', re: /^ctxpkg-[a-z0-9._-]+\.mdc$/ },
  copilot: { dir: '.github/instructions', re: /^ctxpkg-[a-z0-9._-]+\.instructions\.md$/ },
};
const BLOCK_FILES: Record<'agents-md' | 'claude-md', string> = { 'agents-md': 'AGENTS.md', 'claude-md': 'CLAUDE.md' };

/** The outputs wanted for `targets` (throws `E_BUDGET` before anything is written). */
export function desiredOutputs(project: ProjectContext, targets: readonly SyncTarget[], now: string, notes: string[]): DesiredOutput[] {
  const out: DesiredOutput[] = [];
  const read = project.read;
  let brief: string | undefined;
  for (const t of targets) {
    if (t === 'agents-md' || t === 'claude-md') {
      const path = BLOCK_FILES[t];
      if (t === 'claude-md' && targets.includes('agents-md')) {
        const claude = readTextIfExists(join(project.root, path));
        if (claude !== undefined && /^\s*@(\.\/)?AGENTS\.md\s*$/m.test(claude)) {
          notes.push('CLAUDE.md imports AGENTS.md; no separate block written there');
          continue;
        }
      }
      brief ??= briefBody(project.graph, project.config, now, read, project.builtHere);
      out.push({ path, target: t, kind: 'block', head: '', body: brief });
    } else {
      out.push(...packageFiles(t, project.graph, project.config, now, read, project.builtHere));
    }
  }
  return out;
}

type Action = { path: string; write?: string; delete?: true; entry?: SyncEntry };

/** Plan one wanted output against the file on disk. */
function planWanted(root: string, d: DesiredOutput, recorded: SyncEntry | undefined, report: SyncReport): Action | undefined {
  const unsafe = outputPathProblem(root, d.path);
  if (unsafe) return skip(report, d.path, unsafe);
  const current = readTextIfExists(join(root, d.path));
  const block = makeBlock(d.body);
  if (d.kind === 'block') {
    const entry = (created: boolean): SyncEntry => ({ path: d.path, target: d.target, kind: 'block', sha256: sha(block), created });
    if (current === undefined) return { path: d.path, write: appendBlock('', block), entry: entry(true) };
    const st = findBlock(current);
    if (st.kind === 'none') return { path: d.path, write: appendBlock(current, block), entry: entry(recorded?.created ?? false) };
    if (st.kind === 'malformed') return skip(report, d.path, `malformed ctxpkg block (${st.reason}); fix or delete the markers`);
    if (st.edited) return skip(report, d.path, 'the ctxpkg block was edited by hand; left alone (delete the block to let sync rewrite it)');
    const next = replaceBlock(current, st, block);
    return next === current ? { path: d.path, entry: entry(recorded?.created ?? false) } : { path: d.path, write: next, entry: entry(recorded?.created ?? false) };
  }
  const text = `${d.head}${block}\n`;
  const entry: SyncEntry = { path: d.path, target: d.target, kind: 'file', sha256: sha(text), created: recorded?.created ?? current === undefined };
  if (current === undefined) return { path: d.path, write: text, entry };
  if (current === text) return { path: d.path, entry };
  if (ours(current, recorded)) return { path: d.path, write: text, entry };
  return skip(report, d.path, 'edited by hand or not written by ctxpkg sync; left alone');
}

/** A generated file is ours when its bytes match the record, or (no record) its block is unedited. */
function ours(current: string, recorded: SyncEntry | undefined): boolean {
  if (recorded) return recorded.kind === 'file' && recorded.sha256 === sha(current);
  const st = findBlock(current);
  return st.kind === 'ok' && !st.edited;
}

function skip(report: SyncReport, path: string, reason: string): undefined {
  report.skipped.push({ path, reason });
  return undefined;
}

/** Plan the removal of an output that is no longer wanted. */
function planRemoval(root: string, path: string, kind: 'block' | 'file', recorded: SyncEntry | undefined, report: SyncReport): Action | undefined {
  const unsafe = outputPathProblem(root, path);
  if (unsafe) return recorded ? skip(report, path, unsafe) : undefined;
  const current = readTextIfExists(join(root, path));
  if (current === undefined) return undefined;
  if (kind === 'file') {
    if (ours(current, recorded)) return { path, delete: true };
    if (recorded) report.skipped.push({ path, reason: 'no longer wanted, but edited by hand; left alone' });
    return undefined;
  }
  const st = findBlock(current);
  if (st.kind !== 'ok') return undefined;
  if (st.edited) return skip(report, path, 'no longer wanted, but the ctxpkg block was edited by hand; left alone');
  const next = removeBlock(current, st);
  return next === '' && (recorded?.created ?? false) ? { path, delete: true } : { path, write: next };
}

/** Generated files of ours present on disk (found by name), for removal without a record. */
function generatedOnDisk(root: string): Array<{ path: string; target: SyncTarget }> {
  const out: Array<{ path: string; target: SyncTarget }> = [];
  for (const [target, { dir, re }] of Object.entries(GENERATED_DIRS) as Array<['cursor' | 'copilot', { dir: string; re: RegExp }]>) {
    let names: string[] = [];
    try {
      names = readdirSync(join(root, dir));
    } catch {
      continue;
    }
    for (const n of names.sort()) if (re.test(n)) out.push({ path: `${dir}/${n}`, target });
  }
  return out;
}

/**
 * Synchronize agent files of `project` for `opts.targets` (default: the configured targets).
 * With no targets at all this removes every unedited output of earlier syncs (that is how
 * uninstall and `ctxpkg sync --remove` clean up). Throws `E_BUDGET` (nothing written), `E_IO`,
 * or `E_UNSAFE_PATH` (nothing written) when `.ctxpkg/` is a symbolic link.
 */
export function syncProject(project: ProjectContext, opts: SyncOptions): SyncReport {
  checkDerivedDirs(project.root);
  const targets = SYNC_TARGETS.filter((t) => (opts.targets ?? project.config.sync.targets).includes(t));
  const report: SyncReport = { targets, written: [], unchanged: [], removed: [], skipped: [], notes: [] };
  const wanted = desiredOutputs(project, targets, opts.now, report.notes);
  const record = readSyncRecord(project.root);
  const recorded = new Map(record.entries.map((e) => [e.path, e]));
  const wantedPaths = new Set(wanted.map((w) => w.path));
  const actions: Action[] = [];
  for (const d of wanted) {
    const a = planWanted(project.root, d, recorded.get(d.path), report);
    if (a) actions.push(a);
  }
  const leftovers = new Map<string, 'block' | 'file'>();
  for (const e of record.entries) if (!wantedPaths.has(e.path)) leftovers.set(e.path, e.kind);
  for (const f of Object.values(BLOCK_FILES)) if (!wantedPaths.has(f) && !leftovers.has(f)) leftovers.set(f, 'block');
  for (const g of generatedOnDisk(project.root)) if (!wantedPaths.has(g.path) && !leftovers.has(g.path)) leftovers.set(g.path, 'file');
  for (const [path, kind] of [...leftovers].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const a = planRemoval(project.root, path, kind, recorded.get(path), report);
    if (a) actions.push(a);
  }
  for (const a of actions) {
    if (a.delete) report.removed.push(a.path);
    else if (a.write !== undefined) (wantedPaths.has(a.path) ? report.written : report.removed).push(a.path);
    else report.unchanged.push(a.path);
  }
  if (opts.dryRun) return report;
  const touchedDirs = new Set<string>();
  for (const a of actions) {
    const full = join(project.root, a.path);
    if (a.delete) {
      unlinkSync(full);
      touchedDirs.add(dirname(a.path));
    } else if (a.write !== undefined) {
      writeFileAtomic(full, a.write);
    }
  }
  pruneEmptyDirs(project.root, touchedDirs);
  writeSyncRecord(project.root, actions.filter((a) => a.entry).map((a) => a.entry as SyncEntry));
  return report;
}

/** Remove `.cursor/rules`, `.cursor`, `.github/instructions` when sync emptied them. */
function pruneEmptyDirs(root: string, dirs: Set<string>): void {
  const candidates = ['.cursor/rules', '.cursor', '.github/instructions'];
  for (const d of candidates) {
    if (![...dirs].some((t) => t === d || t.startsWith(d + '/') || d.startsWith(t))) continue;
    try {
      if (readdirSync(join(root, d)).length === 0) rmdirSync(join(root, d));
    } catch {
      /* absent or not empty */
    }
  }
}
