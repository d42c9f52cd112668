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
import { BUNDLE_BLOBS_MEMBER, bundleBlobsText, bundleBlobsTextBytes, decodeBundleBlobs } from './bundle-blobs.js';
import { PACKAGE_SIZE_LIMIT_BYTES, type ArchiveLimits } from './limits.js';
import { readArchive } from './reader.js';
import { writeArchive, type WriteArchiveOptions } from './writer.js';

const ENCODER = new TextEncoder();

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
  /** Blobs the graph references, for a bundle without a `blobs` member (`ctxpkg create`). */
  blobs?: ReadonlyMap<string, Uint8Array>;
  /** Caps for a `blobs` member and for the written archive (spec/archive.md §6). */
  limits?: Partial<ArchiveLimits>;
}

/**
 * Convert JSON-bundle bytes to ZIP-form bytes. The bundle must be strict JSON
 * (`E_INVALID_JSON`, `E_DUPLICATE_KEY`, …) whose root holds `manifest` and `content` objects and
 * optionally `blobs` (spec/archive.md §4.4; `E_STRUCTURE` for any other member, which would be
 * lost). The blobs come from that member or from `options.blobs` (both: `E_USAGE`); the graph's
 * blob_refs must match them exactly (`E_BLOB`). Verifying hashes and signature is the caller's
 * job (the CLI runs `readPackage` on input and output); this function keeps them valid by
 * construction.
 */
export async function jsonBundleToArchive(bytes: Uint8Array, options: JsonToArchiveOptions = {}): Promise<Uint8Array> {
  const text = decodeUtf8Strict(bytes);
  const doc = parseJsonDocument(text);
  const root = requireObject(doc.value, 'the package');
  const extra = Object.keys(root).filter((k) => k !== 'manifest' && k !== 'content' && k !== BUNDLE_BLOBS_MEMBER);
  if (extra.length) {
    throw new CtxpkgError('E_STRUCTURE', `top-level member(s) ${extra.map((k) => JSON.stringify(k)).join(', ')} have no place in the archive`, {
      hint: 'a package has the members "manifest", "content" and optionally "blobs"',
    });
  }
  requireObject(root['manifest'], 'manifest');
  const content = requireObject(root['content'], 'content');
  const span = (k: string): string => {
    const s = doc.memberSpans.get(k)!;
    return text.slice(s.start, s.end);
  };
  const manifestText = prettyJsonText(span('manifest'));
  const contentText = prettyJsonText(span('content'));
  let blobs: ReadonlyMap<string, Uint8Array> | undefined = options.blobs;
  if (root[BUNDLE_BLOBS_MEMBER] !== undefined) {
    if (options.blobs) throw new CtxpkgError('E_USAGE', 'the bundle carries its own blobs; do not pass blobs as well');
    blobs = decodeBundleBlobs(root[BUNDLE_BLOBS_MEMBER]!, manifestText.length + contentText.length, options.limits, span(BUNDLE_BLOBS_MEMBER));
  }
  if (blobs) verifyBlobs(graphOf(content), blobs);
  else checkBlobRefs(graphOf(content), []);
  const { blobs: _ignored, ...writeOptions } = options;
  return writeArchive({ manifestText, contentText, blobs: blobs ?? new Map<string, Uint8Array>() }, writeOptions);
}

/** Options of `archiveToJsonBundle`. */
export interface ArchiveToJsonOptions {
  limits?: Partial<ArchiveLimits>;
  /** Drop a `rebuild.json` entry instead of refusing (it has no place in a JSON bundle). */
  dropRebuild?: boolean;
}

/**
 * Convert ZIP-form bytes to a JSON bundle (UTF-8 bytes, reference pretty layout). All archive
 * checks of `readArchive` apply. Blobs go into the top-level `blobs` member after `content`
 * (spec/archive.md §4.4: sorted by name, canonical base64); the reference ignores that member.
 * Refuses with `E_TOO_LARGE` — before encoding anything — when the bundle would exceed the
 * 10 MiB package limit (base64 takes 4 bytes per 3: blobs above about 7.5 MiB only fit the ZIP
 * form), and with `E_ARCHIVE` an archive with `rebuild.json` unless `dropRebuild`. The texts
 * must be strict JSON objects (`E_INVALID_JSON`…, `E_STRUCTURE`).
 */
export async function archiveToJsonBundle(bytes: Uint8Array, options: ArchiveToJsonOptions = {}): Promise<Uint8Array> {
  const parts = await readArchive(bytes, { ...(options.limits ? { limits: options.limits } : {}), keepBlobs: true });
  if (parts.rebuildText !== undefined && !options.dropRebuild) {
    throw new CtxpkgError('E_ARCHIVE', 'the archive holds rebuild.json, which a JSON bundle cannot carry', {
      hint: 'convert with --drop-rebuild to leave it out (it is not covered by the signature)',
    });
  }
  requireObject(parseStrictJson(parts.manifestText), 'ctxpkg.json');
  requireObject(parseStrictJson(parts.contentText), 'content.json');
  const indent = (t: string): string => prettyJsonText(t).replace(/\n/g, '\n  ');
  const head = `{\n  "manifest": ${indent(parts.manifestText)},\n  "content": ${indent(parts.contentText)}`;
  if (parts.blobs.size === 0) return ENCODER.encode(`${head}\n}`);
  const headBytes = ENCODER.encode(head);
  const size = headBytes.length + `,\n  "${BUNDLE_BLOBS_MEMBER}": `.length + bundleBlobsTextBytes(parts.blobSizes) + 2;
  if (size > PACKAGE_SIZE_LIMIT_BYTES) {
    const blobBytes = [...parts.blobSizes.values()].reduce((a, b) => a + b, 0);
    throw new CtxpkgError('E_TOO_LARGE', `as a JSON bundle the package would be ${size} bytes (${parts.blobs.size} blob(s) of ${blobBytes} bytes in base64), above the package limit of ${PACKAGE_SIZE_LIMIT_BYTES} bytes`, {
      hint: 'keep this package in the ZIP form: it holds blobs up to 32 MiB in all, a JSON bundle about 7.5 MiB (spec/archive.md §4.4)',
      details: { size, limit: PACKAGE_SIZE_LIMIT_BYTES, blobs: parts.blobs.size, blob_bytes: blobBytes },
    });
  }
  return ENCODER.encode(`${head},\n  "${BUNDLE_BLOBS_MEMBER}": ${bundleBlobsText(parts.blobs)}\n}`);
}
