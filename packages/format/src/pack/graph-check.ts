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
  const ids = new Set<string>();
  (value.nodes as unknown[]).forEach((n, k) => {
    if (!isObj(n)) return fail(`nodes[${k}] is not an object`);
    for (const f of ['id', 'type', 'content', 'package', 'version', 'local_id'] as const) if (!isStr(n[f])) fail(`nodes[${k}].${f} must be a string`);
    if (typeof n.activation !== 'number') fail(`nodes[${k}].activation must be a number`);
    for (const f of ['category', 'source', 'created_at', 'file_path', 'supersedes'] as const) if (!optStr(n[f])) fail(`nodes[${k}].${f} must be a string`);
    for (const f of ['line_start', 'line_end', 'decay_half_life_days'] as const) if (!optInt(n[f])) fail(`nodes[${k}].${f} must be a non-negative integer`);
    if (n.superseded_by !== undefined && (!Array.isArray(n.superseded_by) || !n.superseded_by.every(isStr))) fail(`nodes[${k}].superseded_by must be an array of ids`);
    if (n.disputed !== undefined && typeof n.disputed !== 'boolean') fail(`nodes[${k}].disputed must be a boolean`);
    if (ids.has(n.id as string)) fail(`duplicate node id ${JSON.stringify(n.id)}`);
    ids.add(n.id as string);
  });
  (value.edges as unknown[]).forEach((e, k) => {
    if (!isObj(e) || !isStr(e.from) || !isStr(e.to) || !isStr(e.type)) fail(`edges[${k}] needs from, to, type strings`);
  });
  ((value.conflicts as unknown[] | undefined) ?? []).forEach((c, k) => {
    if (!isObj(c) || !isStr(c.from) || !isStr(c.to)) fail(`conflicts[${k}] needs from, to strings`);
  });
  return value as unknown as MergedGraph;
}
