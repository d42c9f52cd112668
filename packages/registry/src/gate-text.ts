/**
 * Text extracted from a verified package for secret screening and for the search index
 * (spec/registry.md "Publish gate", "Catalog and search").
 *
 * Screening covers every string value of `content` (at any depth, each scanned on its own so line
 * numbers are meaningful), the manifest's `description`, `author` and `tags`, every skills
 * document decoded to plaintext (`documentIssues`), and every ZIP blob that is valid UTF-8 text.
 * Not scanned, and reported as skipped: documents or blobs that are not UTF-8 text (binary).
 */
import { documentIssues, type ContextGraph, type SkillsDocuments } from '@ctxpkg/format';

export interface ScanTarget {
  /** Where the text is, e.g. `content.context_graph.nodes[2].content`. */
  path: string;
  text: string;
}

export interface PackageTextSource {
  manifest: unknown;
  content: unknown;
  graph?: ContextGraph | null;
  blobs?: ReadonlyMap<string, Uint8Array>;
}

const HEX_FIELD = /^[0-9a-f]{64}$/;

function isEncodedDocumentBody(parent: Record<string, unknown>, key: string): boolean {
  return key === 'body' && typeof parent.encoding === 'string' && parent.encoding !== 'utf-8' && parent.encoding !== 'utf8';
}

function walk(value: unknown, path: string, out: ScanTarget[], skipped: Set<string>, depth: number): void {
  if (depth > 256) return;
  if (typeof value === 'string') {
    if (value.length > 0 && !HEX_FIELD.test(value)) out.push({ path, text: value });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => walk(v, `${path}[${i}]`, out, skipped, depth + 1));
    return;
  }
  if (typeof value === 'object' && value !== null) {
    const obj = value as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      if (isEncodedDocumentBody(obj, key)) {
        skipped.add(String(obj.encoding));
        continue;
      }
      walk(obj[key], `${path}.${key}`, out, skipped, depth + 1);
    }
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Add every UTF-8 text of `files` (sorted by name) as a target; returns how many were binary. */
function addTexts(files: ReadonlyMap<string, Uint8Array>, prefix: string, out: ScanTarget[]): number {
  let binary = 0;
  for (const name of [...files.keys()].sort()) {
    let text: string | null;
    try {
      text = UTF8.decode(files.get(name) as Uint8Array);
    } catch {
      text = null;
    }
    if (text === null || text.includes('\u0000')) binary++;
    else out.push({ path: prefix + name, text });
  }
  return binary;
}

/** Collect the texts to screen and the list of what was skipped (with reasons). */
export function collectScanTargets(pkg: PackageTextSource): { texts: ScanTarget[]; skipped: Array<{ check: string; reason: string }> } {
  const texts: ScanTarget[] = [];
  const encodings = new Set<string>();
  const m = (pkg.manifest ?? {}) as Record<string, unknown>;
  for (const key of ['description', 'author'] as const) {
    if (typeof m[key] === 'string' && m[key] !== '') texts.push({ path: `manifest.${key}`, text: m[key] as string });
  }
  if (Array.isArray(m.tags)) walk(m.tags, 'manifest.tags', texts, encodings, 0);
  walk(pkg.content, 'content', texts, encodings, 0);
  const skipped: Array<{ check: string; reason: string }> = [];
  const docs = (pkg.content as { documents?: SkillsDocuments } | null)?.documents;
  const decoded = docs ? documentIssues(docs).files : new Map<string, Uint8Array>();
  const binaryDocs = addTexts(decoded, 'content.documents/', texts);
  if (docs && (binaryDocs > 0 || decoded.size < docs.files.length)) {
    skipped.push({ check: 'secrets:documents', reason: `${docs.files.length - decoded.size + binaryDocs} document(s) are not UTF-8 text and were not screened` });
  }
  if (!docs && encodings.size > 0) {
    skipped.push({ check: 'secrets:encoded_fields', reason: `fields with encoding ${[...encodings].sort().join(', ')} were not decoded for screening` });
  }
  const binaryBlobs = addTexts(pkg.blobs ?? new Map<string, Uint8Array>(), 'blobs/', texts);
  if (binaryBlobs > 0) skipped.push({ check: 'secrets:binary_blobs', reason: `${binaryBlobs} blob(s) are not UTF-8 text and were not screened` });
  return { texts, skipped };
}

/**
 * Searchable text of a version: name, description, tags, then each graph node's type, category,
 * file path and content, one per line; cut at `maxChars` characters (the rest is not indexed).
 */
export function searchText(fullName: string, description: string, tags: string[], pkg: PackageTextSource, maxChars: number): string {
  const parts = [fullName, description, tags.join(' ')];
  for (const n of pkg.graph?.nodes ?? []) {
    parts.push([n.type, n.category ?? '', n.file_path ?? '', n.content].filter((s) => s !== '').join(' '));
  }
  const text = parts.join('\n');
  return text.length > maxChars ? text.slice(0, maxChars) : text;
}
