/**
 * Shared shapes of the v2 knowledge graph (reference: `cp/graph_model.rs`, FORMAT-FACTS §5.1)
 * and of the merged project graph that ctxpkg derives from installed packages (spec/merge.md).
 *
 * These are plain data types, shared by the format core, the merge, the context-pack compiler,
 * the CLI and the registry. Field order in these interfaces is the reference's serialization
 * order; the writer (json/ + schema/) is what actually guarantees byte order.
 */

/** A node of `content.context_graph` (reference `ContextNode`). */
export interface ContextNode {
  id: string;
  /** Serialized as `type` (Rust `node_type`). Free string; see spec §4.3 taxonomy. */
  type: string;
  content: string;
  /** f64, default 1.0, always written. */
  activation: number;
  category?: string;
  /**
   * Origin. ctxpkg importers write `sha256:<64 hex>` here: the SHA-256 of the exact source
   * lines `line_start..line_end` (see spec/format.md "Provenance").
   */
  source?: string;
  /** RFC 3339 UTC timestamp text, in the reference's spelling (`…05Z`, `…05.120Z`). */
  created_at?: string;
  /** u32 */
  decay_half_life_days?: number;
  blob_ref?: string;
  file_path?: string;
  /** usize, 1-based inclusive (ctxpkg importers). */
  line_start?: number;
  /** usize, 1-based inclusive (ctxpkg importers). */
  line_end?: number;
  /** f32 in [0,1]. */
  confidence?: number;
  /** Id of the node this one supersedes (package-local id, or qualified `@ns/name#id`). */
  supersedes?: string;
}

/** An edge of `content.context_graph` (reference `ContextEdge`). */
export interface ContextEdge {
  from: string;
  to: string;
  /** Serialized as `type` (Rust `edge_type`). */
  type: string;
  /** f64, default 1.0, always written. */
  weight: number;
  /** u32, default 0, omitted when 0. */
  coactivations?: number;
  metadata?: string;
}

/** `content.context_graph` (reference `ContextGraph`). */
export interface ContextGraph {
  /** Writers set `ctxpkg-graph-v2`. */
  format: string;
  nodes: ContextNode[];
  edges: ContextEdge[];
}

/** The identity of one merge input: a package at a version with its content hash. */
export interface MergeInput {
  /** Package name, e.g. `@acme/auth-context` (unscoped legacy names allowed for local files). */
  package: string;
  version: string;
  /** `integrity.content_hash` of the package (lowercase hex). */
  content_hash: string;
  /** The package's graph (v1 packages are passed through the v1→v2 view first). */
  graph: ContextGraph;
}

/** A node of the merged project graph. `id` is qualified: `@ns/name#localId`. */
export interface MergedNode extends Omit<ContextNode, 'supersedes'> {
  /** Qualified id `@ns/name#localId`. */
  id: string;
  package: string;
  version: string;
  /** The id inside its package. */
  local_id: string;
  /** Qualified id of the node this one supersedes, if any. */
  supersedes?: string;
  /** Set when another node supersedes this one (its activation is then 0). */
  superseded_by?: string[];
  /** Set when the node takes part in a `contradicts` conflict. */
  disputed?: boolean;
}

/** An edge of the merged project graph; `from`/`to` are qualified ids. */
export interface MergedEdge extends ContextEdge {
  /** Packages that contributed this edge, sorted. */
  packages: string[];
}

/** A `contradicts` conflict between two nodes (qualified ids), as found by the merge. */
export interface MergeConflict {
  from: string;
  to: string;
  /** The package whose edge declared the contradiction. */
  package: string;
}

/** The deterministic merged graph written to `.ctxpkg/graph/merged.json`. */
export interface MergedGraph {
  format: 'ctxpkg-merged-v1';
  /** Sorted by package name. */
  inputs: Array<{ package: string; version: string; content_hash: string }>;
  /** Sorted by qualified id. */
  nodes: MergedNode[];
  /** Sorted by (from, to, type). */
  edges: MergedEdge[];
  /** Sorted by (from, to, package). */
  conflicts: MergeConflict[];
}
