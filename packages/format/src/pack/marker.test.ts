/**
 * `looksLikeMarker` (escape.ts) reads an ASCII line without building its skeleton (one KMP
 * matcher per marker key over the skeleton's characters as they come): it must answer exactly as
 * the skeleton rule — `markerSkeleton(line)` contains a marker key — for every line, including a
 * line whose marker-like ASCII start is followed by a character that changes the skeleton
 * (NFKC, confusables).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { looksLikeMarker, markerSkeleton } from './escape.js';

const KEYS = ['UNTRUSTED CONTEXT', 'untrusted context', 'ctxpkg:begin', 'ctxpkg:end'].map(markerSkeleton);
const reference = (line: string): boolean => line !== '' && KEYS.some((k) => markerSkeleton(line).includes(k));

/** Pieces lines are made of: marker fragments in both cases, digits read as letters, punctuation, and characters the skeleton's NFKC and confusables steps change. */
const PIECES = [
  'untrusted', 'UNTRUSTED', 'Untru5ted', 'c0ntext', 'CONTEXT', 'context', 'ctxpkg', 'CTXPKG', 'ctxpk', 'begin', 'BEG1N', 'end', 'en', 'ctxpkgctxpkg', 'untrustedcontextx',
  'u', 'n', 't', 'r', 's', 'e', 'd', 'c', 'o', 'x', 'p', 'k', 'g', 'b', 'i', 'l', '0', '1', '5', '9',
  ' ', ':', '-', '_', '<!--', '-->', '*', '\t', 'é', '\u0301', '\u200b', 'ｘ', 'Ѕ', '𝐓', 'ı', 'K', 'ſ',
];

describe('looksLikeMarker', () => {
  it('answers as the skeleton rule on lines made of marker fragments (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 14 }), (parts) => {
        const line = parts.join('');
        expect(looksLikeMarker(line)).toBe(reference(line));
      }),
      { numRuns: 5000, seed: 16 },
    );
  });

  it('answers as the skeleton rule on arbitrary strings (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (line) => {
        expect(looksLikeMarker(line)).toBe(reference(line));
      }),
      { numRuns: 3000, seed: 3 },
    );
  });

  it('examples: overlapping keys, digits read as letters, and a match undone by what follows it', () => {
    const cases: Array<[string, boolean]> = [
      ['ctxpkgctxpkg:begin', true],
      // After 'untru' the next 'n' continues a match from the last 'u' (a KMP border).
      ['untruntrusted context', true],
      ['ctxpkg:be gin!', true],
      ['--- end untru5ted c0ntext ---', true],
      ['<!-- CTXPKG:END -->', true],
      ['ctxpkg:en d', true],
      ['ctxpkg:en', false],
      ['untrusted contex', false],
      ['Decode session service index schema route admin request.', false],
      ['', false],
      // NFKC composes `n` with U+0301 into `ń`, which the skeleton drops: no key left.
      ['ctxpkg:begin\u0301', false],
      ['ctxpkg:begin é', true],
    ];
    for (const [line, want] of cases) {
      expect(reference(line), line).toBe(want);
      expect(looksLikeMarker(line), line).toBe(want);
    }
  });
});
