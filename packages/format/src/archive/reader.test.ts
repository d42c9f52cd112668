import { describe, expect, it } from 'vitest';
import { deflateRawSync } from 'node:zlib';
import { crc32 } from './crc32.js';
import { isZipBytes, listArchiveBlobRefs, readArchive, readArchiveParts } from './reader.js';
import { BLOB, BLOB_REF, CONTENT_TEXT, MANIFEST_TEXT, baseArchive, expectCode } from './__tests__/fixtures.js';
import { buildZip, fileEntry, nameBytes, parseZip, type RawEntry } from './__tests__/zip-builder.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** `n` pseudo-random lowercase ASCII letters (valid UTF-8, deflates only ~1.6:1). */
function letters(n: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = 0x61 + ((x >>> 0) % 26);
  }
  return out;
}

/** The base archive's records with `extra` inserted right after the manifest entry. */
async function withEntryAfterManifest(...extra: RawEntry[]): Promise<Uint8Array> {
  const entries = parseZip(await baseArchive());
  entries.splice(1, 0, ...extra);
  return buildZip(entries);
}

describe('readArchive: the valid archive', () => {
  it('returns the texts byte for byte and the hash-checked blobs', async () => {
    const parts = await readArchiveParts(await baseArchive());
    expect(parts.manifestText).toBe(MANIFEST_TEXT);
    expect(parts.contentText).toBe(CONTENT_TEXT);
    expect([...parts.blobs.keys()]).toEqual([BLOB_REF]);
    expect(parts.blobs.get(BLOB_REF)).toEqual(BLOB);
  });

  it('rebuilding the records unchanged still reads (the builder adds no defect of its own)', async () => {
    const rebuilt = buildZip(parseZip(await baseArchive()));
    expect((await readArchive(rebuilt)).contentText).toBe(CONTENT_TEXT);
  });

  it('keepBlobs:false hashes blobs without keeping them', async () => {
    const r = await readArchive(await baseArchive(), { keepBlobs: false });
    expect(r.blobs.size).toBe(0);
    expect([...r.blobSizes]).toEqual([[BLOB_REF, BLOB.length]]);
  });

  it('accepts the "blobs/" directory entry that zip tools add', async () => {
    const dir = fileEntry('blobs/', new Uint8Array(0), { stored: true, mode: 0o040755 });
    const r = await readArchive(await withEntryAfterManifest(dir));
    expect(r.blobSizes.has(BLOB_REF)).toBe(true);
  });

  it('listArchiveBlobRefs names the blobs from the central directory without reading data', async () => {
    expect(listArchiveBlobRefs(await baseArchive())).toEqual([BLOB_REF]);
    expect(listArchiveBlobRefs(enc.encode('{"manifest":{},"content":{}}'))).toEqual([]);
    // Structure checks still apply: an unsafe name is refused, a wrong blob hash is not seen.
    const bad = await withEntryAfterManifest(fileEntry('../x', enc.encode('x')));
    expect(() => listArchiveBlobRefs(bad)).toThrow(expect.objectContaining({ code: 'E_ARCHIVE_UNSAFE_PATH' }));
    const wrongHash = parseZip(await baseArchive());
    wrongHash[2] = fileEntry(`blobs/sha256-${'0'.repeat(64)}`, BLOB);
    expect(listArchiveBlobRefs(buildZip(wrongHash))).toEqual([`sha256-${'0'.repeat(64)}`]);
  });

  it('isZipBytes tells ZIP from JSON by the first bytes', async () => {
    expect(isZipBytes(await baseArchive())).toBe(true);
    expect(isZipBytes(enc.encode('{"manifest":{}}'))).toBe(false);
    expect(isZipBytes(enc.encode('PK'))).toBe(false);
    expect(isZipBytes(Uint8Array.of(0x50, 0x4b, 0x05, 0x06))).toBe(false);
    expect(isZipBytes(new Uint8Array(0))).toBe(false);
  });
});

describe('HB-13: zip slip family and symlink entries', () => {
  const slipNames = ['../../evil.txt', '/tmp/evil.txt', 'C:/evil.txt', 'blobs\\..\\..\\evil.txt', 'blobs/../../evil.txt'];
  for (const name of slipNames) {
    it(`refuses ${JSON.stringify(name)} with E_ARCHIVE_UNSAFE_PATH`, async () => {
      const bytes = await withEntryAfterManifest(fileEntry(name, enc.encode('pwned')));
      await expectCode(readArchive(bytes), 'E_ARCHIVE_UNSAFE_PATH');
    });
  }

  it('refuses a symlink entry blobs/link with E_ARCHIVE_ENTRY_TYPE', async () => {
    const link = fileEntry('blobs/link', enc.encode('../../../../etc/passwd'), { stored: true, mode: 0o120777 });
    await expectCode(readArchive(await withEntryAfterManifest(link)), 'E_ARCHIVE_ENTRY_TYPE');
  });

  it('refuses a symlink even when "made by" claims a DOS host', async () => {
    const link = { ...fileEntry('blobs/link', enc.encode('x'), { stored: true, mode: 0o120777 }), versionMadeBy: 0x0014 };
    await expectCode(readArchive(await withEntryAfterManifest(link)), 'E_ARCHIVE_ENTRY_TYPE');
  });

  const more: Array<[string, string]> = [
    ['NUL byte', 'blobs/a\u0000.json'],
    ['control character', 'blobs/a\u0007'],
    ['C1 control character', 'blobs/a\u0085'],
    ['"." component', 'blobs/./x'],
    ['empty component', 'blobs//x'],
    ['bare ".."', '..'],
    ['"scripts/.." suffix', 'blobs/..'],
    ['drive-relative C:evil', 'C:evil.json'],
    ['NTFS stream', 'ctxpkg.json:evil'],
  ];
  for (const [what, name] of more) {
    it(`refuses a name with ${what}`, async () => {
      await expectCode(readArchive(await withEntryAfterManifest(fileEntry(name, enc.encode('x')))), 'E_ARCHIVE_UNSAFE_PATH');
    });
  }

  it('refuses invalid UTF-8 in a UTF-8 flagged name and non-ASCII without the flag', async () => {
    const bad = fileEntry(Uint8Array.of(0x62, 0xff, 0x62), enc.encode('x'));
    await expectCode(readArchive(await withEntryAfterManifest(bad)), 'E_ARCHIVE_UNSAFE_PATH');
    const cp437 = { ...fileEntry(Uint8Array.of(0x62, 0x82), enc.encode('x')), flags: 0 };
    await expectCode(readArchive(await withEntryAfterManifest(cp437)), 'E_ARCHIVE_UNSAFE_PATH');
  });

  it('refuses an Info-ZIP Unicode path field that could rename an entry', async () => {
    const entries = parseZip(await baseArchive());
    const alt = enc.encode('../evil');
    const field = new Uint8Array(4 + 5 + alt.length);
    const dv = new DataView(field.buffer);
    dv.setUint16(0, 0x7075, true);
    dv.setUint16(2, 5 + alt.length, true);
    field[4] = 1;
    dv.setUint32(5, crc32(entries[0]!.name), true);
    field.set(alt, 9);
    entries[0] = { ...entries[0]!, cdExtra: field };
    await expectCode(readArchive(buildZip(entries)), 'E_ARCHIVE_UNSAFE_PATH');
  });

  it('refuses a local header name that differs from the central directory', async () => {
    const entries = parseZip(await baseArchive());
    entries[0] = { ...entries[0]!, localName: nameBytes('../ctxpkg.j') };
    await expectCode(readArchive(buildZip(entries)), 'E_ARCHIVE_UNSAFE_PATH');
  });

  it('refuses other special files: a directory named like a file, a FIFO', async () => {
    const dir = fileEntry('blobs/x', new Uint8Array(0), { stored: true, mode: 0o040755 });
    await expectCode(readArchive(await withEntryAfterManifest(dir)), 'E_ARCHIVE_ENTRY_TYPE');
    const fifo = fileEntry('blobs/x', new Uint8Array(0), { stored: true, mode: 0o010644 });
    await expectCode(readArchive(await withEntryAfterManifest(fifo)), 'E_ARCHIVE_ENTRY_TYPE');
    const otherDir = fileEntry('docs/', new Uint8Array(0), { stored: true, mode: 0o040755 });
    await expectCode(readArchive(await withEntryAfterManifest(otherDir)), 'E_ARCHIVE_ENTRY_TYPE');
  });
});

describe('HB-14: duplicate, case-folded and normalization-colliding entries', () => {
  it('(a) a second ctxpkg.json saying version 9.9.9', async () => {
    const evil = fileEntry('ctxpkg.json', enc.encode('{"name":"@acme/archive-test","version":"9.9.9"}'));
    const err = await expectCode(readArchive(await withEntryAfterManifest(evil)), 'E_ARCHIVE_DUPLICATE_ENTRY');
    expect(err.message).toContain('ctxpkg.json');
  });

  it('(b) CTXPKG.JSON', async () => {
    const evil = fileEntry('CTXPKG.JSON', enc.encode('{}'));
    await expectCode(readArchive(await withEntryAfterManifest(evil)), 'E_ARCHIVE_DUPLICATE_ENTRY');
  });

  it('(c) blobs/café (NFC) with blobs/cafe\\u0301 (NFD)', async () => {
    const bytes = await withEntryAfterManifest(
      fileEntry('blobs/caf\u00e9', enc.encode('1')),
      fileEntry('blobs/cafe\u0301', enc.encode('2')),
    );
    await expectCode(readArchive(bytes), 'E_ARCHIVE_DUPLICATE_ENTRY');
  });

  it('a plain and a .zst spelling of the same entry', async () => {
    const bytes = await withEntryAfterManifest(fileEntry('content.json.zst', enc.encode('x'), { stored: true }));
    await expectCode(readArchive(bytes), 'E_ARCHIVE_DUPLICATE_ENTRY');
  });

  it('a blob name in upper-case hex next to its lower-case twin', async () => {
    const bytes = await withEntryAfterManifest(fileEntry(`blobs/${BLOB_REF.toUpperCase()}`, BLOB));
    await expectCode(readArchive(bytes), 'E_ARCHIVE_DUPLICATE_ENTRY');
  });
});

describe('HB-16: lying sizes and honest bombs', () => {
  const tenMiB = new Uint8Array(10 * 1024 * 1024);

  it('(a) an entry declaring 100 bytes that inflates to 10 MiB: E_ARCHIVE_SIZE_MISMATCH, quickly', async () => {
    const liar: RawEntry = {
      ...fileEntry(`blobs/${BLOB_REF}`, tenMiB),
      uncompressedSize: 100,
      crc: crc32(tenMiB.subarray(0, 100)),
    };
    const entries = parseZip(await baseArchive());
    entries[2] = liar;
    const t0 = Date.now();
    const err = await expectCode(readArchive(buildZip(entries)), 'E_ARCHIVE_SIZE_MISMATCH');
    expect(err.message).toMatch(/more than the 100 bytes/);
    expect(Date.now() - t0).toBeLessThan(2000 * 5); // generous; the bench, not this test, measures time
  });

  it('(b) an honest 64 MiB entry: E_TOO_LARGE without inflating it', async () => {
    const big = new Uint8Array(64 * 1024 * 1024);
    const bomb = fileEntry(`blobs/${BLOB_REF}`, big);
    expect(bomb.data.length).toBeLessThan(100_000);
    const entries = parseZip(await baseArchive());
    entries[2] = bomb;
    const err = await expectCode(readArchive(buildZip(entries)), 'E_TOO_LARGE');
    expect(err.message).toMatch(/limit/);
  });

  it('a lie in the local header only: E_ARCHIVE_SIZE_MISMATCH', async () => {
    const entries = parseZip(await baseArchive());
    entries[1] = { ...entries[1]!, localSizes: { uncompressed: 5 } };
    await expectCode(readArchive(buildZip(entries)), 'E_ARCHIVE_SIZE_MISMATCH');
  });

  it('a stored entry whose two sizes differ: E_ARCHIVE_SIZE_MISMATCH', async () => {
    const entries = parseZip(await baseArchive());
    entries[1] = { ...fileEntry('content.json', enc.encode(CONTENT_TEXT), { stored: true }), cdSizes: { uncompressed: 3 } };
    await expectCode(readArchive(buildZip(entries)), 'E_ARCHIVE_SIZE_MISMATCH');
  });

  it('an entry that inflates to fewer bytes than declared: E_ARCHIVE_SIZE_MISMATCH', async () => {
    const entries = parseZip(await baseArchive());
    entries[1] = { ...entries[1]!, uncompressedSize: entries[1]!.uncompressedSize + 10 };
    await expectCode(readArchive(buildZip(entries)), 'E_ARCHIVE_SIZE_MISMATCH');
  });

  it('the total cap counts all entries (three 4 MiB entries under a 10 MiB total)', async () => {
    const data = letters(4 * 1024 * 1024); // incompressible enough: the ratio cap stays out of it
    const entries = parseZip(await baseArchive());
    entries.push(fileEntry('rebuild.json', data));
    entries[1] = fileEntry('content.json', data);
    entries[0] = fileEntry('ctxpkg.json', data);
    const zip = buildZip(entries);
    await expectCode(readArchive(zip, { limits: { maxTotalBytes: 10 * 1024 * 1024 } }), 'E_TOO_LARGE');
    // The default total (32 MiB) admits the same 12 MiB: the ZIP form carries more than a bundle.
    expect((await readArchive(zip, { keepBlobs: false })).contentText.length).toBe(data.length);
  });

  it('the default total cap is 32 MiB, checked on the declared sizes before inflating', async () => {
    const block = letters(1000);
    const nine = new Uint8Array(9 * 1024 * 1024).map((_, i) => block[i % 1000]!); // deflates ~100:1
    const entries = parseZip(await baseArchive());
    entries[0] = fileEntry('ctxpkg.json', nine);
    entries[1] = fileEntry('content.json', nine);
    entries.push(fileEntry('rebuild.json', nine), fileEntry('blobs/sha256-' + 'e'.repeat(64), nine));
    const err = await expectCode(readArchive(buildZip(entries)), 'E_TOO_LARGE');
    expect(err.message).toMatch(/33554432/);
  });

  it('the ratio cap applies to declared sizes above the grace, before inflating', async () => {
    const data = new Uint8Array(3 * 1024 * 1024); // zeros deflate ~1000:1
    const entries = parseZip(await baseArchive());
    entries.push(fileEntry('rebuild.json', data));
    const err = await expectCode(readArchive(buildZip(entries), { limits: { maxRatio: 50 } }), 'E_TOO_LARGE');
    expect(err.message).toMatch(/ratio/);
  });

  it('the entry-count cap is checked before reading entries', async () => {
    const entries = parseZip(await baseArchive());
    await expectCode(readArchive(buildZip(entries), { limits: { maxEntries: 2 } }), 'E_TOO_LARGE');
  });

  it('the archive-size cap', async () => {
    await expectCode(readArchive(await baseArchive(), { limits: { maxArchiveBytes: 100 } }), 'E_TOO_LARGE');
  });
});

describe('structure checks', () => {
  it('overlapping entries (two directory records, one local record)', async () => {
    const entries = parseZip(await baseArchive());
    // A second directory record claims the blob's local record, so only the overlap is wrong.
    entries.push({ ...entries[2]!, name: nameBytes('rebuild.json'), pointAtEntry: 2 });
    const zip = buildZip(entries);
    expect((await expectCode(readArchive(zip), 'E_ARCHIVE')).message).toMatch(/overlaps/);
  });

  it('bytes hidden before the first entry, between entries, or after the end record', async () => {
    const entries = parseZip(await baseArchive());
    await expectCode(readArchive(buildZip(entries, { prefix: enc.encode('MZ-prefix') })), 'E_ARCHIVE');
    const valid = buildZip(entries);
    const trailing = new Uint8Array(valid.length + 3);
    trailing.set(valid);
    await expectCode(readArchive(trailing), 'E_ARCHIVE');
  });

  it('a CRC-32 that does not match the data', async () => {
    const entries = parseZip(await baseArchive());
    entries[1] = { ...entries[1]!, crc: (entries[1]!.crc ^ 1) >>> 0 };
    expect((await expectCode(readArchive(buildZip(entries)), 'E_ARCHIVE')).message).toMatch(/CRC-32/);
  });

  it('encryption, unsupported methods and corrupt deflate data', async () => {
    const entries = parseZip(await baseArchive());
    await expectCode(readArchive(buildZip([{ ...entries[0]!, flags: entries[0]!.flags | 1 }, ...entries.slice(1)])), 'E_ARCHIVE');
    await expectCode(readArchive(buildZip([{ ...entries[0]!, method: 12 }, ...entries.slice(1)])), 'E_ARCHIVE');
    const garbage = Uint8Array.from({ length: 64 }, (_, i) => (i * 97 + 13) & 0xff);
    const corrupt = { ...entries[1]!, data: garbage };
    await expectCode(readArchive(buildZip([entries[0]!, corrupt, entries[2]!])), 'E_ARCHIVE');
  });

  it('a name outside the layout, and missing required entries', async () => {
    await expectCode(readArchive(await withEntryAfterManifest(fileEntry('README.md', enc.encode('hi')))), 'E_ARCHIVE');
    await expectCode(readArchive(await withEntryAfterManifest(fileEntry('blobs/sha256-abc', enc.encode('hi')))), 'E_ARCHIVE');
    const entries = parseZip(await baseArchive());
    await expectCode(readArchive(buildZip([entries[0]!, entries[2]!])), 'E_ARCHIVE');
    await expectCode(readArchive(buildZip([])), 'E_ARCHIVE');
  });

  it('not a ZIP at all / truncated', async () => {
    await expectCode(readArchive(enc.encode('{"manifest":{},"content":{}}')), 'E_ARCHIVE');
    const valid = await baseArchive();
    await expectCode(readArchive(valid.subarray(0, valid.length - 5)), 'E_ARCHIVE');
  });

  it('a blob whose bytes do not hash to its name: E_BLOB', async () => {
    const entries = parseZip(await baseArchive());
    const other = enc.encode('different bytes');
    entries[2] = { ...fileEntry(`blobs/${BLOB_REF}`, other) };
    await expectCode(readArchive(buildZip(entries)), 'E_BLOB');
  });

  it('a manifest that is not UTF-8: E_ARCHIVE', async () => {
    const entries = parseZip(await baseArchive());
    entries[0] = fileEntry('ctxpkg.json', Uint8Array.of(0x7b, 0xc3, 0x28, 0x7d));
    await expectCode(readArchive(buildZip(entries)), 'E_ARCHIVE');
  });

  it('a content entry that is not UTF-8 is refused as it is read, before a later bad blob: E_ARCHIVE', async () => {
    const entries = parseZip(await baseArchive());
    expect(dec.decode(entries[1]!.name)).toBe('content.json');
    entries[1] = fileEntry('content.json', Uint8Array.of(0x7b, 0xed, 0xa0, 0x80, 0x7d)); // an encoded surrogate
    entries[2] = { ...fileEntry(`blobs/${BLOB_REF}`, enc.encode('different bytes')) };
    const err = await expectCode(readArchive(buildZip(entries)), 'E_ARCHIVE');
    expect(err.message).toMatch(/content\.json is not valid UTF-8/);
  });

  it('bytes after the end of a deflate stream cannot change what is read (spec §5: ignored, as by every inflater)', async () => {
    const entries = parseZip(await baseArchive());
    const d = deflateRawSync(enc.encode(CONTENT_TEXT));
    const padded = new Uint8Array(d.length + 8).fill(0x41);
    padded.set(d);
    entries[1] = { ...entries[1]!, data: padded };
    expect((await readArchive(buildZip(entries))).contentText).toBe(CONTENT_TEXT);
  });
});

describe('the yauzl cross-check', () => {
  it('passes on a valid archive and refuses when yauzl and our scan disagree', async () => {
    const { crossCheckWithYauzl } = await import('./read-entries.js');
    const { scanZip } = await import('./zip-scan.js');
    const { classifyEntries } = await import('./names.js');
    const { resolveLimits } = await import('./limits.js');
    const zip = await baseArchive();
    const scanned = scanZip(zip, resolveLimits()).entries;
    const { names } = classifyEntries(scanned);
    await expect(crossCheckWithYauzl(zip, scanned, names)).resolves.toBeUndefined();
    const wrong = [...names];
    wrong[1] = 'graph.json';
    await expectCode(crossCheckWithYauzl(zip, scanned, wrong), 'E_ARCHIVE');
    await expectCode(crossCheckWithYauzl(zip, scanned.slice(0, 2), names), 'E_ARCHIVE');
  });
});
