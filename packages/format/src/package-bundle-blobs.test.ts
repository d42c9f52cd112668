/**
 * readPackage/verifyPackage on a JSON bundle that carries blobs (spec/archive.md §4.4): same
 * integrity and signature as the ZIP form, every blob checked against the graph and its name.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { archiveToJsonBundle, jsonBundleToArchive } from './archive/bundle.js';
import { writePackage } from './package-write.js';
import { readPackage, verifyPackage } from './package.js';

const SEED = new Uint8Array(32).fill(7);
const BLOB = new TextEncoder().encode('the whole runbook, line after line\n'.repeat(200));
const REF = `sha256-${createHash('sha256').update(BLOB).digest('hex')}`;
const dec = new TextDecoder();
const enc = new TextEncoder();

function signed(): Uint8Array {
  return writePackage(
    {
      manifest: { name: '@acme/blobby', version: '1.0.0', created_at: '2026-01-02T03:04:05Z' },
      content: {
        context_graph: {
          format: 'ctxpkg-graph-v2',
          nodes: [{ id: 'runbook', type: 'procedure', content: 'the whole runbook', activation: 1, blob_ref: REF }],
          edges: [],
        },
      },
    },
    { seed: SEED },
  );
}

describe('JSON bundle with a "blobs" member', () => {
  it('verifies with the same integrity and signature as the ZIP form and returns the blobs', async () => {
    const zip = await jsonBundleToArchive(signed(), { blobs: new Map([[REF, BLOB]]) });
    const json = await archiveToJsonBundle(zip);
    const a = await readPackage(zip, { requireSignature: true });
    const b = await readPackage(json, { requireSignature: true });
    expect(b.form).toBe('json');
    expect(b.manifest.integrity).toEqual(a.manifest.integrity);
    expect(b.signer).toBe(a.signer);
    expect(b.blobs?.get(REF)).toEqual(BLOB);
    // The bundle without the member is the plain bundle the reference writes; blob_refs are then unchecked.
    const plain = dec.decode(json).replace(/,\n  "blobs": \{[^}]*\}/, '');
    expect((await readPackage(enc.encode(plain))).blobs).toBeUndefined();
  });

  it('a swapped, missing or extra blob fails the structure check (E_BLOB); nothing else changes', async () => {
    const json = dec.decode(await archiveToJsonBundle(await jsonBundleToArchive(signed(), { blobs: new Map([[REF, BLOB]]) })));
    const other = enc.encode('something else');
    const otherRef = `sha256-${createHash('sha256').update(other).digest('hex')}`;
    const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
    const swapped = json.replace(b64(BLOB), b64(other));
    const missing = json.replace(/"blobs": \{[^}]*\}/, '"blobs": {}');
    const extra = json.replace(/"blobs": \{/, `"blobs": {\n    "${otherRef}": "${b64(other)}",`);
    for (const [what, text, pattern] of [['swapped', swapped, /hashes to/], ['missing', missing, /referenced but missing/], ['extra', extra, /not referenced/]] as const) {
      const r = await verifyPackage(enc.encode(text));
      expect(r.valid, what).toBe(false);
      expect(r.errors[0]!.code, what).toBe('E_BLOB');
      expect(r.errors.map((e) => e.message).join(' '), what).toMatch(pattern);
      await expect(readPackage(enc.encode(text)), what).rejects.toMatchObject({ code: 'E_BLOB' });
    }
    // Any other unknown top-level member is still refused.
    await expect(readPackage(enc.encode(json.replace(/\n}$/, ',\n  "x": 1\n}')))).rejects.toMatchObject({ code: 'E_STRUCTURE' });
  });
});
