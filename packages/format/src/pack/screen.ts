/**
 * Screening before budgeting (spec/pack.md "Screening"): every deliverable node — pinned ones
 * included — is checked, in this precedence, for `superseded`, `expired`, `secret`, and by
 * policy `disputed`, `absent`, `stale`. A node failing a check is omitted with that reason; a
 * node that is disputed/absent/stale under the `flag` policy is delivered with a flag.
 */
import { CtxpkgError } from '../errors.js';
import type { MergedGraph, MergedNode } from '../graph-types.js';
import type { NodeFacts } from './node-facts.js';
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
 * Resolve pins (qualified node ids or package names) to the set of pinned node ids among
 * `deliverable`. Throws `E_NOT_FOUND` listing every pin that names nothing installed: a pack
 * must never be silently missing a pinned node (spec/pack.md §2). Importer ids are
 * `<file>:<heading path>~<text hash>` (spec/format.md "Ids"), so editing a pinned node's text and
 * re-publishing changes its id; for such a pin the message names the package (and its installed
 * version) and the installed nodes with the same `<file>:<heading path>` prefix — the likely
 * successors — and how to re-pin (`details.pins[i].successors`).
 */
export function resolvePins(pins: readonly string[], graph: Pick<MergedGraph, 'nodes'>, deliverable: readonly MergedNode[]): Set<string> {
  const out = new Set<string>();
  if (pins.length === 0) return out;
  const allIds = new Set(graph.nodes.map((n) => n.id));
  const byPackage = new Map<string, MergedNode[]>();
  for (const n of deliverable) {
    const l = byPackage.get(n.package);
    if (l) l.push(n);
    else byPackage.set(n.package, [n]);
  }
  const deliverableIds = new Set(deliverable.map((n) => n.id));
  const missing: MissingPin[] = [];
  for (const pin of pins) {
    if (deliverableIds.has(pin)) out.add(pin);
    else if (byPackage.has(pin)) for (const n of byPackage.get(pin) as MergedNode[]) out.add(n.id);
    else if (!allIds.has(pin)) missing.push(explainMissingPin(pin, graph.nodes, byPackage));
    // a pin on a structural node (section/scope) of an installed package pins nothing: ignored
  }
  if (missing.length > 0) {
    const changed = missing.some((m) => m.installed);
    throw new CtxpkgError('E_NOT_FOUND', `${missing.length === 1 ? 'a pin in' : `${missing.length} pins in`} "context.pins" ${missing.length === 1 ? 'names' : 'name'} no installed node: ${missing.map((m) => m.text).join('; ')}`, {
      hint: changed
        ? 'node ids end in a hash of their text, so a pinned node whose text changed has a new id: replace the pin in "context.pins" in ctxpkg.json with the successor\'s id (listed above; `ctxpkg render --format json` shows every id), pin the whole package, or remove the pin'
        : 'install the package that provides it, or remove the pin from "context.pins" in ctxpkg.json',
      details: { pins: missing.map(({ pin, package: p, version, successors }) => ({ pin, package: p, version, successors })) },
    });
  }
  return out;
}

interface MissingPin {
  pin: string;
  package: string | null;
  version: string | null;
  /** The package is installed (so the node id changed or was removed). */
  installed: boolean;
  successors: string[];
  text: string;
}

/** Successors shown per missing pin (the rest are counted). */
const MAX_SUCCESSORS = 5;

/** Why `pin` names nothing, with likely successors (same package, same `<file>:<heading path>`). */
function explainMissingPin(pin: string, nodes: readonly MergedNode[], byPackage: ReadonlyMap<string, MergedNode[]>): MissingPin {
  const hash = pin.indexOf('#');
  if (hash <= 0) return { pin, package: null, version: null, installed: false, successors: [], text: `${pin} (no package of that name is installed)` };
  const pkg = pin.slice(0, hash);
  const local = pin.slice(hash + 1);
  const installedNodes = byPackage.get(pkg) ?? nodes.filter((n) => n.package === pkg);
  if (installedNodes.length === 0) return { pin, package: pkg, version: null, installed: false, successors: [], text: `${pin} (package ${pkg} is not installed)` };
  const version = installedNodes[0]?.version ?? null;
  const tilde = local.lastIndexOf('~');
  const prefix = tilde >= 0 ? local.slice(0, tilde + 1) : undefined;
  const successors = prefix === undefined ? [] : installedNodes.filter((n) => n.local_id.startsWith(prefix)).map((n) => n.id).sort();
  const shown = successors.slice(0, MAX_SUCCESSORS).join(', ');
  const more = successors.length > MAX_SUCCESSORS ? ` (+${successors.length - MAX_SUCCESSORS} more)` : '';
  const where = `${pkg}${version ? `@${version}` : ''} has no node ${local}`;
  const text =
    successors.length > 0
      ? `${pin} (${where}; its text probably changed — likely ${successors.length === 1 ? 'successor' : 'successors'} under the same heading ${local.slice(0, tilde)}: ${shown}${more})`
      : `${pin} (${where}${prefix !== undefined ? ` and no node under the heading ${local.slice(0, tilde)}` : ''})`;
  return { pin, package: pkg, version, installed: true, successors, text };
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

/** What screening needs besides the node. */
export interface ScreenContext {
  policy: PackPolicy;
  nowMs: number;
  /** Freshness of a node (`checkFreshness` looked up, or a lazy `freshnessResolver`). */
  freshness: (node: MergedNode) => Freshness;
  partners: ReadonlyMap<string, string[]>;
  pinned: ReadonlySet<string>;
  /** Secret kinds by position in the graph's node array (`factsFor(graph)`). */
  facts: NodeFacts;
}

/**
 * The first reason (§3 precedence) that omits `node` (= `ctx.facts.nodes[index]`) before
 * budgeting, or `undefined` when it is a candidate. `decayed` is `decayedActivation(node, nowMs)`.
 * Freshness is consulted only under `stale: "omit"` (under `flag` it never omits).
 */
export function omissionReason(node: MergedNode, index: number, ctx: ScreenContext, decayed: number | undefined): OmissionReason | undefined {
  if (node.superseded_by && node.superseded_by.length > 0) return 'superseded';
  if (decayed !== undefined && decayed < ctx.policy.min_activation) return 'expired';
  if (ctx.facts.secretKinds(index).length > 0) return 'secret';
  if (ctx.policy.disputed === 'omit' && (node.disputed === true || (ctx.partners.get(node.id)?.length ?? 0) > 0)) return 'disputed';
  if (ctx.policy.stale === 'omit') {
    const f = ctx.freshness(node);
    if (f === 'absent' || f === 'stale') return f;
  }
  return undefined;
}

/** Screen one node (`ctx.facts.nodes[index]`; see module docstring): its reason, or its flags when delivered. Pure. */
export function screenNode(node: MergedNode, index: number, ctx: ScreenContext): Screened {
  const decayed = decayedActivation(node, ctx.nowMs);
  const disputedWith = ctx.partners.get(node.id) ?? [];
  const activation = decayed ?? (Number.isFinite(node.activation) ? node.activation : 0);
  const s: Screened = { node, pinned: ctx.pinned.has(node.id), activation, flags: NO_FLAGS, disputedWith };
  const reason = omissionReason(node, index, ctx, decayed);
  if (reason) {
    s.reason = reason;
    if (reason === 'secret') s.secretKinds = [...ctx.facts.secretKinds(index)];
    return s;
  }
  const disputed = node.disputed === true || disputedWith.length > 0;
  const fresh = ctx.freshness(node);
  if (disputed || fresh === 'absent' || fresh === 'stale') {
    s.flags = [];
    if (disputed) s.flags.push('disputed');
    if (fresh === 'absent' || fresh === 'stale') s.flags.push(fresh);
  }
  return s;
}

/** Screen each node (`indices[k]` is the position of `nodes[k]` in the graph's node array). Pure; keeps the input order. */
export function screenNodes(nodes: readonly MergedNode[], indices: readonly number[], ctx: ScreenContext): Screened[] {
  return nodes.map((node, k) => screenNode(node, indices[k] as number, ctx));
}
