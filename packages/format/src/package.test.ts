import { describe, expect, it } from 'vitest';
import { jsonBundleToArchive } from './archive/index.js';
import { CtxpkgError } from './errors.js';
import { computeIntegrity } from './integrity.js';
import { MAX_PACKAGE_BYTES, readPackage, verifyPackage } from './package.js';
import { writePackage } from './package-write.js';
import { signManifest } from './signature.js';
import { bytes, craftBundle, GOLDEN_CONTENT_TEXT, goldenContent, goldenManifest, PUB42, SEED42 } from './__tests__/fixtures.js';

async function readError(b: Uint8Array, opts = {}): Promise<CtxpkgError> {
  try {
    await readPackage(b, opts);
  } catch (e) {
    if (e instanceof CtxpkgError) return e;
    throw e;
  }
  throw new Error('expected readPackage to throw');
}

describe('readPackage: valid packages', () => {
  it('reads a crafted golden-shaped package and reports every check as pass', async () => {
    const pkg = await readPackage(bytes(craftBundle()));
    expect(pkg.form).toBe('json');
    expect(pkg.signer).toBe(PUB42);
    expect(pkg.contentText).toBe(GOLDEN_CONTENT_TEXT);
    expect(Object.values(pkg.checks).map((c) => c.status)).toEqual(['pass', 'pass', 'pass', 'pass', 'pass']);
    expect(pkg.manifest.kind).toBe('context');
    expect(pkg.manifest.stats).toEqual({ knowledge_facts: 0, graph_nodes: 0, graph_edges: 0, pattern_count: 0, gotcha_count: 0, compression_ratio: 0 });
    expect(pkg.graph.nodes.map((n) => n.id)).toEqual(['N1', 'N2', 'N3']);
    expect(pkg.content.context_graph!.edges[1]).toEqual({ from: 'N2', to: 'N3', type: 'calls', weight: 1, coactivations: 0, metadata: 'x' });
  });

  it('any whitespace layout verifies: hashing is over the compacted writer text', async () => {
    const pretty = GOLDEN_CONTENT_TEXT.replace(/,"/g, ',\n   "').replace(/\{"/g, '{\n "');
    const pkg = await readPackage(bytes(craftBundle({ contentText: pretty })));
    expect(pkg.contentText).toBe(GOLDEN_CONTENT_TEXT);
  });

  it('an unsigned package reads, but is E_UNSIGNED when a signature is required', async () => {
    const b = bytes(craftBundle({ seed: null }));
    const pkg = await readPackage(b);
    expect(pkg.signer).toBeUndefined();
    expect(pkg.checks.signature.status).toBe('skipped');
    expect((await readError(b, { requireSignature: true })).code).toBe('E_UNSIGNED');
  });

  it('normalizes the v2 spec dependency map to the array form', async () => {
    const pkg = await readPackage(bytes(craftBundle({ head: '"schema_version":2,"name":"@acme/auth-context","version":"1.2.0","description":"","created_at":"2026-01-02T03:04:05Z","layers":[],"dependencies":{"@acme/base":"^1.2","@acme/x":"~2"}' })));
    expect(pkg.manifest.dependencies).toEqual([
      { name: '@acme/base', version_req: '^1.2', optional: false },
      { name: '@acme/x', version_req: '~2', optional: false },
    ]);
    expect(pkg.manifest.author).toBeNull();
    expect(pkg.manifest.updated_at).toBeNull();
  });

  it('reads the ZIP form through the same verification (form "zip")', async () => {
    const json = writePackage({ manifest: goldenManifest(), content: goldenContent() }, { seed: SEED42 });
    const zip = await jsonBundleToArchive(json);
    const a = await readPackage(json);
    const z = await readPackage(zip);
    expect(z.form).toBe('zip');
    expect(z.contentText).toBe(a.contentText);
    expect(z.manifest).toEqual(a.manifest);
    expect(z.signer).toBe(PUB42);
  });
});

describe('readPackage: the reference verify fixture (FORMAT-FACTS §11.1)', () => {
  const content = '{"note":"hello","weight":1.0}';
  const fixture = (o: Parameters<typeof craftBundle>[0] = {}) =>
    craftBundle({ name: 'vt-pkg', version: '1.0.0', contentText: content, seed: new Uint8Array(32).fill(9), head: '"schema_version":1,"name":"vt-pkg","version":"1.0.0","description":"","created_at":"2026-01-02T03:04:05Z","layers":["knowledge"]', ...o });

  it('integrity and signature pass; structure fails because the content is not a PackageContent (intended divergence)', async () => {
    const r = await verifyPackage(bytes(fixture()));
    expect(r.checks.content_hash).toEqual({ status: 'pass', detail: '6b7c625366e1a9837ef1a6c5c4481a8c57ea2d7281da0b0e9357d226ba271612' });
    expect(r.checks.sha256.detail).toBe('39e35efb6265536becff30670bf72e3fece4e3faa2983add99a8383d5e76300d');
    expect(r.checks.byte_size.detail).toBe('29');
    expect(r.checks.signature.status).toBe('pass');
    expect(r.checks.structure.status).toBe('fail');
    expect(r.errors.map((e) => e.path)).toEqual(['content.note', 'content.weight']);
    expect(r.valid).toBe(false);
  });

  it('"hello" → "evil" fails content_hash with expected and found', async () => {
    const text = fixture().replace('"hello"', '"evil"');
    const r = await verifyPackage(bytes(text));
    expect(r.checks.content_hash.status).toBe('fail');
    const e = r.errors.find((x) => x.code === 'E_INTEGRITY' && x.path === 'manifest.integrity.content_hash')!;
    expect(e.details).toEqual({ field: 'content_hash', expected: '6b7c625366e1a9837ef1a6c5c4481a8c57ea2d7281da0b0e9357d226ba271612', found: computeIntegrity('vt-pkg', '1.0.0', '{"note":"evil","weight":1.0}').content_hash });
  });

  it('a null signature is skipped; a damaged signature value fails', async () => {
    const unsigned = await verifyPackage(bytes(fixture({ signatureText: 'null' })));
    expect(unsigned.checks.signature.status).toBe('skipped');
    const good = JSON.parse(fixture()).manifest.signature;
    const damaged = { ...good, value: (good.value.startsWith('0000') ? 'ffff' : '0000') + good.value.slice(4) };
    const r = await verifyPackage(bytes(fixture({ signatureText: JSON.stringify(damaged) })));
    expect(r.checks.signature.status).toBe('fail');
    expect(r.errors.some((e) => e.code === 'E_SIGNATURE_INVALID')).toBe(true);
  });

  it('{"content":{}} is a structure failure mentioning the manifest', async () => {
    const r = await verifyPackage(bytes('{"content":{}}'));
    expect(r.valid).toBe(false);
    expect(r.checks.structure.status).toBe('fail');
    expect(r.checks.structure.detail).toMatch(/manifest/);
  });
});

describe('readPackage: refusals', () => {
  it('E_TOO_LARGE is decided before parsing', async () => {
    const huge = new Uint8Array(MAX_PACKAGE_BYTES + 1).fill(0x20);
    const e = await readError(huge);
    expect(e.code).toBe('E_TOO_LARGE');
    expect((await verifyPackage(huge)).checks.content_hash.status).toBe('skipped');
    // exactly at the limit it is parsed (and then fails for other reasons)
    expect((await readError(new Uint8Array(MAX_PACKAGE_BYTES).fill(0x20))).code).toBe('E_INVALID_JSON');
  });

  it('a duplicate top-level content member is refused (the reference hashes the first, parses the last)', async () => {
    const e = await readError(bytes(craftBundle({ trailerMembers: ',"content":{}' })));
    expect(e.code).toBe('E_DUPLICATE_KEY');
  });

  it('extra top-level members and non-object parts are E_STRUCTURE', async () => {
    expect((await readError(bytes(craftBundle({ trailerMembers: ',"extra":1' })))).code).toBe('E_STRUCTURE');
    expect((await readError(bytes('{"manifest":[],"content":{}}'))).code).toBe('E_STRUCTURE');
    expect((await readError(bytes('[]'))).code).toBe('E_STRUCTURE');
  });

  it('a BOM or invalid UTF-8 is E_INVALID_JSON', async () => {
    expect((await readError(bytes('\ufeff' + craftBundle()))).code).toBe('E_INVALID_JSON');
    const b = bytes(craftBundle());
    b[b.length - 3] = 0xff;
    expect((await readError(b)).code).toBe('E_INVALID_JSON');
  });

  it('uppercase hex in the manifest is an integrity mismatch', async () => {
    const ok = JSON.parse(craftBundle()).manifest.integrity;
    const e = await readError(bytes(craftBundle({ integrity: { content_hash: ok.content_hash.toUpperCase() } })));
    expect(e.code).toBe('E_INTEGRITY');
  });

  it('an unknown kind is refused as needing a newer ctxpkg, never misread', async () => {
    const e = await readError(bytes(craftBundle({ extraManifest: '"kind":"plugin"' })));
    expect(e.code).toBe('E_KIND_UNSUPPORTED');
    expect(e.message).toMatch(/newer ctxpkg/);
  });

  it('a non-context kind needs schema_version 2', async () => {
    const head = '"schema_version":1,"kind":"grammar","name":"@acme/g","version":"1.0.0","description":"","created_at":"2026-01-02T03:04:05Z","layers":["knowledge"]';
    const e = await readError(bytes(craftBundle({ name: '@acme/g', version: '1.0.0', head, contentText: '{}' })));
    expect(e.message).toMatch(/requires schema_version 2/);
  });

  it('reports every problem in details.issues', async () => {
    const head = '"schema_version":7,"name":"@acme/Bad","version":"1.0.0","description":"","created_at":"nope","layers":[]';
    const e = await readError(bytes(craftBundle({ name: '@acme/Bad', version: '1.0.0', head, integrity: { byte_size: 1 } })));
    const issues = (e.details!.issues as Array<{ code: string; path: string }>).map((i) => `${i.code} ${i.path}`);
    expect(issues).toEqual(['E_MANIFEST manifest.created_at', 'E_INTEGRITY manifest.integrity.byte_size']);
    const head2 = '"schema_version":7,"conformance_level":9,"name":"@acme/Bad","version":"1.0.0","description":"","created_at":"2026-01-02T03:04:05Z","layers":[]';
    const e2 = await readError(bytes(craftBundle({ name: '@acme/Bad', version: '1.0.0', head: head2 })));
    expect((e2.details!.issues as Array<{ code: string }>).map((i) => i.code)).toEqual(['E_MANIFEST', 'E_INVALID_NAME', 'E_CONFORMANCE']);
  });

  it('integers: 1.0 in a u32 field and unsafe byte_size are refused', async () => {
    const head = '"schema_version":2.0,"name":"@acme/auth-context","version":"1.2.0","description":"","created_at":"2026-01-02T03:04:05Z","layers":[]';
    expect((await readError(bytes(craftBundle({ head })))).code).toBe('E_MANIFEST');
    const e = await readError(bytes(craftBundle({ integrity: { byte_size: 2 ** 53 } })));
    expect((e.details!.issues as Array<{ code: string }>).some((i) => i.code === 'E_UNSAFE_INTEGER')).toBe(true);
  });

  it('content with unknown fields or defaults given as null is refused (the reference store would rewrite it)', async () => {
    const withExtra = GOLDEN_CONTENT_TEXT.replace('"activation":0.9', '"activation":0.9,"extra":true');
    expect((await readError(bytes(craftBundle({ contentText: withExtra })))).code).toBe('E_CONTENT');
    const nullWeight = GOLDEN_CONTENT_TEXT.replace('"weight":0.9', '"weight":null');
    expect((await readError(bytes(craftBundle({ contentText: nullWeight })))).code).toBe('E_CONTENT');
  });

  it('a claimed level 3 needs explicit activation and weight in the text (defaults do not count)', async () => {
    const head = '"schema_version":2,"conformance_level":3,"name":"@acme/auth-context","version":"1.2.0","description":"","created_at":"2026-01-02T03:04:05Z","layers":[]';
    const implicit = GOLDEN_CONTENT_TEXT.replace(',"activation":0.9', '');
    const e = await readError(bytes(craftBundle({ head, contentText: implicit })));
    expect(e.code).toBe('E_CONFORMANCE');
    expect((e.details!.issues as Array<{ path: string }>)[0]!.path).toBe('content.context_graph.nodes[1].activation');
    const pkg = await readPackage(bytes(craftBundle({ head })));
    expect(pkg.manifest.conformance_level).toBe(3);
  });

  it('optional fields given as null read as absent; the model gets the defaults', async () => {
    const text = GOLDEN_CONTENT_TEXT.replace('"activation":0.9,', '"activation":0.9,"category":null,').replace(',"coactivations":3', '');
    const pkg = await readPackage(bytes(craftBundle({ contentText: text })));
    const n2 = pkg.content.context_graph!.nodes[1]!;
    expect('category' in n2).toBe(false);
    expect(pkg.content.context_graph!.edges[0]!.coactivations).toBe(0);
  });

  it('a signature by another key over the same fields still verifies (signer is reported, pinning is the caller’s job)', async () => {
    const other = new Uint8Array(32).fill(7);
    const pkg = await readPackage(bytes(craftBundle({ seed: other })));
    expect(pkg.signer).toBe(signManifest({ name: 'x', version: '1', integrity: { sha256: 'a' } }, other).public_key);
  });
});
