/**
 * Collect source files for `ctxpkg create --from <paths…>` (the I/O half of the importers).
 *
 * - Every path must lie inside the source root (after resolving symlinks): `E_SOURCE` otherwise.
 * - A directory is walked recursively in sorted order; it contributes every file an importer
 *   reads except `*.json` (JSON sources must be named explicitly). `node_modules`, `.git`,
 *   `.ctxpkg`, `dist` and other hidden directories except `.cursor`, `.github`, `.claude` are skipped.
 * - An `AGENTS.md` below the source root's top level applies to its own subtree: it gets the
 *   implied scope `<dir>/**` (agents.md convention: the nearest AGENTS.md wins for its directory).
 * - CLAUDE.md files are scanned for `@path` imports outside code; imports are followed up to
 *   depth 5, each file once (cycle-safe), and only when the target exists inside the source root;
 *   imports of home-directory or outside paths are skipped with a warning.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { CtxpkgError } from '@ctxpkg/format';
import { detectKind } from './index.js';
import type { SourceFile } from './types.js';

const SKIP_DIRS = new Set(['node_modules', '.git', '.ctxpkg', 'dist']);
const HIDDEN_OK = new Set(['.cursor', '.github', '.claude']);
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_IMPORT_DEPTH = 5;

export interface Collected {
  files: SourceFile[];
  warnings: string[];
}

function toPosix(p: string): string {
  return p.split(sep).join('/');
}

function inside(rootReal: string, abs: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    return undefined;
  }
  const rel = relative(rootReal, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return rel === '' ? '' : undefined;
  return toPosix(rel);
}

function readSource(abs: string, rel: string): string {
  const st = statSync(abs);
  if (st.size > MAX_FILE_BYTES) {
    throw new CtxpkgError('E_TOO_LARGE', `${rel} is ${st.size} bytes; source files are limited to ${MAX_FILE_BYTES}`);
  }
  const buf = readFileSync(abs);
  if (buf.includes(0)) throw new CtxpkgError('E_SOURCE', `${rel} is not a text file`);
  return buf.toString('utf8');
}

/** `@path` imports of a CLAUDE.md text with their 1-based line (outside fenced and inline code). */
export function findClaudeImports(text: string): Array<{ ref: string; line: number }> {
  const out: Array<{ ref: string; line: number }> = [];
  let fence: string | undefined;
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1][0];
      else if (f[1][0] === fence) fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const prose = line.replace(/`[^`]*`/g, ' ');
    for (const m of prose.matchAll(/(?:^|[\s(])@((?:~\/|\.{1,2}\/|\/)?[A-Za-z0-9_][A-Za-z0-9_.\-/]*)/g)) {
      out.push({ ref: m[1].replace(/[.,;:)]+$/, ''), line: i + 1 });
    }
  });
  return out;
}

/** Collect the sources named by `paths` (relative to `cwd`) under the source root `root`. */
export function collectSources(root: string, cwd: string, paths: string[]): Collected {
  const rootReal = realpathSync(resolve(root));
  const byPath = new Map<string, SourceFile>();
  const warnings: string[] = [];

  const addFile = (abs: string, rel: string, explicit: boolean): SourceFile | undefined => {
    const kind = detectKind(rel);
    if (kind === undefined) {
      if (explicit) throw new CtxpkgError('E_SOURCE', `no importer reads ${rel}`, { hint: 'supported: AGENTS.md, CLAUDE.md, *.mdc, .cursorrules, copilot instructions, *.md, ctxpkg-source-v1 JSON' });
      return undefined;
    }
    if (!explicit && kind === 'json-source') return undefined;
    const existing = byPath.get(rel);
    if (existing) return existing;
    const file: SourceFile = { path: rel, kind, text: readSource(abs, rel) };
    const dir = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
    if (kind === 'agents-md' && dir !== '') file.impliedScope = [`${dir}/**`];
    byPath.set(rel, file);
    return file;
  };

  const walk = (absDir: string): void => {
    for (const name of readdirSync(absDir).sort()) {
      const abs = join(absDir, name);
      const st = statSync(abs);
      if (st.isDirectory()) {
        if (SKIP_DIRS.has(name) || (name.startsWith('.') && !HIDDEN_OK.has(name))) continue;
        walk(abs);
      } else if (st.isFile()) {
        const rel = inside(rootReal, abs);
        if (rel !== undefined && rel !== '') addFile(abs, rel, false);
      }
    }
  };

  for (const p of paths) {
    const abs = resolve(cwd, p);
    const rel = inside(rootReal, abs);
    if (rel === undefined) {
      throw new CtxpkgError('E_SOURCE', `${p} does not exist or lies outside the source root ${rootReal}`, {
        hint: 'run ctxpkg create from the project root, or pass --root',
      });
    }
    if (statSync(abs).isDirectory()) walk(abs);
    else addFile(abs, rel, true);
  }

  // Follow CLAUDE.md imports breadth-first, each file once.
  let frontier = [...byPath.values()].filter((f) => f.kind === 'claude-md').map((f) => ({ f, depth: 0 }));
  while (frontier.length > 0) {
    const next: typeof frontier = [];
    for (const { f, depth } of frontier) {
      const imports: Array<{ path: string; line: number }> = [];
      for (const imp of findClaudeImports(f.text)) {
        if (imp.ref.startsWith('~/') || imp.ref.startsWith('/')) {
          warnings.push(`${f.path}:${imp.line}: import @${imp.ref} is outside the project; skipped`);
          continue;
        }
        const dirAbs = join(rootReal, ...f.path.split('/').slice(0, -1));
        const abs = resolve(dirAbs, imp.ref);
        let st;
        try {
          st = statSync(abs);
        } catch {
          continue; // not a file reference (e.g. a handle): plain text
        }
        if (!st.isFile()) continue;
        const rel = inside(rootReal, abs);
        if (rel === undefined || rel === '') {
          warnings.push(`${f.path}:${imp.line}: import @${imp.ref} is outside the project; skipped`);
          continue;
        }
        const kind = detectKind(rel);
        if (kind === undefined || kind === 'json-source') {
          warnings.push(`${f.path}:${imp.line}: import @${imp.ref} is not Markdown; skipped`);
          continue;
        }
        imports.push({ path: rel, line: imp.line });
        if (byPath.has(rel)) continue;
        if (depth + 1 > MAX_IMPORT_DEPTH) {
          warnings.push(`${f.path}:${imp.line}: import @${imp.ref} is deeper than ${MAX_IMPORT_DEPTH} levels; skipped`);
          continue;
        }
        const added: SourceFile = { path: rel, kind: kind === 'markdown' ? 'claude-md' : kind, text: readSource(abs, rel) };
        byPath.set(rel, added);
        next.push({ f: added, depth: depth + 1 });
      }
      if (imports.length > 0) f.imports = imports;
    }
    frontier = next;
  }
  if (byPath.size === 0) throw new CtxpkgError('E_SOURCE', 'no source files found', { hint: 'pass files or folders with AGENTS.md, CLAUDE.md, rules or Markdown' });
  return { files: [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), warnings };
}
