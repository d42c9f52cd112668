/**
 * Entry-name and entry-type rules of the ZIP form and the mapping of names to layout slots
 * (spec/archive.md §2 "Layout" and §5 "Reader checks"; ADVERSARIAL HB-13, HB-14, HB-25).
 *
 * The checks run over every entry of the central directory before any data is read, in this
 * order: (1) the name is a safe relative path, (2) the entry is a regular file (or the one
 * allowed directory `blobs/`), (3) no two names collide — byte-equal, case-folded or equal
 * after Unicode normalization, (4) every name is one the layout defines.
 */
import { CtxpkgError } from '../errors.js';
import type { ScannedEntry } from './zip-scan.js';

/** What a layout entry holds. */
export type SlotKind = 'manifest' | 'content' | 'rebuild' | 'blob';

/** A named entry of the layout. `zstd` is true for the `.zst` spelling (one zstd frame). */
export interface LayoutEntry {
  kind: SlotKind;
  /** The entry name as stored (`blobs/sha256-….zst`). */
  name: string;
  /** For blobs: `sha256-<64 lowercase hex>` (the blob_ref); otherwise the logical file name. */
  key: string;
  zstd: boolean;
  entry: ScannedEntry;
}

/** Fixed entry names (spec/archive.md §2). */
export const MANIFEST_ENTRY = 'ctxpkg.json';
export const CONTENT_ENTRY = 'content.json';
export const REBUILD_ENTRY = 'rebuild.json';
export const BLOB_DIR = 'blobs/';
export const ZSTD_SUFFIX = '.zst';
/** A blob key: the blob_ref spelling of a SHA-256 digest. */
export const BLOB_REF_RE = /^sha256-[0-9a-f]{64}$/;

const FLAG_UTF8 = 0x0800;
const MAX_NAME_BYTES = 255;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const DOS_DIRECTORY = 0x10;
const DOS_VOLUME_LABEL = 0x08;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function unsafe(index: number, name: string, why: string): CtxpkgError {
  return new CtxpkgError('E_ARCHIVE_UNSAFE_PATH', `entry ${index} ${JSON.stringify(name)}: ${why}`, {
    hint: 'entry names must be relative paths with "/" separators and no "..", "." or empty parts (spec/archive.md §5)',
    details: { entry: index, name },
  });
}

/**
 * Decode an entry name and check it is a safe relative path.
 * Rules: 1–255 bytes; UTF-8 (flag bit 11) or pure ASCII; no C0/C1 control characters or DEL
 * (this includes NUL); no `\`; no `:` (drive letters, NTFS streams); not absolute; no `.`, `..`
 * or empty component (one trailing `/` marks a directory). Throws `E_ARCHIVE_UNSAFE_PATH`.
 */
export function decodeEntryName(entry: ScannedEntry): string {
  const raw = entry.nameBytes;
  const latin = (): string =>
    Array.from(raw.subarray(0, 64), (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '?')).join('');
  if (raw.length === 0 || raw.length > MAX_NAME_BYTES) {
    throw unsafe(entry.index, latin(), `name must be 1–${MAX_NAME_BYTES} bytes, got ${raw.length}`);
  }
  let name: string;
  if (entry.flags & FLAG_UTF8) {
    try {
      name = utf8.decode(raw);
    } catch {
      throw unsafe(entry.index, latin(), 'name is flagged UTF-8 but is not valid UTF-8');
    }
  } else {
    if (raw.some((b) => b >= 0x80)) throw unsafe(entry.index, latin(), 'non-ASCII name without the UTF-8 flag');
    name = String.fromCharCode(...raw);
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/u.test(name)) throw unsafe(entry.index, name, 'control character in name');
  if (name.includes('\\')) throw unsafe(entry.index, name, 'backslash in name');
  if (name.includes(':')) throw unsafe(entry.index, name, 'drive letter or ":" in name');
  if (name.startsWith('/')) throw unsafe(entry.index, name, 'absolute path');
  const parts = name.split('/');
  if (parts[parts.length - 1] === '') parts.pop(); // directory marker
  for (const part of parts) {
    if (part === '') throw unsafe(entry.index, name, 'empty path component');
    if (part === '.' || part === '..') throw unsafe(entry.index, name, `"${part}" path component`);
  }
  return name;
}

/**
 * Check that the entry is a regular file, or — only for the name `blobs/` — an empty directory.
 * Unix mode bits (high 16 bits of the external attributes) are honoured whatever the "made by"
 * host says. Throws `E_ARCHIVE_ENTRY_TYPE` (symlinks, devices, FIFOs, volume labels, directories).
 */
export function checkEntryType(entry: ScannedEntry, name: string): void {
  const mode = entry.externalAttributes >>> 16;
  const type = mode & S_IFMT;
  const dos = entry.externalAttributes & 0xff;
  const isDirName = name.endsWith('/');
  const fail = (what: string): CtxpkgError =>
    new CtxpkgError('E_ARCHIVE_ENTRY_TYPE', `entry ${entry.index} ${JSON.stringify(name)}: ${what}`, {
      hint: 'a ctxpkg archive holds regular files only (spec/archive.md §5)',
      details: { entry: entry.index, name, mode: mode.toString(8) },
    });
  if (dos & DOS_VOLUME_LABEL) throw fail('volume-label entry');
  if (isDirName) {
    if (name !== BLOB_DIR) throw fail('directory entries other than "blobs/" are not allowed');
    if (type !== 0 && type !== S_IFDIR) throw fail(`directory name with file type ${type.toString(8)}`);
    if (entry.uncompressedSize !== 0 || entry.compressedSize !== 0) throw fail('directory entry with data');
    return;
  }
  if (type === 0o120000) throw fail('symbolic link');
  if (type === S_IFDIR || dos & DOS_DIRECTORY) throw fail('directory attribute on a file name');
  if (type !== 0 && type !== S_IFREG) throw fail(`special file (mode ${type.toString(8)})`);
}

/** The collision key: names that a case-insensitive or normalizing file system would merge. */
export function collisionKey(name: string): string {
  // ASCII is invariant under NFKC; only its case needs folding (the common, fast path).
  if (/^[\x20-\x7e]*$/.test(name)) return name.toLowerCase();
  return name.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}

/**
 * Run checks (1)–(4) over all entries and return the layout entries in central-directory order
 * (the `blobs/` directory entry, if present, is dropped) and every entry's decoded name, by
 * entry index (`names[i]` is entry i's). Throws `E_ARCHIVE_UNSAFE_PATH`,
 * `E_ARCHIVE_ENTRY_TYPE`, `E_ARCHIVE_DUPLICATE_ENTRY` (also for `x` together with `x.zst`) and
 * `E_ARCHIVE` (a name the layout does not define; a missing `ctxpkg.json` or `content.json`).
 */
export function classifyEntries(entries: ScannedEntry[]): { layout: LayoutEntry[]; names: string[] } {
  const names: string[] = new Array(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const name = decodeEntryName(e);
    checkEntryType(e, name);
    names[i] = name;
  }
  const seen = new Map<string, number>();
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const key = collisionKey(name);
    const prev = seen.get(key);
    if (prev !== undefined) {
      throw new CtxpkgError(
        'E_ARCHIVE_DUPLICATE_ENTRY',
        `entries ${prev} ${JSON.stringify(names[prev])} and ${i} ${JSON.stringify(name)} name the same file` +
          (names[prev] === name ? '' : ' on a case-insensitive or normalizing file system'),
        { hint: 'each entry name may appear once (spec/archive.md §5)', details: { names: [names[prev], name] } },
      );
    }
    seen.set(key, i);
  }
  // Every layout entry is built by the one object literal below (one shape; a spread of the
  // slot would cost a slow generic clone per entry: ~4 µs each, 40 ms for 10k blobs).
  const out: LayoutEntry[] = [];
  // Which entry holds a slot: a fixed file by its kind (its key is fixed), a blob by its key.
  const fileSlots = new Map<SlotKind, string>();
  const blobSlots = new Map<string, string>();
  let hasManifest = false;
  let hasContent = false;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (name === BLOB_DIR) continue;
    const zstd = name.endsWith(ZSTD_SUFFIX);
    const base = zstd ? name.slice(0, -ZSTD_SUFFIX.length) : name;
    let kind: SlotKind | undefined;
    let key = base;
    if (base === MANIFEST_ENTRY) kind = 'manifest';
    else if (base === CONTENT_ENTRY) kind = 'content';
    else if (base === REBUILD_ENTRY) kind = 'rebuild';
    else if (base.startsWith(BLOB_DIR)) {
      key = base.slice(BLOB_DIR.length);
      if (BLOB_REF_RE.test(key)) kind = 'blob';
    }
    if (kind === undefined) {
      throw new CtxpkgError('E_ARCHIVE', `entry ${i} ${JSON.stringify(name)} is not part of the ctxpkg archive layout`, {
        hint: 'allowed: ctxpkg.json, content.json, rebuild.json, blobs/sha256-<64 hex> (each optionally .zst)',
        details: { entry: i, name },
      });
    }
    const held = kind === 'blob' ? blobSlots : fileSlots;
    const slotKey = kind === 'blob' ? key : kind;
    const other = (held as Map<string, string>).get(slotKey);
    if (other !== undefined) {
      throw new CtxpkgError('E_ARCHIVE_DUPLICATE_ENTRY', `entries ${JSON.stringify(other)} and ${JSON.stringify(name)} hold the same file`, {
        details: { names: [other, name] },
      });
    }
    (held as Map<string, string>).set(slotKey, name);
    if (kind === 'manifest') hasManifest = true;
    else if (kind === 'content') hasContent = true;
    out.push({ kind, name, key, zstd, entry: entries[i]! });
  }
  if (!hasManifest || !hasContent) {
    throw new CtxpkgError('E_ARCHIVE', `archive has no ${hasManifest ? CONTENT_ENTRY : MANIFEST_ENTRY} entry`, {
      hint: 'a ctxpkg archive holds ctxpkg.json (manifest) and content.json (content) (spec/archive.md §2)',
    });
  }
  return { layout: out, names };
}
