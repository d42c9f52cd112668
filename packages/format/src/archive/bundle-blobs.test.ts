import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase64Strict, decodeBundleBlobs, encodeBase64, bundleBlobsText, bundleBlobsTextBytes } from './bundle-blobs.js';
import { listPackageBlobRefs, readPackageBlobs } from './package-blobs.js';
import { baseArchive, BLOB, BLOB_REF, expectCode } from './__tests__/fixtures.js';
import { archiveToJsonBundle } from './bundle.js';

const ref = (b: Uint8Array) => `sha256-${createHash('sha256').update(b).digest('hex')}`;
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

describe('base64 of bundle blobs (spec/archive.md §4.4)', () => {
  it('encodes like RFC 4648 and decodes back, for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const s = encodeBase64(bytes);
        expect(s).toBe(b64(bytes));
        expect(decodeBase64Strict(s, 'x')).toEqual(bytes);
      }),
    );
  });
  it('refuses every non-canonical spelling', () => {
    for (const s of ['QQ', 'QQ=', 'QR==', 'QUI=x', 'QU I=', 'QUJD\n', '-_-_', 'QUJ=', 'Q===', '====']) {
      expect(() => decodeBase64Strict(s, 'blobs.x'), JSON.stringify(s)).toThrow(/canonical base64/);
    }
    expect(decodeBase64Strict('', 'x')).toEqual(new Uint8Array(0));
  });
});

describe('decodeBundleBlobs', () => {
  it('returns blobs sorted by name, each hash-checked', () => {
    const a = new TextEncoder().encode('alpha');
    const b = new TextEncoder().encode('beta');
    const m = decodeBundleBlobs({ [ref(b)]: b64(b), [ref(a)]: b64(a) }, 0);
    expect([...m.keys()]).toEqual([ref(a), ref(b)].sort());
    expect(m.get(ref(a))).toEqual(a);
  });
  it('lists every bad name and hash mismatch (E_BLOB)', async () => {
    const a = new TextEncoder().encode('alpha');
    const err = await expectCode(() => decodeBundleBlobs({ 'sha256-ABC': b64(a), [ref(a)]: b64(new TextEncoder().encode('other')) }, 0), 'E_BLOB');
    expect(err.message).toMatch(/sha256-ABC/);
    const err2 = await expectCode(() => decodeBundleBlobs({ [ref(a)]: b64(new TextEncoder().encode('other')) }, 0), 'E_BLOB');
    expect(err2.message).toMatch(/hashes to/);
  });
  it('applies the archive caps to encoded lengths before decoding anything (E_TOO_LARGE)', async () => {
    // Invalid base64 of a huge size: the cap answers first, so nothing is decoded.
    const huge = 'A'.repeat(4 * 1024 * 1024);
    await expectCode(() => decodeBundleBlobs({ [`sha256-${'0'.repeat(64)}`]: huge }, 0, { maxEntryBytes: 1024 * 1024 }), 'E_TOO_LARGE');
    await expectCode(() => decodeBundleBlobs({ [`sha256-${'0'.repeat(64)}`]: 'AAAA', [`sha256-${'1'.repeat(64)}`]: 'AAAA' }, 0, { maxEntries: 3 }), 'E_TOO_LARGE');
    await expectCode(() => decodeBundleBlobs({ [`sha256-${'0'.repeat(64)}`]: 'AAAA' }, 1000, { maxTotalBytes: 1002 }), 'E_TOO_LARGE');
    await expectCode(() => decodeBundleBlobs({ a: 1 } as never, 0), 'E_STRUCTURE');
    await expectCode(() => decodeBundleBlobs([] as never, 0), 'E_STRUCTURE');
  });
  it('bundleBlobsTextBytes predicts the written text exactly', () => {
    const blobs = new Map([[ref(BLOB), BLOB], [ref(new Uint8Array([1])), new Uint8Array([1])], [ref(new Uint8Array(0)), new Uint8Array(0)]]);
    expect(bundleBlobsTextBytes([...blobs].map(([k, v]) => [k, v.length]))).toBe(bundleBlobsText(blobs).length);
  });
});

describe('blobs of a package in either form', () => {
  it('lists and reads the same blobs from the ZIP form and its JSON bundle', async () => {
    const zip = await baseArchive();
    const json = await archiveToJsonBundle(zip);
    expect(listPackageBlobRefs(zip)).toEqual([BLOB_REF]);
    expect(listPackageBlobRefs(json)).toEqual([BLOB_REF]);
    expect((await readPackageBlobs(json)).get(BLOB_REF)).toEqual(BLOB);
    expect((await readPackageBlobs(zip)).get(BLOB_REF)).toEqual(BLOB);
  });
  it('a "blobs" member spelled with a JSON escape is refused by every reader (one spelling per blob)', async () => {
    const { jsonBundleToArchive } = await import('./bundle.js');
    const { readPackage } = await import('../package.js');
    const json = new TextDecoder().decode(await archiveToJsonBundle(await baseArchive()));
    const b64 = encodeBase64(BLOB);
    expect(json).toContain(`"${b64}"`);
    const escaped = new TextEncoder().encode(json.replace(`"${b64}"`, `"\\u00${b64.charCodeAt(0).toString(16)}${b64.slice(1)}"`));
    await expectCode(readPackageBlobs(escaped), 'E_BLOB');
    await expectCode(jsonBundleToArchive(escaped), 'E_BLOB');
    await expectCode(Promise.resolve().then(() => readPackage(escaped)), 'E_BLOB');
  });
  it('a bundle without a "blobs" member has none (even when a string mentions "blobs")', async () => {
    const json = new TextEncoder().encode('{"manifest":{"name":"\\"blobs\\""},"content":{"x":"\\"blobs\\": {}"}}');
    expect(listPackageBlobRefs(json)).toEqual([]);
    expect((await readPackageBlobs(json)).size).toBe(0);
  });
});
