import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCtxpkgError } from '../errors.js';
import { compilePack } from './compile.js';
import { graph, node, NOW } from './__tests__/graph.js';

const TYPES = ['gotcha', 'convention', 'procedure', 'fact', 'decision', 'section', 'code_fn'];

const arbNodes = fc.uniqueArray(
  fc.record({
    pkg: fc.constantFrom('@a/one', '@b/two', '@c/three'),
    local: fc.stringMatching(/^[a-z0-9.:]{1,8}$/),
    type: fc.constantFrom(...TYPES),
    content: fc.string({ unit: 'grapheme', maxLength: 300 }),
    activation: fc.double({ min: 0, max: 1, noNaN: true }),
    superseded: fc.boolean(),
  }),
  { selector: (r) => `${r.pkg}#${r.local}`, maxLength: 40 },
);

describe('compilePack properties', () => {
  it('stays within budget, accounts for every candidate, and is order-independent', () => {
    fc.assert(
      fc.property(arbNodes, fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('md' as const, 'json' as const), fc.integer({ min: 0, max: 3 }), (rows, maxBytes, format, pinCount) => {
        const nodes = rows.map((r) => node(r.pkg, r.local, { type: r.type, content: r.content, activation: r.activation, ...(r.superseded ? { superseded_by: ['@x/y#z'] } : {}) }));
        const g = graph(nodes);
        const deliverable = nodes.filter((n) => n.type !== 'section');
        const pins = deliverable.slice(0, pinCount).map((n) => n.id);
        const run = (gr: typeof g) => compilePack({ graph: gr, maxBytes, now: NOW, format, policy: { pins } });
        let p: ReturnType<typeof compilePack>;
        try {
          p = run(g);
        } catch (e) {
          expect(isCtxpkgError(e) && e.code === 'E_BUDGET').toBe(true);
          return;
        }
        expect(new TextEncoder().encode(p.text).length).toBe(p.bytes);
        expect(p.bytes).toBeLessThanOrEqual(maxBytes);
        const seen = [...p.receipt.delivered.map((d) => d.id), ...p.receipt.omissions.map((o) => o.id)].sort();
        expect(seen).toEqual(deliverable.map((n) => n.id).sort());
        for (const id of pins) {
          const n = deliverable.find((x) => x.id === id);
          if (n && !n.superseded_by) expect(p.receipt.delivered.some((d) => d.id === id && d.section === 'pinned')).toBe(true);
        }
        if (format === 'json') JSON.parse(p.text);
        const reversed = run({ ...g, nodes: [...g.nodes].reverse() });
        expect(reversed.text).toBe(p.text);
      }),
      { numRuns: 150 },
    );
  });
});

describe('exact fit (spec/pack.md §4)', () => {
  it('a budget equal to the full pack delivers everything, one byte less omits something — trusted packages included', () => {
    fc.assert(
      fc.property(arbNodes, fc.subarray(['@a/one', '@b/two', '@c/three']), fc.constantFrom('md' as const, 'json' as const), (rows, trustedPkgs, format) => {
        const nodes = rows.filter((r) => !r.superseded).map((r) => node(r.pkg, r.local, { type: r.type, content: r.content, activation: r.activation }));
        const g = graph(nodes);
        const trusted = new Set(trustedPkgs);
        const full = compilePack({ graph: g, maxBytes: 64 * 1024 * 1024, now: NOW, format, trusted });
        const at = compilePack({ graph: g, maxBytes: full.bytes, now: NOW, format, trusted });
        expect(at.receipt.counts.delivered).toBe(full.receipt.counts.delivered);
        expect(at.text).toBe(full.text);
        if (full.receipt.counts.delivered === 0) return;
        try {
          const less = compilePack({ graph: g, maxBytes: full.bytes - 1, now: NOW, format, trusted });
          expect(less.receipt.counts.delivered).toBeLessThan(full.receipt.counts.delivered);
        } catch (e) {
          expect(isCtxpkgError(e) && e.code === 'E_BUDGET').toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });
});
