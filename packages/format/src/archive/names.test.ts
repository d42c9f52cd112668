import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CtxpkgError } from '../errors.js';
import {
  BLOB_DIR,
  BLOB_REF_RE,
  CONTENT_ENTRY,
  MANIFEST_ENTRY,
  REBUILD_ENTRY,
  ZSTD_SUFFIX,
  checkEntryType,
  classifyEntries,
  collisionKey,
  decodeEntryName,
  type LayoutEntry,
  type SlotKind,
} from './names.js';
import type { ScannedEntry } from './zip-scan.js';

/**
 * classifyEntries as it was written before it was made cheaper per entry (one spread of the slot
 * per entry, slot ids as `kind:key` strings): the rule as written, for the property test below.
 */
function classifyAsWritten(entries: ScannedEntry[]): { layout: LayoutEntry[]; names: string[] } {
  const layoutSlot = (name: string): { kind: SlotKind; key: string; zstd: boolean } | undefined => {
    const zstd = name.endsWith(ZSTD_SUFFIX);
    const base = zstd ? name.slice(0, -ZSTD_SUFFIX.length) : name;
    if (base === MANIFEST_ENTRY) return { kind: 'manifest', key: base, zstd };
    if (base === CONTENT_ENTRY) return { kind: 'content', key: base, zstd };
    if (base === REBUILD_ENTRY) return { kind: 'rebuild', key: base, zstd };
    if (base.startsWith(BLOB_DIR)) {
      const ref = base.slice(BLOB_DIR.length);
      if (BLOB_REF_RE.test(ref)) return { kind: 'blob', key: ref, zstd };
    }
    return undefined;
  };
  const names = entries.map((e) => {
    const name = decodeEntryName(e);
    checkEntryType(e, name);
    return name;
  });
  const seen = new Map<string, number>();
  names.forEach((name, i) => {
    const key = collisionKey(name);
    const prev = seen.get(key);
    if (prev !== undefined) {
      throw new CtxpkgError(
        'E_ARCHIVE_DUPLICATE_ENTRY',
        `entries ${prev} ${JSON.stringify(names[prev])} and ${i} ${JSON.stringify(name)} name the same file` +
          (names[prev] === name ? '' : ' on a case-insensitive or normalizing file system'),
      );
    }
    seen.set(key, i);
  });
  const out: LayoutEntry[] = [];
  const slots = new Map<string, string>();
  names.forEach((name, i) => {
    if (name === BLOB_DIR) return;
    const slot = layoutSlot(name);
    if (!slot) throw new CtxpkgError('E_ARCHIVE', `entry ${i} ${JSON.stringify(name)} is not part of the ctxpkg archive layout`);
    const slotId = `${slot.kind}:${slot.key}`;
    const other = slots.get(slotId);
    if (other !== undefined) {
      throw new CtxpkgError('E_ARCHIVE_DUPLICATE_ENTRY', `entries ${JSON.stringify(other)} and ${JSON.stringify(name)} hold the same file`);
    }
    slots.set(slotId, name);
    out.push({ ...slot, name, entry: entries[i]! });
  });
  for (const [kind, file] of [
    ['manifest', MANIFEST_ENTRY],
    ['content', CONTENT_ENTRY],
  ] as const) {
    if (!out.some((e) => e.kind === kind)) throw new CtxpkgError('E_ARCHIVE', `archive has no ${file} entry`);
  }
  return { layout: out, names };
}

const enc = new TextEncoder();
const HEX = '0123456789abcdef';
const refOf = (seed: number): string => `sha256-${Array.from({ length: 64 }, (_, i) => HEX[(seed * 7 + i * 13) % 16]).join('')}`;

/** A central-directory entry with `name` (UTF-8 flag set), a regular file unless it is `blobs/`. */
function entry(index: number, name: string): ScannedEntry {
  const isDir = name.endsWith('/');
  return {
    index,
    nameBytes: enc.encode(name),
    flags: 0x0800,
    method: isDir ? 0 : 8,
    crc32: 0,
    compressedSize: 0,
    uncompressedSize: 0,
    versionMadeBy: 0x0314,
    externalAttributes: ((isDir ? 0o040755 : 0o100644) << 16) >>> 0,
    localHeaderOffset: 0,
    dataStart: 0,
    recordEnd: 0,
  };
}

/** Names an archive may hold — valid, duplicated, case-folded, `.zst` twins, outside the layout, unsafe. */
const nameArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 5 }).map((i) => `blobs/${refOf(i)}`) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 5 }).map((i) => `blobs/${refOf(i)}.zst`) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(MANIFEST_ENTRY, CONTENT_ENTRY, REBUILD_ENTRY, `${MANIFEST_ENTRY}.zst`, `${CONTENT_ENTRY}.zst`, `${REBUILD_ENTRY}.zst`, BLOB_DIR),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('CTXPKG.JSON', 'graph.json', 'blobs/sha256-XYZ', `blobs/${refOf(1).toUpperCase()}`, 'blobs/x/../y', '/abs', 'a\\b', 'c:d', 'ﬁ.json', 'blobs/', 'dir/'),
  },
);

/** The outcome of a classification: the layout and names, or the error's code and message. */
function outcome(f: () => { layout: LayoutEntry[]; names: readonly string[] }): unknown {
  try {
    const r = f();
    return { layout: r.layout.map((e) => ({ kind: e.kind, key: e.key, zstd: e.zstd, name: e.name, index: e.entry.index })), names: [...r.names] };
  } catch (e) {
    if (!(e instanceof CtxpkgError)) throw e;
    return { code: e.code, message: e.message };
  }
}

describe('classifyEntries', () => {
  it('gives the layout, names and first error of the rule as written (property)', () => {
    fc.assert(
      fc.property(fc.array(nameArb, { maxLength: 12 }), (names) => {
        const entries = names.map((n, i) => entry(i, n));
        expect(outcome(() => classifyEntries(entries))).toEqual(outcome(() => classifyAsWritten(entries)));
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps the checks in order: names, then collisions, then the layout, then the required files', () => {
    const code = (names: string[]) => (outcome(() => classifyEntries(names.map((n, i) => entry(i, n)))) as { code?: string }).code;
    expect(code([MANIFEST_ENTRY, MANIFEST_ENTRY, '/abs'])).toBe('E_ARCHIVE_UNSAFE_PATH');
    expect(code([MANIFEST_ENTRY, 'graph.json', MANIFEST_ENTRY])).toBe('E_ARCHIVE_DUPLICATE_ENTRY');
    expect(code([`${MANIFEST_ENTRY}.zst`, 'graph.json'])).toBe('E_ARCHIVE');
    expect(code([MANIFEST_ENTRY, `${MANIFEST_ENTRY}.zst`, CONTENT_ENTRY])).toBe('E_ARCHIVE_DUPLICATE_ENTRY');
    expect(outcome(() => classifyEntries([entry(0, CONTENT_ENTRY)]))).toMatchObject({ message: 'archive has no ctxpkg.json entry' });
    expect(outcome(() => classifyEntries([entry(0, MANIFEST_ENTRY)]))).toMatchObject({ message: 'archive has no content.json entry' });
  });
});
