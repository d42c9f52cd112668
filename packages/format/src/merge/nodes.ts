/**
 * Node union with qualified ids (spec/merge.md §2, §3): `<package>#<local id>`, reference
 * resolution, and the order-independent merge of duplicate local ids inside one graph.
 *
 * Nodes get an internal integer index (input order); references resolve to indices without
 * building strings for the common local case, which keeps the merge linear and cheap at 10^5+.
 */
import type { ContextNode, MergedNode } from '../graph-types.js';
import type { Input } from './validate.js';

export interface NodeTable {
  /** Merged nodes by internal index. */
  nodes: MergedNode[];
  /** Package → local id → index. */
  local: Map<string, Map<string, number>>;
  /** Node indices in output order (ascending qualified id). */
  order: Int32Array;
}

/** Index of the node with qualified id `id` (`<package>#<local>`), or -1. */
export function lookupQualified(table: NodeTable, id: string): number {
  const h = id.indexOf('#');
  if (h < 0) return -1;
  return table.local.get(id.slice(0, h))?.get(id.slice(h + 1)) ?? -1;
}

/** Resolve a reference made inside `pkg` to its qualified id (spec §2). */
export function qualify(pkg: string, ref: string, local: ReadonlyMap<string, number>): string {
  if (local.has(ref) || !ref.includes('#')) return `${pkg}#${ref}`;
  return ref;
}

/** Resolve a reference made inside a package (`local`: its local ids) to a node index, or -1 when dangling (spec §2). */
export function resolveRef(table: NodeTable, local: ReadonlyMap<string, number>, ref: string): number {
  const i = local.get(ref);
  if (i !== undefined) return i;
  return lookupQualified(table, ref);
}

const present = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

/** A merged node in the fixed field order of the output (`supersedes` added later). */
function makeNode(input: Input, n: ContextNode): MergedNode {
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
  return out;
}

const FIELD_ORDER = ['id', 'package', 'version', 'local_id', 'type', 'content', 'activation', 'category', 'source', 'created_at', 'decay_half_life_days', 'blob_ref', 'file_path', 'line_start', 'line_end', 'confidence', 'supersedes'] as const;

/** Duplicates of one qualified id merged without regard to order (spec §3). */
function mergeDuplicates(dups: MergedNode[]): MergedNode {
  const keyed = dups.map((n) => ({ n, key: JSON.stringify(n) })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const base: MergedNode = { ...keyed[0]!.n };
  base.activation = Math.max(...dups.map((n) => n.activation));
  const conf = dups.map((n) => n.confidence).filter(present);
  if (conf.length > 0) base.confidence = Math.max(...conf);
  if (base.category === undefined) {
    const cats = dups.map((n) => n.category).filter(present).sort();
    if (cats.length > 0) base.category = cats[0];
  }
  const out: Record<string, unknown> = {};
  for (const k of FIELD_ORDER) if (base[k] !== undefined) out[k] = base[k];
  return out as unknown as MergedNode;
}

/**
 * All merged nodes (inputs sorted by package), with every node's `supersedes` resolved to a
 * qualified id. Duplicate local ids of one graph become one node.
 */
export function buildNodes(inputs: readonly Input[]): NodeTable {
  const table: NodeTable = { nodes: [], local: new Map(), order: new Int32Array(0) };
  const dups = new Map<number, MergedNode[]>();
  for (const input of inputs) {
    const local = new Map<string, number>();
    table.local.set(input.package, local);
    for (const n of input.graph.nodes) {
      const node = makeNode(input, n);
      if (present(n.supersedes)) node.supersedes = n.supersedes; // resolved below
      const prev = local.get(n.id);
      if (prev === undefined) {
        const i = table.nodes.length;
        table.nodes.push(node);
        local.set(n.id, i);
      } else {
        let list = dups.get(prev);
        if (!list) dups.set(prev, (list = [table.nodes[prev]!]));
        list.push(node);
      }
    }
  }
  // Resolve supersedes now that every package's local ids are known (a node may name a later one).
  const resolveAll = (n: MergedNode) => {
    if (n.supersedes !== undefined) n.supersedes = qualify(n.package, n.supersedes, table.local.get(n.package)!);
  };
  for (const n of table.nodes) resolveAll(n);
  for (const [i, list] of dups) {
    for (const n of list.slice(1)) resolveAll(n);
    table.nodes[i] = mergeDuplicates(list);
  }
  // Output order. Inputs are sorted by package, and every character of a valid package name sorts
  // after "#", so ascending (package, local id) is ascending qualified id.
  table.order = new Int32Array(table.nodes.length);
  let k = 0;
  for (const input of inputs) {
    const local = table.local.get(input.package)!;
    for (const id of [...local.keys()].sort()) table.order[k++] = local.get(id)!;
  }
  return table;
}
