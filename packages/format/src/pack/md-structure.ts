/**
 * Keeping package text from forging the structure of a Markdown pack (spec/pack.md §8
 * "Quoting"). Node text is written verbatim, without a fence, so a line of it could otherwise
 * pass for one of the pack's own headings or provenance comments, or an unclosed code fence
 * could swallow everything after it.
 *
 * `escapeStructure(text)` makes one linear pass over the lines (text already passed
 * `escapeContent`: LF line ends, no control or invisible characters), tracking fenced code
 * (CommonMark: a line of ≥ 3 backticks or tildes opens a fence — at any indent, since fences
 * inside list items are indented; a line of at least as many of the same character, nothing else
 * but spaces, closes it). Outside fenced code:
 *
 * - an ATX heading line (`#`…`######` then a space or the end) gets `\` before its first `#`;
 * - a setext underline (`===` or `---`, ≤ 3 spaces of indent, after a non-blank line) gets `\`;
 * - a line starting an HTML comment (`<!--`) gets `\` before `<`;
 *
 * each a standard Markdown backslash escape, so the text still reads the same. A fence still open
 * at the end is closed with a line of its own fence characters. Lines inside fenced code are
 * never changed. Escaping only lengthens text.
 */

const FENCE = /^[ \t]*(`{3,}|~{3,})(.*)$/;
const HEADING = /^( {0,3})(#{1,6})(?:[ \t]|$)/;
const SETEXT = /^( {0,3})(?:=+|-+)[ \t]*$/;
const COMMENT = /^( {0,3})<!--/;

/** Escape what could pass for pack structure (see module docstring). Linear in the text length. */
export function escapeStructure(text: string): string {
  if (!/[#=\-<`~]/.test(text)) return text;
  const lines = text.split('\n');
  let fence: string | undefined;
  let prevBlank = true;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const f = FENCE.exec(line);
    if (fence !== undefined) {
      if (f && (f[1] as string)[0] === fence[0] && (f[1] as string).length >= fence.length && (f[2] as string).trim() === '') fence = undefined;
      prevBlank = false;
      continue;
    }
    if (f && !((f[1] as string)[0] === '`' && (f[2] as string).includes('`'))) {
      fence = f[1] as string;
      prevBlank = false;
      continue;
    }
    let m = HEADING.exec(line) ?? COMMENT.exec(line);
    if (!m && !prevBlank) m = SETEXT.exec(line);
    if (m) lines[i] = `${m[1] as string}\\${line.slice((m[1] as string).length)}`;
    prevBlank = line.trim() === '';
  }
  if (fence !== undefined) lines.push(fence);
  return lines.join('\n');
}
