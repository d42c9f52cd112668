/**
 * The context-pack compiler (spec/pack.md): merged graph + policy + budget + `now` (+ workspace
 * reader for freshness) → deterministic pack text and receipt. Pure: no I/O, no clock, no model.
 */
import { CtxpkgError } from '../errors.js';
import type { MergedGraph } from '../graph-types.js';
import { checkByteBudget, utf8Length } from './budget.js';
import { checkFreshness } from './freshness.js';
import { itemOf } from './item.js';
import { compareKeys, priorityOf, sectionOf, typeRank, type OrderKey } from './order.js';
import { defaultPackPolicy } from './policy.js';
import { buildReceipt, contentHash, countByReason, omissionOf, type PackReceipt } from './receipt.js';
import type { FrameInfo, RenderItem, Renderer } from './render.js';
import { renderJson } from './render-json.js';
import { renderMarkdown } from './render-md.js';
import { breadcrumbResolver, computeScopes, focusScore, parseFocus, STRUCTURAL_TYPES } from './scope.js';
import { conflictPartners, resolvePins, screenNodes, type Screened } from './screen.js';
import { selectWithinBudget } from './select.js';
import { SECTIONS, type Delivered, type Omission, type OmissionReason, type PackFormat, type PackPolicy, type SectionName, type WorkspaceReader } from './types.js';

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

/** A candidate with its order keys and where it stands in `live`. */
interface Keyed extends OrderKey {
  li: number;
  section: SectionName;
}

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

  // No sort needed here: the total order (ending in the unique id) fixes the output order, and
  // the receipt sorts its omissions.
  const nodes = graph.nodes;
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
  const live = screened.filter((s) => !s.reason);

  const focus = input.focus !== undefined ? parseFocus(input.focus) : undefined;
  const scopes = computeScopes(graph);
  const crumbs = breadcrumbResolver(graph);
  const hasPriorities = Object.keys(policy.priorities).length > 0;
  const keyed = live.map((s, li): Keyed => {
    const n = s.node;
    return {
      li,
      pinned: s.pinned,
      focus: focus ? focusScore(focus, n, scopes.get(n.id)) : 0,
      priority: hasPriorities ? priorityOf(policy.priorities, n) : 0,
      rank: typeRank(n.type),
      activation: s.activation,
      package: n.package,
      id: n.id,
      section: s.pinned ? 'pinned' : sectionOf(n.type),
    };
  });
  keyed.sort(compareKeys);

  // Items and blocks are built lazily: only candidates the selection looks at are rendered.
  const items: Array<RenderItem | undefined> = new Array(keyed.length);
  const blocks: Array<string | undefined> = new Array(keyed.length);
  const itemAt = (i: number): RenderItem => {
    let it = items[i];
    if (!it) {
      const k = keyed[i] as Keyed;
      const s = live[k.li] as Screened;
      it = itemOf(s, scopes.get(s.node.id), crumbs(s.node.id));
      it.section = k.section;
      items[i] = it;
    }
    return it;
  };
  const blockAt = (i: number): string => (blocks[i] ??= renderer.block(itemAt(i)));

  const inputs = [...(graph.inputs ?? [])]
    .filter((i) => !onlyPackages || onlyPackages.has(i.package))
    .sort((a, b) => cmp(a.package, b.package) || cmp(a.version, b.version))
    .map((i) => ({ package: i.package, version: i.version, content_hash: i.content_hash }));
  const preCounts = countByReason(screened.filter((s) => s.reason).map((s) => ({ reason: s.reason as OmissionReason })));
  const pinnedOmitted = screened.filter((s) => s.reason && s.pinned).length;
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
    {
      count: keyed.length,
      sectionAt: (i) => (keyed[i] as Keyed).section,
      pinnedAt: (i) => (keyed[i] as Keyed).pinned,
      sizeAt: (i) => utf8Length(blockAt(i)),
    },
    {
      maxBytes,
      headerSize: (s) => utf8Length(renderer.sectionHeader(s)),
      separatorSize: utf8Length(renderer.separator),
      frameSize,
      weights: policy.section_weights,
      minBlockBytes: renderer.minBlockBytes,
    },
  );

  // Omissions in input order (screening reasons and byte_budget alike).
  const takenLive = new Uint8Array(live.length);
  keyed.forEach((k, i) => {
    if (selected[i]) takenLive[k.li] = 1;
  });
  const omissions: Omission[] = [];
  let nb = 0;
  let li = 0;
  for (const s of screened) {
    if (s.reason) {
      omissions.push(omissionOf(s.node, s.reason, s.pinned, s.secretKinds));
      continue;
    }
    if (!takenLive[li]) {
      nb++;
      omissions.push(omissionOf(s.node, 'byte_budget', false));
    }
    li++;
  }

  // Render: sections in order, nodes in the total order within each section.
  const bySection = new Map<SectionName, number[]>();
  keyed.forEach((k, i) => {
    if (!selected[i]) return;
    const l = bySection.get(k.section);
    if (l) l.push(i);
    else bySection.set(k.section, [i]);
  });
  const parts: string[] = [];
  const delivered: Delivered[] = [];
  for (const section of SECTIONS) {
    const list = bySection.get(section);
    if (!list) continue;
    parts.push(renderer.sectionHeader(section));
    for (const i of list) {
      const b = blockAt(i);
      const it = itemAt(i);
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
    }
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
