import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildReceipt, countByReason } from './receipt.js';
import type { Omission } from './types.js';

const args = (omissions: Omission[]) => ({
  text: 'x',
  bytes: 1,
  format: 'md' as const,
  now: '2025-01-01T00:00:00.000Z',
  maxBytes: 100,
  selection: { mode: 'all' as const, focus: null, packages: null, not_selected: 0 },
  policy: { stale: 'flag', disputed: 'flag', freshness: 'auto' as const, min_activation: 0, pins: [] },
  inputs: [],
  nodes: omissions.length,
  structural: 0,
  candidates: omissions.length,
  delivered: [],
  omissions,
});

describe('buildReceipt', () => {
  it('lists omissions by package, then id — the full sort whether or not they come in that order (sorted input is not sorted again) — and counts them', () => {
    const om = fc.record({ package: fc.constantFrom('@a/x', '@a/x-y', '@b/y', '@a/x!'), id: fc.constantFrom('a', 'b', 'B', 'a~1', ''), reason: fc.constantFrom('byte_budget' as const, 'secret' as const, 'expired' as const), pinned: fc.boolean() });
    fc.assert(
      fc.property(fc.array(om, { maxLength: 30 }), fc.boolean(), (rows, presort) => {
        const given: Omission[] = rows.map((r, i) => ({ package: r.package, version: '1.0.0', id: `${r.package}#${r.id}`, content_hash: `sha256:${i}`, reason: r.reason, ...(r.pinned ? { pinned: true } : {}) }));
        const ref = [...given].sort((a, b) => (a.package < b.package ? -1 : a.package > b.package ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        const input = presort ? [...ref] : given;
        const before = [...input];
        const r = buildReceipt(args(input));
        expect(r.omissions).toEqual(ref);
        expect(r.omissions).not.toBe(input);
        expect(input).toEqual(before);
        // Counted in the same pass: by reason (every reason, in OMISSION_REASONS order) and pinned.
        expect(JSON.stringify(r.counts.by_reason)).toBe(JSON.stringify(countByReason(ref)));
        expect(r.counts.pinned).toBe(ref.filter((o) => o.pinned).length);
        expect(r.counts.suppressed).toBe(ref.length);
        // A caller that made the omissions may give their counts (the compiler): the same receipt.
        const counts = { byReason: countByReason(given), pinnedOmissions: given.filter((o) => o.pinned).length };
        expect(JSON.stringify(buildReceipt({ ...args([...given]), counts }))).toBe(JSON.stringify(r));
      }),
      { numRuns: 1000 },
    );
  });
});
