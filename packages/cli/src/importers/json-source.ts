/**
 * The JSON source format `ctxpkg-source-v1` (spec/format.md "Importers, provenance and scope"
 * § JSON source): hand-written knowledge with explicit ids, types and edges.
 *
 * ```json
 * { "format": "ctxpkg-source-v1",
 *   "title": "Auth gotchas",                // optional: content of the file's root section
 *   "scope": ["src/auth/**"],               // optional: globs the whole file applies to
 *   "nodes": [ { "id": "jwt-rotation", "type": "gotcha", "content": "JWT secrets rotate every 24h",
 *                "category": "security", "confidence": 0.9, "scope": ["src/**"], "supersedes": "old-id" } ],
 *   "edges": [ { "from": "jwt-rotation", "to": "other", "type": "relates_to", "weight": 0.5 } ] }
 * ```
 * Ids: 1–128 characters `[A-Za-z0-9._:/-]`, starting alphanumeric, unique. Types: `[a-z][a-z0-9_]*`.
 * Each node's line range is the lines of its object in the file. Unknown members are refused.
 *
 * Cross-package references (spec/merge.md §2): an edge's `from` or `to` and a node's
 * `supersedes` may name another package's node as `@ns/name#<its local id>` (the package part a
 * scoped name, spec/format.md §13). At least one end of an edge is a node of this file; a
 * qualified id naming the package being built is refused (use the local id). Each one is
 * returned in `crossRefs` so that `create` can check it against the declared dependencies.
 */
import { CtxpkgError, parseQualifiedRef, type ContextEdge, type ContextNode } from '@ctxpkg/format';
import { parseJsonObject, isPlainObject } from '../jsonfile.js';
import { sourceHash, splitLines } from './provenance.js';
import type { CrossPackageRef, SourceFile } from './types.js';
import { lineIndex } from './line-index.js';

export { lineIndex };

const ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
const TYPE = /^[a-z][a-z0-9_]{0,63}$/;
const NODE_KEYS = new Set(['id', 'type', 'content', 'category', 'confidence', 'scope', 'supersedes']);
const EDGE_KEYS = new Set(['from', 'to', 'type', 'weight']);
const TOP_KEYS = new Set(['format', 'title', 'scope', 'nodes', 'edges']);

/** Offsets `[start, end)` of each element of the top-level array member `key`. */
export function arrayElementRanges(text: string, key: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let depth = 0;
  let i = 0;
  let pendingKey: string | undefined;
  let inTarget = false;
  let elemStart = -1;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (depth === 1 && !inTarget) {
        const k = JSON.parse(text.slice(i, j + 1)) as string;
        let n = j + 1;
        while (/\s/.test(text[n] ?? '')) n++;
        if (text[n] === ':') pendingKey = k;
      }
      if (inTarget && depth === 2 && elemStart < 0) elemStart = i;
      i = j + 1;
      continue;
    }
    if (c === '{' || c === '[') {
      if (depth === 1 && c === '[' && pendingKey === key) inTarget = true;
      else if (inTarget && depth === 2 && elemStart < 0) elemStart = i;
      depth++;
    } else if (c === '}' || c === ']') {
      depth--;
      if (inTarget && depth === 1) {
        if (elemStart >= 0) out.push([elemStart, trimEnd(text, i)]);
        return out;
      }
      if (inTarget && depth === 2 && elemStart >= 0 && (c === '}' || c === ']')) {
        out.push([elemStart, i + 1]);
        elemStart = -1;
      }
    } else if (c === ',' && inTarget && depth === 2) {
      if (elemStart >= 0) out.push([elemStart, trimEnd(text, i)]);
      elemStart = -1;
    } else if (!/\s/.test(c) && inTarget && depth === 2 && elemStart < 0) {
      elemStart = i;
    } else if (c === ',' && depth === 1) {
      pendingKey = undefined;
    }
    i++;
  }
  return out;
}

function trimEnd(text: string, end: number): number {
  let e = end;
  while (e > 0 && /\s/.test(text[e - 1])) e--;
  return e;
}

function fail(file: string, line: number, msg: string): never {
  throw new CtxpkgError('E_SOURCE', `${file}:${line}: ${msg}`, { hint: 'see spec/format.md "JSON source"' });
}

function globs(v: unknown, file: string, line: number): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((g) => typeof g === 'string' && g.trim() !== '')) fail(file, line, '"scope" must be a list of glob strings');
  return (v as string[]).map((g) => g.trim());
}

/** Options of `importJsonSource`. */
export interface JsonSourceOptions {
  /** The package being built (`@ns/name`): a qualified id naming it is refused. */
  package?: string;
}

/**
 * A cross-package reference at `file:line`, checked for form (see module comment); `undefined`
 * when `ref` contains no `#` (an ordinary id, checked by the caller).
 */
function crossRef(ref: string, where: string, file: string, line: number, opts: JsonSourceOptions): CrossPackageRef | undefined {
  if (!ref.includes('#')) return undefined;
  const q = parseQualifiedRef(ref);
  if (!q) fail(file, line, `${where} ${JSON.stringify(ref)} is not a qualified id @ns/name#<node id> (spec/merge.md §2)`);
  if (opts.package !== undefined && q.package === opts.package) {
    fail(file, line, `${where} ${JSON.stringify(ref)} names this package (${opts.package}): use the local id ${JSON.stringify(q.localId)}`);
  }
  return { file, line, field: where, ref, package: q.package };
}

/**
 * Import one JSON source file. Returns its nodes, edges and the cross-package references it
 * makes (in file order). Throws `E_SOURCE` (with file:line) or `E_INVALID_JSON`.
 */
export function importJsonSource(
  file: SourceFile,
  opts: JsonSourceOptions = {},
): { rootId: string; nodes: ContextNode[]; edges: ContextEdge[]; crossRefs: CrossPackageRef[] } {
  const crossRefs: CrossPackageRef[] = [];
  const text = file.text.charCodeAt(0) === 0xfeff ? file.text.slice(1) : file.text;
  const lines = splitLines(text);
  let last = lines.length;
  while (last > 1 && lines[last - 1].trim() === '') last--;
  const o = parseJsonObject(text, file.path);
  for (const k of Object.keys(o)) if (!TOP_KEYS.has(k)) fail(file.path, 1, `unknown member "${k}"`);
  if (o.format !== 'ctxpkg-source-v1') fail(file.path, 1, '"format" must be "ctxpkg-source-v1"');
  if (o.title !== undefined && typeof o.title !== 'string') fail(file.path, 1, '"title" must be a string');
  if (!Array.isArray(o.nodes)) fail(file.path, 1, '"nodes" must be a list');
  const ranges = arrayElementRanges(text, 'nodes');
  const lineAt = lineIndex(text);
  const root: ContextNode = {
    id: file.path, type: 'section', content: (o.title as string | undefined) ?? file.path, activation: 1.0,
    category: file.kind, source: sourceHash(lines, 1, last), file_path: file.path, line_start: 1, line_end: last,
  };
  const nodes: ContextNode[] = [root];
  const edges: ContextEdge[] = [];
  const ids = new Set<string>([root.id]);
  const addScope = (owner: string, gs: string[], line: number): void => {
    gs.forEach((g, k) => {
      const id = `${owner}:scope:${k + 1}`;
      nodes.push({ id, type: 'scope', content: g, activation: 1.0, category: file.kind, source: sourceHash(lines, line, line), file_path: file.path, line_start: line, line_end: line });
      ids.add(id);
      edges.push({ from: owner, to: id, type: 'applies_to', weight: 1.0 });
    });
  };
  addScope(root.id, globs(o.scope, file.path, 1), 1);
  (o.nodes as unknown[]).forEach((raw, i) => {
    const [s, e] = ranges[i] ?? [0, 0];
    const ls = lineAt(s);
    const le = lineAt(Math.max(s, e - 1));
    if (!isPlainObject(raw)) fail(file.path, ls, `nodes[${i}] must be an object`);
    for (const k of Object.keys(raw)) if (!NODE_KEYS.has(k)) fail(file.path, ls, `nodes[${i}]: unknown member "${k}"`);
    if (typeof raw.id !== 'string' || !ID.test(raw.id)) fail(file.path, ls, `nodes[${i}].id must match ${ID}`);
    if (ids.has(raw.id)) fail(file.path, ls, `duplicate node id "${raw.id}"`);
    if (typeof raw.type !== 'string' || !TYPE.test(raw.type)) fail(file.path, ls, `nodes[${i}].type must match ${TYPE}`);
    if (typeof raw.content !== 'string' || raw.content.trim() === '') fail(file.path, ls, `nodes[${i}].content must be a non-empty string`);
    const n: ContextNode = { id: raw.id, type: raw.type, content: raw.content, activation: 1.0 };
    n.category = typeof raw.category === 'string' ? raw.category : file.kind;
    n.source = sourceHash(lines, ls, le);
    n.file_path = file.path;
    n.line_start = ls;
    n.line_end = le;
    if (raw.confidence !== undefined) {
      if (typeof raw.confidence !== 'number' || !(raw.confidence >= 0 && raw.confidence <= 1)) fail(file.path, ls, 'confidence must be a number in [0, 1]');
      n.confidence = raw.confidence;
    }
    if (raw.supersedes !== undefined) {
      if (typeof raw.supersedes !== 'string' || raw.supersedes === '') fail(file.path, ls, 'supersedes must be a node id');
      const x = crossRef(raw.supersedes, `nodes[${i}].supersedes`, file.path, ls, opts);
      if (x) crossRefs.push(x);
      n.supersedes = raw.supersedes;
    }
    ids.add(n.id);
    nodes.push(n);
    edges.push({ from: root.id, to: n.id, type: 'contains', weight: 1.0 });
    addScope(n.id, globs(raw.scope, file.path, ls), ls);
  });
  if (o.edges !== undefined) {
    if (!Array.isArray(o.edges)) fail(file.path, 1, '"edges" must be a list');
    const eranges = arrayElementRanges(text, 'edges');
    (o.edges as unknown[]).forEach((raw, i) => {
      const line = lineAt(eranges[i]?.[0] ?? 0);
      if (!isPlainObject(raw)) fail(file.path, line, `edges[${i}] must be an object`);
      for (const k of Object.keys(raw)) if (!EDGE_KEYS.has(k)) fail(file.path, line, `edges[${i}]: unknown member "${k}"`);
      const ends: CrossPackageRef[] = [];
      for (const end of ['from', 'to'] as const) {
        const v = raw[end];
        if (typeof v !== 'string') fail(file.path, line, `edges[${i}].${end} must be a node id`);
        if (ids.has(v)) continue;
        const x = crossRef(v, `edges[${i}].${end}`, file.path, line, opts);
        if (!x) fail(file.path, line, `edges[${i}].${end} is not a node id of this file, nor a qualified id @ns/name#<node id> of another package`);
        ends.push(x);
      }
      if (ends.length === 2) fail(file.path, line, `edges[${i}] has no end in this file: at least one of from/to must be a node id of this file`);
      crossRefs.push(...ends);
      if (typeof raw.type !== 'string' || !TYPE.test(raw.type)) fail(file.path, line, `edges[${i}].type must match ${TYPE}`);
      let weight = 1.0;
      if (raw.weight !== undefined) {
        if (typeof raw.weight !== 'number' || !(raw.weight >= 0 && raw.weight <= 1)) fail(file.path, line, 'weight must be a number in [0, 1]');
        weight = raw.weight;
      }
      edges.push({ from: raw.from as string, to: raw.to as string, type: raw.type, weight });
    });
  }
  return { rootId: root.id, nodes, edges, crossRefs };
}
