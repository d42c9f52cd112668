import { describe, expect, it } from 'vitest';
import { describeShared, sharedBytes } from '../../../../test/support/shared.js';
import { compactJsonText } from '../json/text.js';
import { archiveToJsonBundle, jsonBundleToArchive, prettyJsonText } from './bundle.js';
import { readArchive } from './reader.js';
import { writeArchive } from './writer.js';
import { BLOB, BLOB_REF, CONTENT_TEXT, baseArchive, expectCode } from './__tests__/fixtures.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

describe('prettyJsonText', () => {
  it('lays out like serde_json::to_string_pretty and keeps every literal', () => {
    const src = '{"a":1.0,"b":[],"c":{},"d":[1,{"e":"x, y: {z}","f":"q\\"}\\\\"}],"g":null,"h":1e+16}';
    expect(prettyJsonText(src)).toBe(
      '{\n  "a": 1.0,\n  "b": [],\n  "c": {},\n  "d": [\n    1,\n    {\n      "e": "x, y: {z}",\n      "f": "q\\"}\\\\"\n    }\n  ],\n  "g": null,\n  "h": 1e+16\n}',
    );
  });

  it('changes whitespace only (compaction is invariant) and is idempotent', () => {
    const src = ' { "k" : [ 1 , 2.50 , "a b" ] ,\n\t"m" : { } } ';
    const p = prettyJsonText(src);
    expect(compactJsonText(p)).toBe(compactJsonText(src));
    expect(prettyJsonText(p)).toBe(p);
    expect(prettyJsonText('[ ]')).toBe('[]');
  });
});

describe('JSON bundle ↔ ZIP', () => {
  const manifest = '{"name":"@acme/x","version":"1.0.0","integrity":{"content_hash":"abc"}}';
  const bundle = (content: string, extra = ''): Uint8Array =>
    enc.encode(`{"manifest":${manifest},"content":${content}${extra}}`);

  it('a compact bundle becomes pretty texts in the archive with the same compacted content', async () => {
    const content = '{"context_graph":{"format":"ctxpkg-graph-v2","nodes":[{"id":"a","type":"fact","content":"x","activation":1.0}],"edges":[]}}';
    const zip = await jsonBundleToArchive(bundle(content));
    const parts = await readArchive(zip);
    expect(compactJsonText(parts.contentText)).toBe(content);
    expect(parts.contentText).toBe(prettyJsonText(content));
    const back = dec.decode(await archiveToJsonBundle(zip));
    expect(back.startsWith('{\n  "manifest": {\n    "name": "@acme/x"')).toBe(true);
    expect(back.endsWith('\n}')).toBe(true);
    expect(compactJsonText(back)).toBe(compactJsonText(dec.decode(bundle(content))));
    // ZIP → JSON → ZIP is byte-identical.
    expect(await jsonBundleToArchive(enc.encode(back))).toEqual(zip);
  });

  it('refuses a bundle member that has no place in the archive, and non-objects', async () => {
    await expectCode(jsonBundleToArchive(bundle('{}', ',"extra":1')), 'E_STRUCTURE');
    await expectCode(jsonBundleToArchive(enc.encode(`{"manifest":${manifest},"content":[]}`)), 'E_STRUCTURE');
    await expectCode(jsonBundleToArchive(enc.encode(`{"manifest":${manifest}}`)), 'E_STRUCTURE');
    await expectCode(jsonBundleToArchive(enc.encode(`{"manifest":${manifest},"content":{},"content":{}}`)), 'E_DUPLICATE_KEY');
    await expectCode(jsonBundleToArchive(Uint8Array.of(0x7b, 0xff, 0x7d)), 'E_INVALID_JSON');
  });

  it('a graph referencing blobs needs those blobs', async () => {
    await expectCode(jsonBundleToArchive(bundle(CONTENT_TEXT)), 'E_BLOB');
    const zip = await jsonBundleToArchive(bundle(CONTENT_TEXT), { blobs: new Map([[BLOB_REF, BLOB]]) });
    expect((await readArchive(zip)).blobs.get(BLOB_REF)).toEqual(BLOB);
  });

  it('an archive with blobs cannot become a JSON bundle', async () => {
    const err = await expectCode(archiveToJsonBundle(await baseArchive()), 'E_ARCHIVE');
    expect(err.message).toMatch(/blob/);
  });

  it('rebuild.json is refused unless dropped explicitly', async () => {
    const zip = await writeArchive({ manifestText: manifest, contentText: '{}', rebuildText: '{"steps":[]}' });
    await expectCode(archiveToJsonBundle(zip), 'E_ARCHIVE');
    const out = dec.decode(await archiveToJsonBundle(zip, { dropRebuild: true }));
    expect(out).not.toContain('steps');
  });

  it('archive texts must be strict JSON objects', async () => {
    await expectCode(archiveToJsonBundle(await writeArchive({ manifestText: manifest, contentText: '{"a":1,"a":2}' })), 'E_DUPLICATE_KEY');
    await expectCode(archiveToJsonBundle(await writeArchive({ manifestText: '[]', contentText: '{}' })), 'E_STRUCTURE');
  });
});

describeShared('the reference-written golden package (vectors/acme-auth-context-2.0.0.ctxpkg)', () => {
  it('JSON → ZIP → JSON is byte-identical, and the ZIP is reproducible', async () => {
    const golden = sharedBytes('vectors/acme-auth-context-2.0.0.ctxpkg');
    const zip = await jsonBundleToArchive(golden);
    expect(await jsonBundleToArchive(golden)).toEqual(zip);
    expect(await archiveToJsonBundle(zip)).toEqual(golden);
  });
});
