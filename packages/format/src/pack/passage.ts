/**
 * Passages: what search ranks and answers show (spec/pack.md §12). A node is the unit of
 * selection — a lead-in stays one node with its list (spec/format.md §16) — but an answer to a
 * question needs the item that answers it, not 3 KB around it. So a node longer than
 * `EXCERPT_OVER` bytes is searched as passages: each of its units with the node's lead-in (when
 * it has one), verbatim, with `[…]` where the rest of the node is left out.
 *
 * Units (one linear pass over the lines, fenced code tracked): a unit starts at a list item at
 * the node's own indent (`- `, `* `, `+ `, `1. `, `1) `) or at a non-blank line at that indent
 * after a blank line; indented lines, continuation lines and fenced code stay in their unit.
 * The lead-in is the first unit when it is not a list item, there are more units, and it ends
 * with `:` or is a bold label. A node on one line, or with a single unit, is one passage (an
 * excerpt must be whole lines).
 * Pure and deterministic.
 */
import { utf8Length } from './budget.js';

/** Nodes longer than this (UTF-8 bytes) are shown as an excerpt in search answers. */
export const EXCERPT_OVER = 600;

/** What a search answer shows of a node. Line indexes are 0-based into the node's content lines. */
export interface Passage {
  text: string;
  /** True when the rest of the node is left out. */
  excerpt: boolean;
  /** First and last content line of the unit (the lead-in excluded). */
  first: number;
  last: number;
}

const ITEM = /^(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
const FENCE = /^[ \t]*(`{3,}|~{3,})/;

interface Unit {
  start: number;
  /** Exclusive; trailing blank lines removed. */
  end: number;
}

/** Split content lines into units (see module docstring). */
function unitsOf(lines: readonly string[]): Unit[] {
  const units: Unit[] = [];
  let fence: string | undefined;
  let prevBlank = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const f = FENCE.exec(line);
    const blank = line.trim() === '';
    const atIndent = !blank && !/^[ \t]/.test(line);
    if (fence === undefined && atIndent && (units.length === 0 || ITEM.test(line) || prevBlank)) units.push({ start: i, end: i + 1 });
    if (f) {
      const run = f[1] as string;
      if (fence === undefined) fence = run;
      else if (run[0] === fence[0] && run.length >= fence.length) fence = undefined;
    }
    if (units.length === 0) units.push({ start: i, end: i + 1 });
    if (!blank) (units[units.length - 1] as Unit).end = i + 1;
    prevBlank = blank;
  }
  return units;
}

/** True when a unit's text introduces what follows (ends with `:` or is a bold label alone). */
function introduces(text: string): boolean {
  const t = text.trim();
  return /:[*_`)\]]*$/.test(t) || /^(\*\*|__)[^\n]+?\1:?$/.test(t);
}

/**
 * The passages of `content`, the units search ranks and answers show: the whole content when it
 * is at most `EXCERPT_OVER` bytes, on one line, or a single unit; otherwise one passage per unit
 * after the lead-in, each with the lead-in (when the node has one) and `[…]` marking what is left
 * out before and after it. `index` is the text to index (lead-in and unit, no marks).
 */
export function passagesOf(content: string): Array<Passage & { index: string }> {
  // Most nodes are short: decide without splitting (a UTF-16 unit is at most 3 UTF-8 bytes).
  if (content.length * 3 <= EXCERPT_OVER || (content.length <= EXCERPT_OVER && utf8Length(content) <= EXCERPT_OVER)) {
    let last = 0;
    for (let i = content.indexOf('\n'); i >= 0; i = content.indexOf('\n', i + 1)) last++;
    return [{ text: content, index: content, excerpt: false, first: 0, last }];
  }
  const lines = content.split('\n');
  if (utf8Length(content) <= EXCERPT_OVER || lines.length === 1) return [{ text: content, index: content, excerpt: false, first: 0, last: lines.length - 1 }];
  const units = unitsOf(lines);
  if (units.length < 2) return [{ text: content, index: content, excerpt: false, first: 0, last: lines.length - 1 }];
  const textOf = (u: Unit): string => lines.slice(u.start, u.end).join('\n');
  const gap = (from: number, to: number): boolean => lines.slice(from, to).some((l) => l.trim() !== '');
  const first = units[0] as Unit;
  const hasLead = !ITEM.test(lines[first.start] as string) && introduces(textOf(first));
  const lead = hasLead ? textOf(first) : undefined;
  return (hasLead ? units.slice(1) : units).map((u) => {
    const parts: string[] = lead !== undefined ? [lead] : [];
    if (gap(hasLead ? first.end : 0, u.start)) parts.push('[…]');
    parts.push(textOf(u));
    if (gap(u.end, lines.length)) parts.push('[…]');
    return { text: parts.join('\n'), index: lead !== undefined ? `${lead}\n${textOf(u)}` : textOf(u), excerpt: true, first: u.start, last: u.end - 1 };
  });
}

/**
 * The list items of a node with a list, for budgeting (spec/pack.md §4 "List nodes"): line ranges
 * `[start, end)` into `content.split('\n')` that cover every line in order — the first is the
 * lead-in with the first unit after it (or the first unit, when the node starts with its list),
 * each other one unit (a top-level list item with its continuation lines and nested items, or a
 * paragraph). `undefined` when the node is not a list (fewer than two units, or no unit after
 * the first is a list item). Linear in the content length.
 */
export function listPieces(content: string): Array<{ start: number; end: number }> | undefined {
  const lines = content.split('\n');
  const units = unitsOf(lines);
  if (units.length < 2 || !units.slice(1).some((u) => ITEM.test(lines[u.start] as string))) return undefined;
  const lead = !ITEM.test(lines[(units[0] as Unit).start] as string);
  const starts = (lead ? units.slice(1) : units).map((u) => u.start);
  starts[0] = 0;
  if (starts.length < 2) return undefined;
  return starts.map((start, k) => ({ start, end: k + 1 < starts.length ? (starts[k + 1] as number) : lines.length }));
}
