/**
 * Making package text safe to quote inside a pack (spec/pack.md "Quoting untrusted text").
 *
 * - Single-line fields (ids, types, paths, section titles): control characters, line breaks and
 *   invisible/bidi characters are written as `\uXXXX` escapes, so such a field can never start a
 *   new line or hide text.
 * - Content: CRLF and lone CR become LF; other C0 controls (except TAB), DEL, C1 controls and
 *   invisible/bidi format characters become `\uXXXX` escapes (no hidden payloads, seed 000);
 *   a line mentioning the marker phrase `UNTRUSTED CONTEXT` (any case and spacing) is prefixed
 *   with `[escaped] ` so it can never equal or imitate the pack's banner or footer lines.
 * - Fences: content is fenced with tildes, one more than the longest run of `~` or backticks at
 *   the start of any of its lines (at least 4), so no line of the content can close the fence.
 */

/** Controls, DEL, C1 controls, and invisible/bidi format characters (escaped everywhere). */
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g;
/** The same, plus TAB and LF, for single-line fields. */
const HIDDEN_LINE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g;
const MARKER = /untrusted\s+context/i;

const hex4 = (c: string): string => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0');

/** Escape a single-line field; also caps it at `max` characters (with `…`). */
export function escapeInline(text: string, max = 200): string {
  const t = text.replace(HIDDEN_LINE, hex4);
  return t.length > max ? t.slice(0, max - 1) + '…' : t;
}

/** Escape block content (see module docstring). Returns the escaped text without trailing newlines. */
export function escapeContent(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').replace(HIDDEN, hex4).replace(/\n+$/, '').split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (MARKER.test(lines[i] as string)) lines[i] = '[escaped] ' + lines[i];
  }
  return lines.join('\n');
}

/** A tilde fence longer than any fence-like run at the start of a line of `text` (≥ 4). */
export function fenceFor(text: string): string {
  let longest = 3;
  for (const m of text.matchAll(/^[ \t]*(~+|`+)/gm)) longest = Math.max(longest, (m[1] as string).length);
  return '~'.repeat(longest + 1);
}

/**
 * A lower bound, in UTF-8 bytes, of `escapeContent(text)` computed without escaping: escaping
 * only lengthens text except that CRLF becomes LF (one character less per CR) and trailing
 * newlines are dropped; UTF-8 never takes fewer bytes than UTF-16 code units. O(1) for text
 * without CR.
 */
export function contentLowerBound(text: string): number {
  let end = text.length;
  while (end > 0 && (text.charCodeAt(end - 1) === 10 || text.charCodeAt(end - 1) === 13)) end--;
  let cr = 0;
  for (let i = text.indexOf('\r'); i >= 0 && i < end; i = text.indexOf('\r', i + 1)) cr++;
  return Math.max(0, end - cr);
}
