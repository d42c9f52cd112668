/**
 * Shapes shared by the importers (spec/format.md "Importers, provenance and scope").
 */
import type { ContextEdge, ContextNode } from '@ctxpkg/format';

/** Which importer reads a file; also written as the node `category`. */
export type SourceKind =
  | 'agents-md'
  | 'claude-md'
  | 'cursor-rule'
  | 'cursorrules'
  | 'copilot'
  | 'copilot-scoped'
  | 'markdown'
  | 'json-source';

/** One source file: `path` is POSIX and relative to the source root; `text` is its UTF-8 text. */
export interface SourceFile {
  path: string;
  kind: SourceKind;
  text: string;
  /** Globs the whole file applies to, besides its frontmatter (nested AGENTS.md → `dir/**`). */
  impliedScope?: string[];
  /** Paths (relative to the source root) this file imports (`@path` in CLAUDE.md), in text order. */
  imports?: Array<{ path: string; line: number }>;
  /**
   * 1-based inclusive line ranges the importer must ignore (ctxpkg's own managed blocks, see
   * generated.ts): no node is made from them; provenance hashes still use the original lines.
   */
  excluded?: Array<{ start: number; end: number }>;
}

/** Importer output for one or many files. */
export interface ImportedGraph {
  nodes: ContextNode[];
  edges: ContextEdge[];
}

/**
 * A reference from a source to another package's node (`@ns/name#<local id>`, spec/merge.md §2),
 * where it was written: `field` is e.g. `edges[0].to` or `nodes[2].supersedes`.
 */
export interface CrossPackageRef {
  file: string;
  /** 1-based line of the edge or node object. */
  line: number;
  field: string;
  ref: string;
  /** The package the reference names. */
  package: string;
}
