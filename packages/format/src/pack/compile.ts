/**
 * The context-pack compiler (spec/pack.md): merged graph + policy + budget + `now` (+ workspace
 * reader for freshness) → deterministic pack text and receipt. Pure: no I/O, no clock, no model.
 */
import { CtxpkgError } from '../errors.js';
import type { MergedGraph } from '../graph-types.js';
import { checkByteBudget, utf8Length } from './budget.js';
import { checkFreshness } from './freshness.js';
import { itemOf } from './item.js';
import { compareKeys, priorityOf, typeRank, type OrderKey } from './order.js';
import { defaultPackPolicy } from './policy.js';
import { buildReceipt, contentHash, countByReason, omissionOf, type PackReceipt } from './receipt.js';
import type { FrameInfo, Renderer } from './render.js';
import { renderJson } from './render-json.js';
import { renderMarkdown } from './render-md.js';
import { computeBreadcrumbs, computeScopes, focusScore, parseFocus, STRUCTURAL_TYPES } from './scope.js';
import { conflictPartners, resolvePins, screenNodes, type Screened } from './screen.js';
import { selectWithinBudget } from './select.js';
import { SECTIONS, type Delivered, type Omission, type PackFormat, type PackPolicy, type WorkspaceReader } from './types.js';

export interface PackInput {
  graph: MergedGraph;
  /** Policy (defaults from `defaultPackPolicy` for members not given). */
  policy?: Partial<PackPolicy>;
  /** Exact budget over the rendered UTF-8 output, 1 … 64 MiB. */
  maxBytes: number;
  /** The time the pack is compiled for (RFC 3339); drives decay/expiry and is printed. */
  now: string;
  format?: PackFormat;
  /** `--focus`: a path glob or a free-text query (orders matching nodes first). */
  focus?: string;
  /** Workspace access for freshness; without it every node is `unchecked`. */
  read?: WorkspaceReader;
  /** Only nodes of these packages are candidates (per-package agent files). */
  packages?: readonly string[];
  /** Only pinned nodes are candidates (the always-loaded AGENTS.md block). */
  pinnedOnly?: boolean;
  /** Header title (default "Context pack (ctxpkg)"). */
  title?: string;
  /** Extra trusted header lines written by ctxpkg itself (e.g. a package index). */
  notes?: readonly string[];
  /** Print `now` in the header (default true). Agent files pass false so they change only with content. */
  stamp?: boolean;
}

export interface CompiledPack {
  text: string;
  /** UTF-8 bytes of `text` (≤ maxBytes). */
  bytes: number;
  /** `sha256:<hex>` of `text`. */
  sha256: string;
  receipt: PackReceipt;
}

/** Parse `now` (RFC 3339 / ISO 8601 with a zone) to ms; throws `E_USAGE`. Returns ms and canonical ISO text. */
export function parseNow(now: string): { ms: number; iso: string } {
  const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i.test(now);
  const ms = ok ? Date.parse(now) : NaN;
  if (!Number.isFinite(ms)) {
    throw new CtxpkgError('E_USAGE', `--now must be an RFC 3339 time with a zone, e.g. 2025-01-31T12:00:00Z (got ${JSON.stringify(now).slice(0, 60)})`);
  }
  return { ms, iso: new Date(ms).toISOString() };
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Compile a context pack. Deterministic: the same graph (in any node/edge order), policy,
 * budget, `now`, format, focus and workspace contents give byte-identical text and receipt.
 * Throws `E_USAGE` (bad budget, `now`, format), `E_NOT_FOUND` (a pin names nothing installed),
 * `E_BUDGET` (mandatory structure + pinned nodes exceed the budget).
 */
export function compilePack(input: PackInput): CompiledPack {
  const maxBytes = checkByteBudget(input.maxBytes);
  const now = parseNow(input.now);
  const format = input.format ?? 'md';
  if (format !== 'md' && format !== 'json') throw new CtxpkgError('E_USAGE', `--format must be md or json (got ${String(format)})`);
  const policy: PackPolicy = { ...defaultPackPolicy(), ...(input.policy ?? {}) };
  const renderer: Renderer = format === 'json' ? renderJson : renderMarkdown;
  const graph = input.graph;
  const onlyPackages = input.packages ? new Set(input.packages) : undefined;

  const nodes = [...graph.nodes].sort((a, b) => cmp(a.id, b.id));
  const structural = nodes.filter((n) => STRUCTURAL_TYPES.has(n.type)).length;
  const deliverable = nodes.filter((n) => !STRUCTURAL_TYPES.has(n.type));
  const pinned = resolvePins(policy.pins, graph, deliverable);
  const inScope = deliverable.filter((n) => (!onlyPackages || onlyPackages.has(n.package)) && (!input.pinnedOnly || pinned.has(n.id)));

  const screened = screenNodes(inScope, {
    policy,
    nowMs: now.ms,
    freshness: checkFreshness(deliverable, input.read, policy.freshness),
    partners: conflictPartners(graph),
    pinned,
  });
  const omissions: Omission[] = [];
  const live: Screened[] = [];
  for (const s of screened) {
    if (s.reason) omissions.push(omissionOf(s.node, s.reason, s.pinned, s.secretKinds));
    else live.push(s);
  }

  const focus = input.focus !== undefined ? parseFocus(input.focus) : undefined;
  const scopes = computeScopes(graph);
  const crumbs = computeBreadcrumbs(graph);
  const keyed = live.map((s) => {
    const n = s.node;
    const key: OrderKey = {
      pinned: s.pinned,
      focus: focus ? focusScore(focus, n, scopes.get(n.id)) : 0,
      priority: priorityOf(policy.priorities, n),
      rank: typeRank(n.type),
      activation: s.activation,
      package: n.package,
      id: n.id,
    };
    return { s, key };
  });
  keyed.sort((a, b) => compareKeys(a.key, b.key));

  const items = keyed.map(({ s }) => {
    const it = itemOf(s, scopes.get(s.node.id), crumbs.get(s.node.id));
    if (s.pinned) it.section = 'pinned';
    return it;
  });
  const blocks = items.map((it) => renderer.block(it));

  const inputs = [...(graph.inputs ?? [])]
    .filter((i) => !onlyPackages || onlyPackages.has(i.package))
    .sort((a, b) => cmp(a.package, b.package) || cmp(a.version, b.version))
    .map((i) => ({ package: i.package, version: i.version, content_hash: i.content_hash }));
  const preCounts = countByReason(omissions);
  const pinnedOmitted = omissions.filter((o) => o.pinned).length;
  const frameInfo = (nb: number): FrameInfo => ({
    title: input.title ?? 'Context pack (ctxpkg)',
    now: input.stamp === false ? undefined : now.iso,
    inputs,
    focus: input.focus?.trim() || undefined,
    omitted: { ...preCounts, byte_budget: nb },
    pinnedOmitted,
    notes: input.notes ?? [],
  });
  const frameSize = (nb: number): number => {
    const f = renderer.frame(frameInfo(nb));
    return utf8Length(f.prefix) + utf8Length(f.suffix);
  };

  const { selected } = selectWithinBudget(
    items.map((it, i) => ({ section: it.section, size: utf8Length(blocks[i] as string), pinned: it.section === 'pinned' })),
    { maxBytes, headerSize: (s) => utf8Length(renderer.sectionHeader(s)), separatorSize: utf8Length(renderer.separator), frameSize, weights: policy.section_weights },
  );

  // Render: sections in order, nodes in the total order within each section.
  const parts: string[] = [];
  const delivered: Delivered[] = [];
  let nb = 0;
  items.forEach((it, i) => {
    if (!selected[i]) {
      nb++;
      omissions.push(omissionOf(keyed[i]!.s.node, 'byte_budget', false));
    }
  });
  for (const section of SECTIONS) {
    let opened = false;
    items.forEach((it, i) => {
      if (!selected[i] || it.section !== section) return;
      if (!opened) {
        parts.push(renderer.sectionHeader(section));
        opened = true;
      }
      const b = blocks[i] as string;
      parts.push(delivered.length > 0 ? renderer.separator + b : b);
      delivered.push({
        package: it.package,
        version: it.version,
        id: it.id,
        content_hash: contentHash(it.content),
        delivered_hash: contentHash(b),
        section,
        flags: [...it.flags],
      });
    });
  }
  const frame = renderer.frame(frameInfo(nb));
  const text = frame.prefix + parts.join('') + frame.suffix;
  const bytes = utf8Length(text);
  if (bytes > maxBytes) {
    throw new CtxpkgError('E_INTERNAL', `pack compiler overran its budget (${bytes} > ${maxBytes}); this is a bug`);
  }
  const receipt = buildReceipt({
    text,
    bytes,
    format,
    now: now.iso,
    maxBytes,
    selection: { mode: input.pinnedOnly ? 'pinned' : 'all', focus: input.focus?.trim() || null, packages: onlyPackages ? [...onlyPackages].sort() : null },
    policy: { stale: policy.stale, disputed: policy.disputed, freshness: policy.freshness, min_activation: policy.min_activation, pins: [...policy.pins].sort() },
    inputs,
    nodes: nodes.length,
    structural,
    candidates: inScope.length,
    delivered,
    omissions,
  });
  return { text, bytes, sha256: receipt.pack_sha256, receipt };
}
