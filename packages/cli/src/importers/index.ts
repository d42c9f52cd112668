/**
 * Assemble the knowledge graph of a package from its source files (pure: text in, graph out).
 * spec/format.md "Importers, provenance and scope" is the normative description.
 */
import { posix } from 'node:path';
import { CtxpkgError, globProblem, type ContextEdge, type ContextGraph, type ContextNode } from '@ctxpkg/format';
import { importJsonSource } from './json-source.js';
import { importMarkdown } from './markdown.js';
import type { CrossPackageRef, SourceFile, SourceKind } from './types.js';

export type { CrossPackageRef, SourceFile, SourceKind } from './types.js';
export { classifyBlock } from './classify.js';
export { sourceHash, splitLines } from './provenance.js';

/**
 * The importer for a POSIX path (relative to the source root), or undefined when no importer
 * reads it. Order matters: the first rule that matches wins.
 */
export function detectKind(path: string): SourceKind | undefined {
  const base = posix.basename(path);
  if (base === 'AGENTS.md' || base === 'AGENTS.override.md') return 'agents-md';
  if (base === 'CLAUDE.md' || base === 'CLAUDE.local.md' || /(^|\/)\.claude\/.+\.md$/.test(path)) return 'claude-md';
  if (base.endsWith('.mdc')) return 'cursor-rule';
  if (base === '.cursorrules') return 'cursorrules';
  if (/(^|\/)\.github\/copilot-instructions\.md$/.test(path)) return 'copilot';
  if (base.endsWith('.instructions.md')) return 'copilot-scoped';
  if (base.endsWith('.json')) return 'json-source';
  if (/\.(md|markdown)$/i.test(base)) return 'markdown';
  return undefined;
}

/**
 * `target` without its query and fragment, as `target.replace(/[?#].*$/, '')` gave: from the
 * first `?` or `#` after the last line terminator (`.` matches none of LF, CR, U+2028, U+2029).
 * One pass: that RegExp ran to the end of the line from every `?`/`#` before a line terminator,
 * quadratic in a long run of them (source text).
 */
export function withoutQueryAndFragment(target: string): string {
  let from = 0;
  for (let i = target.length - 1; i >= 0; i--) {
    const c = target.charCodeAt(i);
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) {
      from = i + 1;
      break;
    }
  }
  for (let i = from; i < target.length; i++) {
    const c = target.charCodeAt(i);
    if (c === 63 || c === 35) return target.slice(0, i);
  }
  return target;
}

/** Resolve a Markdown link to a source path, or undefined for external/unknown targets. */
function resolveLink(fromPath: string, url: string): string | undefined {
  let target = url.trim();
  let rootRelative = false;
  if (target.startsWith('mdc:')) {
    target = target.slice(4);
    rootRelative = true;
  } else if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//') || target.startsWith('#')) {
    return undefined;
  }
  target = withoutQueryAndFragment(target);
  if (target === '') return undefined;
  try {
    target = decodeURIComponent(target);
  } catch {
    return undefined;
  }
  const joined = target.startsWith('/') || rootRelative ? posix.normalize(target.replace(/^\/+/, '')) : posix.join(posix.dirname(fromPath), target);
  if (joined.startsWith('..') || posix.isAbsolute(joined)) return undefined;
  return joined;
}

/** Options of `buildGraph`. */
export interface BuildGraphOptions {
  /** The package being built (`@ns/name`): JSON sources may not name it in a qualified id. */
  package?: string;
  /** Receives every cross-package reference of the JSON sources, in path then file order. */
  crossRefs?: CrossPackageRef[];
}

/**
 * Build the package graph from sources (sorted by path here, so input order does not matter).
 * Edges: `contains` (section → child), `applies_to` (root → scope), `references` (links between
 * imported files), `imports` (CLAUDE.md `@path`), and the JSON sources' own edges — the only
 * ones that may name another package's node (`@ns/name#id`, spec/merge.md §2; Markdown links
 * resolve to files of this package only). Throws `E_SOURCE` on duplicate node ids, a bad JSON
 * source or a file no importer reads; `E_GLOB` (naming file and line) for a scope glob that
 * cannot be used (`globProblem`, the bounds every consumer holds it to).
 */
export function buildGraph(input: SourceFile[], opts: BuildGraphOptions = {}): ContextGraph {
  const files = [...input].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const nodes: ContextNode[] = [];
  const edges: ContextEdge[] = [];
  const roots = new Map<string, string>();
  const linkEdges: Array<{ from: string; fromPath: string; url: string }> = [];
  const importEdges: Array<{ file: string; line: number; target: string }> = [];
  for (const f of files) {
    let rootId: string;
    if (f.kind === 'json-source') {
      const r = importJsonSource(f, opts.package !== undefined ? { package: opts.package } : {});
      opts.crossRefs?.push(...r.crossRefs);
      rootId = r.rootId;
      nodes.push(...r.nodes);
      edges.push(...r.edges);
    } else {
      const r = importMarkdown(f);
      rootId = r.rootId;
      nodes.push(...r.nodes);
      edges.push(...r.edges);
      for (const l of r.links) linkEdges.push({ from: l.from, fromPath: f.path, url: l.url });
    }
    roots.set(f.path, rootId);
    (f.impliedScope ?? []).forEach((glob, k) => {
      const id = `${f.path}:scope:implied:${k + 1}`;
      nodes.push({ id, type: 'scope', content: glob, activation: 1.0, category: f.kind, file_path: f.path });
      edges.push({ from: rootId, to: id, type: 'applies_to', weight: 1.0 });
    });
    for (const imp of f.imports ?? []) importEdges.push({ file: f.path, line: imp.line, target: imp.path });
  }
  for (const n of nodes) {
    const problem = n.type === 'scope' ? globProblem(n.content.trim()) : undefined;
    if (problem) {
      throw new CtxpkgError('E_GLOB', `${n.file_path ?? n.id}:${n.line_start ?? 1}: glob ${JSON.stringify(n.content.length > 80 ? n.content.slice(0, 80) + '…' : n.content)}: ${problem}`, {
        hint: 'scope globs are relative to the project root, at most 512 characters: * ? ** [a-z] {a,b}',
      });
    }
  }
  const seen = new Set<string>();
  for (const n of nodes) {
    if (seen.has(n.id)) {
      throw new CtxpkgError('E_SOURCE', `two sources produce the node id "${n.id}"`, {
        hint: 'rename the node in the JSON source, or do not import the same file twice',
      });
    }
    seen.add(n.id);
  }
  for (const l of linkEdges) {
    const target = resolveLink(l.fromPath, l.url);
    const to = target === undefined ? undefined : roots.get(target);
    if (to !== undefined && to !== l.from) edges.push({ from: l.from, to, type: 'references', weight: 1.0 });
  }
  for (const imp of importEdges) {
    const to = roots.get(imp.target);
    if (to === undefined) continue;
    // The innermost node of the importing file whose line range holds the import line.
    let from = roots.get(imp.file) as string;
    let span = Infinity;
    for (const n of nodes) {
      if (n.file_path !== imp.file || n.line_start === undefined || n.line_end === undefined) continue;
      if (n.line_start <= imp.line && imp.line <= n.line_end && n.line_end - n.line_start < span && n.type !== 'scope') {
        span = n.line_end - n.line_start;
        from = n.id;
      }
    }
    edges.push({ from, to, type: 'imports', weight: 1.0 });
  }
  const keyed = new Map<string, ContextEdge>();
  for (const e of edges) {
    const k = `${e.from}\u0000${e.to}\u0000${e.type}`;
    if (!keyed.has(k)) keyed.set(k, e);
  }
  return { format: 'ctxpkg-graph-v2', nodes, edges: [...keyed.values()] };
}
