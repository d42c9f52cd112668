/**
 * YAML frontmatter of instruction files and the scope it declares (spec/format.md
 * "Importers, provenance and scope" § Scope):
 *   Cursor `.mdc`: `globs` (comma-separated string or list; `alwaysApply: true` adds nothing);
 *   Copilot `*.instructions.md`: `applyTo` (comma-separated string or list);
 *   Claude rules: `paths` (string or list).
 * Each glob is returned with the 1-based line it was written on.
 *
 * Frontmatter is untrusted text (a cloned repository's rules), so every failure is an `E_SOURCE`
 * `CtxpkgError` naming `<file>:<line>` (issue 11):
 * - nesting deeper than `MAX_YAML_NESTING` (flow `[`/`{` or block indentation and `- `/`? `
 *   indicators) is refused by a linear pre-scan before the YAML parser runs: the parser recurses
 *   per level, and 20,000 `[` (40 KB) killed the whole process (a fatal out-of-memory in V8's
 *   RegExp compiler on the exhausted stack, not an exception);
 * - aliases (`*name`) are refused: the parser left a scope given through one (`globs: *a`)
 *   silently unread — the rule became unscoped — an undefined one threw a plain ReferenceError and
 *   an alias bomb ("billion laughs") another; nothing here needs them;
 * - a YAML syntax error names the line it is on (the closing `---` when it is at the end);
 * - anything else the parser throws becomes `E_SOURCE` too.
 * Values are read from the parsed document (never `toJS`, which printed process warnings for
 * collection keys and expanded aliases). Linear in the frontmatter's length.
 */
import { parseDocument, visit, isAlias, isMap, isScalar, isSeq, type Node as YamlNode } from 'yaml';
import { CtxpkgError } from '@ctxpkg/format';
import { lineIndex } from './line-index.js';

export interface Frontmatter {
  /**
   * Where the body starts: the 0-based provenance line (`splitLines`) and the character offset in
   * it. `{ line: 0, column: 0 }` when there is no frontmatter. The column is above 0 only when the
   * closing fence ends with a CR inside a provenance line (CR-only or mixed line ends).
   */
  bodyStart: { line: number; column: number };
  /** Scope globs in file order with their (provenance) line. */
  globs: Array<{ glob: string; line: number }>;
  /** `description` when it is a string. */
  description?: string;
  /** The 1-based (provenance) line the description's value starts on. */
  descriptionLine?: number;
}

/** A line of the frontmatter scan: text without its line end, its 0-based provenance line, and where it starts in that line. */
interface SubLine {
  text: string;
  line: number;
  column: number;
}

/**
 * The lines of `lines` (provenance lines, from `splitLines`) split again at every CR they still
 * hold, lazily (the caller stops at the closing fence): CR, CRLF and LF each end one line, as
 * editors and the YAML parser read them. Each piece keeps the provenance line it is on.
 */
function* subLines(lines: string[]): Generator<SubLine> {
  for (let line = 0; line < lines.length; line++) {
    const l = lines[line] as string;
    let column = 0;
    for (let cr = l.indexOf('\r'); cr >= 0; cr = l.indexOf('\r', column)) {
      yield { text: l.slice(column, cr), line, column };
      column = cr + 1;
    }
    // The rest, ended by the LF (or the end of the file); empty after a final CR, as LF splitting
    // gives an empty last line after a final LF.
    yield { text: l.slice(column), line, column };
  }
}

const SCOPE_KEYS = new Set(['globs', 'applyTo', 'paths']);

/** Deepest nesting of YAML collections read in frontmatter (flow and block together). */
export const MAX_YAML_NESTING = 32;

/** The `E_SOURCE` error for frontmatter of `filePath` at file line `line`. */
function bad(filePath: string, line: number, why: string): CtxpkgError {
  return new CtxpkgError('E_SOURCE', `${filePath}:${line}: invalid YAML frontmatter: ${why}`, {
    hint: 'fix the frontmatter between the --- lines (plain keys, strings and lists)',
    details: { file: filePath, line },
  });
}

/**
 * The frontmatter of a file given as its provenance lines (`splitLines`, CRs inside lines kept):
 * a first line `---`, then YAML, then a line `---` or `...`. Lines end at LF, CRLF or CR alike
 * (spec/format.md "Line ends"), so a CR-only or mixed-line-end rule keeps its scope; every line
 * number returned is a provenance line (1-based), the one the text is on. Throws `E_SOURCE`
 * (see the module comment). Linear in the text scanned.
 */
export function parseFrontmatter(lines: string[], filePath: string): Frontmatter {
  const empty: Frontmatter = { bodyStart: { line: 0, column: 0 }, globs: [] };
  const it = subLines(lines);
  const first = it.next();
  if (first.done || first.value.text.trim() !== '---') return empty;
  const sub: SubLine[] = [first.value];
  let close = -1;
  for (let r = it.next(); !r.done; r = it.next()) {
    sub.push(r.value);
    const t = r.value.text.trim();
    if (t === '---' || t === '...') {
      close = sub.length - 1;
      break;
    }
  }
  if (close < 0) return empty;
  const fence = sub[close] as SubLine;
  const after = fence.column + fence.text.length;
  const fenceLine = lines[fence.line] as string;
  // The body starts after the fence's line end: its CR (same provenance line) or the LF.
  const bodyStart = after < fenceLine.length ? { line: fence.line, column: after + 1 } : { line: fence.line + 1, column: 0 };
  const body = sub.slice(1, close).map((l) => l.text).join('\n');
  /** The 1-based provenance line of the frontmatter scan's line `k` (0-based, fences included). */
  const fileLine = (k: number): number => (sub[k] as SubLine).line + 1;
  // The file line of an offset in `body` by binary search over its line starts (it was a scan
  // from the start per glob: quadratic in a long list of globs).
  const bodyLine = lineIndex(body);
  const lineOf = (offset: number): number =>
    offset >= body.length && body.length > 0 ? fileLine(close) : fileLine(bodyLine(offset));
  const deep = yamlNesting(body);
  if (deep) throw bad(filePath, fileLine(1 + deep.line), `nested more than ${MAX_YAML_NESTING} levels deep`);
  let doc;
  try {
    doc = parseDocument(body, { uniqueKeys: true, prettyErrors: false });
  } catch (e) {
    throw bad(filePath, fileLine(close), e instanceof Error ? e.message : String(e));
  }
  if (doc.errors.length > 0) {
    const err = doc.errors[0] as { message: string; pos?: [number, number] };
    throw bad(filePath, lineOf(err.pos?.[0] ?? body.length), err.message);
  }
  let alias: number | undefined;
  visit(doc, {
    Alias(_key, node) {
      alias = node.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  if (alias !== undefined) throw bad(filePath, lineOf(alias), 'aliases (*name) are not read in frontmatter; write the value itself');
  const out: Frontmatter = { bodyStart, globs: [] };
  if (!isMap(doc.contents)) return out;
  for (const pair of doc.contents.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (key === 'description' && isScalar(pair.value) && typeof pair.value.value === 'string') {
      out.description = pair.value.value;
      out.descriptionLine = lineOf(pair.value.range?.[0] ?? 0);
    }
    if (!SCOPE_KEYS.has(key)) continue;
    const value = pair.value as YamlNode | null;
    const add = (raw: unknown, offset: number): void => {
      if (typeof raw !== 'string') return;
      const line = lineOf(offset);
      for (const g of raw.split(',')) {
        const glob = g.trim();
        if (glob !== '') out.globs.push({ glob, line });
      }
    };
    if (isSeq(value)) {
      for (const item of value.items) {
        if (isScalar(item)) add(item.value, item.range?.[0] ?? 0);
      }
    } else if (isScalar(value)) {
      add(value.value, value.range?.[0] ?? 0);
    } else if (isAlias(value)) {
      throw bad(filePath, lineOf(value.range?.[0] ?? 0), 'aliases (*name) are not read in frontmatter');
    }
  }
  return out;
}

/**
 * The first line (0-based in `body`) where YAML collections nest deeper than `MAX_YAML_NESTING`,
 * or undefined. One pass; lines split at LF, CR and CRLF as the YAML parser splits them.
 *
 * - Flow: `[` and `{` outside quoted scalars and comments open a level, `]` and `}` close one. A
 *   quote opens a scalar only where one can start (line start, or after `: `, `- `, `? `, `[`,
 *   `{`, `,`), so an apostrophe in plain text never hides brackets; every bracket of the text is
 *   also counted without regard to quotes against a limit 8 times higher.
 * - Block: the stack of increasing indentations of the lines outside flow collections and block
 *   scalars (`|`, `>` content), plus the `- ` and `? ` indicators that start the line.
 */
function yamlNesting(body: string): { line: number } | undefined {
  const RAW_LIMIT = 8 * MAX_YAML_NESTING;
  let flow = 0;
  let raw = 0;
  let quote = 0; // 0, or the char code of the open quote
  const indents: number[] = [];
  let scalarIndent = -1; // > -1: inside a block scalar whose header line had this indentation
  let line = 0;
  let s = 0;
  const n = body.length;
  while (s <= n) {
    let e = s;
    while (e < n && body.charCodeAt(e) !== 0x0a && body.charCodeAt(e) !== 0x0d) e++;
    const next = e < n && body.charCodeAt(e) === 0x0d && body.charCodeAt(e + 1) === 0x0a ? e + 2 : e + 1;
    let i = s;
    while (i < e && body.charCodeAt(i) === 0x20) i++;
    const indent = i - s;
    const blank = i === e || body.charCodeAt(i) === 0x23; // blank or comment only
    for (let k = s; k < e; k++) {
      const c = body.charCodeAt(k);
      if (c === 0x5b || c === 0x7b) raw++;
      else if ((c === 0x5d || c === 0x7d) && raw > 0) raw--;
    }
    if (raw > RAW_LIMIT) return { line };
    if (scalarIndent >= 0 && (blank || indent > scalarIndent)) {
      // Block scalar content: text, not structure.
    } else if (blank && quote === 0) {
      // nothing
    } else {
      scalarIndent = -1;
      let k = i;
      if (flow === 0 && quote === 0) {
        while (indents.length > 0 && (indents[indents.length - 1] as number) >= indent) indents.pop();
        indents.push(indent);
        let depth = indents.length;
        // Compact indicators: `- - x`, `? - x`.
        while (k < e && (body.charCodeAt(k) === 0x2d || body.charCodeAt(k) === 0x3f) && (k + 1 === e || body.charCodeAt(k + 1) === 0x20)) {
          depth++;
          k += 2;
          while (k < e && body.charCodeAt(k) === 0x20) k++;
        }
        if (depth > MAX_YAML_NESTING) return { line };
      }
      // Flow brackets and quotes through the rest of the line.
      let prev = k === i ? -1 : 0x20; // -1: at the start of the line's content
      for (; k < e; k++) {
        const c = body.charCodeAt(k);
        if (quote !== 0) {
          if (quote === 0x22 && c === 0x5c) k++;
          else if (c === quote) quote = 0;
          prev = 0x61;
          continue;
        }
        if (c === 0x23 && (prev === -1 || prev === 0x20 || prev === 0x09)) break; // comment
        if ((c === 0x22 || c === 0x27) && canStartScalar(body, k, s, prev)) quote = c;
        else if (c === 0x5b || c === 0x7b) {
          if (++flow > MAX_YAML_NESTING) return { line };
        } else if ((c === 0x5d || c === 0x7d) && flow > 0) flow--;
        prev = c;
      }
      // A block scalar header ends the line: `key: |`, `- >-`, `|2+`.
      if (flow === 0 && quote === 0 && blockScalarHeader(body, i, e)) scalarIndent = indent;
    }
    line++;
    s = next;
  }
  return undefined;
}

/** True when a quote at `k` starts a quoted scalar: at the line's content start, or after `[`, `{`, `,`, or `: `/`- `/`? `. */
function canStartScalar(body: string, k: number, lineStart: number, prev: number): boolean {
  if (prev === -1 || prev === 0x5b || prev === 0x7b || prev === 0x2c) return true;
  let j = k - 1;
  while (j >= lineStart && (body.charCodeAt(j) === 0x20 || body.charCodeAt(j) === 0x09)) j--;
  if (j < lineStart) return true;
  const c = body.charCodeAt(j);
  if (c === 0x5b || c === 0x7b || c === 0x2c) return true;
  return j < k - 1 && (c === 0x3a || c === 0x2d || c === 0x3f);
}

/** True when the line `body[i, e)` ends in a block scalar header (`|` or `>` with optional indicators) after a key or `- `. */
function blockScalarHeader(body: string, i: number, e: number): boolean {
  let j = e - 1;
  while (j >= i && (body.charCodeAt(j) === 0x20 || body.charCodeAt(j) === 0x09)) j--;
  let marks = 0;
  while (j >= i && marks < 2 && /[0-9+-]/.test(body[j] as string)) {
    j--;
    marks++;
  }
  if (j < i) return false;
  const c = body.charCodeAt(j);
  if (c !== 0x7c && c !== 0x3e) return false;
  return j === i || body.charCodeAt(j - 1) === 0x20;
}
