/**
 * Markdown instruction files → graph nodes (spec/format.md §16 "From Markdown to nodes").
 *
 * - The file gets a root `section` node with id `<file_path>`: its content is the title when the
 *   file has exactly one H1 and it is the first block, else the file path (category as the file's
 *   kind); its line range is the whole file.
 * - Every other heading is a `section` node spanning its heading line to the end of its section;
 *   `contains` edges go from the enclosing section to each section and block node.
 * - Chunking keeps what belongs together in one node, whose content is the exact source text
 *   (dedented to its first line's indent, trailing whitespace trimmed):
 *   - each top-level list item with its marker, continuation lines, nested items and code;
 *   - a paragraph that introduces a list, fenced code or a table (it ends with `:` or is a bold
 *     label) together with that block, so a lead-in is never delivered without it; likewise the
 *     last item of a list that introduces the code block or table right after the list;
 *   - a table, a fenced code block (fence lines included), a paragraph, a block quote (`>`
 *     kept; its id and type from the quoted text) or an HTML block (comments skipped).
 *   Typed by `classifyBlock` (list markers removed first).
 * - A run-on legacy line (one line over 300 characters with three or more ` - `) is split at runs
 *   of two or more spaces; each piece is a node on that line, chained in order by `followed_by`
 *   edges so packs keep their order.
 * - Frontmatter globs become `scope` nodes with `applies_to` edges from the root section; a
 *   frontmatter `description` (when the rules apply: Cursor's agent-requested rules are chosen
 *   by it) becomes a node of the root section, typed like any block, so it reaches every agent
 *   with the rules it introduces instead of being dropped with the frontmatter — unless the
 *   file's H1 or first paragraph already says it (`repeatsDescription`; a paragraph also in
 *   nearly the same words, `nearlySame`): then the sentence is printed once, from the body (that
 *   paragraph's node has the description's id).
 * - Links are returned for the caller to turn into `references` edges between files.
 *
 * Node ids are stable under edits elsewhere in the file (they never contain line numbers), see
 * `ids.ts`: sections `<file_path>:<heading path>`, blocks `<file_path>:<heading path>~<text hash>`,
 * frontmatter scope nodes `<file_path>:scope:<k>`, the description `<file_path>:frontmatter:description`.
 *
 * Lines in `file.excluded` (ctxpkg's own managed blocks) are treated as blank: no node comes from
 * them; `source` hashes still cover the original lines.
 */
import type { ContextEdge, ContextNode } from '@ctxpkg/format';
import { fromMarkdown } from 'mdast-util-from-markdown';
import type { Content, List, ListItem, Parent, PhrasingContent, Root } from 'mdast';
import { classifyBlock, type BlockInfo } from './classify.js';
import { parseFrontmatter } from './frontmatter.js';
import { blankLines } from './generated.js';
import { checkNesting, MAX_NESTING, tooDeep } from './nesting.js';
import { blockId, descriptionId, headingSlug, IdAllocator, scopeId } from './ids.js';
import { sourceHash, splitLines } from './provenance.js';
import type { SourceFile } from './types.js';

export interface MarkdownImport {
  rootId: string;
  nodes: ContextNode[];
  edges: ContextEdge[];
  /** Link targets found in the text: `{ from: node id, url, line }`. */
  links: Array<{ from: string; url: string; line: number }>;
}

type Block = Content;

const LONG_LINE = 300;

/** Text compared for repetition: whitespace runs as one space, trimmed, without a final `.`, lower case. */
const sameText = (s: string): string => s.replace(/\s+/g, ' ').trim().replace(/\.$/, '').toLowerCase();

/**
 * Where the body already says the frontmatter `description`: the file's title (its H1), its first
 * block (a paragraph), or `'no'` — compared by `sameText`. Rule authors often open the body with
 * the description; a description node beside that line printed the sentence twice in every
 * agent file, so the body's text is kept (a paragraph's node takes the description's id, so rule
 * files still find the description; a title is the section's heading already).
 */
function repeatsDescription(description: string, title: string, first: Block | undefined, slice: (b: Block) => string): 'title' | 'paragraph' | 'no' {
  const d = sameText(description);
  if (d === sameText(title)) return 'title';
  if (first?.type !== 'paragraph') return 'no';
  const p = slice(first);
  return d === sameText(p) || nearlySame(description, p) ? 'paragraph' : 'no';
}

/** Words shared for `nearlySame`: at least this share of the longer text's words. */
const NEAR_SHARE = 0.75;
/** … and the shorter text has at least this many words (short texts are compared exactly). */
const NEAR_MIN_WORDS = 6;

/**
 * True when two sentences say the same in nearly the same words: the shorter has at least
 * `NEAR_MIN_WORDS` words and the words they share (as multisets, case folded) are at least
 * `NEAR_SHARE` of the longer one's — "Follow these rules when the user's request involves writing,
 * creating, or modifying tests for X" against the body's "Follow these rules when writing,
 * creating, or modifying tests for X." (14 of 17; new-user trial 3, finding 6: both reached every
 * agent). A paragraph that adds a clause of its own shares too few of its words and is kept
 * beside the description. Linear in the texts.
 */
export function nearlySame(a: string, b: string): boolean {
  const wa = a.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  const wb = b.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  if (Math.min(wa.length, wb.length) < NEAR_MIN_WORDS) return false;
  const count = new Map<string, number>();
  for (const w of wa) count.set(w, (count.get(w) ?? 0) + 1);
  let shared = 0;
  for (const w of wb) {
    const c = count.get(w) ?? 0;
    if (c > 0) {
      shared++;
      count.set(w, c - 1);
    }
  }
  return shared >= NEAR_SHARE * Math.max(wa.length, wb.length);
}

/** Import one Markdown-like file. Pure; throws `E_SOURCE` for broken frontmatter and for lists or quotes nested deeper than `MAX_NESTING` (nesting.ts), naming file:line. */
export function importMarkdown(file: SourceFile): MarkdownImport {
  const lines = splitLines(file.text);
  // What the importer reads: the original lines with ctxpkg's managed blocks blanked out.
  const read = file.excluded?.length ? splitLines(blankLines(file.text, file.excluded)) : lines;
  // Frontmatter ends lines at CR, CRLF and LF alike (a CR-only or mixed-line-end rule keeps its
  // scope); it reports provenance lines and where on its line the body starts.
  const fm = parseFrontmatter(read, file.path);
  // A CR that does not end a line (CR-only line ends, a stray CR) reads as a space: the parser
  // would count it as a line break where provenance (splitLines) does not, and its line numbers
  // would point past the file (a CR-only file crashed with a TypeError). Same length: offsets hold.
  const visible = read.map((l) => (l.includes('\r') ? l.replace(/\r/g, ' ') : l));
  let last = visible.length;
  while (last > 1 && visible[last - 1].trim() === '') last--;
  // Frontmatter lines read as blank; on the line the closing fence ends with a CR, the body is the
  // text after that CR (line numbers hold; offsets and columns are the body's own).
  const { line: bodyLine, column: bodyColumn } = fm.bodyStart;
  const bodyLines = visible.map((l, i) => (i < bodyLine ? '' : i === bodyLine && bodyColumn > 0 ? l.slice(bodyColumn) : l));
  const body = bodyLines.join('\n');
  // Lists and quotes nested past MAX_NESTING cost the parser quadratic time and then its stack:
  // refused before it runs (nesting.ts), with the file and line.
  checkNesting(body, file.path);
  const tree = fromMarkdown(body) as Root;
  checkTreeNesting(tree, file.path);

  const nodes: ContextNode[] = [];
  const edges: ContextEdge[] = [];
  const links: MarkdownImport['links'] = [];
  const ids = new IdAllocator();

  // Source hashes by line range: many nodes can share one range (the pieces of a run-on line, the
  // globs of one frontmatter line), and hashing a long line again per node was quadratic.
  const hashes = new Map<string, string>();
  const hashOf = (start: number, end: number): string => {
    const k = `${start}:${end}`;
    let h = hashes.get(k);
    if (h === undefined) hashes.set(k, (h = sourceHash(lines, start, end)));
    return h;
  };
  /** A node; `base` is its id before de-duplication (`ids.ts`). */
  const node = (type: string, content: string, start: number, end: number, base: string): ContextNode => {
    const id = ids.take(base);
    const n: ContextNode = {
      id,
      type,
      content,
      activation: 1.0,
      category: file.kind,
      source: hashOf(start, end),
      file_path: file.path,
      line_start: start,
      line_end: end,
    };
    nodes.push(n);
    return n;
  };
  const contain = (from: string, to: string): void => {
    edges.push({ from, to, type: 'contains', weight: 1.0 });
  };
  const slice = (b: { position?: { start: { offset?: number }; end: { offset?: number } } }): string =>
    body.slice(b.position?.start.offset ?? 0, b.position?.end.offset ?? 0);
  const startLine = (b: Block | ListItem): number => b.position?.start.line ?? 1;
  const endLine = (b: Block | ListItem): number => b.position?.end.line ?? startLine(b);

  // Root section.
  const top = tree.children;
  const h1s = top.filter((b) => b.type === 'heading' && b.depth === 1);
  const h1Root = h1s.length === 1 && top[0] === h1s[0] ? h1s[0] : undefined;
  const rootTitle = h1Root ? headingText(h1Root, body) : file.path;
  const root = node('section', rootTitle, 1, last, file.path);
  /** Open sections: heading depth, node id and heading path (`''` for the root). */
  const stack: Array<{ depth: number; id: string; path: string }> = [{ depth: h1Root ? 1 : 0, id: root.id, path: '' }];

  fm.globs.forEach((g, i) => {
    const s = node('scope', g.glob, g.line, g.line, scopeId(file.path, i + 1));
    edges.push({ from: root.id, to: s.id, type: 'applies_to', weight: 1.0 });
  });
  const description = fm.description?.trim();
  const firstBlock = top.find((b) => b !== h1Root && b.type !== 'html');
  const repeated = description ? repeatsDescription(description, rootTitle, firstBlock, slice) : 'no';
  /** The body paragraph that says the description: its node takes the description's id. */
  const descriptionBlock = repeated === 'paragraph' ? firstBlock : undefined;
  if (description && fm.descriptionLine !== undefined && repeated === 'no') {
    const d = node(classifyBlock(description, {}), description, fm.descriptionLine, fm.descriptionLine, descriptionId(file.path));
    contain(root.id, d.id);
  }

  /** The links under `b` in document order (an explicit stack: nesting depth never reaches the call stack). */
  const collectLinks = (from: string, b: Parent | Block): void => {
    const todo: Array<Parent | PhrasingContent | Block> = [b];
    for (let n = todo.pop(); n !== undefined; n = todo.pop()) {
      if (n.type === 'link') links.push({ from, url: (n as { url: string }).url, line: n.position?.start.line ?? 1 });
      if ('children' in n && Array.isArray(n.children)) for (let k = n.children.length - 1; k >= 0; k--) todo.push(n.children[k] as PhrasingContent);
    }
  };

  /** Where a block goes: the node that contains it and the heading path of its section. */
  type Place = { parent: string; path: string };

  /** One node for the source text of `first … last` (a block, or a lead-in with its block). */
  const emitSpan = (first: Block, last: Block, at: Place, info: BlockInfo, classifyText?: string): ContextNode => {
    const text = dedent(body.slice(first.position?.start.offset ?? 0, last.position?.end.offset ?? 0), first.position?.start.column ?? 1);
    const n = node(classifyBlock(classifyText ?? text, info), text, startLine(first), endLine(last), blockId(file.path, at.path, text));
    contain(at.parent, n.id);
    return n;
  };

  /** The pieces of a run-on legacy line (`.cursorrules` flattened to one line), one node each, in order. */
  const emitRunOn = (b: Block, at: Place, text: string): void => {
    let prev: string | undefined;
    for (const piece of runOnPieces(text)) {
      const n = node(classifyBlock(piece, {}), piece, startLine(b), endLine(b), blockId(file.path, at.path, piece));
      contain(at.parent, n.id);
      if (prev !== undefined) edges.push({ from: prev, to: n.id, type: 'followed_by', weight: 1.0 });
      prev = n.id;
    }
  };

  const emitText = (b: Block, at: Place, text: string, info: BlockInfo): void => {
    if (info.codeLang === undefined && startLine(b) === endLine(b) && text.length > LONG_LINE && (text.match(/\s-\s/g)?.length ?? 0) >= 3) {
      emitRunOn(b, at, text);
      return;
    }
    const n = node(classifyBlock(text, info), text, startLine(b), endLine(b), b === descriptionBlock ? descriptionId(file.path) : blockId(file.path, at.path, text));
    contain(at.parent, n.id);
    collectLinks(n.id, b);
  };

  const emitBlock = (b: Block, at: Place): void => {
    switch (b.type) {
      case 'list':
        emitList(b, at);
        return;
      case 'paragraph':
      case 'table':
        emitText(b, at, dedent(slice(b), b.position?.start.column ?? 1), {});
        return;
      case 'blockquote': {
        // Verbatim, `>` included; the id and the type come from the quoted text alone.
        const text = dedent(slice(b), b.position?.start.column ?? 1);
        const quoted = text.replace(/^>[ \t]?/gm, '');
        const n = node(classifyBlock(quoted, {}), text, startLine(b), endLine(b), blockId(file.path, at.path, quoted));
        contain(at.parent, n.id);
        collectLinks(n.id, b);
        return;
      }
      case 'code': {
        const text = dedent(slice(b), b.position?.start.column ?? 1);
        emitText(b, at, text, { codeLang: (b.lang ?? '').toLowerCase() });
        return;
      }
      case 'html': {
        const text = slice(b).trim();
        if (text.startsWith('<!--') || text === '') return;
        emitText(b, at, text, {});
        return;
      }
      case 'heading':
        emitText(b, at, headingText(b, body), {});
        return;
      default:
        return; // thematic breaks, definitions: no content of their own
    }
  };

  /**
   * Each top-level item is one node: its marker, its own paragraphs and continuation lines, and
   * its nested lists and code (verbatim, dedented to the list's indent), so an item is never
   * delivered without the sub-items that complete it.
   */
  const emitList = (list: List, at: Place, then?: Block): void => {
    list.children.forEach((item, k) => {
      // The last item may introduce the code block or table after the list: one node with it.
      const joined = then !== undefined && k === list.children.length - 1 ? then : undefined;
      const end = joined ?? item;
      const text = dedent(body.slice(item.position?.start.offset ?? 0, end.position?.end.offset ?? 0), item.position?.start.column ?? 1);
      const kids = item.children as Block[];
      const info: BlockInfo = { ordered: Boolean(list.ordered) };
      if (kids.length === 1 && kids[0].type === 'code') info.codeLang = (kids[0].lang ?? '').toLowerCase();
      const n = node(classifyBlock(withoutMarker(text), info), text, startLine(item), endLine(end as Block), blockId(file.path, at.path, text));
      contain(at.parent, n.id);
      for (const b of kids) collectLinks(n.id, b);
      if (joined) collectLinks(n.id, joined);
    });
  };

  /** True when `b` is a fenced code block or a table (what a lead-in item can introduce). */
  const isCodeOrTable = (b: Block | undefined): boolean => b !== undefined && (b.type === 'code' || ((b.type === 'paragraph' || b.type === 'table') && looksLikeTable(slice(b))));

  /**
   * A paragraph that introduces the block right after it (it ends with `:` or is a bold label)
   * and that block (a list, fenced code or a table) become one node, so selection never delivers
   * the lead-in without what it introduces. Returns true when `b` was emitted with `next`.
   */
  const emitLeadIn = (b: Block, next: Block | undefined, at: Place): boolean => {
    if (b.type !== 'paragraph' || next === undefined || !introduces(slice(b))) return false;
    const isTable = (next.type === 'paragraph' || next.type === 'table') && looksLikeTable(slice(next));
    if (next.type !== 'list' && next.type !== 'code' && !isTable) return false;
    const lead = dedent(slice(b), b.position?.start.column ?? 1);
    const info: BlockInfo = {};
    if (next.type === 'list') info.ordered = Boolean(next.ordered);
    // Fenced code keeps its own rule (shell → procedure) unless the lead-in warns.
    let classifyText: string | undefined;
    if (next.type === 'code') {
      if (classifyBlock(lead, {}) === 'gotcha') classifyText = lead;
      else info.codeLang = (next.lang ?? '').toLowerCase();
    }
    const n = emitSpan(b, next, at, info, classifyText ?? (next.type === 'code' ? dedent(slice(next), next.position?.start.column ?? 1) : undefined));
    collectLinks(n.id, b);
    collectLinks(n.id, next);
    return true;
  };

  /** Emit the blocks of one section in order (lead-ins joined with their block). */
  const emitFlow = (blocks: Block[], at: Place): void => {
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i] as Block;
      const next = blocks[i + 1];
      if (emitLeadIn(b, next, at)) i++;
      else if (b.type === 'list' && isCodeOrTable(next) && introduces(slice(b.children[b.children.length - 1] as ListItem))) {
        emitList(b, at, next);
        i++;
      } else emitBlock(b, at);
    }
  };

  /** Blocks of the current section not emitted yet (emitted as one flow at the next heading). */
  let flow: Block[] = [];
  const flush = (): void => {
    const here = stack[stack.length - 1];
    emitFlow(flow, { parent: here.id, path: here.path });
    flow = [];
  };
  for (let idx = 0; idx < top.length; idx++) {
    const b = top[idx];
    if (b === h1Root) continue;
    if (b.type === 'heading') {
      flush();
      while (stack.length > 1 && stack[stack.length - 1].depth >= b.depth) stack.pop();
      let end = last;
      for (let j = idx + 1; j < top.length; j++) {
        const nb = top[j];
        if (nb.type === 'heading' && nb.depth <= b.depth) {
          end = startLine(nb) - 1;
          break;
        }
      }
      while (end > startLine(b) && visible[end - 1].trim() === '') end--;
      const title = headingText(b, body);
      const outer = stack[stack.length - 1];
      const slug = headingSlug(title);
      const sec = node('section', title, startLine(b), end, `${file.path}:${outer.path === '' ? slug : `${outer.path}/${slug}`}`);
      contain(outer.id, sec.id);
      collectLinks(sec.id, b);
      stack.push({ depth: b.depth, id: sec.id, path: sec.id.slice(file.path.length + 1) });
      continue;
    }
    flow.push(b);
  }
  flush();
  return { rootId: root.id, nodes, edges, links };
}

/**
 * The parsed tree checked against `MAX_NESTING` as well (list items and block quotes), with an
 * explicit stack: the pre-scan is an upper bound of the parser's nesting except in corner cases
 * of lazy continuation and tabs, and nothing deeper may reach the importer. Throws `E_SOURCE`.
 */
function checkTreeNesting(tree: Root, filePath: string): void {
  const todo: Array<{ n: Root | Content; depth: number }> = [{ n: tree, depth: 0 }];
  for (let t = todo.pop(); t !== undefined; t = todo.pop()) {
    const depth = t.depth + (t.n.type === 'listItem' || t.n.type === 'blockquote' ? 1 : 0);
    if (depth > MAX_NESTING) throw tooDeep(filePath, t.n.position?.start.line ?? 1, depth);
    if ('children' in t.n && (t.n.type === 'root' || t.n.type === 'list' || t.n.type === 'listItem' || t.n.type === 'blockquote')) {
      for (const c of t.n.children as Content[]) todo.push({ n: c, depth });
    }
  }
}

/**
 * `text` with up to `col - 1` columns of leading spaces and tabs removed from every line after the
 * first (the first starts at the block's own column), trailing white space trimmed. One pass over
 * the text (it built a RegExp per block before).
 */
export function dedent(text: string, col: number): string {
  const max = Math.max(0, col - 1);
  let out = '';
  let from = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', nl + 1)) {
    out += text.slice(from, nl + 1);
    let k = nl + 1;
    while (k < text.length && k - (nl + 1) < max && (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x09)) k++;
    from = k;
    nl = k - 1;
  }
  out += text.slice(from);
  return out.trimEnd(); // not /\s+$/: that is quadratic in a long inner run of white space
}

/** A list item's text without its marker (`- `, `* `, `+ `, `1. `, `1) `), for the classifier. */
function withoutMarker(text: string): string {
  return text.replace(/^(?:[-*+]|\d{1,9}[.)])[ \t]+/, '');
}

/**
 * True when a paragraph introduces what follows: its text ends with `:` (after closing emphasis
 * or code marks), or it is a bold label alone (`**Note**`, `__Rules__:`).
 */
export function introduces(paragraph: string): boolean {
  const t = paragraph.trim();
  if (/:[*_`)\]]*$/.test(t)) return true;
  return /^(\*\*|__)[^\n]+?\1:?$/.test(t);
}

/** True when a paragraph's text is a GFM table (a header row, then a delimiter row). */
export function looksLikeTable(text: string): boolean {
  const lines = text.trim().split('\n');
  return lines.length >= 2 && lines[0].includes('|') && isDelimiterRow(lines[1] as string);
}

/**
 * True when `row` is a GFM table delimiter row: cells of `:?-+:?` (white space around them)
 * separated by `|`, with an optional `|` at either end. Cell by cell, linear: the former single
 * RegExp (`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`) was quadratic in a long run of white space.
 */
function isDelimiterRow(row: string): boolean {
  let t = row.trim();
  if (t.startsWith('|')) t = t.slice(1);
  if (t.endsWith('|')) t = t.slice(0, -1);
  return t.split('|').every((cell) => /^:?-+:?$/.test(cell.trim()));
}

/**
 * The pieces of a run-on legacy line (a `.cursorrules` file flattened to one line): groups
 * separated by two or more spaces. A group with ` - ` separators is a label with its items and
 * stays one piece; a group that introduces what follows (ends with `:`) takes the following
 * groups that are list items (`- …`, `1. …`) into its piece. Each piece is a verbatim substring
 * of the line; pieces under 2 characters are dropped. Linear in the line length.
 */
export function runOnPieces(line: string): string[] {
  const groups: Array<{ start: number; end: number }> = [];
  for (const m of line.matchAll(/\S+(?:\s\S+)*/g)) groups.push({ start: m.index as number, end: (m.index as number) + m[0].length });
  const out: string[] = [];
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i] as { start: number; end: number };
    let end = g.end;
    if (introduces(line.slice(g.start, g.end))) {
      while (i + 1 < groups.length && /^(?:[-*+]|\d{1,9}[.)])\s/.test(line.slice((groups[i + 1] as { start: number }).start, (groups[i + 1] as { end: number }).end))) end = (groups[++i] as { end: number }).end;
    }
    const piece = line.slice(g.start, end);
    if (piece.length >= 2) out.push(piece);
  }
  return out;
}

/** The source text of a heading without its `#` marks (ATX) or underline (setext). */
function headingText(h: Block, body: string): string {
  const raw = body.slice(h.position?.start.offset ?? 0, h.position?.end.offset ?? 0);
  const firstLine = raw.split('\n')[0];
  if (/^\s{0,3}#/.test(firstLine)) return withoutClosingHashes(firstLine.replace(/^\s{0,3}#+\s*/, '')).trim();
  return firstLine.trim();
}

/**
 * An ATX heading's text without its closing sequence (white space, `#`s, optional white space at
 * the end), as `/\s+#+\s*$/` removed it — in one pass from the end (that RegExp was quadratic in a
 * long run of white space inside the heading).
 */
function withoutClosingHashes(text: string): string {
  const t = text.trimEnd();
  let j = t.length;
  while (j > 0 && t.charCodeAt(j - 1) === 0x23) j--;
  if (j === t.length || j === 0 || !/\s/.test(t[j - 1] as string)) return text;
  return t.slice(0, j);
}
