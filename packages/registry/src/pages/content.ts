/**
 * A published version's content for the pages: the stored artifact (hash-checked by
 * `readBlob`), read with the format's own `readPackage`, and what the pages derive from it (tree,
 * type counts). Artifacts are immutable and addressed by SHA-256, so the parsed result is cached
 * by artifact hash: the cache can never serve content another process changed. Visibility is
 * decided before this is called (routes use `visiblePackage`), never here.
 */
import { readPackage, type ContextGraph, type ContextNode, type Manifest } from '@ctxpkg/format';
import type { RegistryStore, VersionRecord } from '../store/types.js';
import { buildTree, typeCounts, type TreeFile, type TreeItem } from './tree.js';

export interface VersionContent {
  artifact: string;
  form: 'json' | 'zip';
  manifest: Manifest;
  graph: ContextGraph;
  byId: Map<string, ContextNode>;
  tree: TreeFile[];
  /** Tree position (depth, heading path) of every node shown as a tree item. */
  items: Map<string, TreeItem>;
  counts: Array<{ type: string; count: number }>;
}

/** Bounded LRU of parsed versions, by artifact SHA-256 (count and summed artifact bytes). */
export class ContentCache {
  private readonly entries = new Map<string, { bytes: number; value: Promise<VersionContent> }>();
  private bytes = 0;

  constructor(
    private readonly store: RegistryStore,
    private readonly maxEntries = 64,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  /**
   * The content of a version (cached). Throws (rejects) when the stored artifact is missing or
   * fails to read: a listed version without readable bytes is a server fault.
   */
  get(v: VersionRecord): Promise<VersionContent> {
    const key = v.artifact_sha256;
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value;
    }
    const value = this.load(v);
    const entry = { bytes: v.size_bytes, value };
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    value.catch(() => {
      if (this.entries.get(key) === entry) {
        this.entries.delete(key);
        this.bytes -= entry.bytes;
      }
    });
    while (this.entries.size > 1 && (this.entries.size > this.maxEntries || this.bytes > this.maxBytes)) {
      const [oldest, e] = this.entries.entries().next().value as [string, { bytes: number }];
      this.entries.delete(oldest);
      this.bytes -= e.bytes;
    }
    return value;
  }

  private async load(v: VersionRecord): Promise<VersionContent> {
    const bytes = await this.store.readBlob(v.artifact_sha256);
    if (!bytes) throw new Error(`blob ${v.artifact_sha256} of @${v.namespace}/${v.name}@${v.version} is missing`);
    const pkg = await readPackage(bytes, { maxBytes: Math.max(bytes.byteLength, 1) });
    const graph = pkg.graph;
    const tree = buildTree(graph);
    return {
      artifact: v.artifact_sha256,
      form: pkg.form,
      manifest: pkg.manifest,
      graph,
      byId: new Map(graph.nodes.map((n) => [n.id, n] as const)),
      tree,
      items: new Map(tree.flatMap((f) => f.items.map((i) => [i.node.id, i] as const))),
      counts: typeCounts(graph),
    };
  }
}
