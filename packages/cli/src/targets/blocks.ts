/**
 * Marker-delimited managed blocks in agent files (spec/pack.md §11 "Blocks"). Pure string
 * functions.
 *
 * A block is
 * ```
 * <!-- ctxpkg:begin sha256=<H> (managed by `ctxpkg sync`; edits here stop its updates) -->
 * <body>
 * <!-- ctxpkg:end sha256=<H> -->
 * ```
 * with both markers on lines of their own. `H` is the SHA-256 of the body (LF line ends) — for a
 * file ctxpkg generates whole, of its frontmatter followed by the body — so a hand edit is
 * detected from the file alone, also in a fresh clone without `.ctxpkg/sync.json`, and the end
 * marker names the same `H` as its begin marker: a line of package text can never close the
 * block or open another (package text is escaped so that no line of it starts like a marker,
 * `escapeContent`; and a forged end marker would have to name the hash of a body containing
 * itself). An edited block is never overwritten or removed.
 *
 * Blocks written before the end marker carried the hash (`<!-- ctxpkg:end -->`) are still found:
 * their end is the first plain end marker at which the body matches `H`.
 */
import { createHash } from 'node:crypto';

const NOTE = '(managed by `ctxpkg sync`; edits here stop its updates)';
const BEGIN_RE = /^<!-- ctxpkg:begin sha256=([0-9a-f]{64})\b[^\n]*-->[ \t]*\r?$/;
const END_RE = /^<!-- ctxpkg:end(?: sha256=([0-9a-f]{64}))? -->[ \t]*\r?$/;

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function normalizeBody(body: string): string {
  const t = body.replace(/\r\n?/g, '\n');
  let j = t.length;
  while (j > 0 && t.charCodeAt(j - 1) === 0x0a) j--; // not /\n+$/: quadratic in a long inner run of newlines
  return t.slice(0, j);
}

/** The hash a block's markers carry: over `prefix` (a generated file's frontmatter, else '') and the body. */
export function blockHash(body: string, prefix = ''): string {
  return sha256(prefix + normalizeBody(body));
}

/** The block text for `body` (no trailing newline). `prefix`: see `blockHash`. */
export function makeBlock(body: string, prefix = ''): string {
  const b = normalizeBody(body);
  const h = blockHash(b, prefix);
  return `<!-- ctxpkg:begin sha256=${h} ${NOTE} -->\n${b}\n<!-- ctxpkg:end sha256=${h} -->`;
}

/**
 * The whole text of a file ctxpkg generates: `head` (its frontmatter, '' for none), the block
 * whose hash covers `head` and `body`, and one line break. This is the only text such a file may
 * hold to count as unedited (`generatedFileState`).
 */
export function generatedFile(head: string, body: string): string {
  return `${head}${makeBlock(body, head)}\n`;
}

/** The body of a located block (the lines between its markers). */
export function blockBody(state: Extract<BlockState, { kind: 'ok' }>): string {
  const t = state.text;
  const first = t.indexOf('\n');
  const last = t.lastIndexOf('\n');
  return first < 0 || last <= first ? '' : t.slice(first + 1, last);
}

/** Bytes a block adds around its body (markers and their line breaks). */
export function blockOverhead(): number {
  return Buffer.byteLength(makeBlock(''), 'utf8');
}

export type BlockState =
  | { kind: 'none' }
  /**
   * `start`/`end`: character offsets of the block (begin marker … end marker, inclusive);
   * `edited`: the body no longer matches the markers' hash (or the end marker is gone).
   */
  | { kind: 'ok'; start: number; end: number; edited: boolean; text: string };

/**
 * Locate the managed block of `text` (the first begin marker written by ctxpkg). `prefixOf`
 * gives the hashed prefix for a begin marker at a character offset (a generated file's
 * frontmatter); default none. A begin marker without its end marker is an edited block ending
 * at the end of the text (never removed).
 */
export function findBlock(text: string, prefixOf: (start: number) => string = () => ''): BlockState {
  const lines = text.split('\n');
  let offset = 0;
  const starts: number[] = [];
  for (const l of lines) {
    starts.push(offset);
    offset += l.length + 1;
  }
  for (let b = 0; b < lines.length; b++) {
    const m = BEGIN_RE.exec(lines[b] as string);
    if (!m) continue;
    const h = m[1] as string;
    const start = starts[b] as number;
    const prefix = prefixOf(start);
    let legacyEnd = -1;
    // The hash of the body so far, kept incrementally (a legacy end marker is tested against
    // the body above it without hashing that body again: linear in the text, however many plain
    // end markers a hostile file holds).
    const running = legacyBodyHasher(prefix);
    for (let e = b + 1; e < lines.length; e++) {
      const em = END_RE.exec(lines[e] as string);
      if (em) {
        const end = (starts[e] as number) + (lines[e] as string).replace(/\r$/, '').length;
        if (em[1] === h) return { kind: 'ok', start, end, edited: blockHash(lines.slice(b + 1, e).join('\n'), prefix) !== h, text: text.slice(start, end) };
        if (em[1] === undefined && legacyEnd < 0 && running.digest() === h) legacyEnd = e;
      }
      running.add(lines[e] as string, e === b + 1);
    }
    if (legacyEnd >= 0) {
      const end = (starts[legacyEnd] as number) + (lines[legacyEnd] as string).replace(/\r$/, '').length;
      return { kind: 'ok', start, end, edited: false, text: text.slice(start, end) };
    }
    return { kind: 'ok', start, end: text.trimEnd().length, edited: true, text: text.slice(start) };
  }
  return { kind: 'none' };
}

/**
 * `blockHash(lines.join('\n'), prefix)` computed line by line: `add` appends a line (split at LF),
 * `digest` is the hash of what was added so far, in O(1) after amortized linear work. The body is
 * normalized as `normalizeBody` does: CR LF and a lone CR read as LF, trailing line breaks dropped
 * (held back until more text follows).
 */
function legacyBodyHasher(prefix: string): { add(line: string, first: boolean): void; digest(): string } {
  const hash = createHash('sha256').update(prefix, 'utf8');
  let pending = 0;
  return {
    add(line, first) {
      // The LF before this line, then the line: a CR before the next LF merges with it (dropped
      // here; the next line's LF stands for both; after the body's last line it is a trailing
      // line break, dropped anyway), a lone CR reads as LF.
      const piece = (first ? '' : '\n') + (line.endsWith('\r') ? line.slice(0, -1) : line).replace(/\r/g, '\n');
      let end = piece.length;
      while (end > 0 && piece.charCodeAt(end - 1) === 10) end--;
      if (end === 0) {
        pending += piece.length;
        return;
      }
      hash.update('\n'.repeat(pending) + piece.slice(0, end), 'utf8');
      pending = piece.length - end;
    },
    digest: () => hash.copy().digest('hex'),
  };
}

/** Replace the located block with `block`. */
export function replaceBlock(text: string, state: Extract<BlockState, { kind: 'ok' }>, block: string): string {
  return text.slice(0, state.start) + block + text.slice(state.end);
}

/**
 * Append `block` at the end of the user's `text`, separated by one blank line, LF-terminated.
 * The user's text is kept byte for byte; `sep` is what was put between it and the block (so
 * `removeBlock` restores the text exactly).
 */
export function appendBlock(text: string, block: string): { text: string; sep: string } {
  const sep = text === '' ? '' : text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
  return { text: `${text}${sep}${block}\n`, sep };
}

/**
 * Remove the located block, the line break after it and the separator `appendBlock` put before
 * it (`sep`; without a record: one blank line when there is one). Returns the new text (`''`
 * when nothing is left).
 */
export function removeBlock(text: string, state: Extract<BlockState, { kind: 'ok' }>, sep?: string): string {
  let before = text.slice(0, state.start);
  if (sep !== undefined) {
    if (before.endsWith(sep)) before = before.slice(0, before.length - sep.length);
  } else if (before.endsWith('\n\n')) before = before.slice(0, -1);
  const after = text.slice(state.end).replace(/^\r?\n/, '');
  return before + after;
}
