/**
 * Skills documents (`kind=skills`, `content.documents`): path safety, caps and decoding
 * (FORMAT-FACTS §1.1 limits, §5.4; ADVERSARIAL HB-25; spec/format.md §8).
 *
 * Rules: 1–256 files; each path non-empty, ≤ 512 UTF-8 bytes, relative with `/` separators, no
 * `\` or `:`, no empty, `.`, `..` or `..`-prefixed component, no control characters; paths unique
 * — exactly, and (stricter than the reference) also after Unicode NFKC normalization and case
 * folding (`documentPathKey`), so no two files collide on a case-insensitive or normalizing file
 * system;
 * `encoding` is `zstd+base64`; `body` (trimmed) is canonical standard base64 with padding of one
 * zstd frame; decoded size ≤ 1 MiB per file and ≤ 8 MiB in total, enforced while decoding;
 * `sha256` is the hex SHA-256 of the decoded plaintext (either case, as the reference compares).
 */
import { decompressZstd } from './archive/zstd.js';
import { CtxpkgError, type Issue } from './errors.js';
import { sha256Hex, utf8 } from './hash.js';
import { isHex } from './hex.js';
import type { SkillsDocuments } from './content.js';

export const MAX_DOCUMENT_FILES = 256;
export const MAX_DOCUMENT_BYTES = 1024 * 1024;
export const MAX_DOCUMENTS_TOTAL_BYTES = 8 * 1024 * 1024;
export const MAX_DOCUMENT_PATH_BYTES = 512;
export const DOCUMENT_ENCODING = 'zstd+base64';

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `path` is unsafe, or undefined when it is a safe document path (rules above). */
export function documentPathProblem(path: string): string | undefined {
  if (path === '') return 'the path is empty';
  if (utf8(path).length > MAX_DOCUMENT_PATH_BYTES) return `the path is longer than ${MAX_DOCUMENT_PATH_BYTES} bytes`;
  if (path.startsWith('/')) return 'the path is absolute';
  if (path.includes('\\')) return 'the path contains a backslash';
  if (path.includes(':')) return 'the path contains ":"';
  if (CONTROL.test(path)) return 'the path contains a control character';
  for (const part of path.split('/')) {
    if (part === '') return 'the path has an empty component';
    if (part === '.') return 'the path has a "." component';
    if (part.startsWith('..')) return 'the path has a component starting with ".."';
  }
  return undefined;
}

/**
 * The key under which two document paths name the same file on a case-insensitive or
 * normalizing file system: NFKC (compatibility forms such as fullwidth letters), then upper- and
 * lower-casing, which folds what `toLowerCase` alone misses but APFS/NTFS case-insensitivity
 * merges (`ſ` and `s`, `ı` and `i`, the Kelvin sign and `k`), then NFKC again.
 */
export function documentPathKey(path: string): string {
  return path.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}
const collisionKey = documentPathKey;

const B64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const B64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = new Map([...B64_ALPHABET].map((c, i) => [c, i]));

/** Decode canonical standard base64 with padding; undefined when not canonical. */
export function decodeCanonicalBase64(text: string): Uint8Array | undefined {
  if (!B64_RE.test(text)) return undefined;
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const a = B64_INDEX.get(text[i]!)!;
    const b = B64_INDEX.get(text[i + 1]!)!;
    const c = B64_INDEX.get(text[i + 2]!) ?? 0;
    const d = B64_INDEX.get(text[i + 3]!) ?? 0;
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = (n >> 16) & 255;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  // Canonical: the bits dropped by padding must be zero.
  const last = text.length > 0 ? B64_INDEX.get(text[text.length - 1 - pad]!)! : 0;
  if ((pad === 2 && (last & 15) !== 0) || (pad === 1 && (last & 3) !== 0)) return undefined;
  return out;
}

/**
 * Check every rule and decode every document. Returns all problems (`E_CONTENT`,
 * `E_UNSAFE_DOCUMENT_PATH`, `E_DUPLICATE_DOCUMENT`, `E_TOO_LARGE`, `E_INTEGRITY`; paths under
 * `content.documents`) and, for the files that decoded and matched, their plaintext by path.
 */
export function documentIssues(docs: SkillsDocuments): { issues: Issue[]; files: Map<string, Uint8Array> } {
  const issues: Issue[] = [];
  const files = new Map<string, Uint8Array>();
  const add = (path: string, code: Issue['code'], message: string, details?: Record<string, unknown>) =>
    issues.push({ path: `content.documents${path}`, code, message, ...(details ? { details } : {}) });
  if (docs.files.length === 0) add('.files', 'E_CONTENT', 'kind=skills needs at least one document');
  if (docs.files.length > MAX_DOCUMENT_FILES) {
    add('.files', 'E_TOO_LARGE', `${docs.files.length} documents exceed the limit of ${MAX_DOCUMENT_FILES}`);
    return { issues, files };
  }
  const exact = new Set<string>();
  const folded = new Map<string, string>();
  let total = 0;
  docs.files.forEach((f, i) => {
    const at = `.files[${i}]`;
    const problem = documentPathProblem(f.path);
    if (problem) {
      add(`${at}.path`, 'E_UNSAFE_DOCUMENT_PATH', `unsafe document path ${JSON.stringify(f.path)}: ${problem}`);
      return;
    }
    const key = collisionKey(f.path);
    if (exact.has(f.path)) return add(`${at}.path`, 'E_DUPLICATE_DOCUMENT', `duplicate document path ${JSON.stringify(f.path)}`);
    if (folded.has(key)) {
      return add(`${at}.path`, 'E_DUPLICATE_DOCUMENT', `document path ${JSON.stringify(f.path)} collides with ${JSON.stringify(folded.get(key))} (case or Unicode normalization)`);
    }
    exact.add(f.path);
    folded.set(key, f.path);
    if (!isHex(f.sha256, 64)) return add(`${at}.sha256`, 'E_CONTENT', 'sha256 must be 64 hex characters');
    if (f.encoding !== DOCUMENT_ENCODING) return add(`${at}.encoding`, 'E_CONTENT', `unsupported document encoding ${JSON.stringify(f.encoding)} (only ${DOCUMENT_ENCODING})`);
    const frame = decodeCanonicalBase64(f.body.trim());
    if (!frame) return add(`${at}.body`, 'E_CONTENT', 'body is not canonical standard base64 with padding');
    if (total > MAX_DOCUMENTS_TOTAL_BYTES) return; // already reported; decode nothing more
    let plain: Uint8Array;
    try {
      plain = decompressZstd(frame, { maxOutputBytes: MAX_DOCUMENT_BYTES, maxWindowBytes: 8 * 1024 * 1024, maxRatio: Infinity, ratioGraceBytes: 0 }, f.path);
    } catch (e) {
      const tooLarge = e instanceof CtxpkgError && e.code === 'E_TOO_LARGE';
      return add(`${at}.body`, tooLarge ? 'E_TOO_LARGE' : 'E_CONTENT', tooLarge ? `document ${f.path} decodes to more than ${MAX_DOCUMENT_BYTES} bytes` : `body does not decode: ${(e as Error).message}`);
    }
    total += plain.length;
    if (total > MAX_DOCUMENTS_TOTAL_BYTES) return add(`${at}.body`, 'E_TOO_LARGE', `documents decode to more than ${MAX_DOCUMENTS_TOTAL_BYTES} bytes in total`);
    const found = sha256Hex(plain);
    if (found !== f.sha256.toLowerCase()) {
      return add(`${at}.sha256`, 'E_INTEGRITY', `document ${f.path}: hash mismatch`, { expected: f.sha256, found });
    }
    files.set(f.path, plain);
  });
  return { issues, files };
}
