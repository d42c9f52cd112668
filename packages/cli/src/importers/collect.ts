/**
 * Collect source files for `ctxpkg create --from <paths…>` (the I/O half of the importers).
 *
 * - Every path must exist (`E_SOURCE` "does not exist", hint: leave it out of --from) and lie inside
 *   the source root after resolving symlinks (`E_SOURCE` "lies outside the source root", hint: --root).
 * - A directory is walked recursively in sorted order; it contributes every file an importer
 *   reads except `*.json` (JSON sources must be named explicitly). `node_modules`, `.git`,
 *   `.ctxpkg`, `dist` and other hidden directories except `.cursor`, `.github`, `.claude` are skipped.
 * - An `AGENTS.md` below the source root's top level applies to its own subtree: it gets the
 *   implied scope `<dir>/**` (agents.md convention: the nearest AGENTS.md wins for its directory).
 * - CLAUDE.md files are scanned for `@path` imports outside code; imports are followed up to
 *   depth 5, each file once (cycle-safe), and only when the target exists inside the source root.
 *   An import that does not resolve (a home-directory, absolute or outside path, a missing file,
 *   a folder, a non-Markdown file) stays literal text and is listed in `unresolved` with a warning;
 *   a bare `@word` without `/` or a file extension is a mention, not an import, and is not listed.
 *   A line that holds nothing but imports that were followed (`@AGENTS.md`) is `excluded`: the
 *   imported files are in the package, and the bare line would be a live import in a consumer's
 *   CLAUDE.md-imported files.
 * - ctxpkg's own output is never imported (generated.ts): `.ctxpkg/` at any depth, files `sync`
 *   generated, and the managed blocks `sync` wrote into AGENTS.md/CLAUDE.md (their lines are
 *   `excluded`). Each is listed in `skipped` and as a warning (`skipped: managed block AGENTS.md:8-40 …`).
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { CtxpkgError, escapeGlob, hasBidiControl, hasInvisible } from '@ctxpkg/format';
import { findProjectRoot } from '../project.js';
import { blankLines, inCtxpkgDir, looksGenerated, managedBlockRanges, recordedGeneratedFiles, type LineRange } from './generated.js';
import { detectKind } from './index.js';
import type { SourceFile } from './types.js';

const SKIP_DIRS = new Set(['node_modules', '.git', '.ctxpkg', 'dist']);
const HIDDEN_OK = new Set(['.cursor', '.github', '.claude']);
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_IMPORT_DEPTH = 5;

/** Something of ctxpkg's own output that was left out (`lines` for a managed block). */
export interface SkippedSource {
  path: string;
  lines?: LineRange;
  reason: string;
}

/** A CLAUDE.md `@import` that was not followed; its text stays in the node as written. */
export interface UnresolvedImport {
  file: string;
  line: number;
  ref: string;
  reason: string;
}

export interface Collected {
  files: SourceFile[];
  /** Human-readable lines for the user (skips and unresolved imports included). */
  warnings: string[];
  skipped: SkippedSource[];
  unresolved: UnresolvedImport[];
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
    for (const m of prose.matchAll(/(?:^|[\s(])@((?:~\/|\/|(?:\.{1,2}\/)+)?[A-Za-z0-9_.][A-Za-z0-9_.\-/]*)/g)) {
      out.push({ ref: trimTrailingPunctuation(m[1]), line: i + 1 });
    }
  });
  return out;
}

/**
 * `ref` without trailing `.`, `,`, `;`, `:` and `)` (sentence punctuation after an import), in one
 * pass from the end: `/[.,;:)]+$/` was quadratic in a long inner run of those characters.
 */
function trimTrailingPunctuation(ref: string): string {
  let j = ref.length;
  while (j > 0 && '.,;:)'.includes(ref[j - 1] as string)) j--;
  return ref.slice(0, j);
}

/** True when an `@ref` names a file (has a `/` or a file extension) rather than a person or handle. */
function looksLikePath(ref: string): boolean {
  return ref.includes('/') || /\.[A-Za-z0-9]{1,10}$/.test(ref);
}

/**
 * Collect the sources named by `paths` (relative to `cwd`) under the source root `root`.
 * Throws `E_SOURCE` (outside path, no importer for an explicit file, nothing left to import),
 * `E_TOO_LARGE` (a file above 2 MiB).
 */
export function collectSources(root: string, cwd: string, paths: string[]): Collected {
  const rootReal = realpathSync(resolve(root));
  const byPath = new Map<string, SourceFile>();
  const warnings: string[] = [];
  const skipped: SkippedSource[] = [];
  const unresolved: UnresolvedImport[] = [];
  const skippedPaths = new Set<string>();
  const project = findProjectRoot(rootReal);
  const recorded = recordedGeneratedFiles([...new Set([rootReal, ...(project.exists ? [project.root] : [])])]);

  const skip = (path: string, reason: string, lines?: LineRange): void => {
    skipped.push({ path, reason, ...(lines ? { lines } : {}) });
    warnings.push(`skipped: ${lines ? `managed block ${path}:${lines.start}-${lines.end}` : path} (${reason})`);
  };

  /** Read a file and drop ctxpkg's own output from it; undefined when nothing of it is the user's. */
  const admit = (abs: string, rel: string, kind: SourceFile['kind']): SourceFile | undefined => {
    if (skippedPaths.has(rel)) return undefined;
    if (inCtxpkgDir(rel)) {
      skippedPaths.add(rel);
      skip(rel, 'ctxpkg\'s installed output under .ctxpkg/ is never imported');
      return undefined;
    }
    const text = readSource(abs, rel);
    let real = abs;
    try {
      real = realpathSync(abs);
    } catch {
      /* keep abs */
    }
    if (recorded.has(real) || looksGenerated(rel, text)) {
      skippedPaths.add(rel);
      skip(rel, 'generated by `ctxpkg sync` from installed packages');
      return undefined;
    }
    const file: SourceFile = { path: rel, kind, text };
    const ranges = kind === 'json-source' ? [] : managedBlockRanges(text);
    if (ranges.length > 0) {
      for (const r of ranges) skip(rel, 'written by `ctxpkg sync` from installed packages', r);
      if (blankLines(text, ranges).trim() === '') {
        skippedPaths.add(rel);
        return undefined;
      }
      file.excluded = ranges;
    }
    return file;
  };

  const addFile = (abs: string, rel: string, explicit: boolean): SourceFile | undefined => {
    // A document path becomes provenance every agent reads: no bidi controls (they reorder what
    // a reader sees) and no invisible characters (issue 11 item 5).
    if (hasBidiControl(rel) || hasInvisible(rel)) {
      throw new CtxpkgError('E_SOURCE', `${JSON.stringify(rel)} has bidi control or invisible characters in its path; rename it`, { hint: 'document paths are shown to agents: use visible characters only' });
    }
    const kind = detectKind(rel);
    if (kind === undefined) {
      if (explicit) throw new CtxpkgError('E_SOURCE', `no importer reads ${rel}`, { hint: 'supported: AGENTS.md, CLAUDE.md, *.mdc, .cursorrules, copilot instructions, *.md, ctxpkg-source-v1 JSON' });
      return undefined;
    }
    if (!explicit && kind === 'json-source') return undefined;
    const existing = byPath.get(rel);
    if (existing) return existing;
    const file = admit(abs, rel, kind);
    if (!file) return undefined;
    const dir = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
    if (kind === 'agents-md' && dir !== '') file.impliedScope = [`${escapeGlob(dir)}/**`]; // a directory named `[x]` is that directory
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
    if (!existsSync(abs)) {
      // A path that is simply absent (the README's `--from AGENTS.md .cursor/rules CLAUDE.md` in a
      // project without a CLAUDE.md) is not a source-root problem: say so, and what to do.
      throw new CtxpkgError('E_SOURCE', `${p} does not exist (looked for ${abs})`, {
        hint: 'name only the files and folders your project has: leave it out of --from, or fix its spelling',
      });
    }
    const rel = inside(rootReal, abs);
    if (rel === undefined) {
      throw new CtxpkgError('E_SOURCE', `${p} lies outside the source root ${rootReal}`, {
        hint: 'run ctxpkg create from the project root, or pass --root',
      });
    }
    if (rel !== '' && inCtxpkgDir(rel)) {
      if (!skippedPaths.has(rel)) skip(rel, 'ctxpkg\'s installed output under .ctxpkg/ is never imported');
      skippedPaths.add(rel);
    } else if (statSync(abs).isDirectory()) walk(abs);
    else addFile(abs, rel, true);
  }

  // Follow CLAUDE.md imports breadth-first, each file once.
  const unresolvedImport = (file: string, line: number, ref: string, reason: string): void => {
    unresolved.push({ file, line, ref, reason });
    warnings.push(`${file}:${line}: import @${ref} ${reason}; kept as text, not imported`);
  };
  let frontier = [...byPath.values()].filter((f) => f.kind === 'claude-md').map((f) => ({ f, depth: 0 }));
  while (frontier.length > 0) {
    const next: typeof frontier = [];
    for (const { f, depth } of frontier) {
      const imports: Array<{ path: string; line: number }> = [];
      const followed = new Map<number, Set<string>>();
      const follow = (imp: { ref: string; line: number }, rel: string): void => {
        imports.push({ path: rel, line: imp.line });
        const refs = followed.get(imp.line) ?? new Set<string>();
        refs.add(imp.ref);
        followed.set(imp.line, refs);
      };
      for (const imp of findClaudeImports(blankLines(f.text, f.excluded ?? []))) {
        if (imp.ref.startsWith('~/') || imp.ref.startsWith('/')) {
          unresolvedImport(f.path, imp.line, imp.ref, 'is outside the project');
          continue;
        }
        const dirAbs = join(rootReal, ...f.path.split('/').slice(0, -1));
        const abs = resolve(dirAbs, imp.ref);
        let st;
        try {
          st = statSync(abs);
        } catch {
          // A mention (`@alice`) is plain text; a path that names no file is worth a warning.
          if (looksLikePath(imp.ref)) unresolvedImport(f.path, imp.line, imp.ref, /^\.\.($|[\\/])/.test(relative(rootReal, abs)) || isAbsolute(relative(rootReal, abs)) ? 'is outside the project' : 'names no existing file');
          continue;
        }
        if (!st.isFile()) {
          if (looksLikePath(imp.ref)) unresolvedImport(f.path, imp.line, imp.ref, 'is not a file');
          continue;
        }
        const rel = inside(rootReal, abs);
        if (rel === undefined || rel === '') {
          unresolvedImport(f.path, imp.line, imp.ref, 'is outside the project');
          continue;
        }
        const kind = detectKind(rel);
        if (kind === undefined || kind === 'json-source') {
          unresolvedImport(f.path, imp.line, imp.ref, 'is not Markdown');
          continue;
        }
        if (byPath.has(rel)) {
          follow(imp, rel);
          continue;
        }
        if (depth + 1 > MAX_IMPORT_DEPTH) {
          unresolvedImport(f.path, imp.line, imp.ref, `is deeper than ${MAX_IMPORT_DEPTH} levels`);
          continue;
        }
        const added = admit(abs, rel, kind === 'markdown' ? 'claude-md' : kind);
        if (!added) continue;
        follow(imp, rel);
        byPath.set(rel, added);
        next.push({ f: added, depth: depth + 1 });
      }
      if (imports.length > 0) f.imports = imports;
      // A line that is nothing but imports already followed (`@AGENTS.md`) is not a node: its
      // files are in the package, and the line itself would be a live import in the consumer's
      // agent files (new-user finding 24). The imports edge then starts at the file's root.
      const lines = f.text.split('\n');
      const only: LineRange[] = [];
      for (const [line, refs] of followed) {
        const words = (lines[line - 1] ?? '').trim().split(/\s+/);
        if (words.every((w) => w.startsWith('@') && refs.has(trimTrailingPunctuation(w.slice(1))))) only.push({ start: line, end: line });
      }
      if (only.length > 0) f.excluded = [...(f.excluded ?? []), ...only].sort((a, b) => a.start - b.start);
    }
    frontier = next;
  }
  if (byPath.size === 0) {
    throw new CtxpkgError('E_SOURCE', skipped.length > 0 ? `no source files left: ${skipped.map((x) => x.path).filter((p, i, a) => a.indexOf(p) === i).join(', ')} hold only ctxpkg's own output` : 'no source files found', {
      hint: 'pass files or folders with AGENTS.md, CLAUDE.md, rules or Markdown that you wrote yourself',
      ...(skipped.length > 0 ? { details: { skipped } } : {}),
    });
  }
  return { files: [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), warnings, skipped, unresolved };
}
