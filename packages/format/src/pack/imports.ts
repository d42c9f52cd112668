/**
 * Keeping package text from becoming a live `@path` import (spec/pack.md §8 "Quoting", new-user
 * finding 24). Claude Code (CLAUDE.md, `.claude/rules/*.md`) and Gemini CLI (GEMINI.md) import
 * the file named by an `@path` token at session start, recursively through imported files — and
 * CLAUDE.md/GEMINI.md import AGENTS.md — so a package line `@.env` or `See @~/.ssh/id_ed25519`
 * would load the user's files into the model's context, fence or not.
 *
 * What both agents document as never an import: text inside a Markdown code span or code block
 * (code.claude.com/docs/en/memory; geminicli.com/docs/core/memport). So every `@` that could
 * start an import is written inside a code span: `See @docs/setup.md.` becomes
 * ``See `@docs/setup.md`.`` — it reads the same to a model, and the package name `@acme/kb`
 * reads as it is usually written in Markdown. Independently of how an agent pairs backticks,
 * the `@` is then preceded by a backtick, never by whitespace, which both agents' import
 * scanners require (Claude Code: `(?:^|\s)@…` over text tokens; Gemini CLI: the character before
 * `@` is a space, tab or line break).
 *
 * A candidate is an `@` followed by a character that is not whitespace or a backtick and not
 * preceded by a letter or digit (any script): at a line start, after a space, after Markdown
 * punctuation (`**@x**`, `[@x](…)`, `(@x)`, `\@x`) — wherever a Markdown inline token could
 * begin with it. An `@` after a letter or digit (`a@b.com`, `user@host`) is inside a word for
 * both agents and is left alone; an `@` followed by whitespace or a backtick names no path.
 *
 * The span covers the `@`, any backslashes right before it (so the opening backtick is never
 * itself escaped) and the path after it up to whitespace, a backtick or one of `[]()<>"`, less trailing
 * punctuation (`.,;:!?)]}>'"*_~|`), which stays outside. Its backtick run is the shortest length
 * that no backtick run of the text (outside fenced code) has, so it can never pair with a
 * backtick of the package text; a space separates it from a backtick right before or after it.
 *
 * Not changed: lines inside fenced code blocks, and `@` inside a code span when every backtick
 * run of the text pairs on its own line (then the span is certain, CommonMark pairing is the
 * same). If any run is unpaired on its line (a span over several lines, a stray backtick, a
 * table cell), every candidate is wrapped, code span or not: safe, if noisier.
 *
 * One linear pass over the lines (plus one over the backtick runs); only lengthens text.
 */

const FENCE = /^[ \t]*(`{3,}|~{3,})(.*)$/;
/** A letter or digit of any script: an `@` after one is inside a word (e-mail address). */
const WORD = /[\p{L}\p{N}]/u;
/** Trailing characters left outside the span (sentence punctuation, closing brackets, emphasis). */
const TRAIL = new Set(['.', ',', ';', ':', '!', '?', ')', ']', '}', '>', "'", '"', '*', '_', '~', '|']);
/** Characters that end the span's path: a backtick, and Markdown link/emphasis brackets and quotes. */
const STOP = new Set(['`', '[', ']', '(', ')', '<', '>', '"']);
const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || (c !== undefined && /\s/u.test(c));

/** The backtick runs of one line: [start, length]. */
function runsOf(line: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = line.indexOf('`'); i >= 0; i = line.indexOf('`', i)) {
    let j = i;
    while (line.charCodeAt(j) === 96) j++;
    out.push([i, j - i]);
    i = j;
  }
  return out;
}

/**
 * Code-span intervals of a line by CommonMark pairing (a run closes at the next run of the same
 * length); `unpaired` is true when some run found no partner on the line. Linear: for each run
 * the next run of equal length is found through a right-to-left pass.
 */
function spansOf(runs: Array<[number, number]>): { spans: Array<[number, number]>; unpaired: boolean } {
  const next = new Array<number>(runs.length).fill(-1);
  const seen = new Map<number, number>();
  for (let k = runs.length - 1; k >= 0; k--) {
    const len = (runs[k] as [number, number])[1];
    next[k] = seen.get(len) ?? -1;
    seen.set(len, k);
  }
  const spans: Array<[number, number]> = [];
  let unpaired = false;
  for (let k = 0; k < runs.length; ) {
    const n = next[k] as number;
    if (n < 0) {
      unpaired = true;
      k++;
      continue;
    }
    const [s] = runs[k] as [number, number];
    const [e, l] = runs[n] as [number, number];
    spans.push([s, e + l]);
    k = n + 1;
  }
  return { spans, unpaired };
}

/** True when `text` holds an `@` that `neutralizeImports` would put in a code span (cheap pre-check). */
function mayImport(text: string): boolean {
  for (let i = text.indexOf('@'); i >= 0; i = text.indexOf('@', i + 1)) {
    const next = text[i + 1];
    if (next === undefined || next === '`' || isSpace(next)) continue;
    const prev = i > 0 ? (text[i - 1] as string) : '';
    if (prev === '' || !WORD.test(prev)) return true;
  }
  return false;
}

/**
 * Put every `@` of `text` that could start an `@path` import (Claude Code, Gemini CLI) inside a
 * Markdown code span (see module docstring). `text` is package text after `escapeContent` (LF
 * line ends); text without such an `@` is returned unchanged. Characters: UTF-16 units; linear.
 */
export function neutralizeImports(text: string): string {
  if (!mayImport(text)) return text;
  const lines = text.split('\n');
  // Pass 1: fenced lines, backtick runs and their pairing, run lengths in use.
  const inFence = new Array<boolean>(lines.length).fill(false);
  const lineSpans: Array<Array<[number, number]>> = [];
  const lengths = new Set<number>();
  let clean = true;
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const f = FENCE.exec(line);
    if (fence !== undefined) {
      inFence[i] = true;
      if (f && (f[1] as string)[0] === fence[0] && (f[1] as string).length >= fence.length && (f[2] as string).trim() === '') fence = undefined;
      lineSpans.push([]);
      continue;
    }
    if (f && !((f[1] as string)[0] === '`' && (f[2] as string).includes('`'))) {
      inFence[i] = true;
      fence = f[1] as string;
      lineSpans.push([]);
      continue;
    }
    const runs = runsOf(line);
    for (const [, l] of runs) lengths.add(l);
    const { spans, unpaired } = spansOf(runs);
    if (unpaired) clean = false;
    lineSpans.push(spans);
  }
  let L = 1;
  while (lengths.has(L)) L++;
  const tick = '`'.repeat(L);
  // Pass 2: wrap the candidates outside fences (and outside certain code spans).
  for (let i = 0; i < lines.length; i++) {
    if (inFence[i]) continue;
    const line = lines[i] as string;
    if (!mayImport(line)) continue;
    const spans = clean ? (lineSpans[i] as Array<[number, number]>) : [];
    let out = '';
    let last = 0;
    let sp = 0;
    for (let at = line.indexOf('@'); at >= 0; at = line.indexOf('@', at + 1)) {
      if (at < last) continue;
      const nx = line[at + 1];
      if (nx === undefined || nx === '`' || isSpace(nx)) continue;
      if (at > 0 && WORD.test(line[at - 1] as string)) continue;
      while (sp < spans.length && (spans[sp] as [number, number])[1] <= at) sp++;
      if (sp < spans.length && (spans[sp] as [number, number])[0] < at) continue;
      let start = at;
      while (start > last && line.charCodeAt(start - 1) === 92) start--;
      let end = at + 1;
      while (end < line.length && !STOP.has(line[end] as string) && !isSpace(line[end])) end++;
      while (end > at + 1 && TRAIL.has(line[end - 1] as string)) end--;
      const before = start > 0 && line[start - 1] === '`' ? ' ' : '';
      const after = line[end] === '`' ? ' ' : '';
      out += line.slice(last, start) + before + tick + line.slice(start, end) + tick + after;
      last = end;
      at = end - 1;
    }
    if (last > 0) lines[i] = out + line.slice(last);
  }
  return lines.join('\n');
}
