/**
 * A linear pre-scan of Markdown for how deeply lists and block quotes nest, run before the
 * Markdown parser sees the text (issue 11).
 *
 * The parser (micromark, through mdast-util-from-markdown) spends time quadratic in the nesting
 * depth: 4,000 list items each nested in the one before (`- - - … x`, 8 KB) took 15–22 s and then
 * overflowed the stack; 1 MB of step-indented items took ~90 s. No instruction file needs more
 * than a handful of levels, so a file whose lists and quotes nest deeper than `MAX_NESTING` is
 * refused with `E_SOURCE` naming the file and line before any parsing happens.
 *
 * The scan follows CommonMark's container rules closely enough to be an upper bound in practice:
 * per line it matches the open containers (a quote needs `>` after at most 3 spaces; a list item
 * needs the line indented to its content column, or a blank line), then counts the containers the
 * line opens (`>`, `-`/`*`/`+`/`1.`/`1)` followed by a space, a tab or the end of the line; not a
 * thematic break; not after 4 or more columns of indentation, which is code or continuation text).
 * Where it cannot tell, it errs towards the deeper answer: fenced code is scanned like any other
 * text (a fence's lines cannot hide nesting from the count). A line that opens a container is
 * never a lazy continuation (the parser closes what the line does not continue). On 20,000
 * random texts of list, quote, fence, tab and line-ending tokens it is never below the parser's
 * depth by more than one level (tabs after `>`; the importer checks the parsed tree too). Lines
 * are split at LF, CR and CRLF, as the parser splits them; line numbers count the same way. Each character is
 * looked at a bounded number of times (a line opening more than `MAX_NESTING` containers stops
 * the scan), so the whole scan is linear in the text.
 */
import { CtxpkgError } from '@ctxpkg/format';

/** Deepest nesting of list items and block quotes (together) the Markdown importer reads. */
export const MAX_NESTING = 32;

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const GT = 0x3e;

/** An open container: a block quote, or a list item whose content starts at column `content`. */
const QUOTE = -1;

/** The E_SOURCE error for a line nested deeper than `MAX_NESTING` (`depth` levels at `line`, 1-based). */
export function tooDeep(filePath: string, line: number, depth: number): CtxpkgError {
  return new CtxpkgError('E_SOURCE', `${filePath}:${line}: lists and block quotes nest ${depth > MAX_NESTING ? 'more than ' + MAX_NESTING : depth} levels deep; at most ${MAX_NESTING} are read`, {
    hint: 'flatten the nested list or quote: instruction files are read as items of a few levels',
    details: { file: filePath, line, max_nesting: MAX_NESTING },
  });
}

/**
 * Throws `E_SOURCE` (`<filePath>:<line>: lists and block quotes nest more than 32 levels deep …`)
 * when a line of the Markdown `text` lies inside more than `MAX_NESTING` list items and block
 * quotes. Linear in `text.length` (characters). Rules in the module comment.
 */
export function checkNesting(text: string, filePath: string): void {
  const deepest = nestingDepth(text, MAX_NESTING);
  if (deepest.depth > MAX_NESTING) throw tooDeep(filePath, deepest.line, deepest.depth);
}

/**
 * The deepest nesting of list items and block quotes in `text` by the scan of the module comment
 * (an upper bound of what the parser builds) and the first line (1-based) reaching it; the scan
 * stops at the first line deeper than `limit`. Linear in `text.length`.
 */
export function nestingDepth(text: string, limit: number): { depth: number; line: number } {
  const deepest = { depth: 0, line: 0 };
  const stack: number[] = [];
  let prevParagraph = false;
  let lineNo = 0;
  let s = 0;
  const n = text.length;
  while (s <= n) {
    lineNo++;
    let e = s;
    while (e < n && text.charCodeAt(e) !== LF && text.charCodeAt(e) !== CR) e++;
    const next = e < n && text.charCodeAt(e) === CR && text.charCodeAt(e + 1) === LF ? e + 2 : e + 1;
    // `i` is the next character, `col` its column (tabs to multiples of 4), `base` the column the
    // matched containers have consumed (it can sit inside a run of white space).
    let i = s;
    let col = 0;
    let base = 0;
    /** Skip white space from `i`; returns the column of the first other character. */
    const skipSpace = (): number => {
      while (i < e) {
        const c = text.charCodeAt(i);
        if (c === SPACE) col++;
        else if (c === TAB) col += 4 - (col % 4);
        else break;
        i++;
      }
      return col;
    };
    let matched = 0;
    for (; matched < stack.length; matched++) {
      const c = stack[matched] as number;
      const at = skipSpace();
      if (c === QUOTE) {
        if (i < e && text.charCodeAt(i) === GT && at - base <= 3) {
          i++;
          col = at + 1;
          base = col;
          if (i < e && (text.charCodeAt(i) === SPACE || text.charCodeAt(i) === TAB)) base = col + 1;
          continue;
        }
        break;
      }
      if (i === e || at >= c) {
        base = Math.max(base, c);
        continue;
      }
      break;
    }
    const at = skipSpace();
    const blank = i === e;
    // Containers this line opens, from `i` on (content columns, or QUOTE).
    const fresh: number[] = [];
    let endsInEmptyItem = false;
    // The containers opened leave nothing after them on the line (`>` alone, an empty item): no
    // paragraph is open, so the next line cannot be its lazy continuation.
    let restBlank = false;
    if (!blank && at - base < 4) {
      let pos = i;
      let pcol = at;
      let pbase = base;
      for (;;) {
        // At most 3 columns of indentation before a marker (relative to what the line consumed).
        let q = pos;
        let qcol = pcol;
        while (q < e && (text.charCodeAt(q) === SPACE || text.charCodeAt(q) === TAB)) {
          qcol = text.charCodeAt(q) === TAB ? qcol + 4 - (qcol % 4) : qcol + 1;
          q++;
        }
        if (q === e) {
          restBlank = true;
          break;
        }
        if (qcol - pbase >= 4) break;
        if (text.charCodeAt(q) === GT) {
          fresh.push(QUOTE);
          pos = q + 1;
          pcol = qcol + 1;
          pbase = pcol;
          if (pos < e && (text.charCodeAt(pos) === SPACE || text.charCodeAt(pos) === TAB)) pbase = pcol + 1;
        } else {
          const m = listMarker(text, q, e);
          if (m === 0 || isThematicBreak(text, q, e)) break;
          const markerCol = qcol + m;
          let r = q + m;
          let rcol = markerCol;
          while (r < e && (text.charCodeAt(r) === SPACE || text.charCodeAt(r) === TAB)) {
            rcol = text.charCodeAt(r) === TAB ? rcol + 4 - (rcol % 4) : rcol + 1;
            r++;
          }
          const empty = r === e;
          const codeInside = !empty && rcol - markerCol > 4;
          fresh.push(empty || codeInside ? markerCol + 1 : rcol);
          endsInEmptyItem = empty;
          if (empty || codeInside) break;
          // The item's content may open further containers on the same line.
          pos = r;
          pcol = rcol;
          pbase = rcol;
        }
        if (matched + fresh.length > deepest.depth) {
          deepest.depth = matched + fresh.length;
          deepest.line = lineNo;
          if (deepest.depth > limit) return deepest;
        }
      }
    }
    const isParagraph: boolean = !blank && fresh.length === 0 && (at - base >= 4 ? prevParagraph : !isNonParagraphLeaf(text, i, e));
    if (fresh.length > 0) {
      // A line that opens a container closes the containers it does not continue, as the parser
      // does — even an empty item or one not numbered 1, which could not interrupt a paragraph:
      // the paragraph lies in a container the line left (micromark: '>x' then '-' is a quote,
      // then a list). Reading such a line as a lazy continuation kept the quote open, and the
      // items nested under the new one went uncounted ('>x', '-', '\t- * ': 1 level, parser 3).
      stack.length = matched;
      stack.push(...fresh);
      prevParagraph = !endsInEmptyItem && !restBlank;
    } else if (blank) {
      // A blank line continues list items but ends block quotes and paragraphs.
      stack.length = matched;
      prevParagraph = false;
    } else {
      // A line that does not continue every container closes the rest, unless it is a lazy
      // paragraph continuation.
      if (matched < stack.length && !(prevParagraph && isParagraph)) stack.length = matched;
      prevParagraph = isParagraph;
    }
    if (stack.length > deepest.depth) {
      deepest.depth = stack.length;
      deepest.line = lineNo;
      if (deepest.depth > limit) return deepest;
    }
    s = next;
  }
  return deepest;
}


/** Length of a list marker at `q` (`-`, `*`, `+`, or 1–9 digits and `.`/`)`) followed by white space or the line end; 0 if none. */
function listMarker(text: string, q: number, e: number): number {
  const ch = text.charCodeAt(q);
  let end = q;
  if (ch === 0x2d || ch === 0x2a || ch === 0x2b) end = q + 1;
  else {
    while (end < e && end - q < 9 && text.charCodeAt(end) >= 0x30 && text.charCodeAt(end) <= 0x39) end++;
    if (end === q || end >= e || (text.charCodeAt(end) !== 0x2e && text.charCodeAt(end) !== 0x29)) return 0;
    end++;
  }
  if (end < e && text.charCodeAt(end) !== SPACE && text.charCodeAt(end) !== TAB) return 0;
  return end - q;
}

/** True when `text[q, e)` is a thematic break: 3 or more of one of `-`, `*`, `_` and white space only. */
function isThematicBreak(text: string, q: number, e: number): boolean {
  const ch = text.charCodeAt(q);
  if (ch !== 0x2d && ch !== 0x2a && ch !== 0x5f) return false;
  let count = 0;
  for (let k = q; k < e; k++) {
    const c = text.charCodeAt(k);
    if (c === ch) count++;
    else if (c !== SPACE && c !== TAB) return false;
  }
  return count >= 3;
}

/** True when `text[i, e)` (non-blank, indented less than 4) starts a heading, fence, thematic break or HTML block: not paragraph text. */
function isNonParagraphLeaf(text: string, i: number, e: number): boolean {
  const ch = text.charCodeAt(i);
  if (ch === 0x23 || ch === 0x60 || ch === 0x7e || ch === 0x3c) return true; // # ` ~ <
  return isThematicBreak(text, i, e);
}


