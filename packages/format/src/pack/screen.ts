/**
 * Screening before budgeting (spec/pack.md "Screening"): every deliverable node — pinned ones
 * included — is checked, in this precedence, for `superseded`, `expired`, `secret`, and by
 * policy `disputed`, `absent`, `stale`. A node failing a check is omitted with that reason; a
 * node that is disputed/absent/stale under the `flag` policy is delivered with a flag.
 */
import { CtxpkgError } from '../errors.js';
import type { MergedGraph, MergedNode } from '../graph-types.js';
import { scanSecrets, secretKinds, type SecretFinding } from '../secrets.js';
import { decayedActivation } from './order.js';
import type { Freshness, OmissionReason, PackPolicy } from './types.js';

export interface Screened {
  node: MergedNode;
  pinned: boolean;
  /** Effective activation at `now` (after decay). */
  activation: number;
  /** Set when the node is omitted before budgeting. */
  reason?: OmissionReason;
  /** Kinds of secrets found (reason `secret`). */
  secretKinds?: string[];
  /** Flags for a delivered node (`disputed`, `absent`, `stale`), in that order. */
  flags: string[];
  /** Qualified ids this node conflicts with (sorted). */
  disputedWith: string[];
}

/**
 * Secret findings in everything a pack would show of a node: its content, then its id, category
 * and file path (one line each, scanned together).
 */
export function nodeSecrets(n: MergedNode): SecretFinding[] {
  const found = scanSecrets(n.content);
  for (const x of scanSecrets(`${n.id}\n${n.category ?? ''}\n${n.file_path ?? ''}`)) found.push(x);
  return found;
}

/**
 * Resolve pins (qualified node ids or package names) to the set of pinned node ids among
 * `deliverable`. Throws `E_NOT_FOUND` listing every pin that names nothing installed: a pack
 * must never be silently missing a pinned node.
 */
export function resolvePins(pins: readonly string[], graph: Pick<MergedGraph, 'nodes'>, deliverable: readonly MergedNode[]): Set<string> {
  const out = new Set<string>();
  if (pins.length === 0) return out;
  const allIds = new Set(graph.nodes.map((n) => n.id));
  const byPackage = new Map<string, string[]>();
  for (const n of deliverable) {
    const l = byPackage.get(n.package);
    if (l) l.push(n.id);
    else byPackage.set(n.package, [n.id]);
  }
  const deliverableIds = new Set(deliverable.map((n) => n.id));
  const missing: string[] = [];
  for (const pin of pins) {
    if (deliverableIds.has(pin)) out.add(pin);
    else if (byPackage.has(pin)) for (const id of byPackage.get(pin) as string[]) out.add(id);
    else if (!allIds.has(pin)) missing.push(pin);
    // a pin on a structural node (section/scope) of an installed package pins nothing: ignored
  }
  if (missing.length > 0) {
    throw new CtxpkgError('E_NOT_FOUND', `pinned ${missing.length === 1 ? 'node' : 'nodes'} not installed: ${missing.join(', ')}`, {
      hint: 'install the package that provides it, or remove the pin from "context.pins" in ctxpkg.json',
      details: { pins: missing },
    });
  }
  return out;
}

/** Conflict partners per qualified id, from `graph.conflicts` (both directions, sorted). */
export function conflictPartners(graph: Pick<MergedGraph, 'conflicts'>): Map<string, string[]> {
  const m = new Map<string, Set<string>>();
  const add = (a: string, b: string): void => {
    const s = m.get(a) ?? new Set<string>();
    s.add(b);
    m.set(a, s);
  };
  for (const c of graph.conflicts ?? []) {
    add(c.from, c.to);
    add(c.to, c.from);
  }
  return new Map([...m].map(([k, s]) => [k, [...s].sort()]));
}

/** Shared empty flag list (most nodes): never mutated. */
const NO_FLAGS: string[] = [];

/** Screen each node (see module docstring). Pure; keeps the input order. */
export function screenNodes(
  nodes: readonly MergedNode[],
  ctx: {
    policy: PackPolicy;
    nowMs: number;
    freshness: ReadonlyMap<string, Freshness>;
    partners: ReadonlyMap<string, string[]>;
    pinned: ReadonlySet<string>;
  },
): Screened[] {
  return nodes.map((node) => {
    const decayed = decayedActivation(node, ctx.nowMs);
    const disputedWith = ctx.partners.get(node.id) ?? [];
    const activation = decayed ?? (Number.isFinite(node.activation) ? node.activation : 0);
    const s: Screened = { node, pinned: ctx.pinned.has(node.id), activation, flags: NO_FLAGS, disputedWith };
    if (node.superseded_by && node.superseded_by.length > 0) {
      s.reason = 'superseded';
      return s;
    }
    if (decayed !== undefined && decayed < ctx.policy.min_activation) {
      s.reason = 'expired';
      return s;
    }
    const findings = nodeSecrets(node);
    if (findings.length > 0) {
      s.reason = 'secret';
      s.secretKinds = secretKinds(findings);
      return s;
    }
    const fresh = ctx.freshness.get(node.id) ?? 'unchecked';
    const disputed = node.disputed === true || disputedWith.length > 0;
    if (disputed && ctx.policy.disputed === 'omit') s.reason = 'disputed';
    else if (fresh === 'absent' && ctx.policy.stale === 'omit') s.reason = 'absent';
    else if (fresh === 'stale' && ctx.policy.stale === 'omit') s.reason = 'stale';
    if (s.reason) return s;
    if (disputed || fresh === 'absent' || fresh === 'stale') {
      s.flags = [];
      if (disputed) s.flags.push('disputed');
      if (fresh === 'absent' || fresh === 'stale') s.flags.push(fresh);
    }
    return s;
  });
}
