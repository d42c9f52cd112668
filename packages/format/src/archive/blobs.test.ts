import fc from 'fast-check';
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

  it('checkBlobRefs takes names as an iterable, a set or a map, with the same answer (property)', () => {
    const ref = (i: number) => 'sha256-' + i.toString(16).padStart(64, '0');
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 7 }), { maxLength: 10 }), fc.uniqueArray(fc.integer({ min: 0, max: 7 }), { maxLength: 8 }), (refs, names) => {
        const g = graph(...refs.map(ref));
        const list = names.map(ref);
        const outcome = (n: Iterable<string>) => {
          try {
            checkBlobRefs(g, n);
            return [];
          } catch (e) {
            return (e as { details: { issues: unknown[] } }).details.issues;
          }
        };
        const expected = outcome(list);
        expect(outcome(new Set(list))).toEqual(expected);
        expect(outcome(new Map(list.map((n) => [n, 1])) as unknown as Iterable<string>)).toEqual(expected);
        // As written: missing refs in node order, then the unreferenced names sorted.
        const distinct = [...new Set(refs.map(ref))];
        const want = [
          ...distinct.filter((r) => !list.includes(r)).map((r) => `blobs/${r} missing`),
          ...[...list].sort().filter((n) => !distinct.includes(n)).map((n) => `blobs/${n} unreferenced`),
        ];
        expect(expected.map((i) => `${(i as { path: string }).path} ${/missing/.test((i as { message: string }).message) ? 'missing' : 'unreferenced'}`)).toEqual(want);
      }),
      { numRuns: 2000 },
    );
  });

  it('checkBlobRefs lists missing blobs in node order, then unreferenced ones sorted by name', () => {
    const ref = (c: string) => 'sha256-' + c.repeat(64);
    const issues = issuesOf(() => checkBlobRefs(graph(ref('9'), BLOB_REF, ref('1')), [ref('e'), BLOB_REF, ref('0'), ref('b')]));
    expect(issues.map((i) => i.path)).toEqual([`blobs/${ref('9')}`, `blobs/${ref('1')}`, `blobs/${ref('0')}`, `blobs/${ref('b')}`, `blobs/${ref('e')}`]);
    expect(issues.map((i) => i.message.split(' ').slice(2).join(' '))).toEqual([
      'is referenced but missing',
      'is referenced but missing',
      'is not referenced by any node',
      'is not referenced by any node',
      'is not referenced by any node',
    ]);
  });
});
