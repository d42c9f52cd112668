import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MergedNode } from '../graph-types.js';
import { HEX_RUN } from './digests.js';
import { buildReceipt, countByReason, OmissionTable, omissionOf, receiptText } from './receipt.js';
import { OMISSION_REASONS, type Omission } from './types.js';
import { compilePack } from './compile.js';
import { defaultPackPolicy } from './policy.js';
import { graph, node, NOW } from './__tests__/graph.js';

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

describe('OmissionTable', () => {
  // Strings JSON escapes (quotes, backslashes, controls, lone surrogates), non-ASCII, and text
  // that looks like the writer's own keys.
  const str = fc.oneof(fc.constantFrom('@a/x', '@a/x-y', '@b/y', '1.0.0', 'é', '"', '\\', '\u0000', '\n', '\ud800', '\udc00x', '"content_hash": "', '\u2028'), fc.string({ maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 4 }));
  const row = fc.record({
    package: str,
    version: str,
    local: str,
    hex: fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }),
    reason: fc.constantFrom(...OMISSION_REASONS),
    pinned: fc.boolean(),
    upper: fc.boolean(),
    kinds: fc.option(fc.array(str, { maxLength: 3 }), { nil: undefined }),
    by: fc.option(fc.array(str, { maxLength: 3 }), { nil: undefined }),
  });

  it('gives the records and the receipt text of omissionOf records: same objects, same bytes (receiptText writes them without building them)', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 25 }), fc.boolean(), (rows, readFirst) => {
        const table = new OmissionTable(Math.floor(rows.length / 2));
        const records: Omission[] = [];
        for (const r of rows) {
          const node = { id: `${r.package}#${r.local}`, package: r.package, version: r.version, content: '', type: 'fact', ...(r.by ? { superseded_by: r.by } : {}) } as unknown as MergedNode;
          const hex = r.hex.toLowerCase();
          // Either case in: the digest is bytes, and the text written is lowercase.
          table.digests.setHex(table.add(node, r.reason, r.pinned, r.kinds), r.upper ? r.hex.toUpperCase() : r.hex);
          records.push(omissionOf(node, r.reason, r.pinned, 'sha256:' + hex, r.kinds));
        }
        const counts = { byReason: countByReason(records), pinnedOmissions: records.filter((o) => o.pinned).length };
        const want = buildReceipt({ ...args(records), counts });
        const got = buildReceipt({ ...args([]), omissions: table, nodes: records.length, candidates: records.length, counts });
        if (readFirst) expect(got.omissions).toEqual(want.omissions);
        expect(receiptText(got)).toBe(JSON.stringify(want, null, 2) + '\n');
        expect(receiptText(got)).toBe(receiptText(want));
        expect(got.omissions).toEqual(want.omissions);
        expect(Object.keys(got)).toEqual(Object.keys(want));
        expect(JSON.stringify(got)).toBe(JSON.stringify(want));
      }),
      { numRuns: 500 },
    );
  });

  it('more rows than one hex run (HEX_RUN), out of order: the same records and receipt text as omissionOf records', () => {
    const n = 2 * HEX_RUN + 37;
    const table = new OmissionTable(16);
    const records: Omission[] = [];
    for (let k = 0; k < n; k++) {
      // Added in an order that is not the sorted one, so the rows are read through a permutation.
      const i = (k * 1021) % n;
      const node = { id: `@a/x#${String(i).padStart(5, '0')}`, package: i % 3 ? '@a/x' : '@a/w', version: '1.0.0' } as MergedNode;
      const hex = createHash('sha256').update(String(i)).digest('hex');
      table.digests.setHex(table.add(node, i % 5 ? 'byte_budget' : 'expired', false), hex);
      records.push(omissionOf(node, i % 5 ? 'byte_budget' : 'expired', false, 'sha256:' + hex));
    }
    const counts = { byReason: countByReason(records), pinnedOmissions: 0 };
    const want = buildReceipt({ ...args(records), counts });
    const got = buildReceipt({ ...args([]), omissions: table, nodes: n, candidates: n, counts });
    expect(receiptText(got)).toBe(JSON.stringify(want, null, 2) + '\n');
    expect(got.omissions).toEqual(want.omissions);
  });

  it('a receipt whose omissions are replaced writes the new ones', () => {
    const table = new OmissionTable(1);
    table.digests.setHex(table.add({ id: '@a/x#1', package: '@a/x', version: '1.0.0' } as MergedNode, 'byte_budget', false), 'ab'.repeat(32));
    const r = buildReceipt({ ...args([]), omissions: table, counts: { byReason: countByReason([]), pinnedOmissions: 0 } });
    r.omissions = [];
    expect(receiptText(r)).toContain('"omissions": []\n}');
    expect(r.omissions).toEqual([]);
  });
});

describe('secrets in the ids of omitted nodes', () => {
  // A node withheld as `secret` for its id (or its file path, or its content): the receipt names
  // it by id, and a raw id would put the secret the pack withheld into the receipt file (the
  // sync receipt, render's receipt). Its id is written redacted, in the records and in the text.
  const TOKEN = 'ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789';
  const g = graph([
    node('@acme/sec', `${TOKEN}`, { content: 'id secret fact' }),
    node('@acme/sec', 'N2', { content: `token ${TOKEN} here` }),
    node('@acme/sec', 'N3', { content: 'Watch out for X.', file_path: `docs/${TOKEN}/x.md` }),
    node('@acme/sec', 'old', { content: 'Old rule.', superseded_by: [`@acme/sec#${TOKEN}`] }),
    node('@acme/sec', 'ok', { content: 'Use pnpm.' }),
    ...Array.from({ length: 40 }, (_, i) => node('@acme/big', `f${i}`, { content: `fact ${i} ${'x'.repeat(200)}` })),
  ]);
  it('are redacted in the receipt records and text; clean rows keep their ids', () => {
    const pack = compilePack({ graph: g, policy: defaultPackPolicy(), now: NOW, maxBytes: 2048 });
    const text = receiptText(pack.receipt);
    expect(text).not.toContain(TOKEN);
    const om = pack.receipt.omissions;
    expect(JSON.stringify(om)).not.toContain(TOKEN);
    const secret = om.filter((o) => o.reason === 'secret');
    expect(secret.map((o) => o.id).sort()).toEqual(['@acme/sec#N2', '@acme/sec#N3', '@acme/sec#[REDACTED:github_token]']);
    expect(om.find((o) => o.id === '@acme/sec#old')?.superseded_by).toEqual(['@acme/sec#[REDACTED:github_token]']);
    // byte_budget rows are written as they are (no redaction pass over clean rows).
    const budget = om.filter((o) => o.reason === 'byte_budget');
    expect(budget.length).toBeGreaterThan(10);
    for (const o of budget) expect(o.id).toMatch(/^@acme\/big#f\d+$/);
    // The text is the records' JSON (the streaming writer and the records agree).
    expect(JSON.parse(text).omissions).toEqual(om);
  });
});
