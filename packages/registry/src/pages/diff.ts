/**
 * What changed between two versions of a package (spec/registry.md "Pages", version diff). Pure.
 *
 * Nodes are matched first by id. Imported Markdown blocks have ids `<file>:<heading path>~<hash>`
 * (cli importers/ids.ts), so editing a block's text gives it a new id: among the nodes left
 * unmatched, a removed and an added node with the same id *stem* — the id without its `~<8 hex>`
 * text hash and `.n` duplicate suffix, i.e. the same file and heading path — are paired as one
 * changed node. When a heading holds several such nodes, pairs are chosen by word overlap
 * (highest first, at least `MIN_SIMILARITY`, ties in source order; past `MAX_PAIRINGS` scores
 * per diff, in source order); a lone pair under one heading is always paired. What stays
 * unpaired is added or removed.
 *
 * Text diffs use the `diff` library (word level, bounded by `MAX_EDIT_LENGTH`; past it, or for
 * texts longer than `MAX_DIFF_CHARS`, the change is shown as the whole old text replaced by the
 * whole new one).
 */
import { diffWordsWithSpace } from 'diff';
import type { ContextEdge, ContextGraph, ContextNode } from '@ctxpkg/format';

/** Fields compared for "changed" besides the content (line numbers and source hashes are not: a move is no change). */
const COMPARED: ReadonlyArray<keyof ContextNode> = ['type', 'category', 'file_path', 'confidence', 'activation', 'supersedes', 'blob_ref', 'decay_half_life_days'];

export const MIN_SIMILARITY = 0.3;
/** Longest text (characters, each side) given a word diff. */
export const MAX_DIFF_CHARS = 20_000;
/** Most edit operations the word diff may use before giving up. */
export const MAX_EDIT_LENGTH = 400;
/**
 * Most similarity scores computed for one diff (summed over headings); past it, the remaining
 * headings pair their nodes in source order. A package is hostile input: this bounds the work.
 */
export const MAX_PAIRINGS = 20_000;
/** Words of a text compared by `similarity`. */
const MAX_WORDS = 1_000;

export interface ChangedNode {
  from: ContextNode;
  to: ContextNode;
  /** `id`: same id, different text or fields; `heading`: same file and heading path, new text hash. */
  matchedBy: 'id' | 'heading';
  /** Which fields differ (`content` first, then `COMPARED` order). */
  fields: string[];
}

export interface GraphDiff {
  added: ContextNode[];
  removed: ContextNode[];
  changed: ChangedNode[];
  unchanged: number;
  edgesAdded: ContextEdge[];
  edgesRemoved: ContextEdge[];
}

/** One run of a text diff. */
export interface TextPart {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

const HASH_SUFFIX = /~[0-9a-f]{8}(?:\.[0-9]+)?$/;

/** The id without its text hash (`AGENTS.md:testing~3f2a9c1d.2` → `AGENTS.md:testing`); null for ids without one. */
export function idStem(id: string): string | null {
  return HASH_SUFFIX.test(id) ? id.replace(HASH_SUFFIX, '') : null;
}

function changedFields(a: ContextNode, b: ContextNode): string[] {
  const out: string[] = [];
  if (a.content !== b.content) out.push('content');
  for (const f of COMPARED) if (a[f] !== b[f]) out.push(f);
  return out;
}

function words(s: string): Set<string> {
  return new Set((s.slice(0, MAX_WORDS * 20).toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_WORDS));
}

/** Jaccard similarity of the word sets of two texts (their first `MAX_WORDS` words), in [0, 1]. */
export function similarity(a: string, b: string): number {
  return jaccard(words(a), words(b), a === b);
}

function jaccard(wa: Set<string>, wb: Set<string>, equal: boolean): number {
  if (wa.size === 0 && wb.size === 0) return equal ? 1 : 0;
  let common = 0;
  for (const w of wa) if (wb.has(w)) common++;
  return common / (wa.size + wb.size - common);
}

const bySource = (a: ContextNode, b: ContextNode): number => (a.line_start ?? Number.MAX_SAFE_INTEGER) - (b.line_start ?? Number.MAX_SAFE_INTEGER);

/** Pair the removed and added nodes that share one id stem; `budget.left` counts the similarity scores still allowed. */
function pairGroup(removed: ContextNode[], added: ContextNode[], budget: { left: number }): Array<[ContextNode, ContextNode]> {
  const r = removed.slice().sort(bySource);
  const a = added.slice().sort(bySource);
  if (r.length === 1 && a.length === 1) return [[r[0], a[0]]];
  if (r.length * a.length > budget.left) return r.slice(0, a.length).map((x, i) => [x, a[i]]);
  budget.left -= r.length * a.length;
  const wr = r.map((x) => words(x.content));
  const wa = a.map((y) => words(y.content));
  const cand: Array<{ i: number; j: number; s: number }> = [];
  r.forEach((x, i) => a.forEach((y, j) => {
    const s = jaccard(wr[i], wa[j], x.content === y.content);
    if (s >= MIN_SIMILARITY) cand.push({ i, j, s });
  }));
  cand.sort((p, q) => q.s - p.s || p.i - q.i || p.j - q.j);
  const usedR = new Set<number>();
  const usedA = new Set<number>();
  const pairs: Array<[number, number]> = [];
  for (const c of cand) {
    if (usedR.has(c.i) || usedA.has(c.j)) continue;
    usedR.add(c.i);
    usedA.add(c.j);
    pairs.push([c.i, c.j]);
  }
  return pairs.sort((p, q) => p[1] - q[1]).map(([i, j]) => [r[i], a[j]]);
}

const edgeKey = (e: ContextEdge): string => JSON.stringify([e.from, e.to, e.type]);

/** Compare two graphs (`from` the older version, `to` the newer). Deterministic. */
export function diffGraphs(from: ContextGraph, to: ContextGraph): GraphDiff {
  const oldById = new Map(from.nodes.map((n) => [n.id, n] as const));
  const newById = new Map(to.nodes.map((n) => [n.id, n] as const));
  const changed: ChangedNode[] = [];
  let unchanged = 0;
  const removedLeft: ContextNode[] = [];
  for (const n of from.nodes) {
    const m = newById.get(n.id);
    if (!m) {
      removedLeft.push(n);
      continue;
    }
    const fields = changedFields(n, m);
    if (fields.length > 0) changed.push({ from: n, to: m, matchedBy: 'id', fields });
    else unchanged++;
  }
  const addedLeft = to.nodes.filter((n) => !oldById.has(n.id));

  const groups = new Map<string, { removed: ContextNode[]; added: ContextNode[] }>();
  const group = (stem: string) => {
    let g = groups.get(stem);
    if (!g) groups.set(stem, (g = { removed: [], added: [] }));
    return g;
  };
  for (const n of removedLeft) {
    const s = idStem(n.id);
    if (s !== null) group(s).removed.push(n);
  }
  for (const n of addedLeft) {
    const s = idStem(n.id);
    if (s !== null) group(s).added.push(n);
  }
  const paired = new Set<ContextNode>();
  const budget = { left: MAX_PAIRINGS };
  for (const stem of [...groups.keys()].sort()) {
    const g = groups.get(stem)!;
    if (g.removed.length === 0 || g.added.length === 0) continue;
    for (const [a, b] of pairGroup(g.removed, g.added, budget)) {
      paired.add(a);
      paired.add(b);
      changed.push({ from: a, to: b, matchedBy: 'heading', fields: changedFields(a, b) });
    }
  }
  // Changed nodes in the newer version's order.
  const newIndex = new Map(to.nodes.map((n, i) => [n, i] as const));
  changed.sort((p, q) => newIndex.get(p.to)! - newIndex.get(q.to)!);

  const oldEdges = new Set(from.edges.map(edgeKey));
  const newEdges = new Set(to.edges.map(edgeKey));
  return {
    added: addedLeft.filter((n) => !paired.has(n)),
    removed: removedLeft.filter((n) => !paired.has(n)),
    changed,
    unchanged,
    edgesAdded: to.edges.filter((e) => !oldEdges.has(edgeKey(e))),
    edgesRemoved: from.edges.filter((e) => !newEdges.has(edgeKey(e))),
  };
}

/**
 * A word-level diff of two texts as runs (`same`, `removed`, `added`), bounded in cost: texts
 * over `MAX_DIFF_CHARS` or edits over `MAX_EDIT_LENGTH` give one `removed` run and one `added` run.
 */
export function textDiff(a: string, b: string): TextPart[] {
  const whole = (): TextPart[] => [
    ...(a === '' ? [] : [{ kind: 'removed' as const, text: a }]),
    ...(b === '' ? [] : [{ kind: 'added' as const, text: b }]),
  ];
  if (a === b) return a === '' ? [] : [{ kind: 'same', text: a }];
  if (a.length > MAX_DIFF_CHARS || b.length > MAX_DIFF_CHARS) return whole();
  const changes = diffWordsWithSpace(a, b, { maxEditLength: MAX_EDIT_LENGTH });
  if (!changes) return whole();
  return changes.map((c) => ({ kind: c.added ? 'added' : c.removed ? 'removed' : 'same', text: c.value }));
}
