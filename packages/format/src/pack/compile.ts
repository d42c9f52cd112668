/**
 * The context-pack compiler (spec/pack.md): merged graph + policy + budget + `now` (+ workspace
 * reader for freshness) → deterministic pack text and receipt. Pure: no I/O, no clock, no model.
 *
 * Cost model (bench/render): every node is screened (superseded, expired, secret, disputed —
 * the secret scan and hashes are remembered per graph object, `node-facts.ts`) and hashed for the
 * receipt; only the candidates the budget selection reaches are ordered (`LazyOrder`), checked
 * for freshness under `stale: "flag"`, rendered and measured.
 */
import { CtxpkgError } from '../errors.js';
import type { MergedGraph, MergedNode } from '../graph-types.js';
import { checkByteBudget, utf8Length } from './budget.js';
import { checkFreshness, freshnessResolver, installedBuiltHere } from './freshness.js';
import { itemOf } from './item.js';
import { candidateKeys, handleComparator, LazyOrder, MergedOrder, packedKey } from './lazy-order.js';
import { factsFor, TOUCH_BLOCK, touchNodes } from './node-facts.js';
import { decayedActivation, isOversize, priorityOf, sectionOf, typeRank } from './order.js';
import { listPieces } from './passage.js';
import { defaultPackPolicy } from './policy.js';
import { buildReceipt, contentHash, countByReason, OmissionTable, type PackReceipt } from './receipt.js';
import { compareOutput, type FrameInfo, type RenderItem, type Renderer } from './render.js';
import { renderJson } from './render-json.js';
import { renderMarkdown } from './render-md.js';
import { focusScore, parseFocus, STRUCTURAL_TYPES } from './scope.js';
import { HeadingIndex, headingText, selectFocus } from './focus.js';
import { graphStructure, sequenceResolver, type SectionRef } from './sections.js';
import { checkPins, conflictPartners, omissionReason, screenNode, secretKindsOf, type BrokenPin, type ScreenContext } from './screen.js';
import { scanSecrets, secretKinds, surelyClean, type SecretFinding } from '../secrets.js';
import { RadixScratch, stableOrder } from './radix.js';
import { selectWithinBudget, type OrderedSequence } from './select.js';
import { SECTIONS, type Delivered, type OmissionReason, type PackFormat, type PackPolicy, type SectionName, type WorkspaceReader } from './types.js';

const NO_KINDS: readonly string[] = Object.freeze([]);
const NO_FINDINGS: readonly SecretFinding[] = Object.freeze([]);

export interface PackInput {
  graph: MergedGraph;
  /** Policy (defaults from `defaultPackPolicy` for members not given). */
  policy?: Partial<PackPolicy>;
  /** Exact budget over the rendered UTF-8 output, 1 … 64 MiB. */
  maxBytes: number;
  /**
   * The time the pack is compiled for (RFC 3339); drives decay/expiry and is recorded in the
   * receipt only — never written into the pack (spec/pack.md §8: no wall-clock time in anything
   * an agent reads).
   */
  now: string;
  format?: PackFormat;
  /**
   * `--focus`: a heading (path), a path glob or words — it selects what it names (focus.ts,
   * spec/pack.md §7): only those items are candidates, the others are not selected (counted in
   * the `selection:` line and the receipt's `not_selected`). `E_NOT_FOUND` when it names nothing.
   * Blank: no focus.
   */
  focus?: string;
  /** Workspace access for freshness; without it every node is `unchecked`. */
  read?: WorkspaceReader;
  /**
   * Package names known to be built from this workspace (the CLI's sealed evidence record,
   * spec/pack.md §6 "Evidence"): under `freshness: "auto"` they are checked even when none of
   * their nodes is fresh any more. Ignored by the other freshness scopes. Names not installed are
   * ignored; the installed ones are listed in the receipt (`policy.built_here`).
   */
  builtHere?: readonly string[];
  /**
   * The text each hash-suffixed pin delivered when it last resolved (pin → content; the CLI's
   * `.ctxpkg/pins.json`): a broken pin's successors are ranked by similarity to it.
   */
  pinTexts?: ReadonlyMap<string, string>;
  /**
   * Packages delivered as the project's own instructions (the CLI decides: listed in
   * `trust.instructions`, signed, verified, signer pinned; spec/pack.md §11 "Trust"): their
   * nodes are written before the untrusted banner, under "Instructions from <package>@<version>".
   */
  trusted?: ReadonlySet<string>;
  /**
   * The scope this whole pack applies to, already stated in its title (a path-scoped rule file,
   * spec/pack.md §11): file groups and nodes with exactly this scope (as a set) write no
   * `applies to:` line, so the patterns appear once in the text.
   */
  statedScope?: readonly string[];
  /** Only nodes of these packages are candidates (per-package agent files). */
  packages?: readonly string[];
  /**
   * Only nodes for which this returns true are items of this pack (a delivery tier, tiers.ts:
   * the always-on block, one path-scoped rule set). Others are neither candidates nor counted.
   */
  include?: (node: MergedNode) => boolean;
  /** Only pinned nodes are candidates (the always-loaded AGENTS.md block). */
  pinnedOnly?: boolean;
  /** Header title (default "Context pack (ctxpkg)"). */
  title?: string;
  /**
   * Header style (render.ts `FrameInfo.style`): `pack` (default) or `agent` — the minimal
   * header of agent files written by `ctxpkg sync` (no inputs or omission counts by reason; one
   * plain sentence when items were left out for space).
   */
  style?: 'pack' | 'agent';
  /** Extra trusted header lines written by ctxpkg itself (e.g. a package index). */
  notes?: readonly string[];
  /**
   * The caller writes this pack's receipt (`ctxpkg render`). Only then does the omission summary
   * say the omissions are listed with their hashes in the receipt (default false).
   */
  receipt?: boolean;
}

export interface CompiledPack {
  text: string;
  /** UTF-8 bytes of `text` (≤ maxBytes). */
  bytes: number;
  /** `sha256:<hex>` of `text`. */
  sha256: string;
  receipt: PackReceipt;
  /**
   * Pins that name no installed node (`checkPins`): the pack is delivered without them; the
   * caller must warn with each `message` (also listed in the receipt, `policy.pins_broken`).
   */
  brokenPins: BrokenPin[];
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

/** Line key of a node: its first line, or after every known line (2^31 − 1). */
const lineKey = (n: MergedNode): number => (Number.isSafeInteger(n.line_start) && (n.line_start as number) >= 0 && (n.line_start as number) < 0x7fffffff ? (n.line_start as number) : 0x7fffffff);

/**
 * Order key 7 (`order.ts`) for the candidates `hs` of one package and source file: each one's
 * position when they are sorted by first line, then id, written to `pos`. Sorts the line numbers
 * (`stableOrder`, radix.ts: no comparator; line keys are below 2^31), then orders each run of
 * candidates on the same line by id, so the result does not depend on the input order.
 * `scratch` is shared by every file (sized for the largest): no arrays per file — the
 * Float64Array sorted and the array of numbers made per file before cost ~70 µs a file of 1,000
 * candidates and filled the young generation (~0.4 MB a cold render of the bench graph).
 */
function positionsInFile(live: readonly MergedNode[], hs: ArrayLike<number>, pos: Int32Array, scratch: { lines: Int32Array; sort: RadixScratch }): void {
  const n = hs.length;
  if (n === 1) {
    pos[hs[0] as number] = 0;
    return;
  }
  const lines = scratch.lines;
  for (let j = 0; j < n; j++) lines[j] = lineKey(live[hs[j] as number] as MergedNode);
  const [at, tmp] = scratch.sort.pair(n);
  stableOrder(lines, n, at, tmp);
  // `at` becomes the candidates in order; `tmp` their lines.
  for (let i = 0; i < n; i++) {
    const j = at[i] as number;
    tmp[i] = lines[j] as number;
    at[i] = hs[j] as number;
  }
  const order = at;
  for (let i = 0; i < n; ) {
    const line = tmp[i] as number;
    let k = i + 1;
    while (k < n && tmp[k] === line) k++;
    if (k - i > 1) {
      const run = order.slice(i, k).sort((a, b) => cmp((live[a] as MergedNode).id, (live[b] as MergedNode).id));
      for (let m = 0; m < run.length; m++) order[i + m] = run[m] as number;
    }
    i = k;
  }
  for (let i = 0; i < n; i++) pos[order[i] as number] = i;
}

/**
 * One list item of a node budgeted by its items (spec/pack.md §4 "List nodes"): its index `k` of
 * `of`, the handle of the node's first item (`first`) and of the item before it (`prev`, -1 for
 * the first), its content lines `[start, end)` and their text.
 */
interface Piece {
  k: number;
  of: number;
  first: number;
  prev: number;
  start: number;
  end: number;
  text: string;
}

/** Make a node's item show one list item of it (`piece`), with that item's source lines. */
function asPiece(it: RenderItem, p: Piece | undefined): void {
  if (!p) return;
  const line = it.line_start;
  it.content = p.text;
  it.seq = p.k;
  if (line !== undefined) {
    it.line_start = line + p.start;
    it.line_end = line + p.end - 1;
  }
}

let needsShortcuts = true;
/**
 * Turn the needs pass's shortcuts off or on — the renderer's `blockLowerBoundOf` instead of a
 * scratch item per candidate, and groups asked only where the heading path, package, version or
 * file changes — for tests that compare packs with and without them. Returns the previous setting.
 */
export function setNeedsShortcuts(on: boolean): boolean {
  const was = needsShortcuts;
  needsShortcuts = on;
  return was;
}

/** Section index (into `SECTIONS`) of each candidate. */
const SECTION_INDEX: Readonly<Record<SectionName, number>> = { pinned: 0, gotchas: 1, conventions: 2, procedures: 3, facts: 4 };

/** Where the read-ahead of screening (`touchNodes`) goes, so it is not optimized away. */
let touchedNodes = 0;

/**
 * Compile a context pack. Deterministic: the same graph (in any node/edge order), policy,
 * budget, `now`, format, focus and workspace contents give byte-identical text and receipt.
 * Throws `E_USAGE` (bad budget, `now`, format), `E_BUDGET` (mandatory structure + pinned nodes
 * exceed the budget). A pin that names nothing installed does not stop it: see `brokenPins`.
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
  // Indexed loops over the graph's arrays here and below: a compilation runs once per process
  // (`ctxpkg render`), mostly before the optimizing compiler could remove a for…of iterator's
  // result objects — 50k of them per pass.
  // Every loop over all nodes or candidates runs in a function of its own (`const pass = () =>
  // {…}; pass()`, or a callback), never in this function's body: V8 optimizes a hot loop by
  // on-stack replacement, which compiles the whole function around it — compilePack with every
  // closure it inlines, once per such loop (bench:render 50k cold, one process: 4 compilations of
  // 136–201 ms each on a loaded machine, about half the process's CPU above start-up).
  // Positions go into typed arrays, not arrays grown by push (a 50k-element push-grown array cost
  // ~7× an Int32Array written by index, fresh graph, warm code).
  // The deliverable (non-structural) nodes as a list, built only for what reads one: pins
  // (`checkPins` reads it only when there are pins) and freshness with a workspace reader (both
  // freshness functions return before reading it without one, or under freshness "none").
  let deliverableList: MergedNode[] | undefined;
  const deliverable = (): MergedNode[] => (deliverableList ??= nodes.filter((n) => !STRUCTURAL_TYPES.has(n.type)));
  const { pinned, broken: brokenPins } = checkPins(policy.pins, graph, policy.pins.length > 0 ? deliverable() : [], input.pinTexts);
  const builtHere = policy.freshness === 'auto' ? installedBuiltHere(graph, input.builtHere) : [];
  const focusText = input.focus?.trim() ?? '';
  const focus = focusText !== '' ? parseFocus(focusText) : undefined;
  // Scopes, heading paths and headings: built once per graph (sections.ts `graphStructure`).
  const structure = graphStructure(graph);
  const sectionsOf = structure.sectionsOf;
  // Every heading of the graph: what a focus may name, and what a partial-section note names.
  const headings = (): HeadingIndex => structure.lazy('headings', (so) => new HeadingIndex(graph, so));
  // In-scope candidates and their positions in `nodes` (the facts memo is addressed by position):
  // `inIdx[0 … inCount)`, and the nodes themselves in `inScope` (trimmed to `inCount` below).
  const inIdx = new Int32Array(nodes.length);
  let inCount = 0;
  const inScope = new Array<MergedNode>(nodes.length);
  // Structural nodes (receipt), deliverable items of the selected packages, and how many of them
  // are pinned (frame §8).
  let structural = 0;
  let itemCount = 0;
  let pinnedItems = 0;
  // Without a focus every eligible node is in scope: it goes there directly (no second pass).
  const eligible: number[] = [];
  const scan = (): void => {
    const direct = focusText === '';
    const anyPinned = pinned.size > 0;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i] as MergedNode;
      if (STRUCTURAL_TYPES.has(n.type)) {
        structural++;
        continue;
      }
      if ((onlyPackages && !onlyPackages.has(n.package)) || (input.include && !input.include(n))) continue;
      itemCount++;
      const isPinned = anyPinned && pinned.has(n.id);
      if (isPinned) pinnedItems++;
      if (input.pinnedOnly && !isPinned) continue;
      if (direct) {
        inScope[inCount] = n;
        inIdx[inCount++] = i;
      } else eligible.push(i);
    }
  };
  scan();
  // A focus selects what it names (focus.ts); the rest are not selected (E_NOT_FOUND: nothing).
  const focused =
    focusText !== ''
      ? selectFocus(
          focusText,
          focus,
          eligible.map((i) => nodes[i] as MergedNode),
          { scopeOf: (n) => structure.scopes.get(n.id), pathOf: (n) => sectionsOf(n.id), headings: headings() },
        )
      : undefined;
  const scoped = (): void => {
    for (let k = 0; k < eligible.length; k++) {
      const i = eligible[k] as number;
      const n = nodes[i] as MergedNode;
      if (focused && !focused.has(n)) continue;
      inScope[inCount] = n;
      inIdx[inCount++] = i;
    }
  };
  if (focusText !== '') scoped();
  inScope.length = inCount;

  // Screening (§3). Freshness omits only under stale "omit": then every node is checked;
  // under "flag" it only flags delivered nodes, so it is checked lazily for considered ones.
  let freshness: ScreenContext['freshness'];
  if (policy.stale === 'omit') {
    const map = checkFreshness(input.read && policy.freshness !== 'none' ? deliverable() : [], input.read, policy.freshness, builtHere);
    freshness = (n) => map.get(n.id) ?? 'unchecked';
  } else {
    freshness = freshnessResolver(input.read && policy.freshness !== 'none' ? deliverable() : [], input.read, policy.freshness, builtHere);
  }
  const facts = factsFor(graph);
  // A node's scope globs are shown with it (`applies to:`): a secret in them withholds it (§3).
  // Each distinct glob is screened once (a glob is usually shared by many nodes).
  const globKinds = new Map<string, readonly SecretFinding[]>();
  const scopeSecrets = (_n: MergedNode, i: number): readonly string[] => {
    const globs = structure.scopeAt(i);
    if (globs === undefined || globs.length === 0) return NO_KINDS;
    let found: SecretFinding[] | undefined;
    for (let i = 0; i < globs.length; i++) {
      const g = globs[i] as string;
      let f = globKinds.get(g);
      if (f === undefined) globKinds.set(g, (f = surelyClean(g) ? NO_FINDINGS : scanSecrets(g)));
      if (f.length > 0) (found ??= []).push(...f);
    }
    return found ? secretKinds(found) : NO_KINDS;
  };
  const sctx: ScreenContext = { policy, nowMs: now.ms, freshness, partners: conflictPartners(graph), pinned, facts, scopeSecrets };
  const reasons: Array<OmissionReason | undefined> = new Array(inScope.length);
  const handleOf = new Int32Array(inScope.length).fill(-1);
  // The candidates by handle: node, position in `nodes` and effective activation — in arrays
  // sized for every in-scope node and written by index (no growth by push; `live` is trimmed to
  // the candidates below). List items append handles (`appendHandle`); `live.length` is the count.
  const live: MergedNode[] = new Array<MergedNode>(inScope.length);
  let liveIdx = new Int32Array(inScope.length);
  let activation = new Float64Array(inScope.length);
  let liveCount = 0;
  const mayBeLists: number[] = [];
  inScope.forEach((n, i) => {
    // Every 64 candidates, the next 64's id and content are read ahead (`touchNodes`): screening
    // then finds them in the cache instead of waiting on each in turn.
    if ((i & (TOUCH_BLOCK - 1)) === 0) touchedNodes ^= touchNodes(inScope, i, TOUCH_BLOCK);
    const decayed = decayedActivation(n, now.ms);
    const reason = omissionReason(n, inIdx[i] as number, sctx, decayed);
    if (reason) {
      reasons[i] = reason;
      return;
    }
    handleOf[i] = liveCount;
    // UTF-8 takes at most three bytes per UTF-16 code unit: only these may be list nodes (below).
    if (isOversize(n.content.length * 3, maxBytes)) mayBeLists.push(liveCount);
    live[liveCount] = n;
    liveIdx[liveCount] = inIdx[i] as number;
    activation[liveCount++] = decayed ?? (Number.isFinite(n.activation) ? n.activation : 0);
  });
  live.length = liveCount;
  /** A new handle for another list item of the node of handle `like` (its position and activation). */
  const appendHandle = (like: number): number => {
    const h = live.length;
    if (h >= liveIdx.length) {
      const idx = new Int32Array(2 * h + 16);
      idx.set(liveIdx);
      liveIdx = idx;
      const act = new Float64Array(2 * h + 16);
      act.set(activation);
      activation = act;
    }
    live.push(live[like] as MergedNode);
    liveIdx[h] = liveIdx[like] as number;
    activation[h] = activation[like] as number;
    return h;
  };

  // List nodes (spec/pack.md §4 "List nodes"): a non-pinned node with a lead-in and a list, larger
  // than an eighth of the budget, is budgeted by its list items — one candidate per item (the
  // first with the lead-in), each taken only after the one before it, so a long rule list is
  // delivered from its top as far as it fits, never dropped whole. Markdown only (JSON keeps nodes
  // whole). The node's first candidate keeps its handle; the others are appended.
  const piece: Array<Piece | undefined> = [];
  const listNodes = (): void => {
    // The candidates screening found large enough, in handle order (each node's own handle).
    for (let j = 0; j < mayBeLists.length; j++) {
      const h = mayBeLists[j] as number;
      const n = live[h] as MergedNode;
      if (pinned.has(n.id) || !isOversize(utf8Length(n.content), maxBytes)) continue;
      const ranges = listPieces(n.content);
      if (!ranges) continue;
      const lines = n.content.split('\n');
      let prev = -1;
      ranges.forEach((r, k) => {
        const ph = k === 0 ? h : appendHandle(h);
        piece[ph] = { k, of: ranges.length, first: h, prev, start: r.start, end: r.end, text: lines.slice(r.start, r.end).join('\n') };
        prev = ph;
      });
    }
  };
  if (format === 'md') listNodes();

  // Order keys (§5) and the candidates of each section, ordered lazily.
  const stated = input.statedScope && input.statedScope.length > 0 ? [...new Set(input.statedScope)].sort() : undefined;
  const seqOf = sequenceResolver(graph);
  // Heading path and scope of each candidate: array reads by node position (sections.ts).
  const sectionsAt = (h: number): readonly SectionRef[] => structure.sectionsAt(liveIdx[h] as number);
  const scopeAt = (h: number): readonly string[] | undefined => structure.scopeAt(liveIdx[h] as number);
  const hasPriorities = Object.keys(policy.priorities).length > 0;
  const keys = candidateKeys(live);
  // Without focus scores and priorities (all 0) the comparator reads keys 1, 3b, 4 and 5 packed.
  const packed = focus === undefined && !hasPriorities ? (keys.packed = new Float64Array(live.length)) : undefined;
  const sectionIdx = new Uint8Array(live.length);
  const perSection = new Int32Array(SECTIONS.length);
  // Order key 7 (below): the source file (package and path) of each candidate by number, numbered
  // in this pass. Nodes of one file are usually adjacent (merged graphs are sorted by id): a run of
  // them is numbered without building its key again.
  const fileOf = new Int32Array(live.length);
  const fileNumber = new Map<string, number>();
  const fileSize: number[] = [];
  // Type rank and section index of each node type (a few distinct types: looked up once each).
  const typeKeys = new Map<string, number>();
  let file = -1;
  let runPkg = '';
  let runFile: string | undefined;
  // A callback per candidate, not a loop of its own: a cold render optimizes a small function
  // called 50k times sooner than it replaces a long-running loop (on-stack replacement), and
  // inlines `packedKey` into it (a loop function measured +31 M instructions, callgrind, cold).
  live.forEach((n, h) => {
    if (file < 0 || n.package !== runPkg || n.file_path !== runFile) {
      const k = `${n.package}\u0000${n.file_path ?? ''}`;
      let f = fileNumber.get(k);
      if (f === undefined) {
        fileNumber.set(k, (f = fileSize.length));
        fileSize.push(0);
      }
      file = f;
      runPkg = n.package;
      runFile = n.file_path;
    }
    fileOf[h] = file;
    fileSize[file] = (fileSize[file] as number) + 1;
    const isPinned = pinned.size > 0 && pinned.has(n.id);
    const p = piece[h];
    keys.pinned[h] = isPinned ? 1 : 0;
    if (focus) keys.focus[h] = p && p.k > 0 ? (keys.focus[p.first] as number) : focusScore(focus, n, scopeAt(h), focus.kind === 'query' ? headingText(sectionsAt(h)) : '');
    if (hasPriorities) keys.priority[h] = priorityOf(policy.priorities, n);
    keys.force[h] = p && p.k > 0 ? (keys.force[p.first] as number) : facts.force(liveIdx[h] as number);
    // UTF-8 bytes lie between the UTF-16 length and three times it: most nodes need no count.
    // A list node budgeted by its items is not oversize (§4 "List nodes").
    const len = n.content.length;
    keys.big[h] = p ? 0 : isOversize(len, maxBytes) ? 1 : !isOversize(len * 3, maxBytes) ? 0 : isOversize(utf8Length(n.content), maxBytes) ? 1 : 0;
    // rank · 8 + section index (typeRank is an integer; the section index is below 8).
    let tk = typeKeys.get(n.type);
    if (tk === undefined) typeKeys.set(n.type, (tk = typeRank(n.type) * 8 + SECTION_INDEX[sectionOf(n.type)]));
    const rank = Math.floor(tk / 8);
    keys.rank[h] = rank;
    keys.activation[h] = activation[h] as number;
    const si = isPinned ? 0 : tk - rank * 8;
    sectionIdx[h] = si;
    perSection[si]++;
    if (packed) packed[h] = packedKey(keys.pinned[h] as number, keys.force[h] as number, keys.big[h] as number, rank);
  });
  // Order key 7: position among the candidates of the same package and source file (by first
  // line, then id), so equal items are taken from the top of every file in turn.
  // The list items of one node share its line and id: they keep their order (handles in item
  // order, and the sort of equal keys keeps input order). Each file's handles, in handle order,
  // are a run of one array (a counting sort by file number: no array per file).
  const byFile = (): void => {
    const start = new Int32Array(fileSize.length + 1);
    for (let f = 0; f < fileSize.length; f++) start[f + 1] = (start[f] as number) + (fileSize[f] as number);
    const fill = start.slice(0, fileSize.length);
    const grouped = new Int32Array(live.length);
    for (let h = 0; h < live.length; h++) grouped[(fill[fileOf[h] as number] as number)++] = h;
    let largest = 0;
    for (let f = 0; f < fileSize.length; f++) largest = Math.max(largest, fileSize[f] as number);
    const scratch = { lines: new Int32Array(largest), sort: new RadixScratch() };
    for (let f = 0; f < fileSize.length; f++) positionsInFile(live, grouped.subarray(start[f] as number, start[f + 1] as number), keys.pos, scratch);
  };
  byFile();
  const lineOf = (h: number): number => lineKey(live[h] as MergedNode);
  const compare = handleComparator(keys);
  const pinnedOrder: number[] = [];
  if (perSection[0] as number) for (let h = 0; h < live.length; h++) if (sectionIdx[h] === 0) pinnedOrder.push(h);
  pinnedOrder.sort(compare);

  // Items and blocks are built lazily: only candidates the selection looks at are rendered.
  const items: Array<RenderItem | undefined> = new Array(live.length);
  const blocks: Array<string | undefined> = new Array(live.length);
  const itemAt = (h: number): RenderItem => {
    let it = items[h];
    if (!it) {
      const n = live[h] as MergedNode;
      it = itemOf(screenNode(n, liveIdx[h] as number, sctx), scopeAt(h), sectionsAt(h), seqOf(n.id));
      asPiece(it, piece[h]);
      it.section = SECTIONS[sectionIdx[h] as number] as SectionName;
      if (input.trusted?.has(n.package)) it.trusted = true;
      if (stated) it.statedScope = stated;
      items[h] = it;
    }
    return it;
  };
  const blockAt = (h: number): string => (blocks[h] ??= renderer.block(itemAt(h)));
  const inputs = [...(graph.inputs ?? [])]
    .filter((i) => !onlyPackages || onlyPackages.has(i.package))
    .sort((a, b) => cmp(a.package, b.package) || cmp(a.version, b.version))
    .map((i) => ({ package: i.package, version: i.version, content_hash: i.content_hash }));
  let pinnedOmitted = 0;
  const omittedEarly: Array<{ reason: OmissionReason }> = [];
  reasons.forEach((reason, i) => {
    if (!reason) return;
    omittedEarly.push({ reason });
    if (pinned.has((inScope[i] as MergedNode).id)) pinnedOmitted++;
  });
  const preCounts = countByReason(omittedEarly);
  // The frame for `nb` items left out for space: only `omitted.byte_budget` depends on it (the
  // selection asks for the frame's size at each count it reaches: the rest is built once; the
  // renderers read the info and keep nothing of it).
  const frameSelection: FrameInfo['selection'] = { mode: input.pinnedOnly ? 'pinned' : 'all', items: itemCount, pinned: pinnedItems, ...(focused ? { focused: inScope.length } : {}) };
  const frameTrusted = inputs.filter((i) => input.trusted?.has(i.package)).map((i) => `${i.package}@${i.version}`);
  // The frame is sized naming no trusted package (`instructions: []`); the sentence that names
  // those with an item is paid by their items (`instrGroups`) and written with the final frame.
  const frameInfo = (nb: number, instructions: readonly string[] = []): FrameInfo => ({
    title: input.title ?? 'Context pack (ctxpkg)',
    inputs,
    focus: focusText || undefined,
    omitted: { ...preCounts, byte_budget: nb },
    pinnedOmitted,
    selection: frameSelection,
    notes: input.notes ?? [],
    receipt: input.receipt === true,
    trusted: frameTrusted,
    instructions,
    style: input.style ?? 'pack',
  });
  const frameSize = (nb: number): number => {
    if (renderer.frameBytes !== undefined) return renderer.frameBytes(frameInfo(nb));
    const f = renderer.frame(frameInfo(nb));
    return utf8Length(f.prefix) + utf8Length(f.suffix);
  };
  // The fence around untrusted items is a group of each of them (render.ts `Frame`): written,
  // and paid for, once — only when an untrusted item is selected. Its text does not depend on nb.
  const fence = renderer.frame(frameInfo(0));
  const fenceGroup = { key: '\u0001fence', bytes: utf8Length(fence.fenceOpen) + utf8Length(fence.fenceClose) };
  // The frame's instructions sentence (`Renderer.instructionsCost`, pack style only): a group of
  // every trusted item (its shared part) and one of each trusted package's items (its name), so
  // it is paid once, and only when a trusted item is selected — like the fence.
  const instrCost = (input.style ?? 'pack') === 'pack' ? renderer.instructionsCost : undefined;
  const instrShared = { key: '\u0002instructions', bytes: instrCost?.shared ?? 0 };

  // The item of candidate `h` before screening (no flags): enough for its lower bound (field
  // lengths only: no escaping or rendering, select.ts) and its groups (package, file, headings).
  // Written into one scratch object (the renderers read it and keep nothing of it), so the
  // bounds and groups of 50k candidates allocate no item each.
  const bare: RenderItem = { id: '', package: '', version: '', local_id: '', type: '', content: '', scope: [], sections: [], seq: 0, flags: [], disputed_with: [], section: 'facts' };
  const NO_SECTIONS: readonly SectionRef[] = [];
  const NO_SCOPE: readonly string[] = [];
  const bareOf = (h: number, withStructure: boolean): RenderItem => {
    const n = live[h] as MergedNode;
    bare.id = n.id;
    bare.package = n.package;
    bare.version = n.version;
    bare.local_id = n.local_id;
    bare.type = n.type;
    bare.content = n.content;
    bare.scope = (withStructure ? scopeAt(h) : undefined) ?? NO_SCOPE;
    bare.sections = withStructure ? sectionsAt(h) : NO_SECTIONS;
    bare.seq = 0;
    bare.section = SECTIONS[sectionIdx[h] as number] as SectionName;
    bare.file_path = n.file_path;
    bare.line_start = n.line_start;
    bare.line_end = n.line_end;
    bare.source = n.source;
    bare.trusted = input.trusted?.has(n.package) ? true : undefined;
    bare.statedScope = stated;
    asPiece(bare, piece[h]);
    return bare;
  };
  const groupBytes = new Map<string, number>();
  // The renderer shares one groups array per heading path, package and file (render-md.ts): its
  // sized form is shared too, and remembered per candidate (select.ts asks several times).
  // `trusted`: the groups of a trusted item — `plain` with the instructions groups of its package
  // (`instrLabel`) in front when the frame names trusted packages (`instrCost`), else `plain`.
  type Sized = { plain: Array<{ key: string; bytes: number }>; fenced: Array<{ key: string; bytes: number }>; trusted?: Array<{ key: string; bytes: number }>; instrLabel?: string };
  const sized = new Map<readonly { key: string; text: string }[], Sized>();
  const groupsOfH: Array<Array<{ key: string; bytes: number }> | undefined> = new Array(live.length);
  let lastGroups: Sized | undefined;
  /** The groups of a trusted item of package `pkg@version` whose renderer groups are sized as `s`. */
  const trustedGroups = (s: Sized, pkg: string, version: string): Array<{ key: string; bytes: number }> => {
    if (!instrCost) return s.plain;
    if (s.trusted === undefined || s.instrLabel !== `${pkg}@${version}`) {
      const label = `${pkg}@${version}`;
      s.instrLabel = label;
      s.trusted = [instrShared, { key: `\u0002instructions\u0000${label}`, bytes: instrCost.each(label) }].concat(s.plain);
    }
    return s.trusted;
  };
  let lastSections: readonly SectionRef[] | undefined;
  let lastPackage = '';
  let lastVersion = '';
  let lastFile: string | undefined;
  let lastTrusted = false;
  /** The sized groups of candidate `h`; `sections` may be given as `sectionsAt(h)` already read. */
  const groupsAt = (h: number, sections?: readonly SectionRef[]): Array<{ key: string; bytes: number }> => {
    const known = groupsOfH[h];
    if (known) return known;
    // A renderer's groups depend only on the heading path, package, version, file, trust and the
    // pack's stated scope (render.ts: package, source file and heading headers): a candidate
    // equal to the one before in all of them (the usual case, nodes come sorted by id) gets its
    // groups without asking the renderer (whose memo key is a string built per call) and without
    // an item; its trust is the one before's when the package is.
    const n = live[h] as MergedNode;
    const path = sections ?? sectionsAt(h);
    const pkg = n.package;
    const trusted = lastGroups !== undefined && pkg === lastPackage ? lastTrusted : input.trusted?.has(pkg) === true;
    if (lastGroups && path === lastSections && pkg === lastPackage && n.version === lastVersion && n.file_path === lastFile && trusted === lastTrusted) {
      return (groupsOfH[h] = trusted ? trustedGroups(lastGroups, pkg, n.version) : lastGroups.fenced);
    }
    const it = items[h] ?? bareOf(h, true);
    const rgs = renderer.groups(it);
    let s = sized.get(rgs);
    if (!s) {
      const plain = rgs.map((g) => {
        let bytes = groupBytes.get(g.key);
        if (bytes === undefined) groupBytes.set(g.key, (bytes = utf8Length(g.text)));
        return { key: g.key, bytes };
      });
      // `concat`, not a spread: the spread's fast path checks the array's map, and a second map
      // seen there deoptimized this function and the needs pass it is inlined into (--trace-deopt).
      s = { plain, fenced: fenceGroup.bytes === 0 ? plain : [fenceGroup].concat(plain) };
      sized.set(rgs, s);
    }
    lastGroups = s;
    lastSections = path;
    lastPackage = pkg;
    lastVersion = n.version;
    lastFile = n.file_path;
    lastTrusted = trusted;
    return (groupsOfH[h] = trusted ? trustedGroups(s, pkg, n.version) : s.fenced);
  };
  // The smallest block any candidate can have (one pass, no rendering): a pass stops once fewer
  // bytes are left, instead of walking the rest of a large graph.
  // Notes (spec/pack.md §8 "Partial sections"): the innermost heading section of each candidate
  // and how many candidates each section has.
  // Each note is a slot (its key `<package>\u0000<section id>`, members, section and package):
  // candidates are mapped to slots through their heading path (one shared array per innermost
  // section, sections.ts) and package, so the key string is built and hashed once per note, not
  // once per candidate.
  const noteSlot = new Int32Array(live.length).fill(-1);
  const slotKey: string[] = [];
  const slotMembers: number[] = [];
  // The innermost section of each note: its heading label names it in the note's command.
  const slotSection: string[] = [];
  const slotPackage: string[] = [];
  const slotOf = new Map<string, number>();
  /** The note key of candidate `h` (undefined: in no heading section). */
  const noteKeyAt = (h: number): string | undefined => {
    const s = noteSlot[h] as number;
    return s < 0 ? undefined : slotKey[s];
  };
  const membersOf = (key: string): number => slotMembers[slotOf.get(key) as number] as number;
  // A note's text depends only on its section and counts (a fixed piece per note, select.ts).
  // Written only for a section delivered in part, by a renderer that writes notes.
  const hasNote = (taken: number, members: number): boolean => taken > 0 && taken < members && renderer.partialNote !== undefined;
  /** The focus label of note slot `s`'s innermost section (what its note's command names). */
  const noteLabel = (s: number): string | undefined => headings().label(slotSection[s] as string);
  const noteText = (key: string, taken: number, members: number): string => {
    if (!hasNote(taken, members)) return '';
    return (renderer.partialNote as NonNullable<Renderer['partialNote']>)(taken, members, noteLabel(slotOf.get(key) as number));
  };
  /**
   * `utf8Length(noteText(slotKey[s], taken, members))` of note slot `s`, measured without the text
   * when the renderer can (`partialNoteBytes`): the needs size every note of the graph.
   */
  const noteBytesAt = (s: number, taken: number, members: number): number => {
    if (!hasNote(taken, members)) return 0;
    const label = noteLabel(s);
    return renderer.partialNoteBytes ? renderer.partialNoteBytes(taken, members, label) : utf8Length((renderer.partialNote as NonNullable<Renderer['partialNote']>)(taken, members, label));
  };
  // Pass 1c's packages: each package's non-pinned candidates and a lower bound of its need.
  let minBlock = Number.MAX_SAFE_INTEGER;
  const pkgIndex = new Map<string, number>();
  const pkgNeed: number[] = [];
  // The package index of each non-pinned candidate (-1: pinned); its members by section are
  // gathered after the needs pass (`byPackage`), in typed arrays.
  const pkgOf = new Int32Array(live.length).fill(-1);
  // Group headers counted in the needs (each once; the fence counted for the first package needing it).
  const needGroups = new Set<string>();
  let lastName: string | undefined;
  let lastIndex = 0;
  let lastGs: ReadonlyArray<{ key: string; bytes: number }> | undefined;
  let prevPath: readonly SectionRef[] | undefined;
  let prevVersion: string | undefined;
  let prevFile: string | undefined;
  // The selection's lower bound of each candidate's block (`lowerBoundAt`), known for all of them
  // here: each sequence carries the smallest of its members' (select.ts "Early stop").
  const lowerBound = new Int32Array(live.length);
  // One pass: note slots (above) and needs. Each candidate's heading path is read once, and a
  // cold render compiles one loop instead of two that both inline the heading-path lookup (was
  // `noteSlots`, its own pass: 24 M instructions of TurboFan for its OSR compilation).
  const needs = (): void => {
    const boundOf = needsShortcuts ? renderer.blockLowerBoundOf : undefined;
    const skip = needsShortcuts;
    const notes = renderer.partialNote !== undefined;
    // The slot of the package last seen with each heading path (usually its only one).
    const byPath = new Map<readonly SectionRef[], { pkg: string; slot: number }>();
    for (let h = 0; h < live.length; h++) {
      const n = live[h] as MergedNode;
      const path = sectionsAt(h);
      // Checked by length: `path[-1]` of an empty path is a named-property lookup ("-1"), not an
      // element read (most candidates of a graph with few sections).
      if (notes && path.length > 0) {
        const pkg = n.package;
        const seen = byPath.get(path);
        let slot: number;
        if (seen !== undefined && seen.pkg === pkg) slot = seen.slot;
        else {
          const inner = path[path.length - 1] as SectionRef;
          const key = `${pkg}\u0000${inner.id}`;
          let s = slotOf.get(key);
          if (s === undefined) {
            slotOf.set(key, (s = slotKey.length));
            slotKey.push(key);
            slotMembers.push(0);
            slotSection.push(inner.id);
            slotPackage.push(pkg);
          }
          slot = s;
          if (seen !== undefined) {
            seen.pkg = pkg;
            seen.slot = s;
          } else byPath.set(path, { pkg, slot: s });
        }
        noteSlot[h] = slot;
        slotMembers[slot]++;
      }
      // The selection's bound (with the heading path and scope), and the bare one (without them)
      // for the need and `minBlock`.
      let lb: number;
      let b: number;
      if (boundOf !== undefined) {
        // From the only fields the renderer's bound reads (render.ts): no scratch item.
        const p = piece[h];
        const text = p ? p.text : n.content;
        lb = boundOf(text, n.file_path, path);
        b = path.length > 0 ? boundOf(text, n.file_path, NO_SECTIONS) : lb;
      } else {
        // One scratch item: with its heading path and scope, then without them. Without either
        // it is already its bare form: the same bound (a renderer reads those lists' contents
        // only, render.ts).
        const it = bareOf(h, true);
        lb = renderer.blockLowerBound(it);
        b = lb;
        if (it.sections.length > 0 || it.scope.length > 0) {
          it.sections = NO_SECTIONS;
          it.scope = NO_SCOPE;
          b = renderer.blockLowerBound(it);
        }
      }
      lowerBound[h] = lb;
      minBlock = Math.min(minBlock, b);
      if (keys.pinned[h]) continue;
      const name = n.package;
      // A candidate in the heading path, package, version and file of the one before has its
      // groups (they depend on nothing else, `groupsAt`), whose keys are counted: groups are
      // asked only where that changes, so this loop stays small for the optimizing compiler.
      const gs = skip && lastGs !== undefined && path === prevPath && name === lastName && n.version === prevVersion && n.file_path === prevFile ? lastGs : groupsAt(h, path);
      prevPath = path;
      prevVersion = n.version;
      prevFile = n.file_path;
      // Candidates of one package are usually adjacent: the index of the last one is reused.
      let i = name === lastName ? lastIndex : pkgIndex.get(name);
      if (i === undefined) {
        pkgIndex.set(name, (i = pkgNeed.length));
        pkgNeed.push(0);
      }
      lastName = name;
      lastIndex = i;
      pkgOf[h] = i;
      pkgNeed[i] = (pkgNeed[i] as number) + b;
      // The groups array of the candidate before (shared, `groupsAt`) has all its keys counted.
      if (gs === lastGs) continue;
      lastGs = gs;
      for (let j = 0; j < gs.length; j++) {
        const g = gs[j] as { key: string; bytes: number };
        if (needGroups.has(g.key)) continue;
        needGroups.add(g.key);
        pkgNeed[i] = (pkgNeed[i] as number) + g.bytes;
      }
    }
  };
  needs();
  // Each package's non-pinned candidates by section, in handle order: slot `i · S + section` of
  // one array (a counting sort over `pkgOf`), and the smallest bound of each slot.
  const S = SECTIONS.length;
  const slotStart = new Int32Array(pkgNeed.length * S + 1);
  const slotMin = new Float64Array(pkgNeed.length * S).fill(Number.MAX_SAFE_INTEGER);
  const slotHandles = new Int32Array(live.length);
  // Two loops, each in a function of its own (see `classify`): an OSR compilation of the first
  // would deoptimize on reaching the second, whose code has run no time yet.
  const countSlots = (): void => {
    for (let h = 0; h < live.length; h++) {
      const i = pkgOf[h] as number;
      if (i < 0) continue;
      const k = i * S + (sectionIdx[h] as number);
      slotStart[k + 1]++;
      const lb = lowerBound[h] as number;
      if (lb < (slotMin[k] as number)) slotMin[k] = lb;
    }
  };
  const fillSlots = (): void => {
    const next = slotStart.slice(0, slotMin.length);
    for (let h = 0; h < live.length; h++) {
      const i = pkgOf[h] as number;
      if (i >= 0) slotHandles[next[i * S + (sectionIdx[h] as number)]++ as number] = h;
    }
  };
  countSlots();
  for (let k = 0; k < slotMin.length; k++) slotStart[k + 1] = (slotStart[k + 1] as number) + (slotStart[k] as number);
  fillSlots();
  // A section of several items is taken one item at a time, and until its last one is taken it
  // carries its note: the need counts the largest note (all but one taken) once per section, so
  // a package whose share is its need can take a whole section (was: a trusted two-item section
  // lost to the note's transient bytes, list-budget.test.ts). Only pass 1c (two or more
  // packages) reads the needs.
  if (pkgNeed.length > 1) {
    for (let s = 0; s < slotKey.length; s++) {
      const members = slotMembers[s] as number;
      const i = members > 1 ? pkgIndex.get(slotPackage[s] as string) : undefined;
      if (i !== undefined) pkgNeed[i] = (pkgNeed[i] as number) + noteBytesAt(s, members - 1, members);
    }
  }
  // Package order: by name (the index above follows the input's node order).
  // Package names in name order, and their indices (pass 1c reads packages in that order).
  const pkgOrderNames = [...pkgIndex.keys()].sort(cmp);
  const pkgOrder = pkgOrderNames.map((name) => pkgIndex.get(name) as number);
  // Source order inside a heading section (spec/pack.md §4 "Sections in source order"): a
  // non-pinned candidate with source lines is taken only after the one before it in its section
  // (by source line, then id, then list item), skipping oversize ones (which may be left out alone) — so a
  // section is delivered from its top, and a later rule never appears without the ones above it.
  // Under a focus too: its candidates are what it names, and each of their sections is delivered
  // from its top. A list's items chain the same way.
  const after = new Int32Array(live.length).fill(-1);
  // Three loops, each in a function of its own (see `countSlots`): as one function, its OSR
  // compilation in the first loop deoptimized in the second and the next in the third (a cold
  // render compiled it twice and ran its last loop in the interpreter).
  const listChains = (): void => {
    for (let h = 0; h < live.length; h++) {
      const p = piece[h];
      if (p) after[h] = p.prev;
    }
  };
  const sectionMembers = (): Array<number[] | undefined> => {
    const bySection: Array<number[] | undefined> = new Array(slotKey.length);
    for (let h = 0; h < live.length; h++) {
      const slot = noteSlot[h] as number;
      if (slot < 0 || keys.pinned[h] || (live[h] as MergedNode).line_start === undefined) continue;
      const list = bySection[slot];
      if (list) list.push(h);
      else bySection[slot] = [h];
    }
    return bySection;
  };
  const sectionChains = (bySection: Array<number[] | undefined>): void => {
    const lineAt = (h: number): number => lineOf(h) + (piece[h]?.start ?? 0);
    for (let s = 0; s < bySection.length; s++) {
      const hs = bySection[s];
      if (hs === undefined) continue;
      hs.sort((a, b) => lineAt(a) - lineAt(b) || cmp((live[a] as MergedNode).id, (live[b] as MergedNode).id) || (piece[a]?.k ?? 0) - (piece[b]?.k ?? 0));
      let prev = -1;
      for (let j = 0; j < hs.length; j++) {
        const h = hs[j] as number;
        if (keys.big[h]) continue;
        after[h] = prev;
        prev = h;
      }
    }
  };
  // Only list nodes have pieces (none in most packs).
  if (piece.length > 0) listChains();
  sectionChains(sectionMembers());
  minBlock = Math.max(renderer.minBlockBytes, live.length > 0 ? minBlock : 0);
  /** The smallest `lowerBound` of `hs`. */
  const minOf = (hs: ArrayLike<number>): number => {
    let m = Number.MAX_SAFE_INTEGER;
    for (let k = 0; k < hs.length; k++) m = Math.min(m, lowerBound[hs[k] as number] as number);
    return m;
  };
  // Under a focus every candidate is one the focus names (above): all are taken in the total
  // order (focus score first) before any section share.
  let focusedOrder: OrderedSequence | undefined;
  if (focused) {
    const named: number[] = [];
    for (let h = 0; h < live.length; h++) if (!keys.pinned[h]) named.push(h);
    if (named.length > 0) focusedOrder = new LazyOrder(Int32Array.from(named), compare, minOf(named));
  }
  // Each package's candidates by section (pass 1c), in the total order; a section's candidates
  // of all packages (passes 2 and 3) are those sequences merged, so the two passes share what
  // either has ordered and no second heap over all candidates is built.
  const pkgSequences = pkgOrder.map((i) => {
    const bySection = new Map<SectionName, OrderedSequence>();
    for (let si = 0; si < S; si++) {
      const k = i * S + si;
      const a = slotStart[k] as number;
      const z = slotStart[k + 1] as number;
      if (z > a) bySection.set(SECTIONS[si] as SectionName, new LazyOrder(slotHandles.subarray(a, z), compare, slotMin[k] as number));
    }
    // All of the package's candidates in the total order: its section sequences merged.
    return { bySection, all: new MergedOrder([...bySection.values()], compare) };
  });
  /** Pass 1c's trusted tier (select.ts): which packages are trusted, and their candidates merged. */
  const trustedPackages = (): { trusted?: boolean[]; trustedAll?: OrderedSequence } => {
    const set = input.trusted;
    if (set === undefined || set.size === 0) return {};
    const trusted = pkgOrderNames.map((name) => set.has(name));
    const parts = pkgSequences.filter((_, k) => trusted[k]).map((p) => p.all);
    return parts.length === 0 ? {} : { trusted, trustedAll: new MergedOrder(parts, compare) };
  };
  const sections = new Map<SectionName, OrderedSequence>();
  SECTIONS.forEach((s, si) => {
    if (si === 0 || (perSection[si] as number) === 0) return;
    const parts: OrderedSequence[] = [];
    for (const p of pkgSequences) {
      const q = p.bySection.get(s);
      if (q) parts.push(q);
    }
    sections.set(s, new MergedOrder(parts, compare));
  });
  const { selected } = selectWithinBudget(
    {
      count: live.length,
      pinned: pinnedOrder,
      ...(focusedOrder ? { focused: focusedOrder } : {}),
      sections,
      compare,
      sectionOf: (h) => SECTIONS[sectionIdx[h] as number] as SectionName,
      groupsAt,
      sizeAt: (h) => utf8Length(blockAt(h)),
      lowerBoundAt: (h) => lowerBound[h] as number,
      after: (h) => after[h] as number,
      // Only list nodes have later items (none in most packs: then no per-candidate calls).
      ...(piece.length > 0 ? { continuation: (h: number) => (piece[h]?.k ?? 0) > 0 } : {}),
      noteAt: (h) => {
        const s = noteSlot[h] as number;
        return s < 0 ? undefined : { key: slotKey[s] as string, members: slotMembers[s] as number };
      },
      noteBytes: (key, taken, members) => noteBytesAt(slotOf.get(key) as number, taken, members),
      packages: {
        sequences: pkgSequences,
        need: pkgOrder.map((i) => pkgNeed[i] as number),
        ...trustedPackages(),
      },
    },
    {
      maxBytes,
      separatorSize: utf8Length(renderer.separator),
      frameSize,
      weights: policy.section_weights,
      minBlockBytes: minBlock,
    },
  );

  // Omissions in input order (screening reasons and byte_budget alike), as rows of a table (no
  // object or hash string per omitted node: the receipt builds its records and their hex when they are read).
  const omissions = new OmissionTable(inScope.length);
  let nb = 0;
  const omit = (): void => {
    for (let i = 0; i < inScope.length; i++) {
      // Most omitted nodes are hashed here: their contents are read ahead a block at a time (see screening).
      if ((i & (TOUCH_BLOCK - 1)) === 0) touchedNodes ^= touchNodes(inScope, i, TOUCH_BLOCK);
      const reason = reasons[i];
      if (reason !== undefined) {
        const n = inScope[i] as MergedNode;
        const at = inIdx[i] as number;
        const row = omissions.add(n, reason, pinned.size > 0 && pinned.has(n.id), reason === 'secret' ? secretKindsOf(n, at, sctx) : undefined);
        facts.omissionDigestTo(at, omissions.digests, row);
      } else if (!selected[handleOf[i] as number]) {
        nb++;
        // A candidate passed every screening check, so its facts entry is current.
        const row = omissions.add(inScope[i] as MergedNode, 'byte_budget', false);
        facts.omissionDigestOfCurrentTo(inIdx[i] as number, omissions.digests, row);
      }
    }
  };
  omit();

  // Render in output order (package, source file, heading path, source line: render.ts
  // `compareOutput`), each group header once before its first item.
  const chosen: number[] = [];
  const choose = (): void => {
    for (let h = 0; h < live.length; h++) if (selected[h]) chosen.push(h);
  };
  choose();
  chosen.sort((a, b) => compareOutput(itemAt(a), itemAt(b)));
  const trustedParts: string[] = [];
  const parts: string[] = [];
  const opened = new Set<string>();
  const delivered: Delivered[] = [];
  // A section delivered in part gets its note once, right after its last delivered item (before
  // the next group header): taken counts per section first, counted down as its items are
  // written. Once per section, not once per run of its items: a section's items need not be
  // contiguous in output order (those without a file path come in the file-less group), and the
  // selection paid for one note per section (was: one per run, over the budget).
  const takenIn = new Map<string, number>();
  for (const h of chosen) {
    const key = noteKeyAt(h);
    if (key !== undefined) takenIn.set(key, (takenIn.get(key) ?? 0) + 1);
  }
  const toWrite = new Map(takenIn);
  // The blocks of a list node's items (delivered as one node in the receipt), by its first handle.
  const listOf = new Map<number, { record: Delivered; text: string; taken: number; of: number }>();
  let blockCount = 0;
  for (const h of chosen) {
    const it = itemAt(h);
    const key = noteKeyAt(h);
    const into = it.trusted ? trustedParts : parts;
    if (!it.trusted && parts.length === 0) into.push(fence.fenceOpen);
    for (const g of renderer.groups(it)) {
      if (opened.has(g.key)) continue;
      opened.add(g.key);
      into.push(g.text);
    }
    const b = blockAt(h);
    into.push(blockCount++ > 0 ? renderer.separator + b : b);
    if (key !== undefined) {
      const left = (toWrite.get(key) as number) - 1;
      toWrite.set(key, left);
      if (left === 0) {
        const text = noteText(key, takenIn.get(key) as number, membersOf(key));
        if (text !== '') into.push(text);
      }
    }
    const p = piece[h];
    if (p && p.k > 0) {
      const list = listOf.get(p.first);
      if (list) {
        list.text += renderer.separator + b;
        list.taken++;
      }
      continue;
    }
    delivered.push({
      package: it.package,
      version: it.version,
      id: it.id,
      content_hash: facts.contentHash(liveIdx[h] as number),
      delivered_hash: contentHash(b),
      section: SECTIONS[sectionIdx[h] as number] as SectionName,
      flags: [...it.flags],
    });
    if (p) listOf.set(h, { record: delivered[delivered.length - 1] as Delivered, text: b, taken: 1, of: p.of });
  }
  for (const list of listOf.values()) {
    list.record.delivered_hash = contentHash(list.text);
    if (list.taken < list.of) list.record.items = { delivered: list.taken, total: list.of };
  }
  // The trusted packages with an item in this pack, in the order of `frameTrusted`.
  const named = new Set<string>();
  if (instrCost) for (const h of chosen) if (itemAt(h).trusted) named.add(`${itemAt(h).package}@${itemAt(h).version}`);
  const frame = renderer.frame(frameInfo(nb, frameTrusted.filter((t) => named.has(t))));
  const fenced = parts.length > 0 ? parts.join('') + fence.fenceClose : '';
  const text = frame.prefix + trustedParts.join('') + fenced + frame.suffix;
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
    selection: {
      mode: input.pinnedOnly ? 'pinned' : 'all',
      focus: focusText || null,
      packages: onlyPackages ? [...onlyPackages].sort() : null,
      not_selected: itemCount - inScope.length,
    },
    policy: {
      stale: policy.stale,
      disputed: policy.disputed,
      freshness: policy.freshness,
      ...(builtHere.length > 0 ? { built_here: builtHere } : {}),
      min_activation: policy.min_activation,
      pins: [...policy.pins].sort(),
      ...(brokenPins.length > 0 ? { pins_broken: brokenPins.map((b) => b.pin).sort() } : {}),
    },
    inputs,
    nodes: nodes.length,
    structural,
    candidates: inScope.length,
    delivered,
    omissions,
    // Counted here, not over the omissions again: the screening reasons (`preCounts`, with the
    // pinned ones among them) and `nb` left out for space (never pinned: pinned nodes are not
    // budgeted against the rest).
    counts: { byReason: { ...preCounts, byte_budget: nb }, pinnedOmissions: pinnedOmitted },
  });
  return { text, bytes, sha256: receipt.pack_sha256, receipt, brokenPins };
}
