/** Small builders for merge tests. */
import type { ContextEdge, ContextNode, MergeInput } from '../../graph-types.js';

export function node(id: string, type = 'fact', activation = 1.0, extra: Partial<ContextNode> = {}): ContextNode {
  return { id, type, content: `content of ${id}`, activation, ...extra };
}

export function edge(from: string, to: string, type: string, weight = 1.0, coactivations = 1, extra: Partial<ContextEdge> = {}): ContextEdge {
  return { from, to, type, weight, coactivations, ...extra };
}

/** A merge input; the content hash is derived from the package name and version. */
export function input(pkg: string, nodes: ContextNode[], edges: ContextEdge[] = [], version = '1.0.0'): MergeInput {
  const seed = [...`${pkg}@${version}`].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
  const hash = seed.toString(16).padStart(8, '0').padEnd(64, '0');
  return { package: pkg, version, content_hash: hash, graph: { format: 'ctxpkg-graph-v2', nodes, edges } };
}
