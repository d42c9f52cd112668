/**
 * Structural check of a merged project graph read from `.ctxpkg/graph/merged.json` before the
 * pack compiler, sync or MCP use it (spec/pack.md "Inputs"). It checks what those consumers rely
 * on — it is not the merge's own validation.
 */
import { CtxpkgError } from '../errors.js';
import type { MergedGraph } from '../graph-types.js';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const optStr = (v: unknown): boolean => v === undefined || typeof v === 'string';
const optInt = (v: unknown): boolean => v === undefined || (Number.isSafeInteger(v) && (v as number) >= 0);

/**
 * Return `value` typed as a `MergedGraph` when it has the shape (format `ctxpkg-merged-v1`;
 * arrays `inputs`, `nodes`, `edges`, optional `conflicts`; the string/number fields of each
 * node, edge and input; unique node ids). Throws `E_STRUCTURE` naming the first problem.
 */
export function checkMergedGraph(value: unknown, what = 'merged graph'): MergedGraph {
  const fail = (msg: string): never => {
    throw new CtxpkgError('E_STRUCTURE', `${what}: ${msg}`, { hint: 'rebuild it with `ctxpkg install`' });
  };
  if (!isObj(value)) return fail('not a JSON object');
  if (value.format !== 'ctxpkg-merged-v1') fail(`unsupported format ${JSON.stringify(value.format)}`);
  for (const k of ['inputs', 'nodes', 'edges'] as const) if (!Array.isArray(value[k])) fail(`"${k}" must be an array`);
  if (value.conflicts !== undefined && !Array.isArray(value.conflicts)) fail('"conflicts" must be an array');
  (value.inputs as unknown[]).forEach((i, k) => {
    if (!isObj(i) || !isStr(i.package) || !isStr(i.version) || !isStr(i.content_hash)) fail(`inputs[${k}] needs package, version, content_hash strings`);
  });
  // Nodes in order: the first node with a bad field, unless a duplicate id comes before it (the
  // order of the checks per node: its fields, then its id against those before it). Merged graphs
  // sort their nodes by id (spec/merge.md), so ids are checked unique by comparing neighbours —
  // strictly increasing ids are distinct — and only a graph in another order hashes them into a
  // set (50k ids of a freshly parsed graph: ~100 ns each, bench:render's process row).
  const nodes = value.nodes as unknown[];
  let bad: string | undefined;
  let checked = nodes.length;
  let increasing = true;
  let prev: string | undefined;
  for (let k = 0; k < nodes.length; k++) {
    bad = nodeProblem(nodes[k], k);
    if (bad !== undefined) {
      checked = k;
      break;
    }
    const id = (nodes[k] as { id: string }).id;
    if (increasing && prev !== undefined && !(prev < id)) increasing = false;
    prev = id;
  }
  if (!increasing) {
    const ids = new Set<string>();
    for (let k = 0; k < checked; k++) {
      const id = (nodes[k] as { id: string }).id;
      if (ids.has(id)) fail(`duplicate node id ${JSON.stringify(id)}`);
      ids.add(id);
    }
  }
  if (bad !== undefined) fail(bad);
  (value.edges as unknown[]).forEach((e, k) => {
    if (!isObj(e) || !isStr(e.from) || !isStr(e.to) || !isStr(e.type)) fail(`edges[${k}] needs from, to, type strings`);
  });
  ((value.conflicts as unknown[] | undefined) ?? []).forEach((c, k) => {
    if (!isObj(c) || !isStr(c.from) || !isStr(c.to)) fail(`conflicts[${k}] needs from, to strings`);
  });
  return value as unknown as MergedGraph;
}

/**
 * The first problem of node `k` (`n`) as `checkMergedGraph` words it, or undefined: its required
 * strings, its activation, its optional strings and integers, `superseded_by`, `disputed`, in that
 * order. Each field is read by name (one shape for every node of a parsed graph), not by a key
 * taken from a list (a keyed read per field and node), and no closure is made per node: this runs
 * once per process, mostly before V8 optimizes it (50k nodes, cold process: 24–38 ms as first
 * written, 51–64 ms with a message closure per node, 9–16 ms like this).
 */
function nodeProblem(v: unknown, k: number): string | undefined {
  if (!isObj(v)) return `nodes[${k}] is not an object`;
  const n = v as Record<string, unknown> & { id: unknown; type: unknown; content: unknown; package: unknown; version: unknown; local_id: unknown };
  if (!isStr(n.id)) return `nodes[${k}].id must be a string`;
  if (!isStr(n.type)) return `nodes[${k}].type must be a string`;
  if (!isStr(n.content)) return `nodes[${k}].content must be a string`;
  if (!isStr(n.package)) return `nodes[${k}].package must be a string`;
  if (!isStr(n.version)) return `nodes[${k}].version must be a string`;
  if (!isStr(n.local_id)) return `nodes[${k}].local_id must be a string`;
  if (typeof n.activation !== 'number') return `nodes[${k}].activation must be a number`;
  if (!optStr(n.category)) return `nodes[${k}].category must be a string`;
  if (!optStr(n.source)) return `nodes[${k}].source must be a string`;
  if (!optStr(n.created_at)) return `nodes[${k}].created_at must be a string`;
  if (!optStr(n.file_path)) return `nodes[${k}].file_path must be a string`;
  if (!optStr(n.supersedes)) return `nodes[${k}].supersedes must be a string`;
  if (!optInt(n.line_start)) return `nodes[${k}].line_start must be a non-negative integer`;
  if (!optInt(n.line_end)) return `nodes[${k}].line_end must be a non-negative integer`;
  if (!optInt(n.decay_half_life_days)) return `nodes[${k}].decay_half_life_days must be a non-negative integer`;
  if (n.superseded_by !== undefined && (!Array.isArray(n.superseded_by) || !n.superseded_by.every(isStr))) return `nodes[${k}].superseded_by must be an array of ids`;
  if (n.disputed !== undefined && typeof n.disputed !== 'boolean') return `nodes[${k}].disputed must be a boolean`;
  return undefined;
}
