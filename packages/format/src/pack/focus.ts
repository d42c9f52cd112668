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
 * - a **path glob** (text with `/ * ? { [` or a file extension and no spaces): the items with a
 *   scope pattern that covers it (scope.ts `globCovers`: the pattern itself, for a concrete path
 *   a pattern matching it, `src/**` for `src/api/*.ts`, `**\/*.ts` for `src/**\/*.ts`), so the
 *   command the always-on block names for a rule set prints that set; plus, for a concrete path
 *   only (`package.json`, `CI/CD`), any section it names as a heading. Unscoped items (they apply
 *   everywhere, and the always-on block carries them) are not selected, and the file an item comes
 *   from does not count.
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
import { sectionTitle, type SectionRef } from './sections.js';

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
  /** Position in `entries` of each section id (the last entry of an id given twice, as before). */
  private readonly indexOf = new Map<string, number>();
  /**
   * Per entry (same positions as `entries`), the number of its shortest heading-path end that no
   * other entry ends with (`unique`, below): built on the first `label` call. Undefined before.
   */
  private uniqueEnd: Int32Array | undefined;
  private readonly labels = new Map<string, string | null>();

  constructor(graph: Pick<MergedGraph, 'nodes'>, sectionsOf: (id: string) => readonly SectionRef[]) {
    // The key and words of each section id, from its title as headers show it (secrets redacted:
    // a note's label is written into the pack, and a focus names what the pack shows).
    const keyMemo = new Map<string, { key: string; words: string }>();
    const norm = (title: string): { key: string; words: string } => {
      const words = visibleWords(title.slice(0, MAX_TITLE));
      return { key: words.map((w) => w.toLowerCase()).join(' '), words: words.join(' ') };
    };
    const nodes = graph.nodes;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i] as MergedNode;
      if (n.type !== 'section') continue;
      const path = sectionsOf(n.id);
      const keys: string[] = [];
      const words: string[] = [];
      for (let j = 0; j <= path.length; j++) {
        const s = path[j];
        const id = s === undefined ? n.id : s.id;
        let m = keyMemo.get(id);
        if (m === undefined) keyMemo.set(id, (m = norm(s === undefined ? sectionTitle(n.content) : s.title)));
        if (m.key === '') continue;
        keys.push(m.key);
        words.push(m.words);
      }
      const e: HeadingEntry = { id: n.id, package: n.package, keys, words };
      this.indexOf.set(n.id, this.entries.length);
      this.entries.push(e);
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

  /**
   * For every entry, the smallest k (1 … its number of keys) such that no other entry's heading
   * path ends with the same k keys — its number of keys when none is unique. Linear in the total
   * length of the paths: every end of a path is numbered by interning (key number, number of the
   * end one shorter) as one integer, so no joined string is built or hashed per end (was: a map of
   * joined ends per length, and a joined string per length tried per label — seconds on graphs
   * with tens of thousands of repeated headings). Exact: two ends get the same number iff they
   * are the same keys in the same order.
   */
  private unique(): Int32Array {
    if (this.uniqueEnd) return this.uniqueEnd;
    const entries = this.entries;
    const keyNo = new Map<string, number>();
    // Ends numbered 1, 2, …: `pair` maps (key number, shorter end's number) to an end's number;
    // `count[n]` is how many entries end with end n.
    const pair = new Map<number | string, number>();
    const count: number[] = [0];
    // Key and end numbers are below the total path length + 1 (`span`): `kn · span + end` is an
    // exact double while span² < 2^53 (any real graph); beyond that the pair is a string key.
    let span = 1;
    for (let j = 0; j < entries.length; j++) span += (entries[j] as HeadingEntry).keys.length;
    const exact = span * span < Number.MAX_SAFE_INTEGER;
    const ends: Int32Array[] = new Array(entries.length);
    for (let j = 0; j < entries.length; j++) {
      const keys = (entries[j] as HeadingEntry).keys;
      const mine = new Int32Array(keys.length);
      let end = 0;
      for (let k = 1; k <= keys.length; k++) {
        const key = keys[keys.length - k] as string;
        let kn = keyNo.get(key);
        if (kn === undefined) keyNo.set(key, (kn = keyNo.size));
        const pk = exact ? kn * span + end : `${kn},${end}`;
        let next = pair.get(pk);
        if (next === undefined) {
          pair.set(pk, (next = count.length));
          count.push(0);
        }
        end = next;
        count[end]++;
        mine[k - 1] = end;
      }
      ends[j] = mine;
    }
    const out = new Int32Array(entries.length);
    for (let j = 0; j < entries.length; j++) {
      const mine = ends[j] as Int32Array;
      let k = 1;
      while (k < mine.length && (count[mine[k - 1] as number] as number) > 1) k++;
      out[j] = k;
    }
    return (this.uniqueEnd = out);
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
    const j = this.indexOf.get(id);
    const e = j === undefined ? undefined : this.entries[j];
    let out: string | null = null;
    if (e && e.keys.length > 0) {
      const k = this.unique()[j as number] as number;
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
  // A glob with wildcards names no heading: its words (`**/*.ts` → "ts") would select any section
  // titled so. A concrete path (`package.json`, `CI/CD`) may also be a title.
  const asTitle = focus?.kind === 'glob' && !focus.compiled.literal ? '' : text;
  const named = ctx.headings.matches(headingQuery(asTitle));
  for (const id of ctx.headings.matches([headingKey(asTitle)].filter((k) => k !== ''))) named.add(id);
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
    return new CtxpkgError('E_NOT_FOUND', `no installed item is scoped to ${shown} or to a pattern that covers it`, {
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
