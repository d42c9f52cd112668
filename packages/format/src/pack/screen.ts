/**
 * Screening before budgeting (spec/pack.md "Screening"): every deliverable node — pinned ones
 * included — is checked, in this precedence, for `superseded`, `expired`, `secret`, and by
 * policy `disputed`, `absent`, `stale`. A node failing a check is omitted with that reason; a
 * node that is disputed/absent/stale under the `flag` policy is delivered with a flag.
 */
import { CtxpkgError } from '../errors.js';
import type { MergedGraph, MergedNode } from '../graph-types.js';
import type { NodeFacts } from './node-facts.js';
import { shellArg } from './escape.js';
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

/** A pin that names no installed node (`checkPins`). */
export interface BrokenPin {
  pin: string;
  /** The package the pin names (`null`: no `#` in it). */
  package: string | null;
  /** Its installed version (`null`: not installed). */
  version: string | null;
  /** The package is installed, so the node's id changed (its text was edited) or it was removed. */
  installed: boolean;
  /** Likely successors, best first (`rankSuccessors`; at most 50). */
  successors: string[];
  /**
   * What to pin instead: the best successor, else the pin's heading without the hash suffix when
   * that heading still has nodes (it survives edits), else `null`.
   */
  replacement: string | null;
  /** One short line for a person: what is wrong and the command that fixes it. */
  message: string;
}

/**
 * Resolve pins among `deliverable` (spec/pack.md §2 "Pins"). A pin is a qualified node id, a
 * package name (all its deliverable nodes), or a heading path without the hash suffix
 * (`headingPinMatches`: that section and its children, or a whole file). Returns the pinned ids
 * and every pin that names nothing installed (`broken`, in `pins` order; a pin on a structural
 * node with no deliverable children pins nothing and is not broken). A broken pin never stops a
 * delivery: callers deliver the rest and warn with `message` (it must never go unnoticed).
 * Importer ids are `<file>:<heading path>~<text hash>` (spec/format.md "Ids"), so editing a pinned
 * node's text and re-publishing changes its id; the successors are ranked by `rankSuccessors`
 * against `previous` (pin → the text it last delivered, the CLI's `.ctxpkg/pins.json`).
 */
export function checkPins(pins: readonly string[], graph: Pick<MergedGraph, 'nodes'>, deliverable: readonly MergedNode[], previous?: ReadonlyMap<string, string>): { pinned: Set<string>; broken: BrokenPin[] } {
  const out = new Set<string>();
  if (pins.length === 0) return { pinned: out, broken: [] };
  const allIds = new Set(graph.nodes.map((n) => n.id));
  const byPackage = new Map<string, MergedNode[]>();
  for (const n of deliverable) {
    const l = byPackage.get(n.package);
    if (l) l.push(n);
    else byPackage.set(n.package, [n]);
  }
  const deliverableIds = new Set(deliverable.map((n) => n.id));
  const missing: string[] = [];
  for (const pin of pins) {
    if (deliverableIds.has(pin)) out.add(pin);
    else if (byPackage.has(pin)) for (const n of byPackage.get(pin) as MergedNode[]) out.add(n.id);
    else {
      const under = headingPinMatches(pin, byPackage);
      if (under.length > 0) for (const n of under) out.add(n.id);
      else if (!allIds.has(pin)) missing.push(pin);
    }
  }
  return { pinned: out, broken: missing.map((pin) => explainMissingPin(pin, graph.nodes, byPackage, out, previous?.get(pin))) };
}

/**
 * `checkPins`, strict: throws `E_NOT_FOUND` (`brokenPinsError`) when a pin names nothing
 * installed. For callers that must not deliver without every pin; packs and sync use `checkPins`.
 */
export function resolvePins(pins: readonly string[], graph: Pick<MergedGraph, 'nodes'>, deliverable: readonly MergedNode[], previous?: ReadonlyMap<string, string>): Set<string> {
  const { pinned, broken } = checkPins(pins, graph, deliverable, previous);
  if (broken.length > 0) throw brokenPinsError(broken);
  return pinned;
}

/** `E_NOT_FOUND` for broken pins: their short messages; `details.pins[i]` with package, version, successors, replacement. */
export function brokenPinsError(broken: readonly BrokenPin[]): CtxpkgError {
  const changed = broken.some((m) => m.installed);
  return new CtxpkgError('E_NOT_FOUND', broken.map((m) => m.message).join('; '), {
    hint: changed
      ? 'a node id ends in a hash of its text, so an edited node has a new id; `ctxpkg ls --nodes` lists the ids, and a heading pin without the hash (pkg#file:heading) survives edits'
      : 'install the package that provides it, or `ctxpkg unpin <pin>`',
    details: { pins: broken.map(({ pin, package: p, version, successors, replacement }) => ({ pin, package: p, version, successors, replacement })) },
  });
}

/** Candidates ranked per missing pin (the best of a package's nodes). */
const MAX_RANKED = 50;
/** Least similarity for a successor outside the pin's own heading (Dice over words, 0 … 1). */
const MIN_SIMILARITY = 0.2;

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

/** The heading part of a pin's local id (`<file>:<heading path>`, the `~hash` removed). */
function headingOf(local: string): string {
  const tilde = local.lastIndexOf('~');
  return tilde >= 0 ? local.slice(0, tilde) : local;
}

/**
 * The likely successors of a pin that names no node: `candidates` (the pin's package's nodes)
 * not in `exclude` (already pinned), best first, at most 50. The one ranking for every caller —
 * render, sync, `ctxpkg pin` and the MCP server alike (spec/pack.md §2 "Pins"):
 * - with `previousText` (what the pin last delivered): Dice similarity of the words of a node's
 *   text to it, plus 0.1 for a node under the pin's own heading; a node elsewhere needs
 *   similarity ≥ 0.2;
 * - without it: nodes under the pin's own heading first, then by similarity of their heading
 *   path and text to the pin's heading words.
 * Ties by id. Linear in the candidates' text.
 */
export function rankSuccessors(pin: string, candidates: readonly MergedNode[], exclude: ReadonlySet<string>, previousText?: string): string[] {
  const hash = pin.indexOf('#');
  const heading = headingOf(hash >= 0 ? pin.slice(hash + 1) : pin);
  const ref = words(previousText ?? heading.replace(/[:/.-]+/g, ' '));
  const scored: Array<{ id: string; score: number }> = [];
  for (const n of candidates) {
    if (exclude.has(n.id)) continue;
    const same = n.local_id.startsWith(`${heading}~`);
    const sim = textSimilarity(ref, words(previousText !== undefined ? n.content : `${n.local_id.replace(/[:/.~-]+/g, ' ')} ${n.content}`));
    if (previousText !== undefined) {
      if (same || sim >= MIN_SIMILARITY) scored.push({ id: n.id, score: sim + (same ? 0.1 : 0) });
    } else if (same || sim > 0) scored.push({ id: n.id, score: (same ? 1 : 0) + sim });
  }
  scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return scored.slice(0, MAX_RANKED).map((c) => c.id);
}

/** Why `pin` names nothing, with its likely successors (`rankSuccessors`) and a one-line fix. */
function explainMissingPin(pin: string, nodes: readonly MergedNode[], byPackage: ReadonlyMap<string, MergedNode[]>, pinned: ReadonlySet<string>, previousText: string | undefined): BrokenPin {
  // Commands only for text that stays one argument in the shell (`shellArg`): a pin or a node id
  // is package text, and a suggested fix is run as written.
  const pinArg = shellArg(pin);
  const unpin = pinArg !== undefined ? `ctxpkg unpin ${pinArg}` : 'remove it from "context.pack.pins" in ctxpkg.json';
  const hash = pin.indexOf('#');
  if (hash <= 0) return { pin, package: null, version: null, installed: false, successors: [], replacement: null, message: `a pin names no installed package or node: install it, or ${unpin}` };
  const pkg = pin.slice(0, hash);
  const local = pin.slice(hash + 1);
  const installedNodes = byPackage.get(pkg) ?? nodes.filter((n) => n.package === pkg);
  if (installedNodes.length === 0) return { pin, package: pkg, version: null, installed: false, successors: [], replacement: null, message: `a pin names package ${pkg}, which is not installed: \`ctxpkg install ${pkg}\`, or ${unpin}` };
  const version = installedNodes[0]?.version ?? null;
  const successors = rankSuccessors(pin, installedNodes, pinned, previousText);
  const heading = headingOf(local);
  const headingPin = heading !== local && headingPinMatches(`${pkg}#${heading}`, byPackage).length > 0 ? `${pkg}#${heading}` : null;
  const replacement = successors[0] ?? headingPin;
  const where = `${pkg}${version ? `@${version}` : ''}`;
  const what = heading !== local ? `its text changed in ${where}` : `${where} has no such node`;
  const replacementArg = replacement !== null ? shellArg(replacement) : undefined;
  const fix = replacementArg !== undefined ? `${unpin} && ctxpkg pin ${replacementArg}` : replacement !== null ? `${unpin}, then pin its successor (\`ctxpkg ls --nodes\` lists ${pkg}'s ids)` : unpin;
  return { pin, package: pkg, version, installed: true, successors, replacement, message: `a pin no longer resolves (${what}): ${fix}` };
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
  /**
   * Secret kinds in the scope globs of a node (written as its `applies to:` line, and by sync as
   * rule-file patterns), sorted; empty when none. `index` is the node's position in the graph's
   * node array (as for `facts`). Absent: scopes are not screened.
   */
  scopeSecrets?: (node: MergedNode, index: number) => readonly string[];
}

/** The secret kinds of `node` (`ctx.facts.nodes[index]`): its own text's, then its scope's, sorted and distinct. */
export function secretKindsOf(node: MergedNode, index: number, ctx: ScreenContext): readonly string[] {
  const own = ctx.facts.secretKinds(index);
  const scope = ctx.scopeSecrets ? ctx.scopeSecrets(node, index) : [];
  if (scope.length === 0) return own;
  return [...new Set([...own, ...scope])].sort();
}

/**
 * The first reason (§3 precedence) that omits `node` (= `ctx.facts.nodes[index]`) before
 * budgeting, or `undefined` when it is a candidate. `decayed` is `decayedActivation(node, nowMs)`.
 * Freshness is consulted only under `stale: "omit"` (under `flag` it never omits).
 */
export function omissionReason(node: MergedNode, index: number, ctx: ScreenContext, decayed: number | undefined): OmissionReason | undefined {
  if (node.superseded_by && node.superseded_by.length > 0) return 'superseded';
  if (decayed !== undefined && decayed < ctx.policy.min_activation) return 'expired';
  if (ctx.facts.secretKinds(index).length > 0 || (ctx.scopeSecrets !== undefined && ctx.scopeSecrets(node, index).length > 0)) return 'secret';
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
    if (reason === 'secret') s.secretKinds = [...secretKindsOf(node, index, ctx)];
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
