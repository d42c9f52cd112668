/**
 * Every value of ../shared/vectors reproduced byte for byte (FORMAT-FACTS §11.2). The semver
 * table belongs to versions.ts (engineer R) and is tested there.
 */
import { beforeAll, expect, it } from 'vitest';
import {
  canonicalContentText, compactJsonText, extractTopLevelMemberText, computeIntegrity, formatF32, formatF64, formatJsonString, normalizeTimestamp,
  readPackage, buildPackage, signingMessage, signManifest, verifyPackage, documentIssues, decodeContent, parseStrictJson,
  type Manifest, type ManifestInput,
} from '@ctxpkg/format';
import { describeShared, sharedBytes, sharedJson } from './support/shared.js';

interface Vectors {
  chrono_table: Array<{ input: string; rust_reserialized: string }>;
  float_f32_table: Array<{ f32_bits: string; serde_f32: string }>;
  float_f64_table: Array<{ f64_bits: string; serde_f64: string }>;
  string_table: Array<{ input_codepoints: string[]; serde: string }>;
  [k: string]: unknown;
}

function manifestInput(m: Manifest): ManifestInput {
  const { integrity: _i, signature: _s, ...rest } = m;
  return rest as unknown as ManifestInput;
}

describeShared('shared vectors: reference-vectors.json', () => {
  let v: Vectors;
  beforeAll(() => {
    v = sharedJson<Vectors>('vectors/reference-vectors.json');
  });

  it('empty content hashes and package hashes', () => {
    expect(computeIntegrity('test-pkg', '1.0.0', v.empty_content_json as string).content_hash).toBe(v.empty_content_hash);
    for (const key of Object.keys(v).filter((k) => k.startsWith('empty_sha256['))) {
      const [name, version] = key.slice('empty_sha256['.length, -1).split(':') as [string, string];
      expect(computeIntegrity(name, version, '{}').sha256, key).toBe(v[key]);
    }
  });

  it('verify fixture and v2 integrity values', () => {
    expect(computeIntegrity('vt-pkg', '1.0.0', '{"note":"hello","weight":1.0}')).toEqual({ content_hash: v.vt_content_hash, sha256: v.vt_sha256, byte_size: v.vt_byte_size });
    expect(computeIntegrity('@acme/auth-context', '2.0.0', v.v2_content_compact as string)).toEqual({ content_hash: v.v2_content_hash, sha256: v.v2_sha256, byte_size: v.v2_byte_size });
  });

  it('float f64 table', () => {
    for (const r of v.float_f64_table) {
      const x = new DataView(Uint8Array.from(Buffer.from(r.f64_bits, 'hex')).buffer).getFloat64(0);
      expect(formatF64(x), r.f64_bits).toBe(r.serde_f64);
    }
  });

  it('float f32 table', () => {
    for (const r of v.float_f32_table) {
      const x = new DataView(Uint8Array.from(Buffer.from(r.f32_bits, 'hex')).buffer).getFloat32(0);
      expect(formatF32(x), r.f32_bits).toBe(r.serde_f32);
    }
  });

  it('string table', () => {
    for (const r of v.string_table) {
      const s = String.fromCodePoint(...r.input_codepoints.map((c) => parseInt(c.slice(2), 16)));
      expect(formatJsonString(s)).toBe(r.serde);
    }
  });

  it('chrono table', () => {
    for (const r of v.chrono_table) expect(JSON.stringify(normalizeTimestamp(r.input))).toBe(r.rust_reserialized);
  });

  it('hazards: TS-style and unknown-field texts re-serialize to the reference text', () => {
    const ts = decodeContent(parseStrictJson(v.hazard_ts_text as string, { rawNumbers: true }));
    expect(canonicalContentText(ts.content!)).toBe(v.hazard_rust_reserialized);
    // Unknown fields are refused on read (the reference drops them and then fails its own hash);
    // the same graph without them re-serializes exactly like the reference.
    const unknown = decodeContent(parseStrictJson(v.hazard_unknown_fields_text as string, { rawNumbers: true }));
    expect(unknown.issues.map((i) => i.path)).toEqual(['content.context_graph.nodes[0].extra', 'content.knowledge_extra']);
    const cleaned = (v.hazard_unknown_fields_text as string).replace('"knowledge_extra":1,', '').replace(',"extra":true', '');
    expect(canonicalContentText(decodeContent(parseStrictJson(cleaned, { rawNumbers: true })).content!)).toBe(v.hazard_unknown_fields_reserialized);
  });

  it('skills content: the reference blob decodes and the content re-serializes exactly', () => {
    const c = decodeContent(parseStrictJson(v.skills_content_compact as string, { rawNumbers: true })).content!;
    expect(canonicalContentText(c)).toBe(v.skills_content_compact);
    const r = documentIssues(c.documents!);
    expect(r.issues).toEqual([]);
    expect(r.files.get('skills/review.md')).toBeDefined();
    expect(c.documents!.files[0]!.sha256).toBe(v.skills_blob_plain_sha256);
    expect(c.documents!.files[0]!.body).toBe(v.skills_blob_body_debian_libzstd);
  });

  it('v2_bundle_pretty_unsigned is reproduced byte for byte by the writer', async () => {
    const golden = await readPackage(sharedBytes('vectors/acme-auth-context-2.0.0.ctxpkg'));
    const input = manifestInput(golden.manifest);
    delete (input as { graph_summary?: unknown }).graph_summary; // derived: activation_mean …667 (unsigned vector)
    const built = buildPackage({ manifest: input, content: golden.content });
    expect(built.text).toBe(v.v2_bundle_pretty_unsigned);
    expect(compactJsonText(extractTopLevelMemberText(built.text, 'manifest')!)).toBe(v.v2_manifest_compact_unsigned);
  });
});

describeShared('shared vectors: reference-signatures.json', () => {
  type Row = { name: string; version: string; integrity_sha256: string; seed: string; signing_message_hex: string; public_key: string; value: string };
  let s: Record<string, Row | string>;
  beforeAll(() => {
    s = sharedJson<Record<string, Row | string>>('vectors/reference-signatures.json');
  });

  it('signing messages, public keys and signatures', () => {
    let n = 0;
    for (const [key, r] of Object.entries(s)) {
      if (typeof r === 'string') continue;
      const byte = parseInt(/0x([0-9a-f]{2})/.exec(r.seed)![1]!, 16);
      expect(signingMessage(r.name, r.version, r.integrity_sha256), key).toBe(r.signing_message_hex);
      expect(signManifest({ name: r.name, version: r.version, integrity: { sha256: r.integrity_sha256 } }, new Uint8Array(32).fill(byte)), key)
        .toEqual({ algorithm: 'ed25519', public_key: r.public_key, value: r.value });
      n++;
    }
    expect(n).toBe(4);
    expect(signManifest({ name: 'x', version: '1', integrity: { sha256: 'a' } }, new Uint8Array(32).fill(7)).public_key).toBe(s.pubkey_seed7);
  });
});

describeShared('shared vectors: the golden signed v2 package', () => {
  let v: Record<string, string>;
  beforeAll(() => {
    v = sharedJson<Record<string, string>>('vectors/reference-vectors.json');
  });

  it('verifies, and re-writing its parsed model reproduces its compact content text exactly', async () => {
    const bytes = sharedBytes('vectors/acme-auth-context-2.0.0.ctxpkg');
    const pkg = await readPackage(bytes, { requireSignature: true, requireSemver: true, allowUnscoped: false });
    expect(pkg.signer).toBe('197f6b23e16c8532c6abc838facd5ea789be0c76b2920334039bfa8b3d368d61');
    expect(pkg.contentText).toBe(v.v2_content_compact);
    expect(canonicalContentText(pkg.content)).toBe(v.v2_content_compact);
    expect(pkg.manifest.graph_summary!.activation_mean).toBe(0.9666666666666668);
    const rewritten = buildPackage({ manifest: manifestInput(pkg.manifest), content: pkg.content }, { seed: new Uint8Array(32).fill(0x2a) });
    expect(rewritten.contentText).toBe(v.v2_content_compact);
    expect(rewritten.manifest.signature).toEqual(pkg.manifest.signature);
    const report = await verifyPackage(bytes);
    expect(report).toMatchObject({ valid: true, form: 'json', name: '@acme/auth-context', version: '2.0.0', errors: [] });
  });
});
