import { chmodSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifactPath, pruneStore, putArtifact, readArtifact, sha256Bytes } from './store.js';

describe('content-addressed store', () => {
  it('stores read-only bytes under their hash and reads them back verified', () => {
    const root = mkdtempSync(join(tmpdir(), 'ctxpkg-store-'));
    const bytes = new TextEncoder().encode('{"manifest":{},"content":{}}');
    const sha = putArtifact(root, bytes);
    expect(sha).toBe(sha256Bytes(bytes));
    expect(statSync(artifactPath(root, sha)).mode & 0o222).toBe(0);
    expect(readArtifact(root, sha)).toEqual(bytes);
    expect(putArtifact(root, bytes)).toBe(sha);
  });
  it('detects corruption', () => {
    const root = mkdtempSync(join(tmpdir(), 'ctxpkg-store-'));
    const sha = putArtifact(root, new Uint8Array([1, 2, 3]));
    const p = artifactPath(root, sha);
    chmodSync(p, 0o644);
    writeFileSync(p, 'x');
    expect(() => readArtifact(root, sha)).toThrow(/corrupt/);
  });
  it('never turns a hostile hash into a path', () => {
    const root = mkdtempSync(join(tmpdir(), 'ctxpkg-store-'));
    expect(() => artifactPath(root, '../../etc/passwd')).toThrow(/SHA-256/);
    expect(() => artifactPath(root, 'A'.repeat(64))).toThrow(/SHA-256/);
  });
  it('prunes unreferenced artifacts', () => {
    const root = mkdtempSync(join(tmpdir(), 'ctxpkg-store-'));
    const a = putArtifact(root, new Uint8Array([1]));
    const b = putArtifact(root, new Uint8Array([2]));
    expect(pruneStore(root, new Set([a]))).toEqual([b]);
    expect(readArtifact(root, b)).toBeUndefined();
  });
});
