/**
 * The MCP tools' logic, independent of the SDK (spec/pack.md "MCP answers"). Each returns text
 * within its byte budget, with provenance per node and the untrusted banner/footer around
 * package text. Read-only.
 *
 * Budgets: `max_bytes` defaults to 16384 (~4096 tokens, an estimate) and is capped at 65536
 * (~16384 tokens), well under the 25k-token answer limits of common MCP hosts.
 */
import {
  compilePack,
  CtxpkgError,
  escapeInline,
  estimateTokens,
  neighborhood,
  renderAnswer,
  searchHits,
  STRUCTURAL_TYPES,
  truncateUtf8,
  type RenderItem,
} from '@ctxpkg/format';
import type { McpState } from './state.js';

export const DEFAULT_ANSWER_BYTES = 16 * 1024;
export const MAX_ANSWER_BYTES = 64 * 1024;
const MAX_DEPTH = 3;

/** Clamp a requested budget: default when absent, `E_USAGE` when not a positive integer, cap at 64 KiB. */
export function answerBudget(requested: number | undefined): number {
  if (requested === undefined) return DEFAULT_ANSWER_BYTES;
  if (!Number.isSafeInteger(requested) || requested <= 0) throw new CtxpkgError('E_USAGE', 'max_bytes must be a positive integer');
  return Math.min(requested, MAX_ANSWER_BYTES);
}

/** The render items of `hits`, produced as the answer reads them. */
function* itemsOf(state: McpState, hits: Iterable<{ doc: number }>): Generator<RenderItem, void, undefined> {
  for (const h of hits) yield state.index.item(h.doc);
}

/** `search_context(query, max_bytes)`: ranked matching nodes (ranked lazily: only as many as the answer reads). */
export function searchContext(state: McpState, query: string, maxBytes?: number): string {
  const budget = answerBudget(maxBytes);
  const { total, hits } = searchHits(state.index, query);
  const items = itemsOf(state, hits);
  const notes = [
    `query: ${query}`,
    `matches: ${total} (searchable nodes: ${state.index.docs.length}; withheld by screening: ${state.index.withheld.size})`,
    `budget: ${budget} bytes (~${estimateTokens(budget)} tokens, estimate)`,
  ];
  return renderAnswer('ctxpkg search results', notes, items, budget, undefined, total).text;
}

/** `get_node(id)`: one node with provenance and its edges. */
export function getNode(state: McpState, id: string, maxBytes?: number): string {
  const budget = answerBudget(maxBytes);
  const node = state.index.node(id);
  if (!node) throw new CtxpkgError('E_NOT_FOUND', `no installed node ${JSON.stringify(id)}`, { hint: 'ids look like @ns/name#local-id; use search_context to find them' });
  const held = state.index.withheld.get(id);
  if (held) {
    const kinds = held.kinds ? ` (${held.kinds.join(', ')})` : '';
    return `node ${escapeInline(id)} from ${escapeInline(node.package)}@${escapeInline(node.version)} is withheld: ${held.reason}${kinds}\n`;
  }
  const doc = state.index.docIndex(id);
  const edges = [...state.index.edgesFrom(id).map((e) => `edge: ${e.type} → ${e.to}`), ...state.index.edgesTo(id).map((e) => `edge: ${e.type} ← ${e.from}`)];
  const item: RenderItem =
    doc >= 0
      ? state.index.item(doc)
      : { id, package: node.package, version: node.version, local_id: node.local_id, type: node.type, content: node.content, scope: [], sections: [], seq: 0, flags: [], disputed_with: [], section: 'facts' };
  const structural = STRUCTURAL_TYPES.has(node.type) ? ['(structural node: organizes other nodes)'] : [];
  const shown = { ...item, content: truncateUtf8(item.content, Math.max(256, budget - 2048)) };
  return renderAnswer(`ctxpkg node ${id}`, structural, [shown], budget, () => edges.slice(0, 200)).text;
}

/** `neighbors(id, depth)`: nodes within `depth` (1–3) edges, nearest first. */
export function neighbors(state: McpState, id: string, depth = 1, maxBytes?: number): string {
  const budget = answerBudget(maxBytes);
  if (!Number.isSafeInteger(depth) || depth < 1 || depth > MAX_DEPTH) throw new CtxpkgError('E_USAGE', `depth must be an integer from 1 to ${MAX_DEPTH}`);
  if (!state.index.node(id)) throw new CtxpkgError('E_NOT_FOUND', `no installed node ${JSON.stringify(id)}`);
  const found = neighborhood(state.index, id, depth);
  const via = new Map(found.map((f) => [f.id, f]));
  const items: RenderItem[] = [];
  let hidden = 0;
  for (const f of found) {
    const i = state.index.docIndex(f.id);
    if (i < 0) {
      hidden++;
      continue;
    }
    const it = state.index.item(i);
    items.push({ ...it, content: truncateUtf8(it.content, 600) });
  }
  const notes = [`start: ${id}`, `depth: ${depth}; reached: ${found.length} (structural or withheld, not shown: ${hidden})`];
  return renderAnswer(`ctxpkg neighbors of ${id}`, notes, items, budget, (it) => {
    const f = via.get(it.id)!;
    return [`reached: depth ${f.depth} via ${f.via.type} ${f.direction === 'out' ? `from ${f.via.from}` : `to ${f.via.to}`}`];
  }).text;
}

/** `render_pack(focus, max_bytes)`: a context pack, as `ctxpkg render` would print it. */
export function renderPack(state: McpState, focus: string | undefined, maxBytes?: number): string {
  const budget = answerBudget(maxBytes);
  const p = state.project;
  return compilePack({
    graph: p.graph,
    policy: p.config.pack,
    maxBytes: budget,
    now: state.now,
    ...(focus && focus.trim() !== '' ? { focus } : {}),
    read: p.read,
    builtHere: p.builtHere,
  }).text;
}

/** The `ctxpkg://packages` resource: installed packages with item counts (trusted metadata). */
export function packageList(state: McpState): string {
  const counts = new Map<string, number>();
  for (const n of state.project.graph.nodes) if (!STRUCTURAL_TYPES.has(n.type)) counts.set(n.package, (counts.get(n.package) ?? 0) + 1);
  const lines = ['# Installed context packages (ctxpkg)', ''];
  for (const i of state.project.graph.inputs) {
    lines.push(`- ${i.package}@${i.version} — ${counts.get(i.package) ?? 0} items — content sha256 ${i.content_hash} — resource ${packageUri(i.package)}`);
  }
  if (state.project.graph.inputs.length === 0) lines.push('(none installed; run `ctxpkg install`)');
  return lines.join('\n') + '\n';
}

/** The resource URI of one package. */
export function packageUri(name: string): string {
  return `ctxpkg://package/${encodeURIComponent(name)}`;
}

/** The `ctxpkg://package/{name}` resource: that package's pack within the default budget. */
export function packageResource(state: McpState, name: string): string {
  const p = state.project;
  if (!p.graph.inputs.some((i) => i.package === name)) throw new CtxpkgError('E_NOT_FOUND', `package ${name} is not installed`);
  return compilePack({ graph: p.graph, policy: p.config.pack, maxBytes: DEFAULT_ANSWER_BYTES, now: state.now, packages: [name], read: p.read, builtHere: p.builtHere, title: `Context from ${name} (ctxpkg)` }).text;
}
