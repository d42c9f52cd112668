import { describe, expect, it } from 'vitest';
import { describeShared, sharedBytes } from '../../../../test/support/shared.js';
import { createHash } from 'node:crypto';
import { compactJsonText, extractTopLevelMemberText } from '../json/text.js';
import { archiveToJsonBundle, jsonBundleToArchive, prettyJsonText } from './bundle.js';
import { readArchive } from './reader.js';
import { writeArchive } from './writer.js';
import { BLOB, BLOB_REF, CONTENT_TEXT, baseArchive, expectCode, expectSameBytes } from './__tests__/fixtures.js';

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

  it('the caller\'s limits govern the written archive (larger packages when raised, refusal when lowered)', async () => {
    const blobs = new Map([[BLOB_REF, BLOB]]);
    await expectCode(jsonBundleToArchive(bundle(CONTENT_TEXT), { blobs, limits: { maxEntryBytes: BLOB.length - 1 } }), 'E_TOO_LARGE');
    const zip = await jsonBundleToArchive(bundle(CONTENT_TEXT), { blobs, limits: { maxEntryBytes: BLOB.length } });
    expect((await readArchive(zip)).blobs.get(BLOB_REF)).toEqual(BLOB);
  });

  it('an archive with blobs becomes a bundle with a "blobs" member, and back byte for byte', async () => {
    const zip = await baseArchive();
    const json = await archiveToJsonBundle(zip);
    const text = dec.decode(json);
    expect(text.endsWith(`,\n  "blobs": {\n    "${BLOB_REF}": "${Buffer.from(BLOB).toString('base64')}"\n  }\n}`)).toBe(true);
    expect(compactJsonText(extractTopLevelMemberText(text, 'content')!)).toBe(compactJsonText(CONTENT_TEXT));
    expectSameBytes(await jsonBundleToArchive(json), zip);
    // The reference reads the first "content" member and ignores unknown members.
    expect(Object.keys(JSON.parse(text))).toEqual(['manifest', 'content', 'blobs']);
  });

  it('a "blobs" member must match the graph and hash to its names', async () => {
    const json = dec.decode(await archiveToJsonBundle(await baseArchive()));
    const other = `sha256-${'0'.repeat(64)}`;
    await expectCode(jsonBundleToArchive(enc.encode(json.replace(BLOB_REF + '"', other + '"'))), 'E_BLOB'); // renamed: hash mismatch
    await expectCode(jsonBundleToArchive(enc.encode(json.replace(/"blobs": \{[^}]*\}/, '"blobs": {}'))), 'E_BLOB'); // missing
    await expectCode(jsonBundleToArchive(enc.encode(json), { blobs: new Map([[BLOB_REF, BLOB]]) }), 'E_USAGE');
    await expectCode(jsonBundleToArchive(bundle(CONTENT_TEXT, ',"blobs":[]')), 'E_STRUCTURE');
  });

  it('a bundle too large for 10 MiB with its blobs in base64 is refused before encoding (E_TOO_LARGE)', async () => {
    const big = new Uint8Array(8 * 1024 * 1024).map((_, i) => (i * 2654435761) >>> 24);
    const ref = `sha256-${createHash('sha256').update(big).digest('hex')}`;
    const content = JSON.stringify({ context_graph: { format: 'ctxpkg-graph-v2', nodes: [{ id: 'a', type: 'fact', content: 'x', activation: 1.0, blob_ref: ref }], edges: [] } }).replace('1,', '1.0,');
    const zip = await writeArchive({ manifestText: manifest, contentText: content, blobs: new Map([[ref, big]]) });
    const err = await expectCode(archiveToJsonBundle(zip), 'E_TOO_LARGE');
    expect(err.message).toMatch(/as a JSON bundle the package would be \d+ bytes \(1 blob\(s\) of 8388608 bytes in base64\)/);
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
