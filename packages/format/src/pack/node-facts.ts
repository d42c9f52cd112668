/**
 * Facts about one node that depend only on its own text — the secret kinds found in it and the
 * content hash its receipt entry carries — computed once per node object and remembered for
 * later compilations in the same process (the MCP server renders the same graph many times;
 * `ctxpkg sync` compiles one pack per package). Pure and exact: a remembered entry is used only
 * while the node's `content`, `id`, `category` and `file_path` are the same strings as when it
 * was computed; otherwise it is recomputed. The memo is a `WeakMap` keyed by the node object, so
 * it goes away with the graph.
 */
import type { MergedNode } from '../graph-types.js';
import { redactSecrets, scanSecrets, secretKinds, type SecretFinding } from '../secrets.js';
import { sha256Hex } from '../hash.js';

interface Facts {
  content: string;
  id: string;
  category: string | undefined;
  file_path: string | undefined;
  /** Kinds of secrets in content, id, category or file path (sorted; empty when clean). */
  kinds: readonly string[];
  /** Whether the content itself (not only the metadata) has a finding. */
  contentSecret: boolean;
  /** `sha256:<hex>` of the content (delivered nodes), computed on demand. */
  hash?: string;
  /** `sha256:<hex>` of the redacted content (omitted nodes whose content has a secret). */
  redactedHash?: string;
}

const memo = new WeakMap<MergedNode, Facts>();

/**
 * Secret findings in everything a pack would show of a node: its content, then its id, category
 * and file path (one line each, scanned together). Positions of the metadata findings refer to
 * the joined metadata text.
 */
export function nodeSecrets(n: Pick<MergedNode, 'content' | 'id' | 'category' | 'file_path'>): SecretFinding[] {
  const found = scanSecrets(n.content);
  for (const x of scanSecrets(`${n.id}\n${n.category ?? ''}\n${n.file_path ?? ''}`)) found.push(x);
  return found;
}

function factsOf(n: MergedNode): Facts {
  const f = memo.get(n);
  if (f !== undefined && f.content === n.content && f.id === n.id && f.category === n.category && f.file_path === n.file_path) return f;
  const inContent = scanSecrets(n.content);
  const inMeta = scanSecrets(`${n.id}\n${n.category ?? ''}\n${n.file_path ?? ''}`);
  const kinds = inContent.length + inMeta.length === 0 ? [] : secretKinds([...inContent, ...inMeta]);
  const fresh: Facts = { content: n.content, id: n.id, category: n.category, file_path: n.file_path, kinds, contentSecret: inContent.length > 0 };
  memo.set(n, fresh);
  return fresh;
}

/** Kinds of secrets a pack would show of `n` (sorted, distinct; empty when clean). Never the values. */
export function nodeSecretKinds(n: MergedNode): readonly string[] {
  return factsOf(n).kinds;
}

/** `sha256:<hex>` of the node's content as UTF-8 (spec/pack.md §10). */
export function nodeContentHash(n: MergedNode): string {
  const f = factsOf(n);
  return (f.hash ??= 'sha256:' + sha256Hex(n.content));
}

/**
 * The content hash an omission record carries: of the content, or — when the content contains a
 * secret, whatever the reason of the omission — of the *redacted* content, so a receipt can never
 * confirm a guessed secret (spec/pack.md §3, §10).
 */
export function nodeOmissionHash(n: MergedNode): string {
  const f = factsOf(n);
  if (!f.contentSecret) return nodeContentHash(n);
  return (f.redactedHash ??= 'sha256:' + sha256Hex(redactSecrets(n.content).text));
}
