/**
 * Test helpers: build merged graphs directly (the merge itself is tested elsewhere).
 */
import { createHash } from 'node:crypto';
import type { MergedEdge, MergedGraph, MergedNode } from '../../graph-types.js';

export const NOW = '2025-06-01T12:00:00Z';

/** `sha256:<hex>` of lines a..b (1-based inclusive) of `text` (provenance rule). */
export function srcHash(text: string, a: number, b: number): string {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  return 'sha256:' + createHash('sha256').update(lines.slice(a - 1, b).join('\n')).digest('hex');
}

/** A merged node of package `pkg` (version 1.0.0 unless given). */
export function node(pkg: string, local: string, over: Partial<MergedNode> = {}): MergedNode {
  return {
    id: `${pkg}#${local}`,
    type: 'fact',
    content: `content of ${local}`,
    activation: 1.0,
    package: pkg,
    version: '1.0.0',
    local_id: local,
    ...over,
  };
}

/** A merged graph over `nodes`; inputs derived from the packages present (content hash fake). */
export function graph(nodes: MergedNode[], edges: Array<Partial<MergedEdge> & { from: string; to: string; type: string }> = [], conflicts: MergedGraph['conflicts'] = []): MergedGraph {
  const pkgs = new Map<string, string>();
  for (const n of nodes) pkgs.set(n.package, n.version);
  return {
    format: 'ctxpkg-merged-v1',
    inputs: [...pkgs].sort(([a], [b]) => (a < b ? -1 : 1)).map(([p, v]) => ({ package: p, version: v, content_hash: createHash('sha256').update(p + v).digest('hex') })),
    nodes: [...nodes].sort((a, b) => (a.id < b.id ? -1 : 1)),
    edges: edges.map((e) => ({ weight: 1.0, packages: [], ...e })),
    conflicts,
  };
}

/** UTF-8 byte length. */
export function byteLen(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}
