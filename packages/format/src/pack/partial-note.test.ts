/**
 * The partial-section note (render-md.ts `partialNote`, spec/pack.md §8 "Partial sections") and
 * its size measured without its text (`partialNoteBytes`, which the pack compiler uses for every
 * heading section's need): the two must agree for every count and label — a label the note can
 * name (words, spaces, ` > `; any script), one it cannot (punctuation, quotes, empty, double
 * spaces), none, and texts with astral characters and lone surrogates. Also the ASCII shortcut
 * of `visibleWords` (escape.ts), which the heading labels of those notes are made from.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Length } from './budget.js';
import { visibleWords } from './escape.js';
import { partialNote, partialNoteBytes, renderMarkdown } from './render-md.js';

const word = fc.stringMatching(/^[a-zA-Z0-9_\u00e9\u4e2d\u0410-\u044f]{1,8}$/);
/** Labels the note names: words joined by a space or ` > `. */
const nameable = fc.array(fc.tuple(word, fc.constantFrom(' ', ' > ')), { minLength: 1, maxLength: 5 }).map((parts) => parts.map(([w, sep], i) => (i === 0 ? w : sep + w)).join(''));
/** Any text, including quotes, backticks, astral characters and lone surrogates. */
const anyText = fc.string({ unit: fc.constantFrom('a', ' ', '>', '"', '`', '\u00e9', '\ud83d\ude00', '\ud800', '\udc00', '-', '\n'), maxLength: 20 });

describe('partialNoteBytes', () => {
  it('is the UTF-8 size of partialNote for any counts and label', () => {
    fc.assert(
      fc.property(fc.nat({ max: 2_000_000 }), fc.nat({ max: 2_000_000 }), fc.option(fc.oneof(nameable, anyText), { nil: undefined }), (taken, members, heading) => {
        expect(partialNoteBytes(taken, members, heading)).toBe(utf8Length(partialNote(taken, members, heading)));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees at the boundaries of the decimal digits and with no label', () => {
    for (const n of [0, 1, 9, 10, 99, 100, 999_999, 1_000_000, Number.MAX_SAFE_INTEGER]) {
      expect(partialNoteBytes(n, n + 1)).toBe(utf8Length(partialNote(n, n + 1)));
    }
  });

  it('counts a named heading in the command and falls back for one it cannot name', () => {
    const named = partialNote(2, 4, 'Testing > Fixtures');
    expect(named).toContain('`ctxpkg render --focus "Testing > Fixtures"`');
    expect(partialNoteBytes(2, 4, 'Testing > Fixtures')).toBe(utf8Length(named));
    const unnamed = partialNote(2, 4, 'say "hi"');
    expect(unnamed).toContain('`search_context` or `ctxpkg render --focus <topic>`');
    expect(partialNoteBytes(2, 4, 'say "hi"')).toBe(utf8Length(unnamed));
    expect(partialNoteBytes(2, 4, 'Testing > Fixtures')).not.toBe(partialNoteBytes(2, 4, 'say "hi"'));
  });

  it('is what the Markdown renderer offers the compiler', () => {
    expect(renderMarkdown.partialNoteBytes).toBe(partialNoteBytes);
    expect(renderMarkdown.partialNote).toBe(partialNote);
  });
});

describe('visibleWords (escape.ts) on ASCII text', () => {
  // The rule for any text, with the invisible characters ASCII has (controls, TAB, LF, DEL).
  const byRule = (text: string): string[] => text.replace(/[\t\n\u0000-\u0008\u000b-\u001f\u007f]/g, ' ').match(/[\p{L}\p{M}\p{N}_]+/gu) ?? [];
  const ascii = fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)), maxLength: 40 });

  it('gives the words of the Unicode rule (its ASCII shortcut changes nothing)', () => {
    fc.assert(
      fc.property(ascii, (text) => {
        expect(visibleWords(text)).toEqual(byRule(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('still reads non-ASCII words and drops invisible characters', () => {
    expect(visibleWords('Tests > Ünïcode_1 naïve')).toEqual(['Tests', 'Ünïcode_1', 'naïve']);
    expect(visibleWords('a\u200bb\tc')).toEqual(['a', 'b', 'c']);
    expect(visibleWords('Build\u0007step')).toEqual(['Build', 'step']);
    expect(visibleWords('')).toEqual([]);
  });
});
