/**
 * Finding what `ctxpkg sync` wrote, from the files alone (spec/pack.md §11 "Ownership"): a block
 * in an agent's always-on file whose markers carry its hash, and generated files named
 * `ctxpkg.<ext>` / `ctxpkg-<slug>.<ext>` in an agent's rule folder whose block hash covers their
 * frontmatter and body (unedited only when the whole file is byte for byte what sync writes,
 * `generatedFileState`), and the `ctxpkg` server entry of an agent's project MCP config when it
 * is one sync writes (`ownedMcpEntry`). Works in a fresh clone: nothing here reads `.ctxpkg/`.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { SyncTarget } from '@ctxpkg/format';
import { readTextIfExists } from '../fsutil.js';
import { AGENT_TARGETS, type AgentTarget } from './agents/index.js';
import { blockBody, findBlock, generatedFile } from './blocks.js';
import { canonicalJson, MAX_MCP_CONFIG_BYTES, mcpEntryState, onlyMcpEntry } from './mcp-config.js';
import { outputPathProblem } from './output-path.js';
import { MCP_COMMANDS } from './outputs.js';

/** An output of ctxpkg on disk. `edited`: its hash no longer matches (left alone, reported). */
export interface OwnedOutput {
  path: string;
  target: SyncTarget;
  kind: 'block' | 'file' | 'mcp';
  edited: boolean;
  /** `mcp` only: the file holds nothing but ctxpkg's entry (a fresh clone counts it as created by sync). */
  onlyOurs?: boolean;
}

/** True when the MCP config at `path` (relative to `root`) exists and is over `MAX_MCP_CONFIG_BYTES`: left alone. */
export function mcpConfigTooLarge(root: string, path: string): boolean {
  try {
    return statSync(join(root, path)).size > MAX_MCP_CONFIG_BYTES;
  } catch {
    return false;
  }
}

/**
 * The ctxpkg entry of `t`'s project MCP config at `root`, when it is one sync writes (any of the
 * `MCP_COMMANDS`, compared as canonical JSON): a `ctxpkg` entry of another shape is the user's.
 * A file that does not parse holds none (sync reports it when it wants to write there).
 */
export function ownedMcpEntry(root: string, t: AgentTarget): OwnedOutput | undefined {
  const m = t.mcp;
  if (!m || outputPathProblem(root, m.path) !== undefined || mcpConfigTooLarge(root, m.path)) return undefined;
  const text = readTextIfExists(join(root, m.path));
  if (text === undefined) return undefined;
  const slot = { format: m.format, key: m.key };
  try {
    const st = mcpEntryState(text, slot, m.path);
    if (st.kind !== 'present') return undefined;
    const v = canonicalJson(st.value);
    if (!MCP_COMMANDS.some((c) => canonicalJson(m.entry(c.command, c.args)) === v)) return undefined;
  } catch {
    return undefined;
  }
  return { path: m.path, target: t.id, kind: 'mcp', edited: false, onlyOurs: onlyMcpEntry(text, slot, m.path) };
}

/**
 * Whether `text` is a file ctxpkg generated (`ok`) and whether it was edited since: a generated
 * file is unedited only when its bytes are exactly what `generatedFile` writes for its own
 * frontmatter and body — the block's hash covers the frontmatter and the body, and nothing else
 * may be there: a line after the end marker, a changed marker line, a missing final line break
 * all make it `edited` (left in place and reported by sync, target removal and uninstall; issue
 * 18 "Exact ownership"). A checkout that turned every LF into CRLF (git `core.autocrlf`) is read
 * as the LF text: that is git's rewrite, not the user's. `none`: no block of ctxpkg's in it.
 */
export function generatedFileState(text: string): { kind: 'none' } | { kind: 'ok'; edited: boolean } {
  const lf = text.includes('\r') ? text.replace(/\r\n/g, '\n') : text;
  const st = findBlock(lf, (start) => lf.slice(0, start));
  if (st.kind !== 'ok') return st;
  const exact = !st.edited && !lf.includes('\r') && lf === generatedFile(lf.slice(0, st.start), blockBody(st));
  return { kind: 'ok', edited: !exact };
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
    const m = ownedMcpEntry(root, t);
    if (m && !out.has(m.path)) out.set(m.path, m);
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
        const st = text === undefined ? undefined : generatedFileState(text);
        if (st?.kind === 'ok') out.set(path, { path, target: t.id, kind: 'file', edited: st.edited });
      }
    }
  }
  return [...out.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
