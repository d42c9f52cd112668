/**
 * The pack receipt (spec/pack.md "Receipt"): what was delivered and what was not, joinable by
 * hashes, with no raw content — a load receipt in the sense of seed 000 ("proves selected context
 * crossed the boundary, privacy-safe input identities, delivered and suppressed counts"; it does
 * not claim usefulness).
 */
import { sha256Hex } from '../hash.js';
import type { MergedNode } from '../graph-types.js';
import { estimateTokens } from './budget.js';
import { BYTES_PER_TOKEN, OMISSION_REASONS, TOKEN_NOTE, type Delivered, type FreshnessScope, type Omission, type OmissionReason, type PackFormat } from './types.js';

export interface PackReceipt {
  format: 'ctxpkg-receipt-v1';
  /** `sha256:<hex>` of the exact UTF-8 bytes of the pack. */
  pack_sha256: string;
  pack_format: PackFormat;
  pack_bytes: number;
  now: string;
  budget: {
    max_bytes: number;
    used_bytes: number;
    max_tokens_estimate: number;
    used_tokens_estimate: number;
    bytes_per_token: number;
    note: string;
  };
  /**
   * `mode` all|pinned; `not_selected`: deliverable items of the selected packages that a
   * pinned-only pack does not select (unpinned; 0 in mode all) — not omissions, not listed.
   */
  selection: { mode: 'all' | 'pinned'; focus: string | null; packages: string[] | null; not_selected: number };
  /**
   * `built_here` (only under `freshness: "auto"`, only when non-empty): installed packages the
   * caller knew to be built from this workspace, checked even without a fresh node (§6).
   */
  policy: {
    stale: string;
    disputed: string;
    freshness: FreshnessScope;
    built_here?: string[];
    min_activation: number;
    pins: string[];
    /** Pins that named no installed node, so the pack was delivered without them (only when some did). */
    pins_broken?: string[];
  };
  inputs: Array<{ package: string; version: string; content_hash: string }>;
  counts: {
    /** All nodes of the merged graph. */
    nodes: number;
    /** `section`/`scope` nodes (structure, not items). */
    structural: number;
    /** Deliverable nodes considered (after package/pinned-only selection). */
    candidates: number;
    delivered: number;
    suppressed: number;
    /** Delivered with a stale/absent/disputed flag. */
    flagged: number;
    pinned: number;
    by_reason: Record<OmissionReason, number>;
  };
  delivered: Delivered[];
  omissions: Omission[];
}

/** `sha256:<hex>` of a node's content as UTF-8. */
export function contentHash(content: string): string {
  return 'sha256:' + sha256Hex(content);
}

/**
 * The omission record of a node. `contentHash` is `NodeFacts.omissionHash(node)`: when the
 * content contains a secret (whatever the reason) it is over the *redacted* content, so the
 * receipt cannot be used to confirm a guessed secret. A `superseded` omission carries the
 * superseding node ids (`superseded_by`).
 */
export function omissionOf(node: MergedNode, reason: OmissionReason, pinned: boolean, contentHash: string, kinds?: readonly string[]): Omission {
  const o: Omission = { package: node.package, version: node.version, id: node.id, content_hash: contentHash, reason };
  if (pinned) o.pinned = true;
  if (kinds && kinds.length > 0) o.secret_kinds = [...kinds];
  // Who superseded it: another package can supersede a node (even a pinned one), so the receipt
  // names the superseding node ids (qualified, so their package is visible; spec/pack.md §3).
  if (reason === 'superseded' && node.superseded_by && node.superseded_by.length > 0) o.superseded_by = [...node.superseded_by];
  return o;
}

/** Counts per reason with every reason present (zeros included), in `OMISSION_REASONS` order. */
export function countByReason(omissions: readonly Pick<Omission, 'reason'>[]): Record<OmissionReason, number> {
  const out = Object.fromEntries(OMISSION_REASONS.map((r) => [r, 0])) as Record<OmissionReason, number>;
  for (let i = 0; i < omissions.length; i++) out[(omissions[i] as Pick<Omission, 'reason'>).reason]++;
  return out;
}

/**
 * Build the receipt (keys in the order above; omissions sorted by package, then id). `counts`,
 * when given, are the omissions' counts by reason (`countByReason(omissions)`) and how many of
 * them are pinned, known to a caller that made them (the pack compiler): then the ~50k
 * omissions of a large graph are not walked twice more to count them (bench/render). A wrong
 * `counts` gives a wrong receipt: compile.equivalence.test.ts pins the compiler's receipts.
 */
export function buildReceipt(args: {
  text: string;
  bytes: number;
  format: PackFormat;
  now: string;
  maxBytes: number;
  selection: PackReceipt['selection'];
  policy: PackReceipt['policy'];
  inputs: PackReceipt['inputs'];
  nodes: number;
  structural: number;
  candidates: number;
  delivered: Delivered[];
  omissions: Omission[];
  counts?: { byReason: Record<OmissionReason, number>; pinnedOmissions: number };
}): PackReceipt {
  const omissions = [...args.omissions].sort((a, b) => cmp(a.package, b.package) || cmp(a.id, b.id));
  return {
    format: 'ctxpkg-receipt-v1',
    pack_sha256: 'sha256:' + sha256Hex(args.text),
    pack_format: args.format,
    pack_bytes: args.bytes,
    now: args.now,
    budget: {
      max_bytes: args.maxBytes,
      used_bytes: args.bytes,
      max_tokens_estimate: estimateTokens(args.maxBytes),
      used_tokens_estimate: estimateTokens(args.bytes),
      bytes_per_token: BYTES_PER_TOKEN,
      note: TOKEN_NOTE,
    },
    selection: args.selection,
    policy: args.policy,
    inputs: args.inputs,
    counts: {
      nodes: args.nodes,
      structural: args.structural,
      candidates: args.candidates,
      delivered: args.delivered.length,
      suppressed: omissions.length,
      flagged: args.delivered.filter((d) => d.flags.length > 0).length,
      pinned: args.delivered.filter((d) => d.section === 'pinned').length + (args.counts ? args.counts.pinnedOmissions : omissions.filter((o) => o.pinned).length),
      by_reason: args.counts ? { ...args.counts.byReason } : countByReason(omissions),
    },
    delivered: args.delivered,
    omissions,
  };
}

/** The receipt file text: 2-space JSON, LF-terminated (deterministic: keys are built in order). */
export function receiptText(receipt: PackReceipt): string {
  return JSON.stringify(receipt, null, 2) + '\n';
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
