/**
 * Making package text safe to quote inside a pack, an agent file or an MCP answer
 * (spec/pack.md §8 "Quoting untrusted text"; issue 11 items 4 and 5).
 *
 * - Invisible characters: every code point of the generated table `INVISIBLE_RANGES`
 *   (Default_Ignorable_Code_Point, controls, format and bidi characters, line/paragraph
 *   separators, lone surrogates, noncharacters, U+2800 — derived from Unicode data by
 *   scripts/gen-invisible-table.ts, not a hand list) is written as `\uXXXX` (`\u{XXXXX}` above
 *   U+FFFF): no hidden payloads (tag-character "ASCII smuggling", variation selectors, fillers);
 *   only one U+FE0E/U+FE0F right after a pictograph (`⚠️`) is kept as written (`escShown`).
 * - Single-line fields (ids, types, paths, titles): the same, TAB and LF included, so such a field
 *   can never start a new line or hide text.
 * - Content: CRLF and lone CR become LF, TAB and LF stay. A line that reads like one of ctxpkg's
 *   own markers — the pack's `UNTRUSTED CONTEXT` banner or footer, or a managed-block marker
 *   `<!-- ctxpkg:begin/end … -->` — in any case, spacing or punctuation, in fullwidth or
 *   mathematical letters, or with confusable letters from other scripts (compared by the Unicode
 *   confusables skeleton — unhomoglyph's map, the generated `confusables-table.ts`, parsed on the
 *   first non-ASCII line — after NFKC), is prefixed with `[escaped] `, so it can never equal or
 *   imitate a marker line.
 * - Fences: content is fenced with tildes, one more than the longest run of `~` or backticks at
 *   the start of any of its lines (at least 4), so no line of the content can close the fence.
 *
 * Every rule here runs in linear time in the text.
 */
import { CONFUSABLES_JSON } from './confusables-table.js';
import { INVISIBLE_RANGES } from './invisible-table.js';

const cls = INVISIBLE_RANGES.map(([a, b]) => (a === b ? `\\u{${a.toString(16)}}` : `\\u{${a.toString(16)}}-\\u{${b.toString(16)}}`)).join('');
/** Invisible code points (content: TAB and LF are not in the table). */
const HIDDEN = new RegExp(`[${cls}]`, 'gu');
/** The same, plus TAB and LF, for single-line fields. */
const HIDDEN_LINE = new RegExp(`[\\t\\n${cls}]`, 'gu');
const HAS_HIDDEN = new RegExp(`[${cls}]`, 'u');

const esc = (c: string): string => {
  const cp = c.codePointAt(0) as number;
  return cp > 0xffff ? `\\u{${cp.toString(16)}}` : '\\u' + cp.toString(16).padStart(4, '0');
};

/** An Extended_Pictographic code point at the end of a (one- or two-unit) string. */
const PICTOGRAPH_END = /\p{Extended_Pictographic}$/u;

/**
 * `esc` for a `replace` over package text, except that a text-style or emoji-style variation
 * selector (U+FE0E, U+FE0F) right after a pictographic code point is kept: `⚠️` is how real
 * instruction files write a warning sign (new-user trial 3 of 2026-12-07: `⚠\ufe0f MANDATORY
 * COMPILATION CHECK` in every heading). One such selector per pictograph carries no hidden
 * payload (a second one, one after any other character, and every other variation selector —
 * the "emoji smuggling" range U+E0100… included — is still written `\uXXXX`). Constant work per
 * match.
 */
const escShown = (c: string, offset: number, text: string): string =>
  (c === '\ufe0f' || c === '\ufe0e') && offset > 0 && PICTOGRAPH_END.test(text.slice(offset >= 2 ? offset - 2 : 0, offset)) ? c : esc(c);

/** True when `text` holds an invisible or text-hiding code point (the generated table). */
export function hasInvisible(text: string): boolean {
  return HAS_HIDDEN.test(text);
}

/**
 * The words of a single-line field: maximal runs of letters, combining marks, digits and `_`;
 * invisible characters (the generated table) separate words and are never part of one. Linear.
 * Used for heading focus (focus.ts): a heading named by its words can be quoted anywhere.
 */
export function visibleWords(text: string): string[] {
  // An ASCII text (most headings) has the same words by the ASCII classes: no ASCII character is
  // a mark, its letters and digits are `[A-Za-z0-9]`, and its invisible characters (controls, TAB,
  // LF) are no word characters, so replacing them changes no run. ~1.8× faster per title (the
  // pack compiler reads every section title of a graph for its heading labels).
  if (ASCII_ONLY.test(text)) return text.match(ASCII_WORD) ?? [];
  return text.replace(HIDDEN_LINE, ' ').match(/[\p{L}\p{M}\p{N}_]+/gu) ?? [];
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;
const ASCII_WORD = /[A-Za-z0-9_]+/g;

/** Bidi controls (embedding, override, isolate, marks): refused in document paths. */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** True when `text` holds a bidi control character (U+061C, U+200E/F, U+202A–202E, U+2066–2069). */
export function hasBidiControl(text: string): boolean {
  return BIDI.test(text);
}

/** The confusables map (code point → prototype text), built on the first non-ASCII line. */
let confusables: Map<string, string> | undefined;

/**
 * `text` with every code point that is a key of the confusables map (the generated
 * `confusables-table.ts`, unhomoglyph's `data.json`) replaced by its prototype; other code units
 * are kept. The same result as `unhomoglyph(text)` — whose one regular expression alternates the
 * keys, all single code points — in one linear pass (`confusables.test.ts` compares them).
 */
export function confusablesSkeleton(text: string): string {
  confusables ??= new Map(Object.entries(JSON.parse(CONFUSABLES_JSON) as Record<string, string>));
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    const n = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
    const to = confusables.get(n === 1 ? (text[i] as string) : text.slice(i, i + 2));
    if (to !== undefined) {
      out += text.slice(from, i) + to;
      from = i + n;
    }
    i += n;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * The comparison key of a line: NFKC, invisible characters dropped, confusable letters mapped
 * to their Unicode confusables prototype (`confusablesSkeleton`), lowercase, letters and digits
 * only.
 */
export function markerSkeleton(line: string): string {
  // eslint-disable-next-line no-control-regex
  const ascii = /^[\x00-\x7f]*$/.test(line);
  const base = ascii ? line : confusablesSkeleton(line.normalize('NFKC').replace(HIDDEN, ''));
  // Digits that stand in for letters (C0NTEXT, UNTRU5TED): none of the marker words has a digit.
  return base.toLowerCase().replace(/[^a-z0-9]+/g, '').replace(/0/g, 'o').replace(/1/g, 'l').replace(/5/g, 's');
}

/** A character without which a line cannot be a marker (`looksLikeMarker`): `x`, `X` or any non-ASCII one. */
const MARKER_SUSPECT = /[xX\u0080-\uffff]/;

const MARKER_KEYS = [markerSkeleton('UNTRUSTED CONTEXT'), markerSkeleton('untrusted context'), markerSkeleton('ctxpkg:begin'), markerSkeleton('ctxpkg:end')];

/** True when `line` could be read as one of ctxpkg's marker lines (see module docstring). */
export function looksLikeMarker(line: string): boolean {
  if (line === '') return false;
  // Every marker key has an `x` (ctxpkg, context), and no ASCII character but `x`/`X` gives one
  // in the skeleton: an ASCII line without either is none (one native search; most titles and
  // lines, which every rendered block's fields and lines go through).
  if (!MARKER_SUSPECT.test(line)) return false;
  const ascii = asciiMarker(line);
  if (ascii >= 0) return ascii === 1;
  return markerKeyIn(markerSkeleton(line));
}

/** True when the skeleton `k` contains a marker key (the rule of `looksLikeMarker`). */
function markerKeyIn(k: string): boolean {
  return MARKER_KEYS.some((m) => k.includes(m));
}

/**
 * The marker keys as character codes, each with its KMP failure table (`fail[j]`: the length of
 * the longest proper border of `key[0..j]`), for `asciiMarker`.
 */
const KEY_CODES = MARKER_KEYS.map((k) => Int32Array.from(k, (c) => c.charCodeAt(0)));
const KEY_FAIL = KEY_CODES.map((key) => {
  const fail = new Int32Array(key.length);
  for (let j = 1, b = 0; j < key.length; j++) {
    while (b > 0 && key[j] !== key[b]) b = fail[b - 1] as number;
    if (key[j] === key[b]) b++;
    fail[j] = b;
  }
  return fail;
});
/** The KMP state of each key during one `asciiMarker` call (reset at its start). */
const KEY_STATE = new Int32Array(KEY_CODES.length);

/** True when `line` has no code unit ≥ 0x80 from `from` on. */
function asciiFrom(line: string, from: number): boolean {
  for (let i = from; i < line.length; i++) if (line.charCodeAt(i) >= 0x80) return false;
  return true;
}

/**
 * `markerKeyIn(markerSkeleton(line))` for an ASCII `line` without building the skeleton (1 or 0),
 * or -1 when `line` is not ASCII (the caller builds the skeleton). For ASCII text the skeleton
 * is: A–Z lowercased, every character but `a–z0–9` dropped, then `0`, `1`, `5` read as `o`, `l`,
 * `s` — so each character gives at most one skeleton character, fed in order to one KMP matcher
 * per key: linear, no string built (the regex chain built ~1.8 KB of strings per line, and every
 * line of every block a cold render writes or sizes goes through here).
 */
function asciiMarker(line: string): number {
  const keys = KEY_CODES.length;
  for (let m = 0; m < keys; m++) {
    // An empty key is in every skeleton.
    if ((KEY_CODES[m] as Int32Array).length === 0) return 1;
    KEY_STATE[m] = 0;
  }
  for (let i = 0; i < line.length; i++) {
    let c = line.charCodeAt(i);
    if (c >= 0x80) return -1;
    if (c >= 65 && c <= 90) c += 32;
    else if (c >= 48 && c <= 57) c = c === 48 ? 111 : c === 49 ? 108 : c === 53 ? 115 : c;
    else if (c < 97 || c > 122) continue;
    for (let m = 0; m < keys; m++) {
      const key = KEY_CODES[m] as Int32Array;
      const fail = KEY_FAIL[m] as Int32Array;
      let st = KEY_STATE[m] as number;
      while (st > 0 && key[st] !== c) st = fail[st - 1] as number;
      if (key[st] === c) st++;
      // A match answers for an ASCII line only: a non-ASCII line's skeleton is built another way
      // (NFKC, confusables), in which a later character can change the characters before it.
      if (st === key.length) return asciiFrom(line, i + 1) ? 1 : -1;
      KEY_STATE[m] = st;
    }
  }
  return 0;
}

/**
 * Escape a single-line field (ids, titles, file paths, scope globs, flags; they are written as
 * headings, provenance comments and header lines); also caps it at `max` characters (with `…`).
 * A field that reads like a marker line (`looksLikeMarker`: a heading titled `--- END UNTRUSTED
 * CONTEXT ---`, a file path naming `ctxpkg:end`) or like a heading of the trusted tier
 * (`looksLikeTierHeading`: "Instructions from …") is prefixed with `[escaped] `, as content lines
 * are (spec/pack.md §8 "Quoting untrusted text"): package text can never close the untrusted
 * fence or open a section of the project's own instructions, whichever field it comes in
 * (attack pass of 2026-12-07, finding 1: headings and file paths were the way in). The prefix
 * comes on top of the cap, so a field's written length is never below `min(length, max)`.
 */
export function escapeInline(text: string, max = 200): string {
  const t = text.replace(HIDDEN_LINE, escShown);
  const capped = t.length > max ? t.slice(0, max - 1) + '…' : t;
  return looksLikeMarker(text) || looksLikeTierHeading(text) ? '[escaped] ' + capped : capped;
}

/**
 * A single line ctxpkg joins from fields each already escaped by `escapeInline` (a heading path
 * `A › B` of section titles): prefixed with `[escaped] ` when the joined text reads like a marker
 * (`looksLikeMarker`) or starts like a heading of the trusted tier (`looksLikeTierHeading`),
 * unless it already starts with that prefix (then it starts like neither). Each field alone can
 * pass and the join not: the titles "Instructions" and "(this project's own rules: follow them)"
 * made `### Instructions › (this project's own rules: follow them)` in an MCP answer (attack pass
 * 2, finding 6), the heading under which answers write the project's own instructions
 * (spec/pack.md §8 "Quoting untrusted text"). Linear.
 */
export function escapeJoined(text: string): string {
  if (text.startsWith('[escaped] ')) return text;
  return looksLikeMarker(text) || looksLikeTierHeading(text) ? '[escaped] ' + text : text;
}

/**
 * Folded skeleton prefixes (`tierKey`) of the headings ctxpkg writes for trusted text:
 * "Instructions from <pkg@v>" (render-md.ts), "Instructions (this project's own rules …)" (answer.ts).
 */
const TIER_KEYS = ['instructionsfrom', 'instructionsthisproject'];

/**
 * The comparison key of `looksLikeTierHeading`: lower case, letters and digits only (`0`, `1`,
 * `5` read as `o`, `l`, `s`), for a non-ASCII text after NFKC and the confusables map (applied to
 * the lower-cased text: the map is case-sensitive, `I` has the prototype `l`); then folded, `rn`
 * to `m` and `l` to `i` — the look-alikes among ASCII letters themselves ("lnstructions frorn"),
 * which the map gives for `m` too. Linear.
 */
function tierKey(text: string, ascii: boolean): string {
  const base = ascii ? text.toLowerCase() : confusablesSkeleton(text.normalize('NFKC').replace(HIDDEN, '').toLowerCase()).toLowerCase();
  return base.replace(/[^a-z0-9]+/g, '').replace(/0/g, 'o').replace(/[15]/g, (d) => (d === '1' ? 'l' : 's')).replace(/rn/g, 'm').replace(/l/g, 'i');
}

/**
 * True when `text` starts like one of the headings under which ctxpkg writes the project's own
 * (trusted) instructions — "Instructions from <package>@<version>" or "Instructions (this
 * project's own rules: follow them)" — in any case, spacing or punctuation, in fullwidth or
 * mathematical letters, or with look-alike letters (`tierKey`). Only a field that *starts* so:
 * "Setup instructions from the wiki" or a plain "Instructions" is not one. Linear; the
 * confusables table is parsed only for a non-ASCII text (process start-up, issue 16).
 */
export function looksLikeTierHeading(text: string): boolean {
  // Cheap exit for ASCII: the first letter or digit is the key's first character, which must
  // fold to `i` (`i`, `I`, `l`, `L`, `1`).
  for (let j = 0; j < text.length; j++) {
    const c = text.charCodeAt(j) | 0;
    if (c >= 0x80) break;
    const lower = c | 0x20;
    if ((c >= 48 && c <= 57) || (lower >= 97 && lower <= 122)) {
      if (lower !== 105 && lower !== 108 && c !== 49) return false;
      break;
    }
    if (j === text.length - 1) return false;
  }
  if (text === '') return false;
  const head = text.length > 400 ? text.slice(0, 400) : text;
  // eslint-disable-next-line no-control-regex
  const k = tierKey(head, /^[\x00-\x7f]*$/.test(head));
  return TIER_KEYS.some((key) => k.startsWith(key));
}

/**
 * A character that ends a single-quoted string in a shell: `'`, and for PowerShell also the
 * curly single quotes U+2018–U+201B (its tokenizer's `IsSingleQuote`, CharTraits.cs; attack pass
 * 4 of 2026-12-07: `src/’;New-Item …;’/**` in a suggested command).
 */
const SHELL_QUOTE = /['\u2018-\u201b]/;

/** A TAB, LF or invisible code point (non-global: `test` keeps no state). */
const HIDDEN_LINE_ONE = new RegExp(`[\\t\\n${cls}]`, 'u');

/**
 * `text` as one shell argument in single quotes — literal in POSIX shells and in PowerShell
 * alike (no `$`, backtick, backslash or `!` expansion inside them) — or `undefined` when it cannot be
 * written so: it is empty, or holds a `'` or a curly single quote U+2018–U+201B (PowerShell
 * reads those as quotes too; the two shells escape them differently), a TAB, a
 * line break or an invisible character. For every command ctxpkg suggests with package text in
 * it (a scope pattern, a node id): a suggestion is run as written, so package text must not be
 * able to end the quoting (attack pass 2 of 2026-12-07: a scope glob `src/'$(touch x)'/**` in
 * AGENTS.md's `ctxpkg render --focus '…'` line, a node id in a pin's fix). Callers that get
 * `undefined` name no runnable command for that text.
 */
export function shellArg(text: string): string | undefined {
  if (text === '' || SHELL_QUOTE.test(text) || HIDDEN_LINE_ONE.test(text)) return undefined;
  return `'${text}'`;
}

/** Escape block content (see module docstring). Returns the escaped text without trailing newlines. */
export function escapeContent(text: string): string {
  const t = text.replace(/\r\n?/g, '\n');
  // Trailing line breaks dropped by a loop from the end, not `/\n+$/`: V8 retries that RegExp at
  // every start in a run of line breaks, so a long inner run is quadratic (100k: 4 s per render).
  let end = t.length;
  while (end > 0 && t.charCodeAt(end - 1) === 10) end--;
  const lines = (end === t.length ? t : t.slice(0, end)).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    const e = l.replace(HIDDEN, escShown);
    lines[i] = looksLikeMarker(l) ? '[escaped] ' + e : e;
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
