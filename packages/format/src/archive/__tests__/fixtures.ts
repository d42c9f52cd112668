/** Test support: a small valid archive built by our writer, and helpers to assert error codes. */
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { writeArchive, type WriteArchiveOptions } from '../writer.js';

const enc = new TextEncoder();

export const BLOB = enc.encode('a blob: the content of a large document\n'.repeat(20));
export const BLOB_REF = `sha256-${createHash('sha256').update(BLOB).digest('hex')}`;
export const MANIFEST_TEXT = '{\n  "name": "@acme/archive-test",\n  "version": "1.0.0"\n}';
export const CONTENT_TEXT = JSON.stringify(
  {
    context_graph: {
      format: 'ctxpkg-graph-v2',
      nodes: [{ id: 'n1', type: 'fact', content: 'see blob', activation: 1, blob_ref: BLOB_REF }],
      edges: [],
    },
  },
  null,
  2,
);

/** The base archive: manifest, content and one blob (deterministic). */
export function baseArchive(options: WriteArchiveOptions = {}): Promise<Uint8Array> {
  return writeArchive({ manifestText: MANIFEST_TEXT, contentText: CONTENT_TEXT, blobs: new Map([[BLOB_REF, BLOB]]) }, options);
}

/** Await `p` and expect a CtxpkgError with `code`; returns the error. */
export async function expectCode(p: Promise<unknown> | (() => unknown), code: string): Promise<{ code: string; message: string }> {
  let err: unknown;
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    err = e;
  }
  expect(err, `expected ${code}`).toBeDefined();
  expect((err as { name?: string }).name).toBe('CtxpkgError');
  expect((err as { code?: string }).code, (err as Error).message).toBe(code);
  return err as { code: string; message: string };
}

/** Fast byte equality for large arrays (vitest's deep `toEqual` is slow on 100k+ elements). */
export function expectSameBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.length).toBe(expected.length);
  expect(Buffer.compare(Buffer.from(actual.buffer, actual.byteOffset, actual.length), Buffer.from(expected.buffer, expected.byteOffset, expected.length))).toBe(0);
}
