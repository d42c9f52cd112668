/**
 * Property: for random valid graphs (and v1 layers), write → read → write is byte-identical, the
 * read content text equals the canonical re-serialization, and every check passes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalContentText, hasLoneSurrogate, readPackage, writePackage, type ContextEdge, type ContextNode, type Manifest,
  type ManifestInput, type PackageContent,
} from '@ctxpkg/format';

const SEED = new Uint8Array(32).fill(0x2a);

const text = fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !hasLoneSurrogate(s));
const id = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 });
const unit = fc.double({ min: 0, max: 1, noNaN: true });
const anyFinite = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
const timestamp = fc
  .tuple(fc.integer({ min: 0, max: 4102444799 }), fc.constantFrom(0, 120_000_000, 123_456_000, 123_456_789, 100_000_000), fc.constantFrom('Z', '+01:00', '-05:30'))
  .map(([secs, nanos, zone]) => {
    const iso = new Date(secs * 1000).toISOString().slice(0, 19);
    const frac = nanos ? '.' + String(nanos).padStart(9, '0') : '';
    return iso + frac + zone;
  });

const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

const nodeBody = fc.record({
  type: fc.constantFrom('fact', 'gotcha', 'convention', 'code_function', 'x'),
  content: text,
  activation: fc.oneof(unit, anyFinite),
  category: optional(text),
  source: optional(text),
  created_at: optional(timestamp),
  decay_half_life_days: optional(fc.integer({ min: 0, max: 2 ** 32 - 1 })),
  blob_ref: optional(text),
  file_path: optional(text),
  line_start: optional(fc.nat({ max: 1e6 })),
  line_end: optional(fc.nat({ max: 1e6 })),
  confidence: optional(fc.float({ noNaN: true, noDefaultInfinity: true })),
  supersedes: optional(id),
});

const graph = fc
  .uniqueArray(id, { minLength: 1, maxLength: 12 })
  .chain((ids) =>
    fc.tuple(
      fc.tuple(...ids.map((i) => nodeBody.map((b) => ({ id: i, ...b }) as ContextNode))),
      fc.array(
        fc.record({
          from: fc.constantFrom(...ids),
          to: fc.constantFrom(...ids),
          type: fc.constantFrom('supports', 'calls', 'contains', 'has_gotcha'),
          weight: fc.oneof(unit, anyFinite),
          coactivations: optional(fc.integer({ min: 0, max: 2 ** 32 - 1 })),
          metadata: optional(text),
        }),
        { maxLength: 16 },
      ),
    ),
  )
  .map(([nodes, edges]) => ({ format: 'ctxpkg-graph-v2', nodes: strip(nodes), edges: strip(edges as ContextEdge[]) }));

function strip<T extends object>(xs: T[]): T[] {
  return xs.map((x) => Object.fromEntries(Object.entries(x).filter(([, v]) => v !== undefined)) as T);
}

const gotchas = fc.array(
  fc.record({ id, category: text, severity: fc.constantFrom('critical', 'warning', 'info'), trigger: text, resolution: text, file_patterns: fc.array(text, { maxLength: 2 }), confidence: fc.float({ min: 0, max: 1, noNaN: true }) }),
  { maxLength: 4 },
);

const contentArb: fc.Arbitrary<PackageContent> = fc
  .tuple(optional(graph), optional(gotchas), timestamp)
  .filter(([g, gs]) => g !== undefined || gs !== undefined)
  .map(([g, gs, t]) => ({ ...(g ? { context_graph: g } : {}), ...(gs ? { gotchas: { gotchas: gs, exported_at: t } } : {}) }));

function input(m: Manifest): ManifestInput {
  const { integrity: _i, signature: _s, ...rest } = m;
  return rest as unknown as ManifestInput;
}

describe('write → read → write', () => {
  it('is byte-identical for random valid graphs and layers', async () => {
    await fc.assert(
      fc.asyncProperty(contentArb, timestamp, fc.boolean(), async (content, created, signed) => {
        const opts = signed ? { seed: SEED } : {};
        const first = writePackage({ manifest: { name: '@prop/graph', version: '1.0.0-rc.1+b.7', created_at: created, tags: ['t'] }, content }, opts);
        const pkg = await readPackage(first, signed ? { requireSignature: true } : {});
        expect(Object.values(pkg.checks).every((c) => c.status === 'pass' || (!signed && c.status === 'skipped'))).toBe(true);
        expect(canonicalContentText(pkg.content)).toBe(pkg.contentText);
        const second = writePackage({ manifest: input(pkg.manifest), content: pkg.content }, opts);
        expect(new TextDecoder().decode(second)).toBe(new TextDecoder().decode(first));
      }),
      { numRuns: 150 },
    );
  });
});
