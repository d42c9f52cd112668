import { describe, expect, it } from 'vitest';
import { LOOKAHEAD, renderAnswer, truncateUtf8 } from './answer.js';
import { buildSearchIndex, neighborhood, searchIndex, terms } from './search.js';
import { UNTRUSTED_FOOTER } from './types.js';
import { graph, node, NOW } from './__tests__/graph.js';

const nowMs = Date.parse(NOW);
const g = graph(
  [
    node('@a/x', 'root', { type: 'section', content: 'Database' }),
    node('@a/x', 'mig', { type: 'procedure', content: 'Run migrations with `make migrate` before tests.' }),
    node('@a/x', 'idx', { type: 'gotcha', content: 'Never drop an index on the orders table during business hours.' }),
    node('@a/x', 'cache', { type: 'fact', content: 'The cache is Redis; the cache TTL is 60 seconds.' }),
    node('@b/y', 'cache2', { type: 'gotcha', content: 'Cache keys must include the tenant id.' }),
    node('@b/y', 'leak', { content: 'db password = "Xk29!aPqLm"' }),
    node('@b/y', 'old', { content: 'Cache everything forever.', superseded_by: ['@b/y#cache2'] }),
  ],
  [
    { from: '@a/x#root', to: '@a/x#mig', type: 'contains' },
    { from: '@a/x#root', to: '@a/x#idx', type: 'contains' },
    { from: '@a/x#mig', to: '@b/y#cache2', type: 'references' },
  ],
);

describe('search index', () => {
  const idx = buildSearchIndex(g, { nowMs });

  it('tokenizes into lowercase terms of two or more characters', () => {
    expect(terms('Run `make migrate`, a B2 über-Test')).toEqual(['run', 'make', 'migrate', 'b2', 'über', 'test']);
  });

  it('ranks by BM25, ties by type rank then id; withheld and structural nodes never match', () => {
    const r = searchIndex(idx, 'cache');
    expect(r.results.map((x) => idx.docs[x.doc]!.id)).toEqual(['@a/x#cache', '@b/y#cache2']);
    expect(r.total).toBe(2);
    expect(idx.withheld.get('@b/y#leak')).toEqual({ reason: 'secret', kinds: ['secret_assignment'] });
    expect(idx.withheld.get('@b/y#old')).toEqual({ reason: 'superseded' });
    expect(searchIndex(idx, 'password').total).toBe(0);
    expect(searchIndex(idx, 'database').total).toBe(0); // the section title is structure, not an item
  });

  it('expands a term without exact match to the terms it prefixes', () => {
    expect(searchIndex(idx, 'migr').results.map((x) => idx.docs[x.doc]!.id)).toEqual(['@a/x#mig']);
    expect(searchIndex(idx, '  ').total).toBe(0);
  });

  it('returns only the best `limit` results but reports the total', () => {
    const r = searchIndex(idx, 'cache the', 1);
    expect(r.results).toHaveLength(1);
    expect(r.total).toBeGreaterThan(1);
    expect(r.results[0]).toEqual(searchIndex(idx, 'cache the').results[0]);
  });

  it('walks neighbours both ways, breadth first', () => {
    const n = neighborhood(idx, '@a/x#mig', 2);
    expect(n.map((x) => [x.id, x.depth, x.direction])).toEqual([
      ['@b/y#cache2', 1, 'out'],
      ['@a/x#root', 1, 'in'],
      ['@a/x#idx', 2, 'out'],
    ]);
  });
});

describe('renderAnswer', () => {
  const idx = buildSearchIndex(g, { nowMs });

  it('fits the budget exactly, reports what was not shown, and keeps the footer last', () => {
    const full = renderAnswer('t', ['n'], idx.items, 64 * 1024);
    expect(full.notShown).toBe(0);
    const exact = renderAnswer('t', ['n'], idx.items, full.bytes);
    expect(exact.text).toBe(full.text);
    const short = renderAnswer('t', ['n'], idx.items, full.bytes - 1);
    expect(short.bytes).toBeLessThanOrEqual(full.bytes - 1);
    expect(short.notShown).toBe(1);
    expect(short.text).toContain(`shown: ${short.shown} of ${idx.items.length}; not shown (byte_budget): 1`);
    expect(short.text.endsWith(`\n${UNTRUSTED_FOOTER}\n`)).toBe(true);
    expect(() => renderAnswer('t', [], idx.items, 50)).toThrow(expect.objectContaining({ code: 'E_BUDGET' }));
  });

  it('stops looking after LOOKAHEAD consecutive misses', () => {
    const big = { ...idx.items[0]!, content: 'x'.repeat(5000) };
    const small = idx.items[1]!;
    const items = [...Array.from({ length: LOOKAHEAD }, () => big), small];
    expect(renderAnswer('t', [], items, 3000).shown).toBe(0);
    expect(renderAnswer('t', [], [...items.slice(1)], 3000).ids).toEqual([small.id]);
  });

  it('truncates visibly at a character boundary', () => {
    expect(truncateUtf8('short', 100)).toBe('short');
    const t = truncateUtf8('é'.repeat(100), 80);
    expect(Buffer.byteLength(t)).toBeLessThanOrEqual(80);
    expect(t).toMatch(/^(é)+\n\[truncated: showing \d+ of 200 bytes\]$/);
  });
});
