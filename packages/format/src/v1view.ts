/**
 * The v1 → v2 view (v2 spec §9; spec/format.md §9): every package, whatever its layers, seen as
 * one `ContextGraph`, so consumers (merge, pack compiler, CLI) handle a single shape.
 *
 * - A package with `content.context_graph` is viewed as that graph alone (the reference builder
 *   derives the graph and the v1 layers from the same stores, so adding both would duplicate).
 *   The view has its own arrays but shares the node and edge objects with `content` (no copy of
 *   a large graph): treat them as read-only.
 * - Otherwise the v1 layers map to nodes with activation 1.0, in this order:
 *   `knowledge.facts` → `fact` nodes, id `fact:<category>/<key>`, content = value, category,
 *   source = source_session, created_at, confidence;
 *   `knowledge.patterns`, then `patterns.patterns` → `pattern` nodes, id `pattern:<n>` (1-based
 *   over both lists), content = description, category = pattern_type, source, created_at;
 *   `knowledge.insights` → `insight` nodes, id `insight:<n>`, content = summary, created_at = timestamp;
 *   `graph.nodes` → `code_<kind>` nodes, id `code:<file_path>#<name>`, content = name,
 *   category = kind, file_path, line_start, line_end; `graph.edges` → edges of type `kind`,
 *   weight 1.0, between the first nodes matching (path, name), metadata kept; edges whose ends
 *   are unknown are dropped;
 *   `session` → one `session` node, id `session`, content = the text rendering below,
 *   created_at = exported_at;
 *   `gotchas.gotchas` → `gotcha` nodes, id `gotcha:<id>`, content = `<trigger>\n---\n<resolution>`
 *   (the reference's gotcha node format), category, confidence.
 * - An id that is already taken gets `~2`, `~3`, … appended, so ids are unique and deterministic.
 */
import type { PackageContent, SessionLayer } from './content.js';
import type { ContextEdge, ContextGraph, ContextNode } from './graph-types.js';
import { GRAPH_FORMAT_V2 } from './graph.js';

/** Deterministic text of a session layer (lines joined with `\n`). */
export function sessionText(s: SessionLayer): string {
  const lines: string[] = [];
  if (s.task_description) lines.push(`task: ${s.task_description}`);
  if (s.findings.length) {
    lines.push('findings:');
    for (const f of s.findings) lines.push(`- ${f.summary}${f.file ? ` (${f.file}${f.line !== undefined ? `:${f.line}` : ''})` : ''}`);
  }
  if (s.decisions.length) {
    lines.push('decisions:');
    for (const d of s.decisions) lines.push(`- ${d.summary}${d.rationale ? ` (rationale: ${d.rationale})` : ''}`);
  }
  if (s.next_steps.length) lines.push('next steps:', ...s.next_steps.map((x) => `- ${x}`));
  if (s.files_touched.length) lines.push('files touched:', ...s.files_touched.map((x) => `- ${x}`));
  return lines.join('\n');
}

/** The graph view of any package content (rules in the module comment). Pure; never throws. */
export function toGraphView(content: PackageContent): ContextGraph {
  if (content.context_graph) {
    const g = content.context_graph;
    return { format: g.format, nodes: g.nodes.slice(), edges: g.edges.slice() };
  }
  const nodes: ContextNode[] = [];
  const edges: ContextEdge[] = [];
  const taken = new Set<string>();
  // Per base, the next suffix to try: the k-th copy of one base probes once, not k times (a
  // package of n identical fact keys made n²/2 probes; issue 11). Ids are never released, so
  // this gives the ids that probing from `~2` every time gave.
  const nextSuffix = new Map<string, number>();
  const push = (base: string, node: Omit<ContextNode, 'id'>): string => {
    let n = nextSuffix.get(base) ?? 1;
    let id = n === 1 ? base : `${base}~${n}`;
    while (taken.has(id)) id = `${base}~${++n}`;
    nextSuffix.set(base, n + 1);
    taken.add(id);
    nodes.push({ id, ...node });
    return id;
  };
  const k = content.knowledge;
  for (const f of k?.facts ?? []) {
    push(`fact:${f.category}/${f.key}`, {
      type: 'fact', content: f.value, activation: 1, category: f.category, source: f.source_session,
      created_at: f.created_at, confidence: f.confidence,
    });
  }
  let p = 0;
  for (const pat of [...(k?.patterns ?? []), ...(content.patterns?.patterns ?? [])]) {
    push(`pattern:${++p}`, {
      type: 'pattern', content: pat.description, activation: 1, category: pat.pattern_type, source: pat.source_session, created_at: pat.created_at,
    });
  }
  (k?.insights ?? []).forEach((ins, i) => {
    push(`insight:${i + 1}`, { type: 'insight', content: ins.summary, activation: 1, created_at: ins.timestamp });
  });
  const byPathName = new Map<string, string>();
  for (const n of content.graph?.nodes ?? []) {
    const node: Omit<ContextNode, 'id'> = { type: `code_${n.kind}`, content: n.name, activation: 1, category: n.kind, file_path: n.file_path };
    if (n.line_start !== undefined) node.line_start = n.line_start;
    if (n.line_end !== undefined) node.line_end = n.line_end;
    const id = push(`code:${n.file_path}#${n.name}`, node);
    const key = JSON.stringify([n.file_path, n.name]);
    if (!byPathName.has(key)) byPathName.set(key, id);
  }
  for (const e of content.graph?.edges ?? []) {
    const from = byPathName.get(JSON.stringify([e.source_path, e.source_name]));
    const to = byPathName.get(JSON.stringify([e.target_path, e.target_name]));
    if (!from || !to) continue;
    const edge: ContextEdge = { from, to, type: e.kind, weight: 1 };
    if (e.metadata !== undefined) edge.metadata = e.metadata;
    edges.push(edge);
  }
  if (content.session) {
    push('session', { type: 'session', content: sessionText(content.session), activation: 1, created_at: content.session.exported_at });
  }
  for (const g of content.gotchas?.gotchas ?? []) {
    push(`gotcha:${g.id}`, {
      type: 'gotcha', content: `${g.trigger}\n---\n${g.resolution}`, activation: 1, category: g.category, confidence: g.confidence,
    });
  }
  return { format: GRAPH_FORMAT_V2, nodes, edges };
}
