/**
 * Conversion between the JSON bundle and the ZIP form (spec/archive.md §8). Only insignificant
 * whitespace changes: every string and number literal is carried byte for byte, so the
 * compacted content text — and with it `content_hash`, `sha256` and the signature — is the same
 * in both forms (FORMAT-FACTS §3.2). Texts are laid out like the reference writer's
 * `serde_json::to_string_pretty` (FORMAT-FACTS §1.1): 2-space indent, `": "`, `[]`/`{}` for empty
 * containers, `manifest` first, no trailing newline — so a reference-written bundle survives
 * JSON → ZIP → JSON byte for byte.
 */
import { CtxpkgError } from '../errors.js';
import { parseJsonDocument, parseStrictJson, decodeUtf8Strict, type JsonValue } from '../json/parse.js';
import { checkBlobRefs, verifyBlobs, type BlobRefGraph } from './blobs.js';
import type { ArchiveLimits } from './limits.js';
import { readArchive } from './reader.js';
import { writeArchive, type WriteArchiveOptions } from './writer.js';

/**
 * Re-lay out valid JSON `text` in serde_json's pretty style without touching any literal.
 * The caller must have parsed `text` strictly first (this only moves whitespace).
 */
export function prettyJsonText(text: string): string {
  let out = '';
  let depth = 0;
  const n = text.length;
  const nl = (d: number): string => '\n' + '  '.repeat(d);
  const nextSignificant = (from: number): number => {
    let j = from;
    while (j < n) {
      const c = text.charCodeAt(j);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      j++;
    }
    return j;
  };
  let i = 0;
  while (i < n) {
    const ch = text[i]!;
    if (ch === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      i++;
    } else if (ch === '{' || ch === '[') {
      const j = nextSignificant(i + 1);
      const close = ch === '{' ? '}' : ']';
      if (text[j] === close) {
        out += ch + close;
        i = j + 1;
      } else {
        depth++;
        out += ch + nl(depth);
        i++;
      }
    } else if (ch === '}' || ch === ']') {
      depth--;
      out += nl(depth) + ch;
      i++;
    } else if (ch === ',') {
      out += ',' + nl(depth);
      i++;
    } else if (ch === ':') {
      out += ': ';
      i++;
    } else {
      let j = i;
      while (j < n && !' \t\n\r,:]}'.includes(text[j]!)) j++;
      out += text.slice(i, j);
      i = j;
    }
  }
  return out;
}

function graphOf(content: JsonValue): BlobRefGraph | undefined {
  if (content && typeof content === 'object' && !Array.isArray(content)) {
    const g = (content as Record<string, JsonValue>)['context_graph'];
    if (g && typeof g === 'object' && !Array.isArray(g)) return g as unknown as BlobRefGraph;
  }
  return undefined;
}

function requireObject(value: JsonValue | undefined, what: string): Record<string, JsonValue> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new CtxpkgError('E_STRUCTURE', `${what} must be a JSON object`);
  }
  return value as Record<string, JsonValue>;
}

/** Options of `jsonBundleToArchive`. */
export interface JsonToArchiveOptions extends WriteArchiveOptions {
  /** Blobs the graph references (a JSON bundle cannot carry them). */
  blobs?: ReadonlyMap<string, Uint8Array>;
}

/**
 * Convert JSON-bundle bytes to ZIP-form bytes. The bundle must be strict JSON
 * (`E_INVALID_JSON`, `E_DUPLICATE_KEY`, …) whose root holds exactly `manifest` and `content`
 * objects (`E_STRUCTURE`: another member would be lost). The graph's blob_refs must match
 * `options.blobs` (`E_BLOB`). Verifying hashes and signature is the caller's job (the CLI runs
 * `readPackage` on input and output); this function keeps them valid by construction.
 */
export async function jsonBundleToArchive(bytes: Uint8Array, options: JsonToArchiveOptions = {}): Promise<Uint8Array> {
  const text = decodeUtf8Strict(bytes);
  const doc = parseJsonDocument(text);
  const root = requireObject(doc.value, 'the package');
  const extra = Object.keys(root).filter((k) => k !== 'manifest' && k !== 'content');
  if (extra.length) {
    throw new CtxpkgError('E_STRUCTURE', `top-level member(s) ${extra.map((k) => JSON.stringify(k)).join(', ')} have no place in the archive`, {
      hint: 'a package has exactly the members "manifest" and "content"',
    });
  }
  requireObject(root['manifest'], 'manifest');
  const content = requireObject(root['content'], 'content');
  const span = (k: string): string => {
    const s = doc.memberSpans.get(k)!;
    return text.slice(s.start, s.end);
  };
  const blobs = options.blobs ?? new Map<string, Uint8Array>();
  if (options.blobs) verifyBlobs(graphOf(content), blobs);
  else checkBlobRefs(graphOf(content), []);
  const { blobs: _ignored, ...writeOptions } = options;
  return writeArchive({ manifestText: prettyJsonText(span('manifest')), contentText: prettyJsonText(span('content')), blobs }, writeOptions);
}

/** Options of `archiveToJsonBundle`. */
export interface ArchiveToJsonOptions {
  limits?: Partial<ArchiveLimits>;
  /** Drop a `rebuild.json` entry instead of refusing (it has no place in a JSON bundle). */
  dropRebuild?: boolean;
}

/**
 * Convert ZIP-form bytes to a JSON bundle (UTF-8 bytes, reference pretty layout). All archive
 * checks of `readArchive` apply. Refuses (`E_ARCHIVE`) an archive with blobs — a JSON bundle has
 * no place for them — and one with `rebuild.json` unless `dropRebuild`. The texts must be strict
 * JSON objects (`E_INVALID_JSON`…, `E_STRUCTURE`).
 */
export async function archiveToJsonBundle(bytes: Uint8Array, options: ArchiveToJsonOptions = {}): Promise<Uint8Array> {
  const parts = await readArchive(bytes, { ...(options.limits ? { limits: options.limits } : {}), keepBlobs: false });
  if (parts.blobSizes.size > 0) {
    throw new CtxpkgError('E_ARCHIVE', `the archive holds ${parts.blobSizes.size} blob(s); a JSON bundle cannot carry blobs`, {
      hint: 'keep this package in the ZIP form',
    });
  }
  if (parts.rebuildText !== undefined && !options.dropRebuild) {
    throw new CtxpkgError('E_ARCHIVE', 'the archive holds rebuild.json, which a JSON bundle cannot carry', {
      hint: 'convert with --drop-rebuild to leave it out (it is not covered by the signature)',
    });
  }
  requireObject(parseStrictJson(parts.manifestText), 'ctxpkg.json');
  requireObject(parseStrictJson(parts.contentText), 'content.json');
  const indent = (t: string): string => prettyJsonText(t).replace(/\n/g, '\n  ');
  const bundle = `{\n  "manifest": ${indent(parts.manifestText)},\n  "content": ${indent(parts.contentText)}\n}`;
  return new TextEncoder().encode(bundle);
}
