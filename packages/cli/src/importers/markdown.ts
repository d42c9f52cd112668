/**
 * Markdown instruction files → graph nodes (spec/format.md "Importers, provenance and scope").
 *
 * - The file gets a root `section` node with id `<file_path>`: its content is the title when the
 *   file has exactly one H1 and it is the first block, else the file path (category as the file's
 *   kind); its line range is the whole file.
 * - Every other heading is a `section` node spanning its heading line to the end of its section;
 *   `contains` edges go from the enclosing section to each section, bullet and paragraph.
 * - List items, paragraphs, block quotes, tables and code fences become typed nodes
 *   (`classifyBlock`); the content is the exact source text (list markers removed, continuation
 *   indentation removed, code fences intact with their fence lines). Nested list items are
 *   contained by their parent item.
 * - Frontmatter globs become `scope` nodes with `applies_to` edges from the root section.
 * - Links are returned for the caller to turn into `references` edges between files.
 *
 * Node ids are stable under edits elsewhere in the file (they never contain line numbers), see
 * `ids.ts`: sections `<file_path>:<heading path>`, blocks `<file_path>:<heading path>:<text hash>`,
 * frontmatter scope nodes `<file_path>:scope:<k>`.
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
import { blockId, headingSlug, IdAllocator, scopeId } from './ids.js';
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

/** Import one Markdown-like file. Pure; throws `E_SOURCE` only for broken frontmatter. */
export function importMarkdown(file: SourceFile): MarkdownImport {
  const lines = splitLines(file.text);
  // What the importer reads: the original lines with ctxpkg's managed blocks blanked out.
  const visible = file.excluded?.length ? splitLines(blankLines(file.text, file.excluded)) : lines;
  let last = visible.length;
  while (last > 1 && visible[last - 1].trim() === '') last--;
  const fm = parseFrontmatter(visible, file.path);
  const bodyLines = visible.map((l, i) => (i < fm.lineCount ? '' : l));
  const body = bodyLines.join('\n');
  const tree = fromMarkdown(body) as Root;

  const nodes: ContextNode[] = [];
  const edges: ContextEdge[] = [];
  const links: MarkdownImport['links'] = [];
  const ids = new IdAllocator();

  /** A node; `base` is its id before de-duplication (`ids.ts`). */
  const node = (type: string, content: string, start: number, end: number, base: string): ContextNode => {
    const id = ids.take(base);
    const n: ContextNode = {
      id,
      type,
      content,
      activation: 1.0,
      category: file.kind,
      source: sourceHash(lines, start, end),
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
  const dedent = (text: string, col: number): string => {
    const pad = new RegExp(`\n[ \\t]{0,${Math.max(0, col - 1)}}`, 'g');
    return text.replace(pad, '\n').replace(/\s+$/, '');
  };

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

  const collectLinks = (from: string, b: Parent | Block): void => {
    const visit = (n: Parent | PhrasingContent | Block): void => {
      if (n.type === 'link') links.push({ from, url: (n as { url: string }).url, line: n.position?.start.line ?? 1 });
      if ('children' in n && Array.isArray(n.children)) for (const c of n.children as PhrasingContent[]) visit(c);
    };
    visit(b);
  };

  /** Where a block goes: the node that contains it and the heading path of its section. */
  type Place = { parent: string; path: string };

  const emitText = (b: Block, at: Place, text: string, info: BlockInfo): void => {
    const s = startLine(b);
    const e = endLine(b);
    if (info.codeLang === undefined && s === e && text.length > LONG_LINE && (text.match(/\s-\s/g)?.length ?? 0) >= 3) {
      // A run-on line of pseudo-bullets (legacy .cursorrules): one node per segment.
      const segs = text.split(/\s{2,}|\s-\s/).map((x) => x.trim()).filter((x) => x.length >= 2);
      for (const seg of segs) {
        const n = node(classifyBlock(seg, info), seg, s, e, blockId(file.path, at.path, seg));
        contain(at.parent, n.id);
      }
      return;
    }
    const n = node(classifyBlock(text, info), text, s, e, blockId(file.path, at.path, text));
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
        const text = dedent(slice(b), b.position?.start.column ?? 1).replace(/^>[ \t]?/gm, '');
        emitText(b, at, text, {});
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

  const emitList = (list: List, at: Place): void => {
    for (const item of list.children) {
      const kids = item.children as Block[];
      let i = 0;
      while (i < kids.length && kids[i].type !== 'list') i++;
      const lead = kids.slice(0, i);
      let itemId = at.parent;
      if (lead.length > 0) {
        const first = lead[0];
        const lastLead = lead[lead.length - 1];
        const text = dedent(
          body.slice(first.position?.start.offset ?? 0, lastLead.position?.end.offset ?? 0),
          first.position?.start.column ?? 1,
        );
        const s = startLine(item);
        const e = endLine(lastLead);
        const info: BlockInfo = { ordered: Boolean(list.ordered) };
        if (lead.length === 1 && first.type === 'code') info.codeLang = (first.lang ?? '').toLowerCase();
        const n = node(classifyBlock(text, info), text, s, e, blockId(file.path, at.path, text));
        contain(at.parent, n.id);
        for (const b of lead) collectLinks(n.id, b);
        itemId = n.id;
      }
      for (const b of kids.slice(i)) emitBlock(b, { parent: itemId, path: at.path });
    }
  };

  for (let idx = 0; idx < top.length; idx++) {
    const b = top[idx];
    if (b === h1Root) continue;
    if (b.type === 'heading') {
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
    const here = stack[stack.length - 1];
    emitBlock(b, { parent: here.id, path: here.path });
  }
  return { rootId: root.id, nodes, edges, links };
}

/** The source text of a heading without its `#` marks (ATX) or underline (setext). */
function headingText(h: Block, body: string): string {
  const raw = body.slice(h.position?.start.offset ?? 0, h.position?.end.offset ?? 0);
  const firstLine = raw.split('\n')[0];
  if (/^\s{0,3}#/.test(firstLine)) return firstLine.replace(/^\s{0,3}#+\s*/, '').replace(/\s+#+\s*$/, '').trim();
  return firstLine.trim();
}
