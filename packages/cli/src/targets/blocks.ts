/**
 * Marker-delimited managed blocks in agent instruction files (spec/pack.md "Sync"). Pure string
 * functions.
 *
 * A block is
 * ```
 * <!-- ctxpkg:begin sha256=<hex of body> (managed by `ctxpkg sync`; edits here stop its updates) -->
 * <body>
 * <!-- ctxpkg:end -->
 * ```
 * with both markers on lines of their own. The begin marker carries the SHA-256 of the body (LF
 * line ends), so a user edit is detected from the file alone — also in a fresh clone without
 * `.ctxpkg/sync.json`. An edited block is never overwritten or removed.
 */
import { createHash } from 'node:crypto';

export const BLOCK_END = '<!-- ctxpkg:end -->';
const BEGIN_RE = /^<!-- ctxpkg:begin sha256=([0-9a-f]{64})\b[^\n]*-->[ \t]*$/;
const BEGIN_LOOSE = /^<!--\s*ctxpkg:begin\b/;
const END_LOOSE = /^<!--\s*ctxpkg:end\b/;

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The block text for `body` (no trailing newline). */
export function makeBlock(body: string): string {
  const b = body.replace(/\r\n?/g, '\n').replace(/\n+$/, '');
  return `<!-- ctxpkg:begin sha256=${sha256(b)} (managed by \`ctxpkg sync\`; edits here stop its updates) -->\n${b}\n${BLOCK_END}`;
}

/** Bytes a block adds around its body (markers and their line breaks). */
export function blockOverhead(): number {
  return Buffer.byteLength(makeBlock(''), 'utf8');
}

export type BlockState =
  | { kind: 'none' }
  /** `start`/`end`: character offsets of the block (begin marker … end marker, inclusive). */
  | { kind: 'ok'; start: number; end: number; edited: boolean; text: string }
  | { kind: 'malformed'; reason: string };

/** Locate the managed block of `text`. */
export function findBlock(text: string): BlockState {
  const lines = text.split('\n');
  const begins: number[] = [];
  const ends: number[] = [];
  lines.forEach((raw, i) => {
    const l = raw.replace(/\r$/, '');
    if (BEGIN_LOOSE.test(l.trim())) begins.push(i);
    else if (END_LOOSE.test(l.trim())) ends.push(i);
  });
  if (begins.length === 0 && ends.length === 0) return { kind: 'none' };
  if (begins.length !== 1 || ends.length !== 1) return { kind: 'malformed', reason: `${begins.length} begin and ${ends.length} end markers` };
  const b = begins[0] as number;
  const e = ends[0] as number;
  if (e <= b) return { kind: 'malformed', reason: 'the end marker comes before the begin marker' };
  const m = BEGIN_RE.exec((lines[b] as string).replace(/\r$/, ''));
  const offset = (line: number): number => lines.slice(0, line).reduce((n, l) => n + l.length + 1, 0);
  const start = offset(b);
  const end = offset(e) + (lines[e] as string).replace(/\r$/, '').length;
  const body = lines.slice(b + 1, e).join('\n').replace(/\r\n?/g, '\n').replace(/\n+$/, '');
  const edited = !m || sha256(body) !== m[1];
  return { kind: 'ok', start, end, edited, text: text.slice(start, end) };
}

/** Replace the located block with `block`. */
export function replaceBlock(text: string, state: Extract<BlockState, { kind: 'ok' }>, block: string): string {
  return text.slice(0, state.start) + block + text.slice(state.end);
}

/** Append `block` at the end of `text`, separated by one blank line; LF-terminated. */
export function appendBlock(text: string, block: string): string {
  if (text.trim() === '') return block + '\n';
  const base = text.replace(/\s+$/, '');
  return `${base}\n\n${block}\n`;
}

/**
 * Remove the located block and the blank line `appendBlock` put before it. Returns the new text
 * (`''` when nothing but whitespace remains).
 */
export function removeBlock(text: string, state: Extract<BlockState, { kind: 'ok' }>): string {
  const before = text.slice(0, state.start).replace(/\n\n$/, '\n');
  const after = text.slice(state.end).replace(/^\r?\n/, '');
  const out = before + after;
  return out.trim() === '' ? '' : out;
}
