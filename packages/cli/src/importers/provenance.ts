/**
 * Provenance of imported nodes (spec/format.md "Importers, provenance and scope"):
 *
 * - `file_path`: POSIX path relative to the source root.
 * - `line_start` / `line_end`: 1-based, inclusive line numbers in that file.
 * - `source`: `"sha256:" + lowercase hex SHA-256 of the UTF-8 bytes of lines
 *   `line_start..line_end` joined with "\n"`, where the file text is split at LF, a leading BOM is
 *   dropped and one trailing CR is removed from each line. No trailing newline is hashed.
 *
 * The context-pack compiler re-hashes the workspace file with `sourceHash` to detect staleness,
 * so this function is the single definition of the rule.
 */
import { createHash } from 'node:crypto';

/** Split text into lines by the provenance rule (BOM dropped, LF split, one trailing CR removed). */
export function splitLines(text: string): string[] {
  const t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return t.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/**
 * `"sha256:<hex>"` of lines `start..end` (1-based inclusive) of `lines` joined with "\n".
 * Lines outside the file count as empty (never throws).
 */
export function sourceHash(lines: string[], start: number, end: number): string {
  const slice = lines.slice(Math.max(0, start - 1), Math.max(0, end));
  return 'sha256:' + createHash('sha256').update(slice.join('\n'), 'utf8').digest('hex');
}
