/**
 * The packages made from `../shared/corpus` (one package per top-level folder, each file's path
 * relative to that folder), imported with the `ctxpkg create` importers and merged as
 * `ctxpkg install` merges them. Shared by bench:render (size ratio), bench:retrieval and the
 * corpus tests. Reads the corpus; never copies it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { mergeGraphs, type MergedGraph } from '@ctxpkg/format';
import { buildGraph, detectKind } from '../../packages/cli/src/importers/index.js';

/** One corpus file: its package, its path inside the package, its text and byte size. */
export interface CorpusFile {
  package: string;
  path: string;
  /** Path under ../shared/corpus. */
  corpusPath: string;
  text: string;
  bytes: number;
}

/** `<shared>/corpus`, or undefined when absent. */
export function corpusDir(sharedDir: string): string | undefined {
  const dir = join(sharedDir, 'corpus');
  return existsSync(dir) ? dir : undefined;
}

/** Every corpus file (SOURCES.md excluded), sorted by corpus path. */
export function corpusFiles(dir: string): CorpusFile[] {
  const out: CorpusFile[] = [];
  for (const top of readdirSync(dir).sort()) {
    const root = join(dir, top);
    if (!statSync(root).isDirectory()) continue;
    const walk = (d: string): void => {
      for (const name of readdirSync(d).sort()) {
        const p = join(d, name);
        if (statSync(p).isDirectory()) walk(p);
        else {
          const text = readFileSync(p, 'utf8');
          const path = relative(root, p).split('\\').join('/');
          out.push({ package: `@corpus/${top}`, path, corpusPath: `${top}/${path}`, text, bytes: Buffer.byteLength(text) });
        }
      }
    };
    walk(root);
  }
  return out.sort((a, b) => (a.corpusPath < b.corpusPath ? -1 : 1));
}

/** The merged graph of the corpus packages (version 1.0.0 each), or of `only` those files. */
export function corpusGraph(files: readonly CorpusFile[]): MergedGraph {
  const byPkg = new Map<string, CorpusFile[]>();
  for (const f of files) (byPkg.get(f.package) ?? byPkg.set(f.package, []).get(f.package)!).push(f);
  const inputs = [...byPkg].map(([pkg, fs]) => ({
    package: pkg,
    version: '1.0.0',
    content_hash: '0'.repeat(64),
    graph: buildGraph(
      fs.map((f) => ({ path: f.path, kind: detectKind(f.path) ?? 'markdown', text: f.text })),
      { package: pkg },
    ),
  }));
  return mergeGraphs(inputs).graph;
}

/**
 * A graph shaped like real packages, at least `n` nodes: the merged corpus graph (`corpusGraph`)
 * copied under other package names (`@corpus/<folder>-<k>`, k = 000, 001, …) until it has `n`
 * nodes, ordered as a merge orders them (nodes by id, edges by their ends' positions, then type).
 * Real headings, sections, scopes, lists and source-ordered edges — what the synthetic bench
 * graph (graph.ts) lacks. Copies, not a merge of hundreds of inputs: built in well under a second.
 */
export function corpusShapedGraph(files: readonly CorpusFile[], n: number): MergedGraph {
  const base = corpusGraph(files);
  const copies = Math.max(1, Math.ceil(n / Math.max(1, base.nodes.length)));
  const rename = (pkg: string, k: number): string => `${pkg}-${String(k).padStart(3, '0')}`;
  const renameId = (id: string, k: number): string => {
    const hash = id.indexOf('#');
    return rename(id.slice(0, hash), k) + id.slice(hash);
  };
  const nodes: MergedGraph['nodes'] = [];
  const edges: MergedGraph['edges'] = [];
  const inputs: MergedGraph['inputs'] = [];
  for (let k = 0; k < copies; k++) {
    for (const i of base.inputs) inputs.push({ ...i, package: rename(i.package, k) });
    for (const node of base.nodes) nodes.push({ ...node, id: renameId(node.id, k), package: rename(node.package, k) });
    for (const e of base.edges) edges.push({ ...e, from: renameId(e.from, k), to: renameId(e.to, k), packages: e.packages.map((p) => rename(p, k)) });
  }
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  nodes.sort((a, b) => cmp(a.id, b.id));
  inputs.sort((a, b) => cmp(a.package, b.package));
  const rank = new Map(nodes.map((node, i) => [node.id, i]));
  edges.sort((a, b) => (rank.get(a.from) as number) - (rank.get(b.from) as number) || (rank.get(a.to) as number) - (rank.get(b.to) as number) || cmp(a.type, b.type));
  if (base.conflicts.length > 0) throw new Error('bench: corpusShapedGraph does not rename conflicts (the corpus had none)');
  return { format: base.format, inputs, nodes, edges, conflicts: [] };
}

/** A workspace reader over the corpus files (for freshness): path inside any package → text. */
export function corpusReader(files: readonly CorpusFile[]): (path: string) => string | null {
  const m = new Map(files.map((f) => [f.path, f.text]));
  return (p) => m.get(p) ?? null;
}
