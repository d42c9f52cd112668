/**
 * Recognising ctxpkg's own output among source files, so that `ctxpkg create` never republishes
 * installed third-party context as the author's own (spec/format.md §16 "What is never imported").
 *
 * ctxpkg writes, and importers therefore drop:
 * - anything under a `.ctxpkg/` directory (store, merged graph, sync record) — at any depth;
 * - the managed block `sync` puts into AGENTS.md / CLAUDE.md: every line from a
 *   `<!-- ctxpkg:begin … -->` marker line to the next `<!-- ctxpkg:end -->` marker line, inclusive
 *   (the marker grammar of `packages/cli/src/targets/blocks.ts`; an edited block is dropped too —
 *   its text still came from installed packages; a begin marker without an end drops the rest of
 *   the file);
 * - generated files: a file listed with `kind: "file"` in a `.ctxpkg/sync.json` record
 *   (`packages/cli/src/targets/record.ts`) of the source root or of the project around it, or a
 *   file named like a generated one (`.cursor/rules/ctxpkg-*.mdc`, `.claude/rules/ctxpkg-*.md`,
 *   `.github/instructions/ctxpkg-*.instructions.md`, …) that carries a ctxpkg block marker.
 *
 * The functions here are pure except `recordedGeneratedFiles` (reads the sync records).
 */
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { readSyncRecord } from '../targets/record.js';

/** Loose begin/end markers: any line starting with the comment opener counts (as sync's own scan). */
const BEGIN = /^\s*<!--\s*ctxpkg:begin\b/;
const END = /^\s*<!--\s*ctxpkg:end\b/;

/**
 * File names `ctxpkg sync` generates (POSIX, from the project root): the rule folders of the
 * target modules (`packages/cli/src/targets/agents/`), `ctxpkg.<ext>` or `ctxpkg-<slug>.<ext>`.
 */
const GENERATED_NAME =
  /(^|\/)(\.cursor\/rules\/ctxpkg(-[^/]+)?\.mdc|\.github\/instructions\/ctxpkg-[^/]+\.instructions\.md|(\.claude\/rules|\.windsurf\/rules|\.kiro\/steering|\.clinerules)\/ctxpkg(-[^/]+)?\.md)$/;

/** A range of 1-based, inclusive line numbers. */
export interface LineRange {
  start: number;
  end: number;
}

/** True when the POSIX path `rel` lies in (or is) a `.ctxpkg` directory at any depth. */
export function inCtxpkgDir(rel: string): boolean {
  return rel.split('/').includes('.ctxpkg');
}

/**
 * The managed blocks of `text` as 1-based inclusive line ranges (marker lines included), in
 * file order. Lines are split at LF (a CR before it is ignored). A begin marker without a later
 * end marker runs to the last line; a stray end marker is a one-line range of its own.
 */
export function managedBlockRanges(text: string): LineRange[] {
  const lines = text.split('\n');
  const out: LineRange[] = [];
  let open: number | undefined;
  lines.forEach((raw, i) => {
    const l = raw.replace(/\r$/, '');
    if (open === undefined) {
      if (BEGIN.test(l)) open = i + 1;
      else if (END.test(l)) out.push({ start: i + 1, end: i + 1 });
    } else if (END.test(l)) {
      out.push({ start: open, end: i + 1 });
      open = undefined;
    }
  });
  if (open !== undefined) {
    let last = lines.length;
    while (last > open && (lines[last - 1] ?? '').trim() === '') last--;
    out.push({ start: open, end: last });
  }
  return out;
}

/** `text` with every line inside `ranges` replaced by an empty line (line numbers unchanged). */
export function blankLines(text: string, ranges: readonly LineRange[]): string {
  if (ranges.length === 0) return text;
  // One pass over the lines, with the ranges sorted by start (a hostile file can hold a range per
  // line: checking every line against every range was quadratic).
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  let r = 0;
  let reach = 0; // the last line covered by a range starting at or before the current line
  return text
    .split('\n')
    .map((l, i) => {
      const n = i + 1;
      while (r < sorted.length && (sorted[r] as LineRange).start <= n) reach = Math.max(reach, (sorted[r++] as LineRange).end);
      return n <= reach ? (l.endsWith('\r') ? '\r' : '') : l;
    })
    .join('\n');
}

/** True when `rel` is named like a file `ctxpkg sync` generates and `text` holds a ctxpkg marker. */
export function looksGenerated(rel: string, text: string): boolean {
  return GENERATED_NAME.test(rel) && managedBlockRanges(text).length > 0;
}

/**
 * Real absolute paths of the files that `.ctxpkg/sync.json` records as generated (`kind: "file"`),
 * read from each directory in `projectRoots` (missing or unreadable records count as empty).
 */
export function recordedGeneratedFiles(projectRoots: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const root of projectRoots) {
    for (const e of readSyncRecord(root).entries) {
      if (e.kind !== 'file') continue;
      const abs = join(root, ...e.path.split('/'));
      try {
        out.add(realpathSync(abs));
      } catch {
        out.add(abs);
      }
    }
  }
  return out;
}
