/**
 * Node union with qualified ids (spec/merge.md §2, §3): `<package>#<local id>`, reference
 * resolution, and the order-independent merge of duplicate local ids inside one graph.
 */
import type { ContextNode, MergedNode } from '../graph-types.js';
import type { Input } from './validate.js';

/** Resolve a reference made inside `pkg` (spec §2). */
export function qualify(pkg: string, ref: string, localIds: ReadonlySet<string>): string {
  if (localIds.has(ref) || !ref.includes('#')) return `${pkg}#${ref}`;
  return ref;
}

/** Local ids of each input's graph. */
export function localIdSets(inputs: readonly Input[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const input of inputs) {
    const s = new Set<string>();
    for (const n of input.graph.nodes) s.add(n.id);
    out.set(input.package, s);
  }
  return out;
}

const present = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

/** A merged node in the fixed field order of the output. */
function makeNode(input: Input, n: ContextNode, supersedes: string | undefined): MergedNode {
  const out = {
    id: `${input.package}#${n.id}`,
    package: input.package,
    version: input.version,
    local_id: n.id,
    type: n.type,
    content: n.content,
    activation: present(n.activation) ? n.activation : 1.0,
  } as MergedNode;
  if (present(n.category)) out.category = n.category;
  if (present(n.source)) out.source = n.source;
  if (present(n.created_at)) out.created_at = n.created_at;
  if (present(n.decay_half_life_days)) out.decay_half_life_days = n.decay_half_life_days;
  if (present(n.blob_ref)) out.blob_ref = n.blob_ref;
  if (present(n.file_path)) out.file_path = n.file_path;
  if (present(n.line_start)) out.line_start = n.line_start;
  if (present(n.line_end)) out.line_end = n.line_end;
  if (present(n.confidence)) out.confidence = n.confidence;
  if (supersedes !== undefined) out.supersedes = supersedes;
  return out;
}

/** Duplicates of one qualified id merged without regard to order (spec §3). */
function mergeDuplicates(dups: MergedNode[]): MergedNode {
  const keyed = dups.map((n) => ({ n, key: JSON.stringify(n) })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const base = { ...keyed[0]!.n };
  base.activation = Math.max(...dups.map((n) => n.activation));
  const conf = dups.map((n) => n.confidence).filter(present);
  if (conf.length > 0) base.confidence = Math.max(...conf);
  if (base.category === undefined) {
    const cats = dups.map((n) => n.category).filter(present).sort();
    if (cats.length > 0) base.category = cats[0];
  }
  return makeNodeOrder(base);
}

/** Re-insert fields in output order (after edits that may have appended keys). */
function makeNodeOrder(n: MergedNode): MergedNode {
  const order = ['id', 'package', 'version', 'local_id', 'type', 'content', 'activation', 'category', 'source', 'created_at', 'decay_half_life_days', 'blob_ref', 'file_path', 'line_start', 'line_end', 'confidence', 'supersedes'] as const;
  const out: Record<string, unknown> = {};
  for (const k of order) if (n[k] !== undefined) out[k] = n[k];
  return out as unknown as MergedNode;
}

/**
 * All merged nodes by qualified id, in input order (callers sort). Each node's `supersedes` is
 * the resolved reference.
 */
export function buildNodes(inputs: readonly Input[], localIds: Map<string, Set<string>>): Map<string, MergedNode> {
  const byId = new Map<string, MergedNode>();
  const dups = new Map<string, MergedNode[]>();
  for (const input of inputs) {
    const ids = localIds.get(input.package)!;
    for (const n of input.graph.nodes) {
      const sup = present(n.supersedes) ? qualify(input.package, n.supersedes, ids) : undefined;
      const node = makeNode(input, n, sup);
      const prev = byId.get(node.id);
      if (prev === undefined) byId.set(node.id, node);
      else {
        let list = dups.get(node.id);
        if (!list) dups.set(node.id, (list = [prev]));
        list.push(node);
      }
    }
  }
  for (const [id, list] of dups) byId.set(id, mergeDuplicates(list));
  return byId;
}
