/**
 * `scanTokenRuns` (secret-scanners.ts, the `high_entropy` rule) against the expression it
 * replaced, `(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/=_-])` with the same
 * acceptance (`isHighEntropyToken`, documentation examples refused): the same candidates on texts
 * of long runs of every kind — mixed-case tokens with digits, paths, identifiers, `=` padding —
 * including the runs it passes over without slicing (no digit, no upper-case or no lower-case
 * letter). The work count stays linear.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DOC_EXAMPLES, isHighEntropyToken } from './secret-heuristics.js';
import { scanTokenRuns, type Candidate } from './secret-scanners.js';

const FORMER = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/=_-])/g;

function byExpression(text: string): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  for (const m of text.matchAll(FORMER)) {
    if (DOC_EXAMPLES.has(m[0]) || !isHighEntropyToken(m[0])) continue;
    out.push({ start: m.index, end: m.index + m[0].length });
  }
  return out;
}

function byScanner(text: string): { found: Array<{ start: number; end: number }>; steps: number } {
  const out: Candidate[] = [];
  const work = { steps: 0 };
  scanTokenRuns(text, 0, out, work);
  return { found: out.map((c) => ({ start: c.start, end: c.end })), steps: work.steps };
}

/** Runs of one kind of characters, long enough to be candidates, joined by separators. */
const run = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9]{20,40}$/),
  fc.stringMatching(/^[a-z/]{20,40}$/),
  fc.stringMatching(/^[A-Z0-9_]{20,40}$/),
  fc.stringMatching(/^[a-z0-9-]{20,40}$/),
  fc.stringMatching(/^[A-Za-z+/]{20,40}$/),
  fc.constantFrom('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'q8Zr2LmX9vTq4NcB7wYk3HsJ', 'packages/cli/src/importers/ids', 'sha256-Q8Zr2LmX9vTq4NcB7wYk3HsJ'),
);
const sep = fc.constantFrom(' ', '=', '==', '===', '.', '\n', '', 'é', '"');

describe('scanTokenRuns', () => {
  it('finds what the former expression found, on texts of long runs of every kind', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(run, sep), { maxLength: 8 }), (parts) => {
        const text = parts.map(([r, s]) => r + s).join('');
        const { found, steps } = byScanner(text);
        expect(found).toEqual(byExpression(text));
        expect(steps).toBeLessThanOrEqual(2 * text.length + 2);
      }),
      { numRuns: 1500 },
    );
  });

  it('passes over long runs without a digit, an upper-case or a lower-case letter, and keeps mixed ones', () => {
    expect(byScanner('see packages/cli/src/importers/ids.ts and CONSTANT_NAME_WITH_DIGITS_2024_X').found).toEqual([]);
    const token = 'q8Zr2LmX9vTq4NcB7wYk3HsJ';
    expect(byScanner(`key ${token}== end`).found).toEqual([{ start: 4, end: 4 + token.length + 2 }]);
  });
});
