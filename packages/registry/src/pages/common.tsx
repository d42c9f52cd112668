/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
/**
 * Small pieces shared by several pages: dates, type badges, search snippets, package rows.
 * Every value shown is a JSX child or attribute, so Hono escapes it.
 */
import { nodeClass } from './palette.js';

/** `2026-01-02 03:04 UTC` for an RFC 3339 time (the full text in the `datetime` attribute). */
export function When(p: { at: string | null | undefined }) {
  if (!p.at) return <span class="muted">—</span>;
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(p.at);
  return <time datetime={p.at}>{m ? `${m[1]} ${m[2]} UTC` : p.at}</time>;
}

/** A coloured node-type badge. */
export function TypeBadge(p: { type: string }) {
  return <span class={`badge ${nodeClass(p.type)}`}>{p.type}</span>;
}

/**
 * A search snippet with the matched words (written between `[` and `]` by the store's
 * `readableSnippet`) highlighted. The text is split, never parsed as markup.
 */
export function Snippet(p: { text: string }) {
  const parts: Array<string | { mark: string }> = [];
  const re = /\[([^[\]\n]{1,200})\]/g;
  let last = 0;
  for (let m = re.exec(p.text); m !== null; m = re.exec(p.text)) {
    if (m.index > last) parts.push(p.text.slice(last, m.index));
    parts.push({ mark: m[1] });
    last = m.index + m[0].length;
  }
  if (last < p.text.length) parts.push(p.text.slice(last));
  return <span class="snippet">{parts.map((x) => (typeof x === 'string' ? x : <mark>{x.mark}</mark>))}</span>;
}

/** `1.2 KB`-style size (decimal units) for a byte count. */
export function bytesText(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} KB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}

/** `1 node` / `3 nodes`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;
}

/**
 * A node's text for reading in the tree: Markdown soft line breaks (a line that continues the
 * previous one) become spaces, as a Markdown reader shows them; list items, quotes, headings and
 * blank lines keep their breaks. Text with code (fences, indented code) or tables is left exactly
 * as written. Display only: the node page and the diff show the exact text. Linear time.
 */
export function readableText(s: string): string {
  const lines = s.split('\n');
  if (lines.some((l) => /^(?:```|~~~| {4}|\t|[ \t]*\|)/.test(l))) return s;
  let out = lines[0];
  for (let i = 1; i < lines.length; i++) {
    const cur = lines[i].replace(/^[ \t]+/, '');
    const prev = lines[i - 1];
    const breaks = cur === '' || prev.trim() === '' || /^(?:[-*+>#]|[0-9]{1,9}[.)])(?:[ \t]|$)/.test(cur);
    out += breaks ? `\n${lines[i]}` : ` ${cur}`;
  }
  return out;
}
