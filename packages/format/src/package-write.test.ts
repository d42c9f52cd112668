import { describe, expect, it } from 'vitest';
import type { PackageContent } from './content.js';
import { CtxpkgError } from './errors.js';
import { compactJsonText } from './json/text.js';
import { readPackage } from './package.js';
import { buildPackage, canonicalContentText, writePackage, type PackageInput } from './package-write.js';
import { GOLDEN_CONTENT_TEXT, goldenContent, goldenManifest, PUB42, SEED42 } from './__tests__/fixtures.js';

function writeError(input: PackageInput, opts = {}): CtxpkgError {
  try {
    buildPackage(input, opts);
  } catch (e) {
    if (e instanceof CtxpkgError) return e;
    throw e;
  }
  throw new Error('expected buildPackage to throw');
}

const T = '2026-01-02T03:04:05Z';

describe('writePackage: serde-exact content text (FORMAT-FACTS §3.4)', () => {
  it('reproduces the golden compact content text byte for byte', () => {
    const built = buildPackage({ manifest: goldenManifest(), content: goldenContent() });
    expect(built.contentText).toBe(GOLDEN_CONTENT_TEXT);
    expect(built.manifest.integrity).toEqual({
      sha256: 'b110a1fad0d75b3e03aa4cdf349630c82e9bc1fda889a05f82c5fd9210ad56a8',
      content_hash: '1d7a13f86068b19c3c503fe2ce3c73fa6cf53048659e11a3a3fa46aeef9973fd',
      byte_size: 690,
    });
  });

  it('writes 1.0 for integral f64, shortest f32 digits, defaults explicitly, coactivations only when non-zero', () => {
    const content: PackageContent = {
      context_graph: {
        format: 'ctxpkg-graph-v2',
        nodes: [{ id: 'a', type: 'fact', content: 'x', confidence: 0.7 } as never, { id: 'b', type: 'fact', content: 'y', activation: 0.25 }],
        edges: [{ from: 'a', to: 'b', type: 't' } as never, { from: 'b', to: 'a', type: 'u', weight: 1e-7, coactivations: 2 }],
      },
    };
    const text = canonicalContentText(content);
    expect(text).toBe(
      '{"context_graph":{"format":"ctxpkg-graph-v2","nodes":[{"id":"a","type":"fact","content":"x","activation":1.0,"confidence":0.7},' +
        '{"id":"b","type":"fact","content":"y","activation":0.25}],"edges":[{"from":"a","to":"b","type":"t","weight":1.0},' +
        '{"from":"b","to":"a","type":"u","weight":1e-7,"coactivations":2}]}}',
    );
  });

  it('rounds content f64 to 15 significant digits', () => {
    const content: PackageContent = { context_graph: { format: 'ctxpkg-graph-v2', nodes: [{ id: 'a', type: 'f', content: 'x', activation: 29 / 30 }], edges: [] } };
    expect(canonicalContentText(content)).toContain('"activation":0.966666666666667}');
  });

  it('normalizes timestamps to the reference spelling (Date or text)', () => {
    const content: PackageContent = {
      context_graph: {
        format: 'ctxpkg-graph-v2',
        nodes: [
          { id: 'a', type: 'f', content: 'x', activation: 1, created_at: '2026-01-02T04:04:05.000+01:00' },
          { id: 'b', type: 'f', content: 'x', activation: 1, created_at: new Date('2026-01-02T03:04:05.120Z') as unknown as string },
        ],
        edges: [],
      },
    };
    const text = canonicalContentText(content);
    expect(text).toContain('"created_at":"2026-01-02T03:04:05Z"');
    expect(text).toContain('"created_at":"2026-01-02T03:04:05.120Z"');
  });

  it('writes v1 layers with null-vs-omitted per field', () => {
    const content: PackageContent = {
      knowledge: {
        facts: [{ category: 'c', key: 'k', value: 'v', source_session: 's', confidence: 0.9, created_at: T, last_confirmed: T }],
        patterns: [],
        insights: [],
        exported_at: T,
      },
      session: { task_description: null, findings: [{ summary: 'f' }], decisions: [{ summary: 'd', rationale: 'r' }], next_steps: [], files_touched: [], exported_at: T },
      gotchas: { gotchas: [{ id: 'g', category: 'c', severity: 'warning', trigger: 't', resolution: 'r', confidence: 0.6 }], exported_at: T },
    };
    expect(canonicalContentText(content)).toBe(
      '{"knowledge":{"facts":[{"category":"c","key":"k","value":"v","source_session":"s","confidence":0.9,"created_at":"2026-01-02T03:04:05Z",' +
        '"last_confirmed":"2026-01-02T03:04:05Z","retrieval_count":0,"last_retrieved":null,"valid_from":null,"valid_until":null,"supersedes":null,' +
        '"confirmation_count":0,"feedback_up":0,"feedback_down":0,"last_feedback":null,"privacy":"project_only","sensitivity":"public",' +
        '"imported_from":null,"archetype":"fact","fidelity":null,"revision_count":0}],"patterns":[],"insights":[],"exported_at":"2026-01-02T03:04:05Z"},' +
        '"session":{"task_description":null,"findings":[{"summary":"f"}],"decisions":[{"summary":"d","rationale":"r"}],"next_steps":[],' +
        '"files_touched":[],"exported_at":"2026-01-02T03:04:05Z"},' +
        '"gotchas":{"gotchas":[{"id":"g","category":"c","severity":"warning","trigger":"t","resolution":"r","file_patterns":[],"confidence":0.6}],' +
        '"exported_at":"2026-01-02T03:04:05Z"}}',
    );
  });
});

describe('writePackage: bundle layout and manifest derivation', () => {
  it('is pretty like to_string_pretty, manifest first, no trailing newline, deterministic', () => {
    const a = buildPackage({ manifest: goldenManifest(), content: goldenContent() }, { seed: SEED42 });
    const b = writePackage({ manifest: goldenManifest(), content: goldenContent() }, { seed: SEED42 });
    expect(a.bytes).toEqual(b);
    expect(a.text.startsWith('{\n  "manifest": {\n    "schema_version": 2,\n    "conformance_level": 2,\n')).toBe(true);
    expect(a.text.endsWith('\n    }\n  }\n}')).toBe(true);
    expect(a.text).toContain('\n    "dependencies": [\n      {\n        "name": "@acme/base",');
    expect(a.text).toContain('"layers": [],');
    expect(compactJsonText(a.text)).toContain(`"content":${GOLDEN_CONTENT_TEXT}`);
  });

  it('derives schema, layers, stats, graph summary and the conformance level', () => {
    const g = buildPackage({ manifest: { name: '@acme/g', version: '1.0.0', created_at: T }, content: goldenContent() }).manifest;
    expect(g.schema_version).toBe(2);
    expect(g.conformance_level).toBe(3);
    expect(g.graph_summary).toEqual({ node_count: 3, edge_count: 2, node_types: ['code_function', 'fact', 'gotcha'], activation_mean: 2.9 / 3, freshness: '2026-01-02T03:04:05.120Z' });
    expect(g.provenance).toEqual({ tool: 'ctxpkg', tool_version: '0.1.0', project_hash: null, source_session_id: null });

    const noEdges = goldenContent();
    noEdges.context_graph!.edges = [];
    expect(buildPackage({ manifest: { name: '@acme/g', version: '1.0.0', created_at: T }, content: noEdges }).manifest.conformance_level).toBe(1);
    const hot = goldenContent();
    hot.context_graph!.nodes[0]!.activation = 2;
    expect(buildPackage({ manifest: { name: '@acme/g', version: '1.0.0', created_at: T }, content: hot }).manifest.conformance_level).toBe(2);
    const none = buildPackage({ manifest: { name: '@acme/g', version: '1.0.0', created_at: T, conformance_level: null, graph_summary: null }, content: goldenContent() }).manifest;
    expect(none.conformance_level).toBeUndefined();
    expect(none.graph_summary).toBeUndefined();

    const v1 = buildPackage({
      manifest: { name: '@acme/v1', version: '1.0.0', created_at: T, dependencies: { '@acme/base': '^1' } },
      content: { gotchas: { gotchas: [{ id: 'g', category: 'c', severity: 'info', trigger: 't', resolution: 'r', confidence: 1 }], exported_at: T } },
    }).manifest;
    expect(v1.schema_version).toBe(1);
    expect(v1.layers).toEqual(['gotchas']);
    expect(v1.stats.gotcha_count).toBe(1);
    expect(v1.dependencies).toEqual([{ name: '@acme/base', version_req: '^1', optional: false }]);
  });

  it('signs when given a seed, and the result reads back with the signer', async () => {
    const bytes = writePackage({ manifest: goldenManifest(), content: goldenContent() }, { seed: SEED42 });
    const pkg = await readPackage(bytes, { requireSignature: true, requireSemver: true, allowUnscoped: false });
    expect(pkg.signer).toBe(PUB42);
    expect(pkg.contentText).toBe(GOLDEN_CONTENT_TEXT);
  });
});

describe('writePackage: validation first, nothing written on bad input', () => {
  const ok = () => ({ manifest: goldenManifest(), content: goldenContent() });

  it('refuses bad names and non-SemVer versions', () => {
    expect(writeError({ ...ok(), manifest: goldenManifest({ name: '@acme/Bad' }) }).code).toBe('E_INVALID_NAME');
    expect(writeError({ ...ok(), manifest: goldenManifest({ name: 'legacy' }) }).code).toBe('E_INVALID_NAME');
    expect(() => buildPackage({ ...ok(), manifest: goldenManifest({ name: 'legacy' }) }, { allowUnscoped: true })).not.toThrow();
    expect(writeError({ ...ok(), manifest: goldenManifest({ version: 'v1.0.0' }) }).code).toBe('E_INVALID_VERSION');
    expect(writeError({ ...ok(), manifest: goldenManifest({ dependencies: [{ name: 'plain', version_req: '1' }] }) }).code).toBe('E_INVALID_NAME');
  });

  it('refuses content the reference cannot represent', () => {
    const unknown = goldenContent() as unknown as { context_graph: { nodes: Array<Record<string, unknown>> } };
    unknown.context_graph.nodes[0]!.node_type = 'fact';
    expect(writeError({ manifest: goldenManifest(), content: unknown as never }).code).toBe('E_CONTENT');
    const nan = goldenContent();
    nan.context_graph!.nodes[0]!.activation = NaN;
    expect(writeError({ manifest: goldenManifest(), content: nan }).code).toBe('E_CONTENT');
    const surrogate = goldenContent();
    surrogate.context_graph!.nodes[0]!.content = 'x\ud800';
    expect(writeError({ manifest: goldenManifest(), content: surrogate }).code).toBe('E_INVALID_JSON');
    const frac = goldenContent();
    frac.context_graph!.nodes[0]!.decay_half_life_days = 1.5;
    expect(writeError({ manifest: goldenManifest(), content: frac }).code).toBe('E_CONTENT');
    const dup = goldenContent();
    dup.context_graph!.nodes[1]!.id = 'N1';
    expect(writeError({ manifest: goldenManifest(), content: dup }).message).toMatch(/duplicate node id/);
  });

  it('refuses a claimed level the graph does not meet, and a v1 package without layers', () => {
    expect(writeError({ manifest: goldenManifest({ conformance_level: 1 }), content: goldenContent() }).code).toBe('E_CONFORMANCE');
    expect(writeError({ manifest: { name: '@a1/x', version: '1.0.0', created_at: T }, content: {} }).message).toMatch(/at least one layer/);
  });

  it('refuses bad timestamps and a bad seed', () => {
    expect(writeError({ ...ok(), manifest: goldenManifest({ created_at: '2026-02-30T00:00:00Z' }) }).code).toBe('E_MANIFEST');
    expect(writeError(ok(), { seed: new Uint8Array(3) }).code).toBe('E_KEY');
  });
});
