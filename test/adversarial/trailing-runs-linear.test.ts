/**
 * End-anchored runs (`\n+$`, `[-.]+$`, `[ \t]+$`, `\/+$`, `[?#].*$`) are linear.
 *
 * V8 retries an unanchored RegExp at every start position, so `X+$` over a long run of `X` that
 * is not at the end of the text reads the rest of the run from each start: quadratic. Package
 * text hit this in the pack compiler's `escapeContent` (`/\n+$/`: a node of 100k line breaks took
 * 4.2 s per MCP `get_node`, 5.4 s per render) and the rule-set slug (`/^[-.]+|[-.]+$/g` over a
 * 200k-character file path: 18 s per install). Each replacement is checked against the former
 * RegExp on random short texts (the oracle), and its growth is measured: the best of several
 * runs at n and at 4n, compared with each other inside one test (linear ≈ 4×, the former
 * RegExps ≈ 16×). No absolute time is asserted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeContent } from '@ctxpkg/format/pack/escape';
import { sourceSlug } from '../../packages/format/src/pack/tiers.js';
import { parseRangeGrammar } from '../../packages/format/src/versions/grammar.js';
import { trimTrailingSlashes } from '../../packages/cli/src/config.js';
import { withoutQueryAndFragment } from '../../packages/cli/src/importers/index.js';

/** Best of `runs` timings of `f(text)` in ms (the first run warms the function up and is dropped). */
function best(f: (text: string) => unknown, text: string, runs = 7): number {
  f(text);
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    f(text);
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

/**
 * How much longer `f` takes on `make(4n)` than on `make(n)`: ≈ 4 when linear, ≈ 16 when
 * quadratic. `n` is chosen so the linear cost is a few milliseconds (timer noise stays small)
 * and the quadratic one stays under a few seconds (a broken fix fails, it does not hang).
 */
function growth(f: (text: string) => unknown, make: (n: number) => string, n: number): number {
  const small = best(f, make(n));
  const large = best(f, make(4 * n));
  return large / Math.max(small, 0.05);
}

const chars = (alphabet: string[], maxLength = 30) => fc.array(fc.constantFrom(...alphabet), { maxLength }).map((a) => a.join(''));

describe('escapeContent: trailing line breaks', () => {
  it('drops them as /\\n+$/ did (after CR LF and CR read as LF)', () => {
    fc.assert(
      fc.property(chars(['a', '\n', '\r', '\r\n', ' ']), (text) => {
        const old = text.replace(/\r\n?/g, '\n').replace(/\n+$/, '');
        expect(escapeContent(text)).toBe(old);
      }),
      { numRuns: 2_000 },
    );
  });
  it('is linear in a long inner run of line breaks', () => {
    expect(growth(escapeContent, (n) => 'Run tests.' + '\n'.repeat(n) + 'Done.', 20_000)).toBeLessThan(9);
    expect(growth(escapeContent, (n) => 'a' + '\r\n'.repeat(n) + 'b', 20_000)).toBeLessThan(9);
  });
});

describe('rule-set slug of a source path', () => {
  const old = (path: string): string => {
    const base = path.slice(path.lastIndexOf('/') + 1).replace(/\.(md|mdc|markdown|txt|json)$/i, '').replace(/\.instructions$/i, '');
    const s = base.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 48);
    return s === '' ? 'scoped' : s;
  };
  it('is the former slug', () => {
    fc.assert(
      fc.property(chars(['a', 'B', '-', '.', '/', ' ', '.md', '_', 'é', '--x', '.instructions'], 60), (path) => {
        expect(sourceSlug(path === '' ? 'x' : path)).toBe(old(path === '' ? 'x' : path));
      }),
      { numRuns: 3_000 },
    );
    expect(sourceSlug(undefined)).toBe('scoped');
    expect(sourceSlug('rules/--.--.md')).toBe('scoped');
  });
  it('is linear in a long run of - and . inside the name', () => {
    expect(growth(sourceSlug, (n) => 'rules/a' + '-'.repeat(n) + 'b.md', 20_000)).toBeLessThan(9);
    expect(growth(sourceSlug, (n) => 'rules/a' + '.-'.repeat(n / 2) + 'b.md', 20_000)).toBeLessThan(9);
  });
});

describe('a version range alternative: blanks at both ends', () => {
  it('is linear in a long inner run of blanks', () => {
    const parse = (t: string) => parseRangeGrammar(t, t);
    expect(parse('>=1.0.0 ' + ' \t'.repeat(5) + ' <2.0.0').sets).toHaveLength(1);
    expect(growth(parse, (n) => '>=1.0.0' + ' '.repeat(n) + '<2.0.0', 20_000)).toBeLessThan(9);
  });
});

describe('registry URLs: trailing slashes', () => {
  it('are dropped as /\\/+$/ did', () => {
    fc.assert(fc.property(chars(['a', '/', '//', 'api']), (t) => {
      expect(trimTrailingSlashes(t)).toBe(t.replace(/\/+$/, ''));
    }), { numRuns: 1_000 });
  });
  it('is linear in a long inner run of slashes', () => {
    expect(growth(trimTrailingSlashes, (n) => '/a' + '/'.repeat(n) + 'b', 20_000)).toBeLessThan(9);
  });
});

describe('Markdown link targets: query and fragment', () => {
  it('are dropped as /[?#].*$/ did, also around line terminators', () => {
    fc.assert(
      fc.property(chars(['a', '?', '#', '/', '\n', '\r', '\u2028', '\u2029']), (t) => {
        expect(withoutQueryAndFragment(t)).toBe(t.replace(/[?#].*$/, ''));
      }),
      { numRuns: 3_000 },
    );
  });
  it('is linear in a long run of ? before a line terminator', () => {
    expect(growth(withoutQueryAndFragment, (n) => 'a' + '?'.repeat(n) + '\u2028b', 20_000)).toBeLessThan(9);
  });
});
