/**
 * `ctxpkg sync`: deliver the installed context to every enabled agent target, record what was
 * written, and remove what ctxpkg wrote that is no longer wanted (spec/pack.md §11).
 *
 * Rules:
 * - One selection for all targets (`computeDelivery`), encoded per target (`desiredOutputs`).
 *   Everything is computed first (a budget or pin error writes nothing); then each file is
 *   written atomically; then `.ctxpkg/sync.json` and the sync receipt.
 * - Ownership is read from the files (`findOwnedOutputs`): blocks and generated files carry their
 *   hash. A block or generated file edited by hand is left alone with a warning and never
 *   removed; a file of the same name that ctxpkg did not write is never touched.
 * - An output no longer wanted is removed when its target is enabled (package uninstalled, rule
 *   set gone, nothing installed any more) or removed by name; a block is cut out with the
 *   separator sync added (the file is deleted when sync created it and nothing else is left), a
 *   generated file deleted, and folders sync created removed when empty. Outputs of a target
 *   that is neither enabled nor named are left and reported.
 * - An agent file that is a symbolic link (or not a regular file), or whose folder resolves
 *   outside the project, is never read or written (output-path.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { join, posix } from 'node:path';
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { SyncTarget } from '@ctxpkg/format/pack/policy';
import { STRUCTURAL_TYPES } from '@ctxpkg/format/pack/scope';
import { readTextIfExists, writeFilesAtomic } from '../fsutil.js';
import { checkDerivedDirs } from '../project-dirs.js';
import { jsoncLib } from '../lazy-libs.js';
import { agentTarget, AGENT_TARGETS, type AgentTarget } from './agents/index.js';
import { canonicalJson, hasComment, insertMcpEntry, MAX_MCP_CONFIG_BYTES, mcpEntryState, onlyMcpEntry, removeMcpEntry, type McpSlot } from './mcp-config.js';
import { appendBlock, findBlock, generatedFile, makeBlock, removeBlock, replaceBlock } from './blocks.js';
import type { ProjectContext } from './context.js';
import { computeDelivery, type Delivery } from './delivery.js';
import { enabledTargets } from './enabled.js';
import { outputPathProblem } from './output-path.js';
import { desiredOutputs, mcpStartProblem, readRegularText, type DesiredOutput } from './outputs.js';
import { findOwnedOutputs, generatedDirs, generatedFileState, mcpConfigTooLarge, type OwnedOutput } from './owned.js';
import { recordPinTexts } from './pins-record.js';
import { trustWarnings, untrustedOwnHint } from './trust.js';
import { readSyncRecord, writeSyncRecord, type SyncEntry } from './record.js';
import { writeSyncReceipt } from './receipt.js';

export interface SyncOptions {
  /** RFC 3339 time for expiry decisions (the caller's clock). */
  now: string;
  /** Compute and report, write nothing. */
  dryRun?: boolean;
  /** Targets of this run instead of the enabled ones. */
  targets?: readonly SyncTarget[];
  /** Targets removed by name: their outputs are removed (and they are not written). */
  removeTargets?: readonly SyncTarget[];
  /**
   * The `PATH` of the environment sync runs in (the user's shell, whose PATH agents usually
   * share): when the MCP command it registers is not found there, sync warns (`mcpStartProblem`).
   * Undefined: not checked.
   */
  path?: string;
}

export interface SyncReport {
  targets: SyncTarget[];
  /** True when the targets came from detection (`context.sync.targets` absent). */
  auto: boolean;
  /** Why each detected target is on (auto mode). */
  detected: string[];
  written: string[];
  unchanged: string[];
  /** What was removed: `AGENTS.md (block)`, `.claude/rules/ctxpkg-….md`, `.claude/rules/ (empty folder)`. */
  removed: string[];
  /** Problems the user should act on that did not stop the sync (a trusted package left fenced). */
  warnings: string[];
  /** Left alone (edited by hand, not ctxpkg's, unsafe path), with the reason. */
  skipped: Array<{ path: string; reason: string }>;
  notes: string[];
  /** Node counts of the tiers (0 when nothing is installed). */
  tiers: { always_on: number; path_scoped: number; rule_sets: number; on_demand: number };
  /** The sync receipt (project-relative), when written. */
  receipt?: string;
}

const sha = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');

type Action = { path: string; target: SyncTarget; write?: string; delete?: true; entry?: SyncEntry; label?: string };

export { generatedFile } from './blocks.js';

/**
 * Plan the ctxpkg server entry in an agent's MCP config (spec/pack.md §11 "MCP servers"): insert
 * it when absent, keep it when it is already what sync writes, move it to the other command form
 * when the project's dependency on ctxpkg came or went; leave a `ctxpkg` entry of the user's (or
 * one edited by hand) alone and report it. Throws `E_INVALID_JSON` for a file that does not parse
 * (before anything is written).
 */
function planMcp(root: string, d: DesiredOutput, recorded: SyncEntry | undefined, report: SyncReport): Action | undefined {
  const m = d.mcp as NonNullable<DesiredOutput['mcp']>;
  if (mcpConfigTooLarge(root, d.path)) return skip(report, d.path, `is larger than ${MAX_MCP_CONFIG_BYTES} bytes; left alone (the ctxpkg MCP server is not registered there)`);
  const current = readTextIfExists(join(root, d.path));
  const st = mcpEntryState(current, m.slot, d.path);
  const want = canonicalJson(m.value);
  const rec = recorded?.kind === 'mcp' ? recorded : undefined;
  const entry = (created: boolean, inserted: string | undefined): SyncEntry => ({ path: d.path, target: d.target, kind: 'mcp', sha256: sha(want), created, ...(inserted !== undefined ? { inserted } : {}) });
  if (st.kind === 'blocked') return skip(report, d.path, `${st.what}; the ctxpkg MCP server is not registered there (${st.fix})`);
  if (st.kind === 'absent') {
    const r = insertMcpEntry(current, m.slot, m.value, d.path);
    return { path: d.path, target: d.target, write: r.text, entry: entry(current === undefined, r.inserted) };
  }
  const text = current as string;
  const have = canonicalJson(st.value);
  if (!m.ours.some((o) => canonicalJson(o) === have)) {
    const line = [m.value.command, ...((m.value.args as string[] | undefined) ?? [])].join(' ');
    return skip(
      report,
      d.path,
      rec
        ? `the "ctxpkg" MCP server entry sync wrote in "${m.slot.key}" was edited by hand; left alone (delete it to let sync register \`${line}\` again)`
        : `has a "ctxpkg" MCP server entry of its own in "${m.slot.key}" that differs from what sync registers (\`${line}\`); left alone (remove or rename it to let sync register the server)`,
    );
  }
  // Ours. Without a record (a fresh clone) a file holding nothing but the entry is one sync created.
  const created = rec ? rec.created : onlyMcpEntry(text, m.slot, d.path);
  const base = removeMcpEntry(text, m.slot, st.value, d.path, rec?.inserted);
  const again = insertMcpEntry(base === '' ? undefined : base, m.slot, m.value, d.path);
  if (have === want) return { path: d.path, target: d.target, entry: entry(created, again.text === text ? again.inserted : rec?.inserted) };
  return { path: d.path, target: d.target, write: again.text, entry: entry(created, again.inserted) };
}

/**
 * True when an MCP config holds nothing: no text, `{}`, or only an empty servers object — and no
 * comment (sync writes none: a comment is the user's, and deleting the file would lose it).
 */
function emptyConfig(text: string, slot: McpSlot): boolean {
  if (text.trim() === '') return true;
  if (hasComment(text)) return false;
  try {
    const v = jsoncLib().parse(text) as Record<string, unknown>;
    const keys = Object.keys(v);
    const inner = v[slot.key];
    return keys.length === 0 || (keys.length === 1 && keys[0] === slot.key && typeof inner === 'object' && inner !== null && Object.keys(inner).length === 0);
  } catch {
    return false;
  }
}

/** Plan one wanted output against the file on disk. */
function planWanted(root: string, d: DesiredOutput, recorded: SyncEntry | undefined, report: SyncReport): Action | undefined {
  const unsafe = outputPathProblem(root, d.path);
  if (unsafe) return skip(report, d.path, unsafe);
  if (d.kind === 'mcp') return planMcp(root, d, recorded, report);
  const current = readTextIfExists(join(root, d.path));
  if (d.kind === 'block') {
    const block = makeBlock(d.body);
    const entry = (created: boolean, sep: string): SyncEntry => ({ path: d.path, target: d.target, kind: 'block', sha256: sha(block), created, sep });
    if (current === undefined) return { path: d.path, target: d.target, write: `${block}\n`, entry: entry(true, '') };
    const st = findBlock(current);
    if (st.kind === 'none') {
      const appended = appendBlock(current, block);
      return { path: d.path, target: d.target, write: appended.text, entry: entry(false, appended.sep) };
    }
    if (st.edited) return skip(report, d.path, 'the ctxpkg block was edited by hand; left alone (delete the block to let sync rewrite it)');
    const next = replaceBlock(current, st, block);
    // Without a record (a fresh clone), a file whose only content is the block is one sync created
    // (spec/pack.md §11): removing the block then removes the file, as on the installing machine.
    const e = recorded ? entry(recorded.created, recorded.sep ?? '\n') : removeBlock(current, st) === '' ? entry(true, '') : entry(false, '\n');
    return next === current ? { path: d.path, target: d.target, entry: e } : { path: d.path, target: d.target, write: next, entry: e };
  }
  const text = generatedFile(d.head, d.body);
  // A generated file is always one sync created (also when a fresh clone adopts it, no record).
  const entry: SyncEntry = { path: d.path, target: d.target, kind: 'file', sha256: sha(text), created: recorded?.created ?? true };
  if (current === undefined) return { path: d.path, target: d.target, write: text, entry };
  if (current === text) return { path: d.path, target: d.target, entry };
  const st = generatedFileState(current);
  if (st.kind === 'ok' && !st.edited) return { path: d.path, target: d.target, write: text, entry };
  return skip(report, d.path, st.kind === 'ok' ? 'edited by hand; left alone (delete it to let sync rewrite it)' : 'not written by ctxpkg sync; left alone');
}

function skip(report: SyncReport, path: string, reason: string): undefined {
  report.skipped.push({ path, reason });
  return undefined;
}

/** Plan the removal of an owned output that is no longer wanted. */
function planRemoval(root: string, o: OwnedOutput, recorded: SyncEntry | undefined, report: SyncReport): Action | undefined {
  if (o.edited) return skip(report, o.path, `no longer wanted, but ${o.kind === 'block' ? 'the ctxpkg block was' : 'it was'} edited by hand; left alone (delete it yourself)`);
  const current = readTextIfExists(join(root, o.path)) as string;
  if (o.kind === 'file') return { path: o.path, target: o.target, delete: true, label: o.path };
  if (o.kind === 'mcp') {
    const m = agentTarget(o.target).mcp as NonNullable<AgentTarget['mcp']>;
    const slot: McpSlot = { format: m.format, key: m.key };
    const st = mcpEntryState(current, slot, o.path);
    const rec = recorded?.kind === 'mcp' ? recorded : undefined;
    const next = removeMcpEntry(current, slot, st.kind === 'present' ? st.value : undefined, o.path, rec?.inserted);
    const created = rec ? rec.created : o.onlyOurs === true;
    if (created && emptyConfig(next, slot)) return { path: o.path, target: o.target, delete: true, label: `${o.path} (ctxpkg MCP server; the file sync created)` };
    return { path: o.path, target: o.target, write: next, label: `${o.path} (ctxpkg MCP server entry)` };
  }
  const st = findBlock(current);
  if (st.kind !== 'ok') return undefined;
  const next = removeBlock(current, st, recorded?.sep);
  const created = recorded ? recorded.created : next.trim() === '';
  if (next === '' && created) return { path: o.path, target: o.target, delete: true, label: `${o.path} (block; the file sync created)` };
  return { path: o.path, target: o.target, write: next, label: `${o.path} (block)` };
}

/** Folders of `path` below the root that do not exist yet (outermost first). */
function missingDirs(root: string, path: string): string[] {
  const out: string[] = [];
  let d = posix.dirname(path);
  while (d !== '.' && d !== '' && !existsSync(join(root, d))) {
    out.unshift(d);
    d = posix.dirname(d);
  }
  return out;
}

function countTiers(project: ProjectContext, delivery: Delivery | undefined): SyncReport['tiers'] {
  if (!delivery) return { always_on: 0, path_scoped: 0, rule_sets: 0, on_demand: 0 };
  const items = project.graph.nodes.filter((n) => !STRUCTURAL_TYPES.has(n.type)).length;
  const alwaysOn = delivery.alwaysOn.receipt.counts.delivered;
  const scoped = delivery.ruleSets.reduce((s, r) => s + r.receipt.counts.delivered, 0);
  return { always_on: alwaysOn, path_scoped: scoped, rule_sets: delivery.ruleSets.length, on_demand: items - alwaysOn - scoped };
}

/**
 * Synchronize the agent files of `project` (see module docstring). Throws `E_BUDGET` or
 * `E_NOT_FOUND` (nothing written), `E_IO`, `E_UNSAFE_PATH` (nothing written) when `.ctxpkg/`
 * is a symbolic link, or `E_LOCKED` (nothing written) when a file it would write or delete
 * changed after it was read (another program wrote it meanwhile: run again).
 */
/** How many packages `unseenPackageNotes` names before counting the rest. */
const MAX_UNSEEN_LISTED = 5;

/**
 * One note naming the installed packages of which no item reached any agent file this sync (the
 * always-on block and every rule set left all of them out for space), so a package agents never
 * see does not go unnoticed (new-user trial 3 of 2026-12-07, finding 2: an untrusted package's 38
 * items were all on demand and nothing said so). Empty when every package with items has one
 * delivered.
 */
function unseenPackageNotes(project: ProjectContext, delivery: Delivery): string[] {
  const items = new Map<string, { version: string; count: number }>();
  for (const n of project.graph.nodes) {
    if (STRUCTURAL_TYPES.has(n.type)) continue;
    const e = items.get(n.package);
    if (e) e.count++;
    else items.set(n.package, { version: n.version, count: 1 });
  }
  const seen = new Set<string>();
  for (const d of delivery.alwaysOn.receipt.delivered) seen.add(d.package);
  for (const rs of delivery.ruleSets) for (const d of rs.receipt.delivered) seen.add(d.package);
  const unseen = [...items].filter(([pkg]) => !seen.has(pkg)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (unseen.length === 0) return [];
  const listed = unseen.slice(0, MAX_UNSEEN_LISTED).map(([pkg, e]) => `${pkg}@${e.version} (${e.count} ${e.count === 1 ? 'item' : 'items'})`);
  const more = unseen.length - listed.length;
  return [
    `no item of ${listed.join(', ')}${more > 0 ? ` and ${more} more ${more === 1 ? 'package' : 'packages'}` : ''} fit the agent files: agents reach ${unseen.length === 1 ? 'it' : 'them'} only on demand (the MCP tool search_context, \`ctxpkg render --focus …\`); to have some always on, pin ${unseen.length === 1 ? 'it' : 'them'} (\`ctxpkg pin <package>\`) or raise "context.sync.max_bytes" in ctxpkg.json`,
  ];
}

export function syncProject(project: ProjectContext, opts: SyncOptions): SyncReport {
  checkDerivedDirs(project.root);
  const root = project.root;
  const owned = findOwnedOutputs(root);
  const removeNamed = new Set(opts.removeTargets ?? []);
  const enabled = opts.targets ? { targets: [...opts.targets], auto: false, reasons: [] } : enabledTargets(root, project.config.sync, owned);
  const targets = enabled.targets.filter((t) => !removeNamed.has(t));
  const report: SyncReport = {
    targets,
    auto: enabled.auto,
    detected: enabled.reasons,
    written: [],
    unchanged: [],
    removed: [],
    warnings: [],
    skipped: [],
    notes: [],
    tiers: { always_on: 0, path_scoped: 0, rule_sets: 0, on_demand: 0 },
  };
  const agents = targets.map(agentTarget);
  const anything = project.installed && project.graph.nodes.some((n) => !STRUCTURAL_TYPES.has(n.type));
  const delivery = anything && agents.length > 0 ? computeDelivery(project, agents, opts.now) : undefined;
  if (delivery) report.notes.push(...delivery.notes);
  if (delivery) report.warnings.push(...delivery.warnings, ...trustWarnings(project.trust));
  const ownHint = delivery ? untrustedOwnHint(project.trust, project.ownScopes ?? []) : undefined;
  if (ownHint) report.notes.push(ownHint);
  if (delivery) report.notes.push(...unseenPackageNotes(project, delivery));
  report.tiers = countTiers(project, delivery);
  const wanted = desiredOutputs(root, agents, delivery, report.notes);
  const record = readSyncRecord(root);
  const recorded = new Map(record.entries.map((e) => [e.path, e]));
  const wantedPaths = new Set(wanted.map((w) => w.path));
  const actions: Action[] = [];
  // Each file as it was before it was planned: a file that changed by the time sync writes (an
  // editor saved it meanwhile) stops the sync before anything is written, so the edit survives.
  const before = new Map<string, string | undefined>();
  const snap = (path: string): void => {
    if (!before.has(path) && outputPathProblem(root, path) === undefined) before.set(path, readRegularText(join(root, path)));
  };
  for (const d of wanted) {
    snap(d.path);
    const a = planWanted(root, d, recorded.get(d.path), report);
    if (a) actions.push(a);
  }
  const enabledSet = new Set<SyncTarget>(targets);
  const left = new Map<SyncTarget, number>();
  for (const o of owned) {
    if (wantedPaths.has(o.path)) continue;
    if (!enabledSet.has(o.target) && !removeNamed.has(o.target) && anything) {
      left.set(o.target, (left.get(o.target) ?? 0) + 1);
      continue;
    }
    snap(o.path);
    const a = planRemoval(root, o, recorded.get(o.path), report);
    if (a) actions.push(a);
  }
  for (const [t, n] of left) report.notes.push(`${n} ${n === 1 ? 'output' : 'outputs'} of target ${t} left in place: ${t} is not enabled (\`ctxpkg sync --remove ${t}\` removes ${n === 1 ? 'it' : 'them'})`);
  for (const a of actions) {
    if (a.label !== undefined) report.removed.push(a.label);
    else if (a.write !== undefined) report.written.push(a.path);
    else report.unchanged.push(a.path);
  }
  for (const n of sizeNotes(root, actions)) report.notes.push(n);
  const registered = actions.filter((a) => a.label === undefined && a.write !== undefined && a.entry?.kind === 'mcp');
  if (registered.length > 0) {
    const v = wanted.find((w) => w.path === registered[0]?.path)?.mcp?.value;
    const line = v ? [v.command, ...((v.args as string[] | undefined) ?? [])].join(' ') : 'ctxpkg mcp';
    // Each agent's own condition for starting a project server, from its target module, only for
    // the agents registered now (a note about Claude Code after writing .vscode/mcp.json misleads).
    const firstStart = [...new Set(registered.map((a) => wanted.find((w) => w.path === a.path)?.target).filter((t): t is SyncTarget => t !== undefined).map((t) => agentTarget(t).mcp?.firstStart).filter((x): x is string => x !== undefined))];
    report.notes.push(`MCP server "ctxpkg" (\`${line}\`) ${opts.dryRun ? 'would be registered' : 'registered'} in ${registered.map((a) => a.path).join(', ')}: each agent loads it when it next starts${firstStart.length ? ` (${firstStart.join('; ')})` : ''}`);
  }
  for (const n of partialReadNotes(actions, wanted)) report.notes.push(n);
  // The registration stays the same on every machine (the files are committed), but a command
  // that cannot start here is said so, with the fix, instead of "registered".
  const mcpPaths = actions.filter((a) => !a.delete && a.label === undefined && a.entry?.kind === 'mcp').map((a) => a.path);
  const mcpValue = wanted.find((w) => w.path === mcpPaths[0])?.mcp?.value;
  if (mcpValue) {
    const problem = mcpStartProblem(root, { command: mcpValue.command as string, args: (mcpValue.args as string[] | undefined) ?? [] }, opts.path);
    if (problem) report.warnings.push(`${problem}; registered in ${mcpPaths.join(', ')}`);
  }

  // Folders sync created and may remove again: recorded ones, plus (no record) empty rule folders.
  const createdDirs = new Set(record.dirs);
  // A fresh clone has no record of them; git keeps no empty folders, so an agent folder that holds
  // nothing but files sync created exists because of them and counts as created.
  const adopted = actions.filter((a) => a.entry?.created && !recorded.has(a.path) && existsSync(join(root, a.path))).map((a) => a.path);
  for (const d of adoptedDirs(root, adopted)) createdDirs.add(d);
  const candidateDirs = new Set<string>();
  for (const a of actions) if (a.delete) for (let d = posix.dirname(a.path); d !== '.' && d !== ''; d = posix.dirname(d)) candidateDirs.add(d);
  const pruned = [...candidateDirs].sort((a, b) => b.length - a.length).filter((d) => createdDirs.has(d) || (record.entries.length === 0 && isAgentDir(d)));
  if (opts.dryRun) {
    for (const d of pruned) if (wouldBeEmpty(root, d, actions)) report.removed.push(`${d}/ (empty folder)`);
    return report;
  }
  for (const a of actions) {
    if ((a.delete || a.write !== undefined) && readRegularText(join(root, a.path)) !== before.get(a.path)) {
      throw new CtxpkgError('E_LOCKED', `${a.path} changed while ctxpkg sync ran (another program wrote it); nothing written`, {
        hint: 'run `ctxpkg sync` again',
        details: { path: a.path },
      });
    }
  }
  const writes: Array<{ path: string; data: string }> = [];
  for (const a of actions) {
    const full = join(root, a.path);
    if (a.delete) unlinkSync(full);
    else if (a.write !== undefined) {
      for (const d of missingDirs(root, a.path)) createdDirs.add(d);
      writes.push({ path: full, data: a.write });
    }
  }
  writeFilesAtomic(writes);
  for (const d of pruned) {
    try {
      if (readdirSync(join(root, d)).length === 0) {
        rmdirSync(join(root, d));
        createdDirs.delete(d);
        report.removed.push(`${d}/ (empty folder)`);
      }
    } catch {
      /* absent or not empty */
    }
  }
  for (const d of [...createdDirs]) if (!existsSync(join(root, d))) createdDirs.delete(d);
  writeSyncRecord(root, actions.filter((a) => a.entry && !a.delete).map((a) => a.entry as SyncEntry), createdDirs);
  if (delivery) report.receipt = writeSyncReceipt(root, opts.now, targets, delivery, wanted);
  if (project.installed) recordPinTexts(root, project.config.pack.pins, project.graph);
  return report;
}

/**
 * The agent folders (deepest first) that hold nothing but `created` files (paths sync created,
 * adopted in a fresh clone) and folders of that kind.
 */
function adoptedDirs(root: string, created: readonly string[]): string[] {
  const mine = new Set(created);
  const dirs = new Set<string>();
  for (const p of created) for (let d = posix.dirname(p); d !== '.' && d !== ''; d = posix.dirname(d)) dirs.add(d);
  const out: string[] = [];
  for (const d of [...dirs].sort((a, b) => b.split('/').length - a.split('/').length || (a < b ? -1 : 1))) {
    if (!isAgentDir(d)) continue;
    let names: string[];
    try {
      names = readdirSync(join(root, d));
    } catch {
      continue;
    }
    if (names.length > 0 && names.every((n) => mine.has(`${d}/${n}`))) {
      out.push(d);
      mine.add(d);
    }
  }
  return out;
}

/** A folder some target writes into (or one of its parents): rule folders and MCP config folders. */
function isAgentDir(d: string): boolean {
  for (const t of AGENT_TARGETS.values()) {
    const dirs = generatedDirs(t).map((g) => g.dir);
    if (t.mcp && posix.dirname(t.mcp.path) !== '.') dirs.push(posix.dirname(t.mcp.path));
    for (const g of dirs) if (g === d || g.startsWith(d + '/')) return true;
  }
  return false;
}

function wouldBeEmpty(root: string, d: string, actions: readonly Action[]): boolean {
  try {
    const deleted = new Set(actions.filter((a) => a.delete).map((a) => a.path));
    return readdirSync(join(root, d)).every((n) => deleted.has(`${d}/${n}`) || isAgentDir(`${d}/${n}`));
  } catch {
    return false;
  }
}

/** Characters (Unicode code points) of `text`. */
function charCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff || i === 0 || text.charCodeAt(i - 1) < 0xd800 || text.charCodeAt(i - 1) > 0xdbff) n++;
  }
  return n;
}

/**
 * One note per target whose files this sync wrote (created or rewrote) run past a soft limit of
 * its agent (`AgentLimit.partial`: Copilot code review reads the first 4,000 characters of an
 * instruction file), naming each file, its size, what that feature does with it and the setting
 * that would bring it under — at the cost of every agent (spec/pack.md §11 "Blocks and
 * ownership"). A note, not a warning: a soft limit is not a budget (the selection every agent
 * shares is not cut for one feature of one agent), so at the default budget (8,192 bytes) a full
 * always-on file passes it with nothing wrong to fix — with the AGENTS.md target off,
 * `.github/copilot-instructions.md` at 8,083 characters warned on every rewrite, a warning caused
 * by ctxpkg's own default (attack pass 2, item 7). A file left unchanged is not noted again: the
 * note came with the run that wrote it (new-user trial: the warning on every run).
 */
function partialReadNotes(actions: readonly Action[], wanted: readonly DesiredOutput[]): string[] {
  const tierOf = new Map(wanted.map((w) => [w.path, w.tier]));
  // Each path once (wanted outputs are unique by path).
  const over = new Map<SyncTarget, Array<{ path: string; chars: number; limit: number; what: string; setting: string }>>();
  for (const a of actions) {
    if (a.delete || a.label !== undefined || a.write === undefined || tierOf.get(a.path) === 'mcp') continue;
    const t = agentTarget(a.target);
    const scoped = tierOf.get(a.path) === 'scoped';
    const partial = scoped ? t.limits.ruleFile?.partial : t.limits.alwaysOn.partial;
    if (partial === undefined) continue;
    const chars = charCount(a.write);
    if (chars <= partial.chars) continue;
    const list = over.get(a.target) ?? [];
    list.push({ path: a.path, chars, limit: partial.chars, what: partial.what, setting: scoped ? 'context.sync.file_max_bytes' : 'context.sync.max_bytes' });
    over.set(a.target, list);
  }
  const out: string[] = [];
  for (const [target, files] of over) {
    const first = files[0] as (typeof files)[number];
    const settings = [...new Set(files.map((f) => f.setting))].map((s) => `"${s}"`).join(' and ');
    const list = files.map((f) => `${f.path} (${f.chars} characters)`).join(', ');
    out.push(`${agentTarget(target).agent} ${first.what}; sync wrote ${files.length === 1 ? 'a file' : `${files.length} files`} over ${first.limit} characters: ${list}, of which that reads the start. To have it read all, set ${settings} in ctxpkg.json to ${first.limit} or less — budgets every agent shares, so every agent then gets less (your own text in the file counts too)`);
  }
  return out;
}

/** Warnings where a written file is larger than its agent reads (e.g. AGENTS.md over Codex's 32 KiB). */
function sizeNotes(root: string, actions: readonly Action[]): string[] {
  const out: string[] = [];
  for (const a of actions) {
    if (a.delete) continue;
    const limit = agentTarget(a.target).limits.alwaysOn;
    if (limit.bytes === undefined || a.path !== agentTarget(a.target).alwaysOn.path) continue;
    const text = a.write ?? readTextIfExists(join(root, a.path)) ?? '';
    const size = Buffer.byteLength(text, 'utf8');
    if (size > limit.bytes) out.push(`${a.path} is ${size} bytes with your own text; ${agentTarget(a.target).agent}: ${limit.text} — the end of the ctxpkg block may not be read (lower "context.sync.max_bytes" or shorten the file)`);
  }
  return out;
}
