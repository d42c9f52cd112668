/**
 * The confusables skeleton of escape.ts (spec/pack.md §8, marker look-alikes) is unhomoglyph's:
 * the generated table is the installed package's `data.json`, and `confusablesSkeleton` gives
 * `unhomoglyph(text)` for any text — its keys one at a time, all of them in a row, and random
 * strings mixing keys, ASCII, astral characters and lone surrogates. unhomoglyph itself is a
 * development dependency only: importing it costs ~10 ms of start-up (issue 16 item 3).
 */
import fc from 'fast-check';
import unhomoglyph from 'unhomoglyph';
import { describe, expect, it } from 'vitest';
import { unhomoglyphTable } from '../../../../scripts/gen-confusables-table.js';
import { CONFUSABLES_JSON, CONFUSABLES_SOURCE } from './confusables-table.js';
import { confusablesSkeleton, looksLikeMarker } from './escape.js';

const { version, table } = unhomoglyphTable();
const keys = Object.keys(table);

describe('the confusables table', () => {
  it('is the installed unhomoglyph data.json, in its key order (regenerate with `npm run gen:confusables-table`)', () => {
    expect(CONFUSABLES_SOURCE).toBe(`unhomoglyph ${version}`);
    const parsed = JSON.parse(CONFUSABLES_JSON) as Record<string, string>;
    expect(parsed).toEqual(table);
    expect(Object.keys(parsed)).toEqual(keys);
  });

  it('has single well-formed code points as keys (what the one-pass skeleton relies on)', () => {
    const one = /^(?:[^\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])$/;
    for (const k of keys) expect([k, one.test(k)]).toEqual([k, true]);
  });
});

describe('confusablesSkeleton', () => {
  it('maps every key as unhomoglyph does, alone, between letters, and all keys in a row', () => {
    for (const k of keys) {
      expect(confusablesSkeleton(k)).toBe(unhomoglyph(k));
      expect(confusablesSkeleton(`a${k}Z${k}`)).toBe(unhomoglyph(`a${k}Z${k}`));
    }
    const all = keys.join('');
    expect(confusablesSkeleton(all)).toBe(unhomoglyph(all));
  });

  it('equals unhomoglyph on random text (keys, ASCII, astral characters, lone surrogates)', () => {
    const piece = fc.oneof(
      fc.constantFrom(...keys),
      fc.string({ unit: 'grapheme-ascii', maxLength: 4 }),
      fc.string({ unit: 'binary', maxLength: 4 }),
      fc.constantFrom('\ud835', '\udc00', '\ud835\ud835', '\udc00\ud835', '𝐀', '😀'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        expect(confusablesSkeleton(text)).toBe(unhomoglyph(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('returns ASCII-free text without a confusable unchanged, and keeps catching look-alike markers', () => {
    expect(confusablesSkeleton('中文')).toBe('中文');
    expect(confusablesSkeleton('')).toBe('');
    expect(looksLikeMarker('UNTRUЅTED CONTEXT')).toBe(true); // Cyrillic DZE
    expect(looksLikeMarker('ｃｔｘｐｋｇ:ｂｅｇｉｎ')).toBe(true);
    expect(looksLikeMarker('𝐔𝐍𝐓𝐑𝐔𝐒𝐓𝐄𝐃 𝐂𝐎𝐍𝐓𝐄𝐗𝐓')).toBe(true);
    expect(looksLikeMarker('untrusted contexts are fine to mention é')).toBe(true);
    expect(looksLikeMarker('nothing to see here é')).toBe(false);
  });
});
