import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TermIndex, terms, type TermDoc } from './search-terms.js';

/** The BM25 reference: score every document term by term, sort everything. */
function reference(docs: readonly TermDoc[], lists: readonly number[], words: readonly string[]): Array<{ doc: number; score: number }> {
  const tokens = docs.map((d) => terms(d.text));
  const N = docs.length;
  const avg = tokens.reduce((s, t) => s + t.length, 0) / N || 1;
  const scores = new Float64Array(N);
  for (const tid of lists) {
    const w = words[tid] as string;
    const df = tokens.filter((t) => t.includes(w)).length;
    const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
    tokens.forEach((t, d) => {
      const f = t.filter((x) => x === w).length;
      if (f > 0) scores[d] += (idf * f * (1.2 + 1)) / (f + 1.2 * (1 - 0.75 + (0.75 * t.length) / avg));
    });
  }
  return [...scores.keys()]
    .filter((d) => (scores[d] as number) > 0)
    .map((d) => ({ doc: d, score: scores[d] as number }))
    .sort((x, y) => y.score - x.score || (docs[x.doc] as TermDoc).rank - (docs[y.doc] as TermDoc).rank || x.doc - y.doc);
}

const VOCAB = ['cache', 'cached', 'caching', 'db', 'migrate', 'token', 'x1', 'über', 'straße', 'KELVIN_K', 'İstanbul'];
const text = fc.array(fc.constantFrom(...VOCAB, ' ', ', ', '\n', '-', 'a', 'Cache'), { minLength: 0, maxLength: 30 }).map((p) => p.join(' '));

describe('TermIndex', () => {
  it('tokenizes exactly like terms() (ASCII fast path and Unicode path)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(text, fc.string({ unit: 'binary', maxLength: 60 })), { minLength: 1, maxLength: 8 }), (texts) => {
        const docs = texts.map((t) => ({ text: t, rank: 0 }));
        const idx = new TermIndex(docs);
        for (const t of texts) for (const w of terms(t)) expect(idx.expand(w)).toHaveLength(1);
        const all = new Set(texts.flatMap((t) => terms(t)));
        expect(idx.termCount).toBe(all.size);
      }),
      { numRuns: 300 },
    );
  });

  it('ranks best-first exactly like scoring every document, on every path (one list, threshold algorithm, full scan)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ text, rank: fc.constantFrom(0, 10, 45) }), { minLength: 1, maxLength: 60 }), fc.array(fc.constantFrom(...VOCAB.map((v) => v.toLowerCase()), 'cach', 'ca', 'zz'), { minLength: 1, maxLength: 6 }), fc.nat({ max: 70 }), (docs, query, limit) => {
        const idx = new TermIndex(docs);
        const qterms = [...new Set(query.flatMap((q) => terms(q)))].sort();
        const lists = qterms.flatMap((q) => idx.expand(q));
        const words: string[] = [];
        for (const d of docs) for (const w of terms(d.text)) words[idx.expand(w)[0] as number] = w;
        const ref = reference(docs, lists, words);
        const got: Array<{ doc: number; score: number }> = [];
        for (const h of idx.ranked(lists)) {
          if (got.length >= limit) break;
          got.push(h);
        }
        expect(got).toEqual(ref.slice(0, limit));
        expect(lists.length === 0 ? 0 : idx.countMatches(lists)).toBe(ref.length);
      }),
      { numRuns: 300 },
    );
  });

  it('switches from the threshold algorithm to a full scan mid-answer without changing the order', () => {
    let seed = 1;
    const rnd = (): number => ((seed = Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32;
    const words = ['alpha', 'beta', 'gamma', 'delta', 'eps'];
    const docs = Array.from({ length: 3000 }, () => ({ text: Array.from({ length: 3 + Math.floor(rnd() * 12) }, () => words[Math.floor(rnd() * 5)]).join(' '), rank: Math.floor(rnd() * 3) * 10 }));
    const idx = new TermIndex(docs);
    for (const q of [['alpha', 'beta'], ['alpha', 'beta', 'gamma'], ['eps']]) {
      const lists = q.flatMap((w) => idx.expand(w));
      const ref = reference(docs, lists, Object.fromEntries(words.map((w) => [idx.expand(w)[0] as number, w])) as unknown as string[]);
      expect([...idx.ranked(lists)]).toEqual(ref);
    }
  });

  it('expands a prefix to at most 32 indexed terms, in term order', () => {
    const docs = [{ text: Array.from({ length: 40 }, (_, i) => `pre${String(i).padStart(2, '0')}`).join(' '), rank: 0 }];
    const idx = new TermIndex(docs);
    expect(idx.expand('pre')).toHaveLength(32);
    expect(idx.expand('pre3')).toHaveLength(10);
    expect(idx.expand('zzz')).toEqual([]);
  });

  it('counts matches of frequent terms (bitsets) and rare ones together', () => {
    const docs = Array.from({ length: 200 }, (_, i) => ({ text: `common ${i % 50 === 0 ? 'rare' : ''} w${i}`, rank: 0 }));
    const idx = new TermIndex(docs);
    const lists = [...idx.expand('common'), ...idx.expand('rare'), ...idx.expand('w7')];
    expect(idx.countMatches(lists)).toBe(200);
    expect(idx.countMatches([...idx.expand('rare'), ...idx.expand('w7'), ...idx.expand('w50')])).toBe(5);
  });
});
