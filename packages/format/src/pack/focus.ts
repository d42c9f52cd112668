/**
 * What a `--focus` selects (spec/pack.md §7 "Focus"), and the heading a partial-section note
 * names so that its command prints the rest of that section (§8 "Partial sections").
 *
 * A focus selects; it does not only order. `ctxpkg render --focus X` answers with what X names:
 *
 * - a **heading** (or heading path, titles joined by `>`, `›` or `»`): compared by their words
 *   (`headingKey`: letters, marks, digits and `_`, case-insensitive — punctuation, code spans and
 *   spacing do not count), the last titles of a section's path (the file's title may be left
 *   out); the whole text also counts as one title (titles may hold `>`). A section named so is
 *   selected with everything in it, subsections included.
 * - a **path glob** (text with `/ * ? { [` or a file extension and no spaces): the items scoped to
 *   it (their scope overlaps it) or from a source file it matches — plus any section it names as a
 *   heading. Unscoped items (they apply everywhere, and the always-on block carries them) are not
 *   selected.
 * - **words** otherwise: when they name a heading, that section only; else the items holding the
 *   most of the words (≥ 2 characters) in their text, heading path, id, category or file path.
 *
 * Nothing selected is `E_NOT_FOUND`, with the closest headings (or the installed scope patterns)
 * as a hint: an agent that asks for something not installed learns it, instead of reading an
 * unrelated full pack. Every step is linear in the graph's text (titles are cut to
 * `MAX_TITLE` characters before they are compared).
 */
import { CtxpkgError } from '../errors.js';
import type { MergedGraph, MergedNode } from '../graph-types.js';
import { escapeInline, hasInvisible, looksLikeMarker, visibleWords } from './escape.js';
import { cachedGlob, globProblem } from './glob.js';
import { focusScore, type Focus } from './scope.js';
import type { SectionRef } from './sections.js';

/** Characters of a title that count for heading focus and notes. */
const MAX_TITLE = 200;
/** Longest heading label a note names (characters); a longer one gets the generic note. */
export const MAX_LABEL = 160;

/** One heading for focus matching: the words of `title`, lowercased, joined by one space ('' when it has none). */
export function headingKey(title: string): string {
  return visibleWords(title.slice(0, MAX_TITLE))
    .map((w) => w.toLowerCase())
    .join(' ');
}

/** The heading path a focus text names: split on `>`, `›` or `»`, each part `headingKey`, empty parts dropped. */
export function headingQuery(text: string): string[] {
  return text
    .split(/[>›»]/)
    .map(headingKey)
    .filter((k) => k !== '');
}

/** A section and its heading path (enclosing sections, outermost first, then itself). */
interface HeadingEntry {
  id: string;
  package: string;
  /** `headingKey` of each title of the path, empty ones dropped. */
  keys: string[];
  /** The words of each title as written (same positions as `keys`). */
  words: string[];
}

/**
 * Every heading of a graph (its `section` nodes), for focus matching and for naming a section in a
 * note. Built once per compile (`sectionsOf` is the compile's `sectionPathResolver`).
 */
export class HeadingIndex {
  private readonly entries: HeadingEntry[] = [];
  private readonly byId = new Map<string, HeadingEntry>();
  /** Per suffix length k: how many sections end with each k-title key. Built on demand. */
  private readonly suffixCounts = new Map<number, Map<string, number>>();
  private readonly labels = new Map<string, string | null>();

  constructor(graph: Pick<MergedGraph, 'nodes'>, sectionsOf: (id: string) => readonly SectionRef[]) {
    const keyMemo = new Map<string, { key: string; words: string }>();
    const norm = (id: string, title: string): { key: string; words: string } => {
      let m = keyMemo.get(id);
      if (!m) {
        const words = visibleWords(title.slice(0, MAX_TITLE));
        m = { key: words.map((w) => w.toLowerCase()).join(' '), words: words.join(' ') };
        keyMemo.set(id, m);
      }
      return m;
    };
    for (const n of graph.nodes) {
      if (n.type !== 'section') continue;
      const path = [...sectionsOf(n.id).map((s) => ({ id: s.id, title: s.title })), { id: n.id, title: (n.content.split('\n', 1)[0] ?? '').trim() }];
      const keys: string[] = [];
      const words: string[] = [];
      for (const s of path) {
        const m = norm(s.id, s.title);
        if (m.key === '') continue;
        keys.push(m.key);
        words.push(m.words);
      }
      const e: HeadingEntry = { id: n.id, package: n.package, keys, words };
      this.entries.push(e);
      this.byId.set(n.id, e);
    }
  }

  /** Ids of the sections whose heading path ends with `query` (`headingQuery`); empty for an empty query. */
  matches(query: readonly string[]): Set<string> {
    const out = new Set<string>();
    if (query.length === 0) return out;
    for (const e of this.entries) {
      if (e.keys.length < query.length) continue;
      const off = e.keys.length - query.length;
      let ok = true;
      for (let i = 0; i < query.length && ok; i++) ok = e.keys[off + i] === query[i];
      if (ok) out.add(e.id);
    }
    return out;
  }

  private countsFor(k: number): Map<string, number> {
    let m = this.suffixCounts.get(k);
    if (!m) {
      m = new Map();
      for (const e of this.entries) {
        if (e.keys.length < k) continue;
        const key = e.keys.slice(e.keys.length - k).join('\u0000');
        m.set(key, (m.get(key) ?? 0) + 1);
      }
      this.suffixCounts.set(k, m);
    }
    return m;
  }

  /**
   * The focus text that names section `id` in a note: the shortest end of its heading path that
   * no other section of the graph ends with (the whole path when none is unique), each title as
   * its words, joined by ` > `. Only letters, marks, digits, `_`, spaces and `>`: it can be put
   * in double quotes in any shell and inside a code span, and cannot forge a marker.
   * `undefined` when the section has no words, the label is over `MAX_LABEL` characters, or it
   * reads like a marker line (the note then names no heading).
   */
  label(id: string): string | undefined {
    const known = this.labels.get(id);
    if (known !== undefined) return known ?? undefined;
    const e = this.byId.get(id);
    let out: string | null = null;
    if (e && e.keys.length > 0) {
      let k = 1;
      while (k < e.keys.length && (this.countsFor(k).get(e.keys.slice(e.keys.length - k).join('\u0000')) ?? 0) > 1) k++;
      const text = e.words.slice(e.words.length - k).join(' > ');
      if (text.length <= MAX_LABEL && !looksLikeMarker(text) && !hasInvisible(text)) out = text;
    }
    this.labels.set(id, out);
    return out ?? undefined;
  }

  /**
   * Up to `max` headings close to `text` (character-trigram Dice similarity of the heading words
   * ≥ 0.4; best first, then by label), as note labels: the hint of a focus that found nothing.
   */
  closest(text: string, max = 3): string[] {
    const q = trigrams(headingKey(text));
    if (q.size === 0) return [];
    const scored: Array<{ label: string; score: number }> = [];
    const seen = new Set<string>();
    for (const e of this.entries) {
      const last = e.keys[e.keys.length - 1];
      if (last === undefined) continue;
      const t = trigrams(last);
      let shared = 0;
      for (const g of t) if (q.has(g)) shared++;
      const score = (2 * shared) / (q.size + t.size);
      if (score < 0.4) continue;
      const label = this.label(e.id);
      if (label === undefined || seen.has(label)) continue;
      seen.add(label);
      scored.push({ label, score });
    }
    scored.sort((a, b) => b.score - a.score || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
    return scored.slice(0, max).map((s) => s.label);
  }
}

/** Character trigrams of ` key ` (padded, so short words have some). */
function trigrams(key: string): Set<string> {
  const s = ` ${key} `;
  const out = new Set<string>();
  const cps = [...s];
  for (let i = 0; i + 3 <= cps.length; i++) out.add(cps.slice(i, i + 3).join(''));
  return out;
}

/** The heading titles of a path, lowercased, one per line: what a word focus reads besides the text. */
const headingTextMemo = new WeakMap<readonly SectionRef[], string>();
export function headingText(path: readonly SectionRef[]): string {
  let t = headingTextMemo.get(path);
  if (t === undefined) {
    t = path.map((s) => s.title.slice(0, MAX_TITLE).toLowerCase()).join('\n');
    if (Object.isFrozen(path)) headingTextMemo.set(path, t);
  }
  return t;
}

/** What `selectFocus` is given about each eligible node. */
export interface FocusContext {
  /** The node's scope globs (`computeScopes`), undefined when unscoped. */
  scopeOf(n: MergedNode): readonly string[] | undefined;
  /** The node's heading path (`sectionPathResolver`). */
  pathOf(n: MergedNode): readonly SectionRef[];
  headings: HeadingIndex;
}

/**
 * The nodes of `eligible` that the focus `text` selects (module docstring), as a set. `focus` is
 * `parseFocus(text)` (undefined when the text has no word of two characters and no glob: then
 * only a heading can match). Throws `E_NOT_FOUND` when it selects nothing, with a hint naming
 * the closest headings (word focus) or the installed scope patterns (glob focus) and
 * `ctxpkg ls --nodes`.
 */
export function selectFocus(text: string, focus: Focus | undefined, eligible: readonly MergedNode[], ctx: FocusContext): Set<MergedNode> {
  // A title may itself hold `>` ("Client->server payloads"): the whole text as one title counts too.
  const named = ctx.headings.matches(headingQuery(text));
  for (const id of ctx.headings.matches([headingKey(text)].filter((k) => k !== ''))) named.add(id);
  const inNamed = (n: MergedNode): boolean => named.size > 0 && (named.has(n.id) || ctx.pathOf(n).some((s) => named.has(s.id)));
  const out = new Set<MergedNode>();
  if (focus?.kind === 'glob') {
    for (const n of eligible) if (focusScore(focus, n, ctx.scopeOf(n)) === 2 || inNamed(n)) out.add(n);
  } else if (named.size > 0 || !focus) {
    for (const n of eligible) if (inNamed(n)) out.add(n);
  } else {
    let best = 0;
    const score = new Map<MergedNode, number>();
    for (const n of eligible) {
      const s = focusScore(focus, n, undefined, headingText(ctx.pathOf(n)));
      if (s === 0) continue;
      score.set(n, s);
      if (s > best) best = s;
    }
    for (const [n, s] of score) if (s === best) out.add(n);
  }
  if (out.size > 0) return out;
  throw notFound(text, focus, eligible, ctx);
}

function notFound(text: string, focus: Focus | undefined, eligible: readonly MergedNode[], ctx: FocusContext): CtxpkgError {
  const shown = JSON.stringify(escapeInline(text.trim(), 120));
  if (focus?.kind === 'glob') {
    const patterns = new Set<string>();
    for (const n of eligible) for (const g of ctx.scopeOf(n) ?? []) if (!globProblem(g) && cachedGlob(g) && !hasInvisible(g) && !g.includes("'")) patterns.add(g);
    const list = [...patterns].sort().slice(0, 5);
    const more = patterns.size - list.length;
    return new CtxpkgError('E_NOT_FOUND', `no installed item is scoped to ${shown} or comes from a file it matches`, {
      hint:
        list.length > 0
          ? `installed rules are scoped to ${list.map((g) => `'${escapeInline(g, 120)}'`).join(', ')}${more > 0 ? ` and ${more} more` : ''}; the rules for every path: \`ctxpkg render\` without --focus`
          : 'no installed item is path-scoped; the rules for every path: `ctxpkg render` without --focus',
      details: { focus: text.trim().slice(0, 1000), kind: 'glob' },
    });
  }
  const close = ctx.headings.closest(text);
  const tryThese = close.length > 0 ? `headings close to it: ${close.map((c) => `ctxpkg render --focus "${c}"`).join(', ')}; ` : '';
  return new CtxpkgError('E_NOT_FOUND', `no installed heading or item matches ${shown}`, {
    hint: `${tryThese}\`ctxpkg ls --nodes\` lists every installed item and heading`,
    details: { focus: text.trim().slice(0, 1000), kind: 'words', close },
  });
}
