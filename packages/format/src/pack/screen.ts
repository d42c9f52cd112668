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
 * The deliverable nodes a heading pin names: `<package>#<file>:<heading path>` without a hash
 * suffix matches the nodes of that section and its subsections (local ids starting
 * `<file>:<heading path>~` or `<file>:<heading path>/`); `<package>#<file>` matches every node of
 * that file. Empty when the pin is not of that form or names nothing.
 */
export function headingPinMatches(pin: string, byPackage: ReadonlyMap<string, readonly MergedNode[]>): MergedNode[] {
  const hash = pin.indexOf('#');
  if (hash <= 0) return [];
  const local = pin.slice(hash + 1);
  if (local === '' || local.includes('~')) return [];
  const nodes = byPackage.get(pin.slice(0, hash)) ?? [];
  const prefixes = local.includes(':') ? (local.endsWith(':') ? [local] : [`${local}~`, `${local}/`]) : [`${local}:`];
  return nodes.filter((n) => prefixes.some((p) => n.local_id.startsWith(p)));
}

/**
 * Resolve pins to the set of pinned node ids among `deliverable` (spec/pack.md §2 "Pins"). A pin
 * is a qualified node id, a package name (all its deliverable nodes), or a heading path without
 * the hash suffix (`headingPinMatches`: that section and its children, or a whole file). Throws
 * `E_NOT_FOUND` listing every pin that names nothing installed: a pack must never be silently
 * missing a pinned node. Importer ids are `<file>:<heading path>~<text hash>` (spec/format.md
 * "Ids"), so editing a pinned node's text and re-publishing changes its id; for such a pin the
 * message names the package (and its installed version) and the likely successors, ranked by
 * text similarity to the text the pin last delivered (`previous`, pin → text; without it, to the
 * pin's heading path), best first, nodes already pinned excluded (`details.pins[i].successors`),
 * and how to re-pin.
 */
export function resolvePins(pins: readonly string[], graph: Pick<MergedGraph, 'nodes'>, deliverable: readonly MergedNode[], previous?: ReadonlyMap<string, string>): Set<string> {
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
  const broken: string[] = [];
  for (const pin of pins) {
    if (deliverableIds.has(pin)) out.add(pin);
    else if (byPackage.has(pin)) for (const n of byPackage.get(pin) as MergedNode[]) out.add(n.id);
    else {
      const under = headingPinMatches(pin, byPackage);
      if (under.length > 0) for (const n of under) out.add(n.id);
      else if (!allIds.has(pin)) broken.push(pin);
      // a pin on a structural node with no deliverable children pins nothing: ignored
    }
  }
  if (broken.length === 0) return out;
  const missing = broken.map((pin) => explainMissingPin(pin, graph.nodes, byPackage, out, previous?.get(pin)));
  const changed = missing.some((m) => m.installed);
  throw new CtxpkgError('E_NOT_FOUND', `${missing.length === 1 ? 'a pin in' : `${missing.length} pins in`} "context.pins" ${missing.length === 1 ? 'names' : 'name'} no installed node: ${missing.map((m) => m.text).join('; ')}`, {
    hint: changed
      ? 'node ids end in a hash of their text, so a pinned node whose text changed has a new id: `ctxpkg unpin <pin>` and `ctxpkg pin <successor id>` (listed above; `ctxpkg ls --nodes` shows every id), pin the heading path without the hash (e.g. @acme/x#AGENTS.md:security) or the whole package, or remove the pin'
      : 'install the package that provides it, or remove the pin (`ctxpkg unpin <pin>`)',
    details: { pins: missing.map(({ pin, package: p, version, successors }) => ({ pin, package: p, version, successors })) },
  });
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
/** Candidates ranked per missing pin (the best of a package's nodes). */
const MAX_RANKED = 50;

/** Lowercase word tokens (letters and digits, ≥ 2 characters) of `text`, at most 4096. */
function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) ?? []).slice(0, 4096);
}

/** Dice similarity of the word multisets of `a` and `b` (0 … 1). */
export function textSimilarity(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const count = new Map<string, number>();
  for (const w of a) count.set(w, (count.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of b) {
    const c = count.get(w) ?? 0;
    if (c > 0) {
      common++;
      count.set(w, c - 1);
    }
  }
  return (2 * common) / (a.length + b.length);
}

/**
 * Why `pin` names nothing, with its likely successors: the package's unpinned nodes ranked by
 * text similarity to `previousText` (or, unknown, to the pin's heading path words), ties broken
 * by the same `<file>:<heading path>` first, then id.
 */
function explainMissingPin(pin: string, nodes: readonly MergedNode[], byPackage: ReadonlyMap<string, MergedNode[]>, pinned: ReadonlySet<string>, previousText: string | undefined): MissingPin {
  const hash = pin.indexOf('#');
  if (hash <= 0) return { pin, package: null, version: null, installed: false, successors: [], text: `${pin} (no package of that name is installed)` };
  const pkg = pin.slice(0, hash);
  const local = pin.slice(hash + 1);
  const installedNodes = byPackage.get(pkg) ?? nodes.filter((n) => n.package === pkg);
  if (installedNodes.length === 0) return { pin, package: pkg, version: null, installed: false, successors: [], text: `${pin} (package ${pkg} is not installed)` };
  const version = installedNodes[0]?.version ?? null;
  const tilde = local.lastIndexOf('~');
  const heading = tilde >= 0 ? local.slice(0, tilde) : local;
  const ref = words(previousText ?? heading.replace(/[:/.-]+/g, ' '));
  const scored = installedNodes
    .filter((n) => !pinned.has(n.id))
    .map((n) => ({ id: n.id, same: n.local_id.startsWith(`${heading}~`) ? 1 : 0, score: textSimilarity(ref, words(previousText !== undefined ? n.content : `${n.local_id.replace(/[:/.~-]+/g, ' ')} ${n.content}`)) }))
    .filter((c) => c.score > 0 || c.same > 0)
    .sort((a, b) => b.score - a.score || b.same - a.same || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, MAX_RANKED);
  const successors = scored.map((c) => c.id);
  const shown = successors.slice(0, MAX_SUCCESSORS).join(', ');
  const more = successors.length > MAX_SUCCESSORS ? ` (+${successors.length - MAX_SUCCESSORS} more)` : '';
  const where = `${pkg}${version ? `@${version}` : ''} has no node ${local}`;
  const basis = previousText !== undefined ? 'most similar to the text it pinned' : 'most similar to its heading';
  const text =
    successors.length > 0
      ? `${pin} (${where}; its text probably changed — likely ${successors.length === 1 ? 'successor' : 'successors'}, ${basis}: ${shown}${more})`
      : `${pin} (${where}${tilde >= 0 ? ` and nothing like it under the heading ${heading}` : ''})`;
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
