import { chmodSync, existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blobDisplayPath, blobHex, blobPath, listBlobs, pruneBlobs, putBlob, readBlob } from './blob-store.js';
import { sha256Bytes } from './store.js';

const enc = new TextEncoder();
const root = () => mkdtempSync(join(tmpdir(), 'ctxpkg-blobs-'));

describe('project blob store', () => {
  it('stores each blob once, read-only, under .ctxpkg/store/blobs/sha256/<hex>, and reads it back verified', () => {
    const r = root();
    const bytes = enc.encode('a large document\n');
    const hex = putBlob(r, bytes, `sha256-${sha256Bytes(bytes)}`);
    expect(hex).toBe(sha256Bytes(bytes));
    const path = blobPath(r, `sha256-${hex}`);
    expect(path).toBe(join(r, '.ctxpkg', 'store', 'blobs', 'sha256', hex));
    expect(statSync(path).mode & 0o222).toBe(0);
    expect(readBlob(r, `sha256-${hex}`)).toEqual(bytes);
    expect(putBlob(r, bytes)).toBe(hex); // idempotent: shared across packages and versions
    expect(readdirSync(join(r, '.ctxpkg', 'store', 'blobs', 'sha256'))).toEqual([hex]);
    expect(blobDisplayPath(`sha256-${hex}`)).toBe(`.ctxpkg/store/blobs/sha256/${hex}`);
  });

  it('refuses bytes that do not match the expected reference, writing nothing', () => {
    const r = root();
    expect(() => putBlob(r, enc.encode('x'), `sha256-${'0'.repeat(64)}`)).toThrow(expect.objectContaining({ code: 'E_BLOB' }));
    expect(existsSync(join(r, '.ctxpkg'))).toBe(false);
  });

  it('detects a corrupt file on read and replaces it on the next put', () => {
    const r = root();
    const bytes = enc.encode('blob');
    const hex = putBlob(r, bytes);
    const path = blobPath(r, hex);
    chmodSync(path, 0o644);
    writeFileSync(path, 'tampered');
    expect(() => readBlob(r, hex)).toThrow(expect.objectContaining({ code: 'E_INTEGRITY' }));
    putBlob(r, bytes);
    expect(readBlob(r, hex)).toEqual(bytes);
  });

  it('never turns a hostile reference into a path', () => {
    for (const bad of ['../../etc/passwd', 'sha256-' + 'A'.repeat(64), 'sha256-../x', 'sha512-' + 'a'.repeat(64), '']) {
      expect(() => blobHex(bad)).toThrow(expect.objectContaining({ code: 'E_BLOB' }));
      expect(() => blobPath(root(), bad)).toThrow(expect.objectContaining({ code: 'E_BLOB' }));
    }
  });

  it('absent blob → undefined; prune removes what is not kept', () => {
    const r = root();
    expect(readBlob(r, 'a'.repeat(64))).toBeUndefined();
    const a = putBlob(r, enc.encode('a'));
    const b = putBlob(r, enc.encode('b'));
    expect(listBlobs(r)).toEqual([a, b].sort());
    expect(pruneBlobs(r, new Set([a]))).toEqual([b]);
    expect(listBlobs(r)).toEqual([a]);
  });
});
