/**
 * What each enabled target writes for one delivery (spec/pack.md §11), computed from the target
 * modules' data — the same always-on text and the same rule-set texts for every target, each in
 * its agent's own files and frontmatter. Nothing is written here.
 *
 * - The always-on text goes to the target's always-on file (a block in AGENTS.md, CLAUDE.md,
 *   GEMINI.md, `.github/copilot-instructions.md`; a generated file for Cursor, Windsurf, Kiro and
 *   Cline) — except where the agent reads AGENTS.md itself and the `agents-md` target is on, so
 *   no agent gets it twice. An agent whose file may import AGENTS.md (`importsAgentsMd`: Claude
 *   Code, Gemini CLI) gets, with `agents-md` on, a block holding only the import line
 *   `@AGENTS.md` — what Claude Code's docs advise ("create a CLAUDE.md that imports it so both
 *   tools read the same instructions without duplicating them", code.claude.com/docs/en/memory)
 *   — instead of a second copy; none when the user's own text already imports it.
 * - Each rule set goes to one rule file per scoping target, with that agent's frontmatter.
 * - The ctxpkg MCP server (`search_context` and the other tools the blocks name) is registered in
 *   each target's project MCP config file (`mcp`: `.mcp.json`, `.cursor/mcp.json`,
 *   `.vscode/mcp.json`, `.gemini/settings.json`, `.kiro/settings/mcp.json`) as one entry named
 *   `ctxpkg`; targets whose agent has only a user-level config get none.
 * Nothing is wanted when nothing is installed (no empty block after the last uninstall).
 */
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import type { SyncTarget } from '@ctxpkg/format';
import { patternsFor, type AgentTarget } from './agents/index.js';
import { findBlock, removeBlock } from './blocks.js';
import type { Delivery } from './delivery.js';
import type { McpSlot } from './mcp-config.js';
import { outputPathProblem } from './output-path.js';
import type { ParseError } from 'jsonc-parser';
import { jsoncLib } from '../lazy-libs.js';

/**
 * One file sync wants: a managed block inside a user file, a whole generated file, or the ctxpkg
 * server entry in an agent's project MCP config (`mcp`).
 */
export interface DesiredOutput {
  /** POSIX path relative to the project root. */
  path: string;
  target: SyncTarget;
  kind: 'block' | 'file' | 'mcp';
  tier: 'always-on' | 'scoped' | 'mcp';
  /** For `file`: the frontmatter before the block ('' for none). */
  head: string;
  body: string;
  /** For `mcp`: where the entry goes, the entry, and every entry sync may have written (ownership). */
  mcp?: { slot: McpSlot; value: Record<string, unknown>; ours: Array<Record<string, unknown>> };
}

/**
 * The command line agents start the ctxpkg MCP server with (spec/pack.md §11 "MCP servers"):
 * `npx --no ctxpkg mcp` when the project's package.json lists `ctxpkg` in `dependencies` or
 * `devDependencies` (the project's own pinned CLI, found by npx in node_modules/.bin; `--no`
 * refuses to download a package instead, so a missing `npm install` is an error the host shows,
 * never a silent fetch of another version); otherwise `ctxpkg mcp` (the CLI on PATH, installed
 * globally). Both forms are ctxpkg's own (`MCP_COMMANDS`): sync moves an entry between them when
 * the dependency comes or goes.
 */
export function mcpCommand(root: string): { command: string; args: string[] } {
  const text = readRegularText(join(root, 'package.json'));
  let local = false;
  if (text !== undefined) {
    try {
      const pkg = JSON.parse(text) as { dependencies?: unknown; devDependencies?: unknown };
      const has = (d: unknown): boolean => typeof d === 'object' && d !== null && !Array.isArray(d) && Object.prototype.hasOwnProperty.call(d, 'ctxpkg');
      local = has(pkg.dependencies) || has(pkg.devDependencies);
    } catch {
      /* not JSON: no local dependency */
    }
  }
  return local ? MCP_COMMANDS[0] : MCP_COMMANDS[1];
}

/**
 * Why the MCP command line sync registers for `root` would not start on this machine, or
 * `undefined` when it would (spec/pack.md §11 "MCP servers"). Hosts spawn `command` from PATH with
 * the project as working directory: `ctxpkg` must be an executable file on `path` (the `PATH`
 * value, `delimiter`-separated); `npx --no ctxpkg` needs `npx` on `path` and the project's own
 * `node_modules/.bin/ctxpkg` (in `root` or a folder above it: a workspace root), since `--no`
 * never downloads. `path` undefined (no PATH in the environment): not checked. Reads only; never
 * throws.
 */
export function mcpStartProblem(root: string, cmd: { command: string; args: readonly string[] }, path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const line = [cmd.command, ...cmd.args].join(' ');
  if (!onPath(cmd.command, path)) {
    return cmd.command === 'ctxpkg'
      ? `the MCP server command \`${line}\` will not start on this machine: no \`ctxpkg\` command on PATH. Install it (README "Getting the \`ctxpkg\` command"), or add ctxpkg to the project's devDependencies (sync then registers \`npx --no ctxpkg mcp\`)`
      : `the MCP server command \`${line}\` will not start on this machine: no \`${cmd.command}\` command on PATH`;
  }
  if (cmd.command === 'npx' && !localBin(root, 'ctxpkg')) {
    return `the MCP server command \`${line}\` will not start on this machine: package.json lists ctxpkg but node_modules/.bin/ctxpkg is missing (run \`npm install\`)`;
  }
  return undefined;
}

/** True when `name` is an executable regular file in a folder of `path` (with PATHEXT on Windows). */
function onPath(name: string, path: string): boolean {
  const exts = process.platform === 'win32' ? ['', ...(process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').map((e) => e.toLowerCase())] : [''];
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    for (const ext of exts) if (executable(join(dir, name + ext))) return true;
  }
  return false;
}

/** `node_modules/.bin/<name>` in `root` or a folder above it (npm exec's local prefix and a workspace root). */
function localBin(root: string, name: string): boolean {
  for (let d = resolve(root); ; d = dirname(d)) {
    if (executable(join(d, 'node_modules', '.bin', name)) || executable(join(d, 'node_modules', '.bin', `${name}.cmd`))) return true;
    if (dirname(d) === d) return false;
  }
}

function executable(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Files sync only consults (package.json, an always-on file it may skip) larger than this are not read. */
const MAX_CONSULTED_BYTES = 16 * 1024 * 1024;

/**
 * The UTF-8 text of `path` when it is (or links to) a regular file of at most 16 MiB; otherwise
 * `undefined`, as if absent. A repository can commit `package.json -> /dev/zero` (or a link to a
 * FIFO or a terminal): reading that never ends.
 */
export function readRegularText(path: string): string | undefined {
  try {
    const st = statSync(path);
    if (!st.isFile() || st.size > MAX_CONSULTED_BYTES) return undefined;
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The command lines sync registers: the project's dependency through npx, or the CLI on PATH. */
export const MCP_COMMANDS: ReadonlyArray<{ command: string; args: string[] }> = [
  { command: 'npx', args: ['--no', 'ctxpkg', 'mcp'] },
  { command: 'ctxpkg', args: ['mcp'] },
];

/** The line by which a file imports AGENTS.md (Claude Code, Gemini CLI `@path` imports). */
const IMPORTS_AGENTS_MD = /^[ \t]*@(\.\/)?AGENTS\.md[ \t]*\r?$/m;

/** The body of the block that imports AGENTS.md instead of copying its block. */
export const IMPORT_AGENTS_MD_BODY = '@AGENTS.md';

/** True when the user's own text in `text` (outside ctxpkg's block) imports AGENTS.md. */
function userImportsAgentsMd(text: string | undefined): boolean {
  if (text === undefined) return false;
  const st = findBlock(text);
  return IMPORTS_AGENTS_MD.test(st.kind === 'ok' ? removeBlock(text, st) : text);
}

/**
 * True when the agent of `t` reads AGENTS.md by itself: always (`readsAgentsMd`), or because its
 * project settings say so (`readsAgentsMdWhen`; a settings file that does not parse says nothing).
 */
export function readsAgentsMd(root: string, t: AgentTarget): boolean {
  if (t.readsAgentsMd) return true;
  const w = t.readsAgentsMdWhen;
  if (!w || outputPathProblem(root, w.path) !== undefined) return false;
  const text = readRegularText(join(root, w.path));
  if (text === undefined) return false;
  try {
    const errors: ParseError[] = [];
    const v: unknown = jsoncLib().parse(text, errors, { allowTrailingComma: true });
    return errors.length === 0 && w.test(v);
  } catch {
    return false; // nested past the parser's stack (a hostile file): says nothing
  }
}

/** The outputs of `targets` for `delivery` (`installed` false: none). `notes` gets why an always-on output is skipped. */
export function desiredOutputs(root: string, targets: readonly AgentTarget[], delivery: Delivery | undefined, notes: string[]): DesiredOutput[] {
  if (!delivery) return [];
  const out: DesiredOutput[] = [];
  const seen = new Set<string>();
  const agentsMdOn = targets.some((t) => t.id === 'agents-md');
  const deferred: string[] = [];
  for (const t of targets) {
    const a = t.alwaysOn;
    const importing = t.importsAgentsMd === true && agentsMdOn && a.kind === 'block';
    if (t.id !== 'agents-md' && readsAgentsMd(root, t) && agentsMdOn) deferred.push(t.agent);
    else if (importing && userImportsAgentsMd(readRegularText(join(root, a.path)))) notes.push(`${a.path} imports AGENTS.md; no separate block written there`);
    else if (!seen.has(a.path)) {
      seen.add(a.path);
      out.push({ path: a.path, target: t.id, kind: a.kind, tier: 'always-on', head: a.kind === 'file' ? a.frontmatter : '', body: importing ? IMPORT_AGENTS_MD_BODY : delivery.alwaysOn.body });
    }
    if (!t.scoped) continue;
    for (const rs of delivery.ruleSets) {
      const path = rs.files.get(t.id);
      if (path === undefined || seen.has(path)) continue; // none of its patterns fits t's frontmatter (delivery warned)
      seen.add(path);
      out.push({ path, target: t.id, kind: 'file', tier: 'scoped', head: t.scoped.frontmatter(patternsFor(t, rs.patterns).usable, rs.title, rs.description), body: rs.body });
    }
  }
  // The MCP server, in every enabled target's project MCP config that has one.
  const { command, args } = mcpCommand(root);
  for (const t of targets) {
    const m = t.mcp;
    if (!m || seen.has(m.path)) continue;
    seen.add(m.path);
    out.push({
      path: m.path,
      target: t.id,
      kind: 'mcp',
      tier: 'mcp',
      head: '',
      body: '',
      mcp: { slot: { format: m.format, key: m.key }, value: m.entry(command, args), ours: MCP_COMMANDS.map((c) => m.entry(c.command, c.args)) },
    });
  }
  // Agents whose MCP servers live only in a user-level config sync never writes: the agent files
  // send them to `search_context` too, so say once how to register the server for each (the
  // clause is the target module's data; new-user trial 2, item 6). On every sync that delivers,
  // as npm repeats a hint on each run that needs it: sync cannot see the user-level files.
  const byHand = targets.flatMap((t) => (t.mcp === null && t.mcpUserOnly ? [t.mcpUserOnly.how(command, args)] : []));
  if (byHand.length > 0) notes.push(`the agent files point to the MCP tool search_context, but sync cannot register the ctxpkg MCP server for every agent; do it yourself — ${byHand.join('; ')}`);
  if (deferred.length > 0) notes.push(`${deferred.join(', ')} ${deferred.length === 1 ? 'reads AGENTS.md itself' : 'read AGENTS.md themselves'}: ${deferred.length === 1 ? 'its' : 'their'} always-on context is the AGENTS.md block`);
  return out;
}
