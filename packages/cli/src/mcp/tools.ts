/**
 * The MCP tools' logic, independent of the SDK (spec/pack.md §12). Each returns the text an
 * agent reads (within its byte budget, package text inside the untrusted banner unless its
 * package is trusted, provenance per node) and the same content as `structuredContent` that
 * meets the tool's output schema (`schemas.ts`). Read-only.
 *
 * Budgets (UTF-8 bytes of the text): `search_context` and `neighbors` default to 4096 (~1024
 * tokens, an estimate); `get_node`, `get_section` and `render_pack` (one whole node, section or
 * pack) to 16384; every tool is capped at 65536 (~16384 tokens), well under the ~25k-token answer
 * limits of MCP hosts.
 */
import { CtxpkgError } from '@ctxpkg/format/errors';
import {
  compareOutput,
  compilePack,
  escapeContent,
  escapeInline,
  layoutItems,
  neighborhood,
  renderAnswer,
  renderMarkdown,
  searchHits,
  sectionTitle,
  STRUCTURAL_TYPES,
  truncateUtf8,
  TRUST_LINE,
  UNTRUSTED_BANNER,
  UNTRUSTED_FOOTER,
  utf8Length,
  type AnswerEntry,
  type CompiledPack,
  type PackInput,
  type RenderItem,
  type SectionRef,
} from '@ctxpkg/format/pack';
import type { Hit } from './schemas.js';
import type { McpState } from './state.js';

/** Default answer budget of search_context and neighbors (bytes). */
export const DEFAULT_ANSWER_BYTES = 4 * 1024;
/** Default budget of get_node, get_section, render_pack and the package resources (bytes). */
export const DEFAULT_DOCUMENT_BYTES = 16 * 1024;
export const MAX_ANSWER_BYTES = 64 * 1024;
/** search_context hits: default and most. */
export const DEFAULT_LIMIT = 5;
export const MAX_LIMIT = 50;
const MAX_DEPTH = 3;

/** A tool's answer: the text content and the structured content. */
export interface ToolAnswer {
  text: string;
  structured: Record<string, unknown>;
}

/** Clamp a requested budget: `def` when absent, `E_USAGE` when not a positive integer, capped at 64 KiB. */
export function answerBudget(requested: number | undefined, def = DEFAULT_ANSWER_BYTES): number {
  if (requested === undefined) return def;
  if (!Number.isSafeInteger(requested) || requested <= 0) throw new CtxpkgError('E_USAGE', 'max_bytes must be a positive integer');
  return Math.min(requested, MAX_ANSWER_BYTES);
}

const pairOf = (a: number | undefined, b: number | undefined): [number, number] | null => (a === undefined ? null : [a, b ?? a]);

/** The heading path of an item as plain titles (a file root titled by its own path left out). */
function headingPath(item: RenderItem): string[] {
  return item.sections.filter((s, i) => !(i === 0 && s.title === item.file_path)).map((s) => s.title);
}

/** The structured form of one answer entry. */
function hitOf(state: McpState, e: AnswerEntry): Hit {
  const it = e.item;
  const inner = it.sections[it.sections.length - 1];
  return {
    id: it.id,
    package: it.package,
    version: it.version,
    type: it.type,
    file: it.file_path ?? null,
    lines: e.lines ? [e.lines[0], e.lines[1]] : pairOf(it.line_start, it.line_end),
    node_lines: pairOf(it.line_start, it.line_end),
    excerpt: e.lines !== undefined,
    heading_path: headingPath(it),
    section: inner?.id ?? null,
    trust: state.project.trusted.has(it.package) ? 'instructions' : 'reference',
    flags: [...it.flags],
    text: escapeContent(e.text ?? it.content),
  };
}

/**
 * `search_context(query, limit?, max_bytes?)`: the best `limit` (default 5, at most 50) nodes for
 * the query, each once (its best passage: the whole node, or the matching item with its lead-in
 * of a long node) and each text once (identical texts: the first hit names the others in
 * `also`); `total` counts matching nodes. Ranked by
 * BM25 over text, heading path, file path and id with exact matching of identifiers, paths and
 * flags (`search-tokens.ts`). Ranked lazily: only as many hits as the answer reads.
 */
export function searchContext(state: McpState, query: string, limit?: number, maxBytes?: number): ToolAnswer {
  const budget = answerBudget(maxBytes);
  const lim = limit ?? DEFAULT_LIMIT;
  if (!Number.isSafeInteger(lim) || lim < 1 || lim > MAX_LIMIT) throw new CtxpkgError('E_USAGE', `limit must be an integer from 1 to ${MAX_LIMIT}`);
  const found = searchHits(state.index, query);
  const total = found.nodes;
  const passages = state.index.passages;
  const scores = new Map<AnswerEntry, { rank: number; score: number; also: string[] }>();
  let duplicates = 0;
  function* entries(): Generator<AnswerEntry> {
    let rank = 0;
    // One hit per node (its best passage), and one per text: a node whose text is the same as a
    // hit's already taken (the same rule in two packages or files) is named in that hit's `also`.
    const nodes = new Set<number>();
    const texts = new Map<string, AnswerEntry>();
    for (const h of found.hits) {
      const p = passages[h.doc]!;
      if (nodes.has(p.doc)) continue;
      nodes.add(p.doc);
      const item = state.index.item(p.doc);
      const shownText = p.excerpt ? p.text : item.content;
      const same = texts.get(shownText.trim());
      if (same) {
        scores.get(same)!.also.push(item.id);
        duplicates++;
        continue;
      }
      rank++;
      const e: AnswerEntry = { item, label: `#${rank}`, trusted: state.project.trusted.has(item.package) };
      if (p.excerpt) {
        e.text = p.text;
        if (item.line_start !== undefined) e.lines = [item.line_start + p.first, item.line_start + p.last];
      }
      texts.set(shownText.trim(), e);
      scores.set(e, { rank, score: h.score, also: [] });
      yield e;
    }
  }
  const a = renderAnswer(`ctxpkg search: ${query}`, [], entries(), budget, { total, limit: lim });
  return {
    text: a.text,
    structured: {
      query,
      total,
      limit: lim,
      max_bytes: budget,
      hits: a.shown.map((e) => {
        const s = scores.get(e)!;
        return { rank: s.rank, score: Math.round(s.score * 1000) / 1000, ...hitOf(state, e), also: s.also };
      }),
      not_shown: Math.max(0, total - a.shown.length - duplicates),
    },
  };
}

/** A render item for any node (structural ones included: their content is their title). */
function anyItem(state: McpState, id: string): RenderItem | undefined {
  const doc = state.index.docIndex(id);
  if (doc >= 0) return state.index.item(doc);
  const n = state.index.node(id);
  if (!n) return undefined;
  const it: RenderItem = { id, package: n.package, version: n.version, local_id: n.local_id, type: n.type, content: n.content, scope: [], sections: state.index.sectionsOf(id), seq: 0, flags: [], disputed_with: [], section: 'facts' };
  if (n.file_path !== undefined) it.file_path = n.file_path;
  if (n.line_start !== undefined) it.line_start = n.line_start;
  if (n.line_end !== undefined) it.line_end = n.line_end;
  return it;
}

const notFound = (id: string): CtxpkgError => new CtxpkgError('E_NOT_FOUND', `no installed node ${JSON.stringify(id)}`, { hint: 'ids look like @ns/name#local-id; search_context returns them' });

/**
 * `get_node(id, max_bytes?)`: one node, whole, with its edges — within `max_bytes` (default
 * 16384): when it does not fit, the edge lines are cut first (all edges stay in the structured
 * content), then the text, visibly (`[truncated: showing k of n bytes]`; `truncated: true`).
 * `E_BUDGET` (with the least budget that works) when not even the header fits.
 */
export function getNode(state: McpState, id: string, maxBytes?: number): ToolAnswer {
  const budget = answerBudget(maxBytes, DEFAULT_DOCUMENT_BYTES);
  const node = state.index.node(id);
  if (!node) throw notFound(id);
  const held = state.index.withheld.get(id);
  if (held) {
    const kinds = held.kinds ? ` (${held.kinds.join(', ')})` : '';
    return {
      text: `node ${escapeInline(id)} from ${escapeInline(node.package)}@${escapeInline(node.version)} is withheld: ${held.reason}${kinds}\n`,
      structured: { id, withheld: { reason: held.reason, secret_kinds: held.kinds ?? [] }, structural: false, node: null, truncated: false, edges: [] },
    };
  }
  const edges = [
    ...state.index.edgesFrom(id).map((e) => ({ type: e.type, direction: 'out' as const, node: e.to })),
    ...state.index.edgesTo(id).map((e) => ({ type: e.type, direction: 'in' as const, node: e.from })),
  ].slice(0, 200);
  const item = anyItem(state, id) as RenderItem;
  const structural = STRUCTURAL_TYPES.has(node.type);
  const lines = edges.map((e) => `edge: ${e.type} ${e.direction === 'out' ? '→' : '←'} ${e.node}`);
  const notes = structural ? ['(structural node: organizes other nodes; get_section shows a section whole)'] : [];
  const trusted = state.project.trusted.has(item.package);
  const title = `ctxpkg node ${id}`;
  /** The answer with the first `k` edge lines and the text cut to `cut` bytes (`undefined`: whole). */
  const answer = (k: number, cut: number | undefined) => {
    const extra = k < lines.length ? [...lines.slice(0, k), `(+${lines.length - k} more edges)`] : lines;
    const entry: AnswerEntry = { item, extra, trusted, ...(cut !== undefined ? { text: truncateUtf8(item.content, cut) } : {}) };
    return renderAnswer(title, notes, [entry], MAX_ANSWER_BYTES);
  };
  const fits = (a: ReturnType<typeof answer>): boolean => a.bytes <= budget;
  let a = answer(lines.length, undefined);
  let truncated = false;
  if (!fits(a)) {
    // Cut visibly: first the edge lines (the structured content keeps them all), then the text
    // — the longest prefix that fits (sizes grow with both: binary searches).
    truncated = true;
    let k = lines.length;
    if (!fits(answer(k, 0))) {
      let lo = 0;
      let hi = k;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (fits(answer(mid, 0))) lo = mid;
        else hi = mid - 1;
      }
      k = lo;
      if (!fits(answer(k, 0))) {
        // (With one edge, its "+1 more" line may be longer than the edge line itself.)
        const least = Math.min(answer(0, 0).bytes, answer(lines.length, 0).bytes);
        throw new CtxpkgError('E_BUDGET', `max_bytes ${budget} is too small for node ${id}: its header alone needs ${least} bytes`, {
          hint: `ask with max_bytes ≥ ${least} (the whole node needs ${answer(lines.length, undefined).bytes})`,
          details: { required_bytes: least, max_bytes: budget },
        });
      }
    }
    if (fits(answer(k, undefined))) a = answer(k, undefined);
    else {
      let lo = 0;
      let hi = utf8Length(item.content);
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (fits(answer(k, mid))) lo = mid;
        else hi = mid - 1;
      }
      a = answer(k, lo);
    }
  }
  const shown = a.shown[0] as AnswerEntry;
  return { text: a.text, structured: { id, withheld: null, structural, node: hitOf(state, shown), truncated, edges } };
}

/**
 * `neighbors(id, depth, max_bytes?)`: nodes within `depth` (1–3) edges, nearest first; long texts
 * cut at 600 bytes. Sections and scopes are not shown (counted as hidden) but walked through: the
 * other nodes of a node's own section are at distance 1 (`neighborhood` with `through`).
 */
export function neighbors(state: McpState, id: string, depth = 1, maxBytes?: number): ToolAnswer {
  const budget = answerBudget(maxBytes);
  if (!Number.isSafeInteger(depth) || depth < 1 || depth > MAX_DEPTH) throw new CtxpkgError('E_USAGE', `depth must be an integer from 1 to ${MAX_DEPTH}`);
  if (!state.index.node(id)) throw notFound(id);
  // Sections are walked through: a node's neighbours include the rest of its section.
  const found = neighborhood(state.index, id, depth, (n) => STRUCTURAL_TYPES.has(state.index.node(n)?.type ?? ''));
  const via = new Map<AnswerEntry, { distance: number; via: { type: string; direction: 'out' | 'in'; node: string } }>();
  const entries: AnswerEntry[] = [];
  let hidden = 0;
  for (const f of found) {
    const d = state.index.docIndex(f.id);
    if (d < 0) {
      hidden++;
      continue;
    }
    const item = state.index.item(d);
    const other = f.direction === 'out' ? f.via.from : f.via.to;
    const e: AnswerEntry = {
      item,
      text: truncateUtf8(item.content, 600),
      // Plain words: how this item relates to the start (the edge type, in the structured answer too).
      extra: [f.via.type === 'contains' ? `related: in the same section${f.depth > 1 ? ` (${f.depth} links away)` : ''}` : `related: ${f.via.type.replace(/_/g, ' ')} ${f.direction === 'out' ? `from ${f.via.from}` : `to ${f.via.to}`}${f.depth > 1 ? ` (${f.depth} links away)` : ''}`],
      trusted: state.project.trusted.has(item.package),
    };
    via.set(e, { distance: f.depth, via: { type: f.via.type, direction: f.direction, node: other } });
    entries.push(e);
  }
  // Nearest first; at one distance in source order (package, file, heading path, line).
  entries.sort((x, y) => via.get(x)!.distance - via.get(y)!.distance || compareOutput(x.item, y.item));
  const notes = [`start: ${id}`, `${entries.length} related ${entries.length === 1 ? 'item' : 'items'} within ${depth} ${depth === 1 ? 'link' : 'links'}`];
  const a = renderAnswer(`ctxpkg neighbors of ${id}`, notes, entries, budget);
  return {
    text: a.text,
    structured: {
      start: id,
      depth,
      reached: found.length,
      hidden,
      nodes: a.shown.map((e) => ({ distance: via.get(e)!.distance, via: via.get(e)!.via, ...hitOf(state, e), text: escapeContent(e.item.content) })),
    },
  };
}

/** What `get_section` is asked for: a section id, or a heading path (with optional package/file). */
export interface SectionQuery {
  section?: string;
  path?: string;
  package?: string;
  file?: string;
}

const normPath = (p: string): string =>
  p
    .split(/\s*(?:›|»|>)\s*/)
    .map((t) => t.trim().toLowerCase().replace(/\s+/g, ' '))
    .filter((t) => t !== '')
    .join(' › ');

/**
 * Resolve a section: by id (`section`), or by heading path (`path`: titles joined by `›` or `>`,
 * case-insensitive; the file's root title may be left out; narrowed by `package`/`file`).
 * Throws `E_NOT_FOUND` (no such section) or `E_USAGE` (ambiguous: several match, listed).
 */
export function findSection(state: McpState, q: SectionQuery): { ref: SectionRef; package: string; version: string; path: string[] } {
  // The section's own title as its items' headers show it (secrets redacted, `sectionTitle`):
  // written into the answer's header and `heading_path`, and matched against `path`.
  const describe = (id: string) => {
    const n = state.index.node(id)!;
    const chain = [...state.index.sectionsOf(id), { id, title: sectionTitle(n.content), scope: [], ...(n.file_path !== undefined ? { file_path: n.file_path } : {}), ...(n.line_start !== undefined ? { line_start: n.line_start } : {}), ...(n.line_end !== undefined ? { line_end: n.line_end } : {}) } as SectionRef];
    return { ref: chain[chain.length - 1] as SectionRef, package: n.package, version: n.version, path: chain.map((s) => s.title) };
  };
  if (q.section !== undefined && q.section !== '') {
    const n = state.index.node(q.section);
    if (n && n.type === 'section') return describe(q.section);
    // Not a section id: an agent passing a plain heading ("Security") means the heading path
    // (new-user 2 item 22), unless it also gave `path`.
    if (q.path !== undefined || q.section.includes('#')) {
      throw new CtxpkgError('E_NOT_FOUND', `no installed section ${JSON.stringify(q.section)}`, { hint: 'section ids come with search_context hits (`section`); or pass the heading path as `path`' });
    }
    return findSection(state, { ...q, section: undefined, path: q.section });
  }
  if (q.path === undefined || normPath(q.path) === '') throw new CtxpkgError('E_USAGE', 'get_section needs `section` (a section id) or `path` (a heading path such as "Tests › Snapshot tests")');
  const want = normPath(q.path);
  const matches = state.index.graph.nodes
    .filter((n) => n.type === 'section' && (q.package === undefined || n.package === q.package) && (q.file === undefined || n.file_path === q.file))
    .map((n) => describe(n.id))
    .filter((d) => {
      const full = normPath(d.path.join(' › '));
      return full === want || full.endsWith(` › ${want}`);
    });
  if (matches.length === 0) throw new CtxpkgError('E_NOT_FOUND', `no installed section has the heading path ${JSON.stringify(q.path)}`, { hint: 'use the heading_path of a search_context hit, titles joined by " › "' });
  const exact = matches.filter((d) => normPath(d.path.join(' › ')) === want);
  const pick = exact.length === 1 ? exact : matches;
  if (pick.length > 1) {
    throw new CtxpkgError('E_USAGE', `${pick.length} sections have the heading path ${JSON.stringify(q.path)}: ${pick.slice(0, 5).map((d) => d.ref.id).join(', ')}${pick.length > 5 ? ', …' : ''}`, {
      hint: 'pass `section` with one of these ids, or narrow with `package` or `file`',
    });
  }
  return pick[0]!;
}

/**
 * `get_section(section | path, max_bytes?)`: one whole source section — its nodes and those of
 * its subsections, in source order, in the pack encoding (headings once, text verbatim). When
 * the budget cuts it, the first nodes in source order are shown and the header says how many.
 */
export function getSection(state: McpState, q: SectionQuery, maxBytes?: number): ToolAnswer {
  const budget = answerBudget(maxBytes, DEFAULT_DOCUMENT_BYTES);
  const s = findSection(state, q);
  const trusted = state.project.trusted.has(s.package);
  // A trusted package's section is written as sync writes it: under "Instructions from
  // <package>@<version>" (the package group of trusted items), without a fence.
  const items = state.index.items
    .filter((it) => it.sections.some((x) => x.id === s.ref.id))
    .map((it) => (trusted ? { ...it, trusted: true } : it))
    .sort(compareOutput);
  const head = (shown: number, more: number | undefined): string =>
    [
      `# ctxpkg section: ${escapeInline(s.path.join(' › '), 600)}`,
      `<!-- ${escapeInline(s.ref.id, 300).replace(/-(?=-)/g, '-\\u002d')} -->`,
      `shown: ${shown} of ${items.length} nodes, in source order${more !== undefined ? `; cut by max_bytes: the whole section needs ${more} bytes` : ''}`,
      // The trust line explains the fence: only a section of an untrusted package has one.
      ...(trusted ? [] : [TRUST_LINE]),
      '',
    ].join('\n');
  const open = trusted ? '' : `\n${UNTRUSTED_BANNER}\n`;
  const close = trusted ? '' : `\n${UNTRUSTED_FOOTER}\n`;
  const whole = layoutItems(renderMarkdown, items, compareOutput).text;
  let count = items.length;
  let more: number | undefined;
  const sizeWith = (n: number, m: number | undefined): number => utf8Length(head(n, m) + open + layoutItems(renderMarkdown, items.slice(0, n), compareOutput).text + close);
  if (sizeWith(items.length, undefined) > budget) {
    more = sizeWith(items.length, undefined);
    // The longest prefix in source order that fits (sizes grow with n: binary search).
    let lo = 0;
    let hi = items.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (sizeWith(mid, more) <= budget) lo = mid;
      else hi = mid - 1;
    }
    count = lo;
    if (sizeWith(count, more) > budget) throw new CtxpkgError('E_BUDGET', `max_bytes ${budget} is too small for the section's header`, { details: { required_bytes: sizeWith(0, more), max_bytes: budget } });
  }
  const body = count === items.length ? whole : layoutItems(renderMarkdown, items.slice(0, count), compareOutput).text;
  const text = head(count, more) + open + body + close;
  return {
    text,
    structured: {
      section: { id: s.ref.id, package: s.package, version: s.version, file: s.ref.file_path ?? null, lines: pairOf(s.ref.line_start, s.ref.line_end), heading_path: s.path },
      total: items.length,
      shown: count,
      complete: count === items.length,
      nodes: items.slice(0, count).map((item) => hitOf(state, { item })),
    },
  };
}

/**
 * `render_pack(focus, max_bytes)`: a context pack, as `ctxpkg render` would print it (no receipt
 * written): the project's trusted packages under their instructions heading, the rest fenced.
 */
export function renderPack(state: McpState, focus: string | undefined, maxBytes?: number): ToolAnswer {
  const budget = answerBudget(maxBytes, DEFAULT_DOCUMENT_BYTES);
  const pack = compileWithPinNotes(state, { maxBytes: budget, ...(focus && focus.trim() !== '' ? { focus } : {}) });
  const c = pack.receipt.counts;
  return {
    text: pack.text,
    structured: { bytes: pack.bytes, max_bytes: budget, pack_sha256: pack.sha256, delivered: c.delivered, omitted: c.suppressed, by_reason: { ...c.by_reason }, warnings: pack.brokenPins.map((b) => b.message) },
  };
}

/**
 * `compilePack` over the project as render and sync see it (policy, trust, pin texts, freshness).
 * A pin that names nothing installed does not stop the pack; it is said in the pack's header (a
 * ctxpkg note with the fix, so the agent can tell the user) — compiled a second time with that
 * note only when some pin is broken.
 */
function compileWithPinNotes(state: McpState, extra: Pick<PackInput, 'maxBytes' | 'focus' | 'packages' | 'title'>): CompiledPack {
  const p = state.project;
  const input: PackInput = { graph: p.graph, policy: p.config.pack, now: state.now, read: p.read, builtHere: p.builtHere, trusted: p.trusted, pinTexts: state.pinTexts, ...extra };
  const pack = compilePack(input);
  const only = extra.packages ? new Set(extra.packages) : undefined;
  const broken = pack.brokenPins.filter((b) => !only || (b.package !== null && only.has(b.package)));
  if (broken.length === 0) return pack;
  return compilePack({ ...input, notes: broken.map((b) => `ctxpkg: ${b.message}`) });
}

/** The `ctxpkg://packages` resource: installed packages with item counts (trusted metadata). */
export function packageList(state: McpState): string {
  const counts = new Map<string, number>();
  for (const n of state.project.graph.nodes) if (!STRUCTURAL_TYPES.has(n.type)) counts.set(n.package, (counts.get(n.package) ?? 0) + 1);
  const lines = ['# Installed context packages (ctxpkg)', ''];
  for (const i of state.project.graph.inputs) {
    const tier = state.project.trusted.has(i.package) ? ' — trusted: instructions' : '';
    lines.push(`- ${i.package}@${i.version} — ${counts.get(i.package) ?? 0} items — content sha256 ${i.content_hash}${tier} — resource ${packageUri(i.package)}`);
  }
  if (state.project.graph.inputs.length === 0) lines.push('(none installed; run `ctxpkg install`)');
  return lines.join('\n') + '\n';
}

/** The resource URI of one package. */
export function packageUri(name: string): string {
  return `ctxpkg://package/${encodeURIComponent(name)}`;
}

/**
 * The `ctxpkg://package/{name}` resource: that package's pack within 16 KiB (trust tier as in
 * render_pack). Throws `E_NOT_FOUND` with `details.resource` (its URI) when not installed — the
 * one error the server answers as "resource not found".
 */
export function packageResource(state: McpState, name: string): string {
  const p = state.project;
  if (!p.graph.inputs.some((i) => i.package === name)) throw new CtxpkgError('E_NOT_FOUND', `package ${name} is not installed`, { details: { resource: packageUri(name) } });
  return compileWithPinNotes(state, { maxBytes: DEFAULT_DOCUMENT_BYTES, packages: [name], title: `Context from ${name} (ctxpkg)` }).text;
}
