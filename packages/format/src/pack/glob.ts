/**
 * The one path-glob matcher of ctxpkg (issue 11 item 3): package scope globs (`type: "scope"`
 * nodes, written from `.mdc` `globs`, Copilot `applyTo`, Claude `paths`, JSON `scope`), `--focus`
 * and MCP `render_pack` focus globs, and the path-scoped agent rule files all go through
 * `compileGlob`. Scope globs are package text, so matching must stay linear whatever they say.
 *
 * How: the glob is translated to an RE2 expression and run by RE2JS (a port of Google's RE2:
 * automata, no backtracking, time O(glob × path)). Braces become alternations (`(?:a|b)`), never
 * an expansion, so the program grows linearly with the glob; `*` and `?` become `[^/]*` and
 * `[^/]`. Bounds (`GLOB_LIMITS`) cap the glob's length and brace nesting, and a path longer than
 * `maxPathLength` never matches, so one match costs at most ~512 × 4096 automaton steps.
 *
 * Dialect (POSIX paths relative to the project root; case-sensitive; dotfiles match like any name):
 * - `**` as a whole segment matches zero or more segments (`src/**` also matches `src`;
 *   `**\/x` also matches `x`); `**` inside a segment is `*`.
 * - `*` any run of characters except `/`; `?` one character (code point) except `/`.
 * - `[abc]`, `[a-z]`, `[!a]`/`[^a]` (negated, never `/`), POSIX classes `[[:digit:]]`; a `]`
 *   right after `[`/`[!` is literal; an unclosed `[` is literal.
 * - `{a,b}` alternatives, nestable; braces without a top-level comma (`{a}`) or unclosed are literal.
 * - `\x` is the literal `x`; a leading `./` is dropped; every other character is literal
 *   (extglobs `@(…)`, `!(…)`, `+(…)` and a leading `!` are not supported: they match literally).
 *
 * Refused (`E_GLOB`, `globProblem`): empty or blank; longer than 512 characters; braces nested
 * deeper than 16; control characters; absolute (`/…`); a `..` segment; a reversed range `[z-a]`.
 */
import type { RE2JS } from 're2js';
import { CtxpkgError } from '../errors.js';
import { nodeBuiltin } from '../builtin.js';

/**
 * `require` relative to this module where the runtime hands one out synchronously (Node ≥ 20.16
 * `process.getBuiltinModule('node:module')`) — a feature probe like hash.ts's, no I/O. There RE2JS
 * (263 KB of JavaScript, ~8 ms to load) is loaded by the first glob that needs it, so a render,
 * sync or MCP start-up that matches no glob never loads it (issue 16 item 3); elsewhere it is
 * imported with this module.
 */
function probeRequire(): ((id: string) => unknown) | undefined {
  const mod = nodeBuiltin<{ createRequire: (url: string) => (id: string) => unknown }>('node:module');
  return typeof mod?.createRequire === 'function' ? mod.createRequire(import.meta.url) : undefined;
}

const requireSync = probeRequire();
let engine: typeof RE2JS | undefined = requireSync ? undefined : (await import('re2js')).RE2JS;

/** The RE2JS class, loaded on first use (see `probeRequire`). */
function re2(): typeof RE2JS {
  return (engine ??= (requireSync as (id: string) => { RE2JS: typeof RE2JS })('re2js').RE2JS);
}

/** Which way this runtime loads the glob engine: on first use (`lazy`) or with this module (`eager`). */
export const GLOB_ENGINE_LOADING: 'lazy' | 'eager' = requireSync ? 'lazy' : 'eager';

/** The bounds every glob is held to (characters = UTF-16 code units). */
export const GLOB_LIMITS = {
  /** Longest glob, in characters. */
  maxLength: 512,
  /** Deepest nesting of `{…}`. */
  maxBraceDepth: 16,
  /** Longest path a glob is matched against, in characters; longer paths never match. */
  maxPathLength: 4096,
} as const;

/** A compiled glob. */
export interface CompiledGlob {
  /** The glob as given. */
  readonly glob: string;
  /** True when the glob has no wildcard, class or brace: it matches exactly one path. */
  readonly literal: boolean;
  /** The literal text before the first wildcard, class or brace (all of it when `literal`). */
  readonly prefix: string;
  /** RE2 program size (instructions): linear in the glob's length. */
  readonly programSize: number;
  /** Whether `path` (POSIX, relative) matches; false for paths over `maxPathLength`. */
  test(path: string): boolean;
}

const POSIX_CLASSES = new Set(['alnum', 'alpha', 'ascii', 'blank', 'cntrl', 'digit', 'graph', 'lower', 'print', 'punct', 'space', 'upper', 'word', 'xdigit']);
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const lit = (c: string): string => (/^[A-Za-z0-9_]$/.test(c) ? c : `\\x{${(c.codePointAt(0) as number).toString(16)}}`);

/** A parsed `[…]` class: the RE2 text and the index after `]`, or undefined when unclosed. */
function parseClass(cs: string[], i: number): { re: string; next: number } | undefined {
  let j = i + 1;
  let negate = false;
  if (cs[j] === '!' || cs[j] === '^') {
    negate = true;
    j++;
  }
  const items: string[] = [];
  let first = true;
  while (j < cs.length) {
    const c = cs[j] as string;
    if (c === ']' && !first) {
      const body = items.join('');
      return { re: negate ? `[^/${body}]` : `[${body}]`, next: j + 1 };
    }
    first = false;
    if (c === '[' && cs[j + 1] === ':') {
      const close = cs.indexOf(':', j + 2);
      const name = close > 0 ? cs.slice(j + 2, close).join('') : '';
      if (close > 0 && cs[close + 1] === ']' && POSIX_CLASSES.has(name)) {
        items.push(`[:${name}:]`);
        j = close + 2;
        continue;
      }
    }
    let a = c;
    if (c === '\\' && j + 1 < cs.length) a = cs[++j] as string;
    if (cs[j + 1] === '-' && j + 2 < cs.length && cs[j + 2] !== ']') {
      let b = cs[j + 2] as string;
      let k = j + 2;
      if (b === '\\' && k + 1 < cs.length) b = cs[++k] as string;
      if ((a.codePointAt(0) as number) > (b.codePointAt(0) as number)) throw new RangeError(`reversed range ${a}-${b} in a [...] class`);
      items.push(`${lit(a)}-${lit(b)}`);
      j = k + 1;
      continue;
    }
    items.push(lit(a));
    j++;
  }
  return undefined;
}

/** Matching `{`…`}` pairs (index → index) of real braces, and the deepest nesting of any pair. */
function bracePairs(cs: string[]): { pairs: Map<number, { close: number; commas: number[] }>; depth: number } {
  const pairs = new Map<number, { close: number; commas: number[] }>();
  const stack: Array<{ open: number; commas: number[] }> = [];
  let depth = 0;
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i];
    if (c === '\\') i++;
    else if (c === '[') {
      const k = parseClass(cs, i);
      if (k) i = k.next - 1;
    } else if (c === '{') {
      stack.push({ open: i, commas: [] });
      depth = Math.max(depth, stack.length);
    } else if (c === ',' && stack.length > 0) (stack[stack.length - 1] as { commas: number[] }).commas.push(i);
    else if (c === '}' && stack.length > 0) {
      const top = stack.pop() as { open: number; commas: number[] };
      if (top.commas.length > 0) pairs.set(top.open, { close: i, commas: top.commas });
    }
  }
  return { pairs, depth };
}

interface Translation {
  re: string;
  literal: boolean;
  prefix: string;
}

/** Translate `cs[from, to)`; `segStart`: at a segment start; `endsSeg`: `to` is the pattern end or a `/`. */
function translate(cs: string[], from: number, to: number, segStart: boolean, endsSeg: boolean, pairs: Map<number, { close: number; commas: number[] }>): Translation {
  let re = '';
  let literal = true;
  let prefix = '';
  const stop = (): void => {
    literal = false;
  };
  const atSegEnd = (k: number): boolean => (k === to ? endsSeg : cs[k] === '/');
  let i = from;
  while (i < to) {
    const c = cs[i] as string;
    if (c === '\\' && i + 1 < to) {
      re += lit(cs[i + 1] as string);
      if (literal) prefix += cs[i + 1];
      i += 2;
      segStart = false;
      continue;
    }
    if (c === '/') {
      // `/**` closing the pattern (or an alternative that closes a segment): also the directory itself.
      if (cs[i + 1] === '*' && cs[i + 2] === '*' && i + 3 === to && endsSeg) {
        re += '(?:/.*)?';
        stop();
        i += 3;
        continue;
      }
      re += '/';
      if (literal) prefix += '/';
      segStart = true;
      i++;
      continue;
    }
    if (c === '*') {
      let k = i;
      while (k < to && cs[k] === '*') k++;
      stop();
      if (k - i >= 2 && segStart && atSegEnd(k)) {
        if (k < to) {
          re += '(?:[^/]*/)*';
          i = k + 1; // the `/` is part of the globstar
        } else {
          re += '.*';
          i = k;
        }
        continue;
      }
      re += '[^/]*';
      segStart = false;
      i = k;
      continue;
    }
    if (c === '?') {
      re += '[^/]';
      stop();
      segStart = false;
      i++;
      continue;
    }
    if (c === '[') {
      const k = parseClass(cs, i);
      if (k && k.next <= to) {
        re += k.re;
        stop();
        segStart = false;
        i = k.next;
        continue;
      }
    }
    const pair = c === '{' ? pairs.get(i) : undefined;
    if (pair && pair.close < to) {
      const bounds = [i, ...pair.commas, pair.close];
      const inner = atSegEnd(pair.close + 1);
      const alts: string[] = [];
      for (let a = 0; a + 1 < bounds.length; a++) alts.push(translate(cs, (bounds[a] as number) + 1, bounds[a + 1] as number, segStart, inner, pairs).re);
      re += `(?:${alts.join('|')})`;
      stop();
      segStart = false;
      i = pair.close + 1;
      continue;
    }
    re += lit(c);
    if (literal) prefix += c;
    segStart = false;
    i++;
  }
  return { re, literal, prefix };
}

/**
 * Why `glob` cannot be used (a sentence for an `E_GLOB` message), or undefined when it can.
 * Checks the bounds of `GLOB_LIMITS` and the refusals listed in the module docstring; linear.
 */
export function globProblem(glob: string): string | undefined {
  try {
    prepare(glob);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function prepare(glob: string): { cs: string[]; tr: Translation } {
  if (glob.trim() === '') throw new RangeError('the glob is empty');
  if (glob.length > GLOB_LIMITS.maxLength) throw new RangeError(`the glob is longer than ${GLOB_LIMITS.maxLength} characters (${glob.length})`);
  if (CONTROL.test(glob)) throw new RangeError('the glob contains a control character');
  const g = glob.startsWith('./') ? glob.slice(2) : glob;
  if (g.startsWith('/')) throw new RangeError('the glob is absolute; scope globs are relative to the project root');
  if (g.split('/').includes('..')) throw new RangeError('the glob has a ".." segment; scope globs stay inside the project');
  const cs = Array.from(g);
  const { pairs, depth } = bracePairs(cs);
  if (depth > GLOB_LIMITS.maxBraceDepth) throw new RangeError(`the glob's braces nest deeper than ${GLOB_LIMITS.maxBraceDepth}`);
  return { cs, tr: translate(cs, 0, cs.length, true, true, pairs) };
}

/**
 * True when `glob` can match no path but the empty one, so no file: its every alternative is
 * empty once braces are read — `{,}`, `{,{,}}`, `./`, and `` (the empty text; `globProblem`
 * refuses it). A glob that other checks refuse (`globProblem`) is otherwise false. How: the RE2
 * translation of such a glob holds nothing but groups and alternation (`(?:|)`), since every
 * literal is written as a letter, a digit, `_` or `\x{…}` and every wildcard as a class. Linear.
 * Such a scope is never a path scope an agent can use: a comma-joined field would get an empty
 * pattern, which Cursor reads as no `globs` at all (spec/pack.md §11 "Tiers").
 */
export function matchesOnlyEmptyPath(glob: string): boolean {
  if (glob === '') return true;
  try {
    return /^[(?:|)]*$/.test(prepare(glob).tr.re);
  } catch {
    return false;
  }
}

/**
 * Compile `glob` (dialect and bounds in the module docstring). Throws `E_GLOB` naming the
 * problem (`globProblem`). Time and program size are linear in the glob's length.
 */
export function compileGlob(glob: string): CompiledGlob {
  let prepared: ReturnType<typeof prepare>;
  try {
    prepared = prepare(glob);
  } catch (err) {
    throw new CtxpkgError('E_GLOB', `glob ${JSON.stringify(glob.length > 80 ? glob.slice(0, 80) + '…' : glob)}: ${(err as Error).message}`, {
      hint: `use * ? ** [a-z] {a,b} within ${GLOB_LIMITS.maxLength} characters, relative to the project root`,
    });
  }
  const { tr } = prepared;
  const text = tr.prefix;
  if (tr.literal) {
    return { glob, literal: true, prefix: text, programSize: text.length, test: (path) => path === text };
  }
  const RE2 = re2();
  const re = RE2.compile(tr.re, RE2.DOTALL);
  return { glob, literal: false, prefix: text, programSize: re.programSize(), test: (path) => path.length <= GLOB_LIMITS.maxPathLength && re.matches(path) };
}

/** `text` as a glob that matches exactly that path: `\\` before each of `* ? [ ] { } \\`. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]{}\\]/g, (c) => `\\${c}`);
}

/** `compileGlob`, or undefined when the glob is refused. */
export function tryCompileGlob(glob: string): CompiledGlob | undefined {
  try {
    return compileGlob(glob);
  } catch {
    return undefined;
  }
}

const cache = new Map<string, CompiledGlob | null>();

/**
 * `tryCompileGlob` through a bounded cache (at most 10,000 globs; cleared when full), for
 * callers that match the same package globs many times (render, sync, MCP).
 */
export function cachedGlob(glob: string): CompiledGlob | undefined {
  let g = cache.get(glob);
  if (g === undefined) {
    if (cache.size >= 10_000) cache.clear();
    g = tryCompileGlob(glob) ?? null;
    cache.set(glob, g);
  }
  return g ?? undefined;
}
