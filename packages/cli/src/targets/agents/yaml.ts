/**
 * Writing frontmatter values that package text (scope patterns) flows into, in two forms:
 *
 * - quoted (`yamlQuote`, `yamlList`): a YAML double-quoted scalar whose characters outside
 *   printable ASCII are `\uXXXX` escapes, so a pattern can never end the frontmatter, start a key
 *   or hide a character (spec/pack.md §8). For agents that read their frontmatter as YAML
 *   (Claude Code `paths`, Copilot `applyTo`, Kiro `fileMatchPattern`, Cline `paths`).
 * - bare (`bareGlobs`): comma-joined patterns as the raw rest of the line, for agents whose reader
 *   takes `key: rest of line` verbatim (Cursor and Windsurf `globs`). Both agents' docs write the
 *   globs unquoted, a leading `*` included, which no YAML parser reads, so their readers are not
 *   YAML; Cursor's keeps quote characters in the value, and a quoted glob matches nothing
 *   (oven-sh/bun#24853; cosai-oasis/project-codeguard#121, tested on Cursor 3.17); Windsurf's
 *   example is `globs: **` + `/*.test.ts` (docs.windsurf.com/windsurf/cascade/memories).
 *   Nothing can be escaped there, so a pattern that could end the line, split at a comma, lose a
 *   space, start a comment or read as YAML syntax is refused (`barePatternProblem`) and the caller
 *   skips it for that agent with a warning (`ScopedRules.patternProblem`).
 *
 * Patterns with controls or line breaks are refused before they get here (`usablePattern`).
 */
import { matchesOnlyEmptyPath } from '@ctxpkg/format/pack/glob';

/** A YAML double-quoted scalar of `s` (printable ASCII kept, everything else escaped). */
export function yamlQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else if (c <= 0xffff) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += '\\U' + c.toString(16).padStart(8, '0');
  }
  return out + '"';
}

/** A YAML flow sequence of quoted scalars: `["a", "b"]`. */
export function yamlList(items: readonly string[]): string {
  return `[${items.map(yamlQuote).join(', ')}]`;
}

/** Frontmatter lines between `---` fences, LF-terminated. */
export function frontmatter(lines: readonly string[]): string {
  return ['---', ...lines, '---', ''].join('\n');
}

/** Most expansions of one pattern (`{a,b}` groups) written for comma-joined fields. */
const MAX_EXPANSIONS = 32;

/**
 * `patterns` as a list without commas inside any entry, for fields that join patterns with
 * commas (Cursor `globs`, Copilot `applyTo`, Windsurf `globs`): each non-nested `{a,b}` group is
 * expanded (at most 32 results per pattern; bounded work). A pattern that still holds a comma
 * (nested groups, or too many expansions) is kept whole and reported in `unsplittable`.
 */
export function commaFree(patterns: readonly string[]): { patterns: string[]; unsplittable: string[] } {
  const out: string[] = [];
  const unsplittable: string[] = [];
  for (const p of patterns) {
    let work = [p];
    let ok = true;
    for (let guard = 0; guard < MAX_EXPANSIONS && work.some((w) => w.includes(',')); guard++) {
      const next: string[] = [];
      for (const w of work) {
        const open = w.indexOf('{');
        const close = open >= 0 ? w.indexOf('}', open) : -1;
        const inner = close > open ? w.slice(open + 1, close) : '';
        if (open < 0 || close < 0 || inner.includes('{') || !inner.includes(',')) {
          next.push(w);
          continue;
        }
        for (const alt of inner.split(',')) next.push(w.slice(0, open) + alt + w.slice(close + 1));
      }
      if (next.length > MAX_EXPANSIONS || next.length === work.length) {
        ok = next.length === work.length && !next.some((w) => w.includes(','));
        if (next.length <= MAX_EXPANSIONS) work = next;
        break;
      }
      work = next;
    }
    if (!ok || work.some((w) => w.includes(','))) {
      unsplittable.push(p);
      out.push(p);
    } else out.push(...work);
  }
  return { patterns: [...new Set(out)], unsplittable };
}

/**
 * Why `pattern` cannot be part of a comma-joined field (Copilot `applyTo`, Cursor and Windsurf
 * `globs`), or undefined: it holds a comma that `commaFree` cannot expand away (nested `{a,{b,c}}`
 * groups, more than 32 expansions), and the agent would split it there into other patterns; or
 * one of its `{a,b}` alternatives gives a piece that matches only the empty path
 * (`matchesOnlyEmptyPath`: `{,}`, `{,web/**}`), which the field would carry as an empty pattern —
 * `globs: ` or `globs: ,web/**` (attack pass 2, finding 5: an empty Cursor `globs` with a
 * description makes the rule agent-requested instead of path-scoped). Linear.
 */
export function commaProblem(pattern: string): string | undefined {
  const { patterns, unsplittable } = commaFree([pattern]);
  if (unsplittable.length > 0) return 'it holds a comma outside a simple {a,b} group, and the agent splits the field at commas';
  if (patterns.some(matchesOnlyEmptyPath)) return 'an alternative of its {a,b} group is empty, which the comma-joined field would carry as an empty pattern';
  return undefined;
}

/** Characters YAML reads as syntax at the start of a plain value (YAML 1.2 §5.3 indicators; `*` is let through below). */
const LEADING_INDICATOR = /^(?:["'[\]{}&!|>%@`,]|[-?:](?:\s|$))/;
/**
 * Plain scalars a YAML reader resolves to something other than a string: the YAML 1.2 core schema
 * (null, bool, int, float) and the YAML 1.1 forms js-yaml and others still read (yes/no/on/off,
 * `_` in numbers, `0b`, sexagesimal `1:30`, timestamps, the merge key `<<`, the value key `=`).
 * Anchored alternatives without nested repetition: linear.
 */
const TYPED =
  /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[yYnN]|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|[-+]?(?:0b[01_]+|0o?[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*(?::[0-5]?[0-9])*|[0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[0-9][0-9_]*[eE][-+]?[0-9]+|\.(?:inf|Inf|INF))|\.(?:nan|NaN|NAN)|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt ].*)?|<<|=)$/;

/** Controls, format characters and every separator but the ASCII space (U+2028/2029 end a YAML line). */
const UNWRITABLE = /[\p{C}\p{Zl}\p{Zp}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\t]/u;

/**
 * Why `pattern` cannot be written bare into a comma-joined `globs:` line (`bareGlobs`), or
 * undefined when it can. Each piece after `{a,b}` expansion (`commaFree`) must:
 *
 * - hold no comma and not be empty (`commaProblem`): the agent splits the line at commas, and an
 *   empty piece would leave the line empty or starting with a comma;
 * - hold no control, format or separator character other than the ASCII space (a line break or
 *   U+2028 would end the line and start a frontmatter key or a `---` fence on the next);
 * - not start or end with a space (readers trim the value or the pieces: the pattern would change);
 * - have no `#` at its start or after a space (YAML reads a comment there), and no `:` before a
 *   space or at its end (a reader that splits `key: value` lines could split there);
 * - not start with a YAML indicator other than `*` (`"`, `'`, `[`, `{`, `&`, `!`, `|`, `>`, `%`,
 *   `@`, a backtick, or `-`, `?`, `:` before a space): YAML readers would take syntax, not text;
 * - not be a value YAML resolves to another type (`true`, `null`, `1.5`, `~`, `2024-01-01`: `TYPED`).
 *
 * A piece YAML cannot parse at all (one starting with `*` is an alias to no anchor) is fine, as in
 * the agents' own documented examples: their readers take the raw line. A `---` inside a pattern
 * needs nothing: the value never starts a line. Linear in the pattern's length, no YAML library
 * loaded (sync weighs every target's frontmatter, enabled or not).
 */
export function barePatternProblem(pattern: string): string | undefined {
  const comma = commaProblem(pattern);
  if (comma !== undefined) return comma;
  for (const piece of commaFree([pattern]).patterns) {
    if (UNWRITABLE.test(piece)) return 'it holds a control, line-break or separator character, which an unquoted value cannot carry';
    if (piece.startsWith(' ') || piece.endsWith(' ')) return 'it starts or ends with a space, which the agent trims';
    if (/(?:^|\s)#/.test(piece)) return 'a "#" at its start or after a space starts a YAML comment';
    if (/:(?:\s|$)/.test(piece)) return 'a ":" before a space or at its end reads as a key, not as text';
    const lead = LEADING_INDICATOR.exec(piece);
    if (lead) return `it starts with ${JSON.stringify(lead[0].trim())}, which YAML reads as syntax in an unquoted value`;
    if (TYPED.test(piece)) return 'unquoted, YAML reads it as a boolean, null, number or date, not as text';
  }
  return undefined;
}

/**
 * `patterns` (each accepted by `barePatternProblem`) as the bare value of a comma-joined
 * `globs:` line: `{a,b}` groups expanded, joined with `,` and no spaces (Cursor reads a space
 * after a comma as part of the next pattern).
 */
export function bareGlobs(patterns: readonly string[]): string {
  return commaFree(patterns).patterns.join(',');
}
