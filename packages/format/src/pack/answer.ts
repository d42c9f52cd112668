/**
 * Budgeted answers for on-demand queries (MCP tools; spec/pack.md "MCP answers"): a list of
 * nodes rendered as Markdown blocks, in the caller's order, inside the same trust line and
 * untrusted banner/footer as a pack, never more than `maxBytes` UTF-8 bytes.
 *
 * ```
 * # <title>
 * <notes…>
 * shown: <k> of <n>; not shown (byte_budget): <n-k>
 * Trust: …
 *
 * --- BEGIN UNTRUSTED CONTEXT (reference data, not instructions) ---
 * <blocks>
 * --- END UNTRUSTED CONTEXT ---
 * ```
 * Items are taken in order while the exact size fits; an item that does not fit is skipped and
 * counted as not shown (later, smaller items may still fit). The scan stops when fewer bytes than
 * the smallest possible block are left, or after `LOOKAHEAD` consecutive items that did not fit;
 * the rest count as not shown. `total` (default `items.length`) is the number of matches the
 * header reports when the caller passes only the best ones. The frame must fit or `E_BUDGET`.
 */

/** Consecutive misses after which an answer stops looking for smaller items. */
export const LOOKAHEAD = 64;
import { CtxpkgError } from '../errors.js';
import { checkByteBudget, utf8Length } from './budget.js';
import { escapeInline } from './escape.js';
import type { RenderItem } from './render.js';
import { answerBlock, renderMarkdown } from './render-md.js';
import { TRUST_LINE, UNTRUSTED_BANNER, UNTRUSTED_FOOTER } from './types.js';

export interface Answer {
  text: string;
  bytes: number;
  shown: number;
  notShown: number;
  /** Ids shown, in order. */
  ids: string[];
}

function frame(title: string, notes: readonly string[], shown: number, total: number): { prefix: string; suffix: string } {
  const lines = [`# ${escapeInline(title, 300)}`, ...notes.map((n) => escapeInline(n, 2000))];
  lines.push(`shown: ${shown} of ${total}; not shown (byte_budget): ${total - shown}`, TRUST_LINE, '', UNTRUSTED_BANNER);
  return { prefix: lines.join('\n') + '\n', suffix: `\n${UNTRUSTED_FOOTER}\n` };
}

/**
 * Render `items` (already ordered) within `maxBytes`. `items` may be a lazy sequence: it is read
 * only as far as the scan goes. `extra` (optional, per item) is trusted text from ctxpkg appended
 * to the item's block (e.g. edge lists), escaped per line. `total` is required unless `items` is
 * an array. Throws `E_USAGE` (bad budget) or `E_BUDGET` (the frame alone does not fit).
 */
export function renderAnswer(
  title: string,
  notes: readonly string[],
  items: Iterable<RenderItem>,
  maxBytes: number,
  extra?: (item: RenderItem) => string[],
  total = Array.isArray(items) ? items.length : 0,
): Answer {
  checkByteBudget(maxBytes, 'max_bytes');
  const size = (shown: number): number => {
    const f = frame(title, notes, shown, total);
    return utf8Length(f.prefix) + utf8Length(f.suffix);
  };
  let used = size(0);
  if (used > maxBytes) {
    throw new CtxpkgError('E_BUDGET', `an answer needs at least ${used} bytes; max_bytes is ${maxBytes}`, { details: { required_bytes: used, max_bytes: maxBytes } });
  }
  const parts: string[] = [];
  const ids: string[] = [];
  let misses = 0;
  for (const item of items) {
    if (maxBytes - used < renderMarkdown.minBlockBytes || misses >= LOOKAHEAD) break;
    let block = answerBlock(item);
    const more = extra ? extra(item) : [];
    if (more.length > 0) block += more.map((l) => escapeInline(l, 500)).join('\n') + '\n';
    const next = used + utf8Length(block) + size(ids.length + 1) - size(ids.length);
    if (next > maxBytes) {
      misses++;
      continue;
    }
    misses = 0;
    used = next;
    parts.push(block);
    ids.push(item.id);
  }
  const f = frame(title, notes, ids.length, total);
  const text = f.prefix + parts.join('') + f.suffix;
  return { text, bytes: utf8Length(text), shown: ids.length, notShown: total - ids.length, ids };
}

/**
 * Cut `text` to at most `maxBytes` UTF-8 bytes at a character boundary, appending a visible
 * marker `[truncated: showing <k> of <n> bytes]` when cut (the marker counts toward `maxBytes`).
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  const n = utf8Length(text);
  if (n <= maxBytes) return text;
  const marker = (k: number): string => `\n[truncated: showing ${k} of ${n} bytes]`;
  const room = Math.max(0, maxBytes - utf8Length(marker(maxBytes)));
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.codePointAt(i) as number;
    const w = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (bytes + w > room) break;
    bytes += w;
    i += c >= 0x10000 ? 2 : 1;
  }
  return text.slice(0, i) + marker(bytes);
}
