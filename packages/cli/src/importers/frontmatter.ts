/**
 * YAML frontmatter of instruction files and the scope it declares (spec/format.md
 * "Importers, provenance and scope" § Scope):
 *   Cursor `.mdc`: `globs` (comma-separated string or list; `alwaysApply: true` adds nothing);
 *   Copilot `*.instructions.md`: `applyTo` (comma-separated string or list);
 *   Claude rules: `paths` (string or list).
 * Each glob is returned with the 1-based line it was written on.
 */
import { parseDocument, isMap, isScalar, isSeq, type Node as YamlNode } from 'yaml';
import { CtxpkgError } from '@ctxpkg/format';

export interface Frontmatter {
  /** Number of lines the frontmatter block occupies, fences included (0 when absent). */
  lineCount: number;
  /** Parsed data (plain object), empty when absent. */
  data: Record<string, unknown>;
  /** Scope globs in file order with their line. */
  globs: Array<{ glob: string; line: number }>;
  /** `description` when it is a string. */
  description?: string;
  /** The 1-based line the description's value starts on. */
  descriptionLine?: number;
}

const SCOPE_KEYS = new Set(['globs', 'applyTo', 'paths']);

/** Split `lines` (from `splitLines`) into frontmatter + the line index where the body starts. */
export function parseFrontmatter(lines: string[], filePath: string): Frontmatter {
  const empty: Frontmatter = { lineCount: 0, data: {}, globs: [] };
  if (lines[0]?.trim() !== '---') return empty;
  let close = -1;
  for (let i = 1; i < lines.length; i++) {
    if (lines[i].trim() === '---' || lines[i].trim() === '...') {
      close = i;
      break;
    }
  }
  if (close < 0) return empty;
  const body = lines.slice(1, close).join('\n');
  const doc = parseDocument(body, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new CtxpkgError('E_SOURCE', `${filePath}:${close + 1}: invalid YAML frontmatter: ${doc.errors[0].message}`, {
      hint: 'fix the frontmatter between the --- lines',
    });
  }
  const lineOf = (offset: number): number => 2 + (body.slice(0, offset).match(/\n/g)?.length ?? 0);
  const out: Frontmatter = { lineCount: close + 1, data: {}, globs: [] };
  const js = doc.toJS() as unknown;
  if (js && typeof js === 'object' && !Array.isArray(js)) out.data = js as Record<string, unknown>;
  if (typeof out.data.description === 'string') out.description = out.data.description;
  if (!isMap(doc.contents)) return out;
  for (const pair of doc.contents.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (key === 'description' && out.description !== undefined && isScalar(pair.value)) out.descriptionLine = lineOf(pair.value.range?.[0] ?? 0);
    if (!SCOPE_KEYS.has(key)) continue;
    const value = pair.value as YamlNode | null;
    const add = (raw: unknown, offset: number): void => {
      if (typeof raw !== 'string') return;
      for (const g of raw.split(',')) {
        const glob = g.trim();
        if (glob !== '') out.globs.push({ glob, line: lineOf(offset) });
      }
    };
    if (isSeq(value)) {
      for (const item of value.items) {
        if (isScalar(item)) add(item.value, item.range?.[0] ?? 0);
      }
    } else if (isScalar(value)) {
      add(value.value, value.range?.[0] ?? 0);
    }
  }
  return out;
}
