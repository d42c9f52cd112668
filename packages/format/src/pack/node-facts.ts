/**
 * Facts about one node that depend only on its own text — the secret kinds found in it and the
 * content hash its receipt entry carries — computed once and remembered for later compilations
 * of the same graph in the same process (the MCP server renders the same graph many times;
 * `ctxpkg sync` compiles one pack per package). Pure and exact: a remembered entry is used only
 * while the node's `content`, `id`, `category` and `file_path` are the same strings as when it
 * was computed; otherwise it is recomputed.
 *
 * `factsFor(graph)` is the memo of one graph object (kept in a `WeakMap` keyed by the graph, so
 * it goes away with the graph; inside, an ordinary `Map` by node, which costs the garbage
 * collector less than one weak entry per node).
 */
import type { MergedNode } from '../graph-types.js';
import { sha256Hex } from '../hash.js';
import { redactSecrets, scanSecrets, secretKinds, type SecretFinding } from '../secrets.js';

interface Facts {
  content: string;
  id: string;
  category: string | undefined;
  file_path: string | undefined;
  /** Kinds of secrets in content, id, category or file path (sorted; empty when clean). */
  kinds: readonly string[];
  /** Whether the content itself (not only the metadata) has a finding. */
  contentSecret: boolean;
  /** `sha256:<hex>` of the content, computed on demand. */
  hash?: string;
  /** `sha256:<hex>` of the redacted content (omitted nodes whose content has a secret). */
  redactedHash?: string;
}

const NONE: readonly string[] = Object.freeze([]);

/** The metadata line scanned with a node: id, category and file path joined by LF. */
function metaText(n: Pick<MergedNode, 'id' | 'category' | 'file_path'>): string {
  return `${n.id}\n${n.category ?? ''}\n${n.file_path ?? ''}`;
}

/**
 * Secret findings in everything a pack would show of a node: its content, then its id, category
 * and file path (one line each, scanned together). Positions of the metadata findings refer to
 * the joined metadata text. Source of the rule: spec/pack.md §3.
 */
export function nodeSecrets(n: Pick<MergedNode, 'content' | 'id' | 'category' | 'file_path'>): SecretFinding[] {
  const found = scanSecrets(n.content);
  for (const x of scanSecrets(metaText(n))) found.push(x);
  return found;
}

/** Remembered per-node facts (see module docstring). */
export class NodeFacts {
  private readonly byNode = new Map<MergedNode, Facts>();

  private factsOf(n: MergedNode): Facts {
    const f = this.byNode.get(n);
    if (f !== undefined && f.content === n.content && f.id === n.id && f.category === n.category && f.file_path === n.file_path) return f;
    const inContent = scanSecrets(n.content);
    const inMeta = scanSecrets(metaText(n));
    const kinds = inContent.length + inMeta.length === 0 ? NONE : secretKinds([...inContent, ...inMeta]);
    const fresh: Facts = { content: n.content, id: n.id, category: n.category, file_path: n.file_path, kinds, contentSecret: inContent.length > 0 };
    this.byNode.set(n, fresh);
    return fresh;
  }

  /** Kinds of secrets a pack would show of `n` (sorted, distinct; empty when clean). Never the values. */
  secretKinds(n: MergedNode): readonly string[] {
    return this.factsOf(n).kinds;
  }

  /** `sha256:<hex>` of the node's content as UTF-8 (spec/pack.md §10). */
  contentHash(n: MergedNode): string {
    const f = this.factsOf(n);
    return (f.hash ??= 'sha256:' + sha256Hex(n.content));
  }

  /**
   * The content hash an omission record carries: of the content, or — when the content contains
   * a secret, whatever the reason of the omission — of the *redacted* content, so a receipt can
   * never confirm a guessed secret (spec/pack.md §3, §10).
   */
  omissionHash(n: MergedNode): string {
    const f = this.factsOf(n);
    if (!f.contentSecret) return this.contentHash(n);
    return (f.redactedHash ??= 'sha256:' + sha256Hex(redactSecrets(n.content).text));
  }
}

const byGraph = new WeakMap<object, NodeFacts>();

/** The facts memo of `graph` (any object standing for one graph): created on first use. */
export function factsFor(graph: object): NodeFacts {
  let m = byGraph.get(graph);
  if (!m) {
    m = new NodeFacts();
    byGraph.set(graph, m);
  }
  return m;
}
