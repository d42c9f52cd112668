/**
 * Writing frontmatter values that package text (scope patterns) flows into. Every value is a
 * YAML double-quoted scalar whose characters outside printable ASCII are `\uXXXX` escapes, so a
 * pattern can never end the frontmatter, start a key or hide a character (spec/pack.md §8).
 * Patterns with controls or line breaks are refused before they get here (`usablePattern`).
 */
import { yamlLib } from '../../lazy-libs.js';

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

/**
 * `value` unquoted when YAML reads it back as exactly that string (Cursor documents its globs
 * unquoted), else quoted.
 */
export function yamlPlainOrQuoted(value: string): string {
  if (/^[A-Za-z0-9._/-][\x21-\x7e]*$/.test(value) && !/[#:]/.test(value)) {
    try {
      if ((yamlLib().parse(`v: ${value}`) as { v?: unknown })?.v === value) return value;
    } catch {
      /* not plain */
    }
  }
  return yamlQuote(value);
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
