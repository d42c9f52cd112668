import { describe, expect, it } from 'vitest';
import { checkBlobRefs, collectBlobRefs, verifyBlobs } from './blobs.js';
import { BLOB, BLOB_REF } from './__tests__/fixtures.js';

const other = new TextEncoder().encode('other');
const OTHER_REF = 'sha256-' + 'ab'.repeat(32);

function issuesOf(fn: () => void): Array<{ path: string; code: string; message: string }> {
  try {
    fn();
  } catch (e) {
    expect((e as { code: string }).code).toBe('E_BLOB');
    return (e as { details: { issues: Array<{ path: string; code: string; message: string }> } }).details.issues;
  }
  throw new Error('expected E_BLOB');
}

describe('verifyBlobs', () => {
  const graph = (...refs: unknown[]) => ({ nodes: refs.map((r, i) => ({ id: `n${i}`, blob_ref: r })) });

  it('passes when refs and blobs are the same set with matching hashes', () => {
    expect(() => verifyBlobs(graph(BLOB_REF, undefined, BLOB_REF), new Map([[BLOB_REF, BLOB]]))).not.toThrow();
    expect(() => verifyBlobs(undefined, new Map())).not.toThrow();
    expect(collectBlobRefs(graph(BLOB_REF, null, BLOB_REF))).toEqual([BLOB_REF]);
  });

  it('reports missing, extra, misspelt and mismatching blobs together', () => {
    const issues = issuesOf(() =>
      verifyBlobs(graph(OTHER_REF, 'sha256-XYZ', 42), new Map([[BLOB_REF, BLOB], ['sha256-' + 'cd'.repeat(32), other]])),
    );
    const text = issues.map((i) => i.message).join('\n');
    expect(text).toMatch(/"sha256-XYZ" is not sha256/);
    expect(text).toMatch(/42 is not sha256/);
    expect(text).toMatch(new RegExp(`${OTHER_REF} is referenced but missing`));
    expect(text).toMatch(new RegExp(`${BLOB_REF} is not referenced`));
    expect(text).toMatch(/hashes to sha256-/);
    expect(issues.length).toBe(6);
  });

  it('checkBlobRefs compares names only', () => {
    expect(() => checkBlobRefs(graph(BLOB_REF), [BLOB_REF])).not.toThrow();
    expect(issuesOf(() => checkBlobRefs(graph(BLOB_REF), [])).length).toBe(1);
  });
});
