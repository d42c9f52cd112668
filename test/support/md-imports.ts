/**
 * How Claude Code and Gemini CLI find `@path` imports in a Markdown file, for tests (new-user
 * finding 24). The file is parsed by a CommonMark parser (mdast, the importer's):
 * - Claude Code (code.claude.com/docs/en/memory): `(?:^|\s)@(\S+)` in text, never in code spans
 *   or code blocks;
 * - Gemini CLI (geminicli.com/docs/core/memport): an `@` at the file start or after a space, tab or
 *   line break in the raw file, outside code spans and code blocks.
 */
import { fromMarkdown } from 'mdast-util-from-markdown';

interface Node {
  type: string;
  value?: string;
  children?: Node[];
  position?: { start: { offset?: number }; end: { offset?: number } };
}

/** The paths a Claude-Code-like scanner would import from `md`. */
export function claudeImports(md: string): string[] {
  const out: string[] = [];
  const walk = (n: Node): void => {
    if (n.type === 'inlineCode' || n.type === 'code') return;
    if (n.type === 'text' && n.value !== undefined) for (const m of n.value.matchAll(/(?:^|\s)@(\S+)/g)) out.push(m[1] as string);
    for (const c of n.children ?? []) walk(c);
  };
  walk(fromMarkdown(md) as Node);
  return out;
}

/** The paths a Gemini-CLI-like scanner would import from `md`. */
export function geminiImports(md: string): string[] {
  const code: Array<[number, number]> = [];
  const walk = (n: Node): void => {
    if ((n.type === 'inlineCode' || n.type === 'code') && n.position) code.push([n.position.start.offset ?? 0, n.position.end.offset ?? 0]);
    for (const c of n.children ?? []) walk(c);
  };
  walk(fromMarkdown(md) as Node);
  const out: string[] = [];
  for (const m of md.matchAll(/(^|[ \t\n\r])@([^ \t\n\r]+)/g)) {
    const at = (m.index as number) + (m[1] as string).length;
    if (!code.some(([a, b]) => at >= a && at < b)) out.push(m[2] as string);
  }
  return out;
}

/** Every `@` after whitespace or at a line start, code or not (a scanner that ignores Markdown). */
export const rawAfterSpace = (md: string): number => [...md.matchAll(/(^|[ \t\n\r])@[^ \t\n\r]/g)].length;
