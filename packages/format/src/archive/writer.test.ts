import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readArchive } from './reader.js';
import { writeArchive } from './writer.js';
import { encodeZstdFrame } from './zstd.js';
import { BLOB, BLOB_REF, CONTENT_TEXT, MANIFEST_TEXT, baseArchive, expectCode } from './__tests__/fixtures.js';
import { parseZip } from './__tests__/zip-builder.js';

const dec = new TextDecoder();
const enc = new TextEncoder();

function blobOf(text: string): [string, Uint8Array] {
  const b = enc.encode(text);
  return [`sha256-${createHash('sha256').update(b).digest('hex')}`, b];
}

describe('writeArchive', () => {
  it('is deterministic: two writes give identical bytes', async () => {
    expect(await baseArchive()).toEqual(await baseArchive());
    expect(await baseArchive({ zstd: 'all' })).toEqual(await baseArchive({ zstd: 'all' }));
  });

  it('writes the fixed order, fixed DOS timestamp, mode 0100644, UTF-8 flag and no extra fields', async () => {
    const blobs = new Map([blobOf('zz'), blobOf('aa'), blobOf('mm')]);
    const zip = await writeArchive({ manifestText: MANIFEST_TEXT, contentText: '{}', blobs, rebuildText: '{}' });
    const entries = parseZip(zip);
    const names = entries.map((e) => dec.decode(e.name));
    expect(names.slice(0, 3)).toEqual(['ctxpkg.json', 'content.json', 'rebuild.json']);
    expect(names.slice(3)).toEqual([...blobs.keys()].sort().map((k) => `blobs/${k}`));
    for (const e of entries) {
      expect(e.externalAttributes >>> 16).toBe(0o100644);
      expect(e.flags & 0x0800).toBe(0x0800);
      expect(e.flags & 0x0008).toBe(0); // no data descriptor
      expect(e.versionMadeBy >>> 8).toBe(3); // Unix
    }
    // DOS date/time fields of every local header: time 0, date 1980-01-01 (0x0021).
    const dv = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    expect(dv.getUint16(10, true)).toBe(0);
    expect(dv.getUint16(12, true)).toBe(0x21);
    expect(dv.getUint16(28, true)).toBe(0); // local extra field length
  });

  it('the same bytes in any time zone (yazl converts with local time)', async () => {
    const { execFileSync } = await import('node:child_process');
    const script = `
      import { writeArchive } from './packages/format/src/archive/writer.ts';
      const z = await writeArchive({ manifestText: '{"a":1}', contentText: '{}' });
      process.stdout.write(Buffer.from(z).toString('hex'));`;
    const run = (tz: string): string =>
      execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, TZ: tz },
        cwd: new URL('../../../../', import.meta.url).pathname,
      }).toString();
    expect(run('Pacific/Kiritimati')).toBe(run('America/Anchorage'));
  });

  it('stores .zst entries, deflates the rest, and reads back the same texts and blobs', async () => {
    for (const mode of ['none', 'blobs', 'all'] as const) {
      const zip = await baseArchive({ zstd: mode });
      const entries = parseZip(zip);
      const names = entries.map((e) => dec.decode(e.name));
      expect(names.filter((n) => n.endsWith('.zst')).length).toBe(mode === 'none' ? 0 : mode === 'blobs' ? 1 : 3);
      for (const e of entries) expect(e.method).toBe(dec.decode(e.name).endsWith('.zst') ? 0 : 8);
      const back = await readArchive(zip);
      expect(back.manifestText).toBe(MANIFEST_TEXT);
      expect(back.contentText).toBe(CONTENT_TEXT);
      expect(back.blobs.get(BLOB_REF)).toEqual(BLOB);
    }
  });

  it('uses an injected compressor and checks its frames', async () => {
    let calls = 0;
    const zip = await baseArchive({ zstd: 'blobs', zstdCompressor: (b) => (calls++, encodeZstdFrame(b)) });
    expect(calls).toBe(1);
    expect((await readArchive(zip)).blobs.get(BLOB_REF)).toEqual(BLOB);
    await expectCode(baseArchive({ zstd: 'blobs', zstdCompressor: () => Uint8Array.of(1, 2, 3) }), 'E_ARCHIVE');
    await expectCode(baseArchive({ zstd: 'blobs', zstdCompressor: () => encodeZstdFrame(enc.encode('other')) }), 'E_ARCHIVE');
  });

  it('validates blobs before writing: key spelling and hash', async () => {
    const bad = new Map([[BLOB_REF.toUpperCase(), BLOB]]);
    await expectCode(writeArchive({ manifestText: '{}', contentText: '{}', blobs: bad }), 'E_BLOB');
    const wrong = new Map([[BLOB_REF, enc.encode('not it')]]);
    await expectCode(writeArchive({ manifestText: '{}', contentText: '{}', blobs: wrong }), 'E_BLOB');
  });

  it('refuses lone surrogates (UTF-8 cannot carry them) and sizes above the limits', async () => {
    await expectCode(writeArchive({ manifestText: '{"a":"\ud800"}', contentText: '{}' }), 'E_INVALID_JSON');
    await expectCode(writeArchive({ manifestText: '{}', contentText: 'x'.repeat(2000) }, { limits: { maxEntryBytes: 1000 } }), 'E_TOO_LARGE');
  });

  it('never returns an archive its reader refuses (ratio cap)', async () => {
    const zeros = new Uint8Array(4 * 1024 * 1024);
    const blobs = new Map([[`sha256-${createHash('sha256').update(zeros).digest('hex')}`, zeros]]);
    await expectCode(writeArchive({ manifestText: '{}', contentText: '{}', blobs }, { zstd: 'blobs' }), 'E_TOO_LARGE');
  });
});
