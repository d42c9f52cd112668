import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isWellFormedUtf8, isWellFormedUtf8Portable } from './utf8.js';

/** Bytes biased to the edges of UTF-8: lead bytes, continuations, overlongs, surrogates, > U+10FFFF. */
const edgyByte = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }),
  fc.constantFrom(0x00, 0x7f, 0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xa0, 0x9f, 0xed, 0xee, 0xef, 0xbb, 0xf0, 0x90, 0x8f, 0xf4, 0xf5, 0xff),
);

describe('isWellFormedUtf8', () => {
  it('answers as a fatal TextDecoder does (property, against the portable backend)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), fc.array(edgyByte, { maxLength: 24 }), fc.nat(8), (random, edgy, off) => {
        for (const bytes of [random, Uint8Array.from(edgy)]) {
          expect(isWellFormedUtf8(bytes)).toBe(isWellFormedUtf8Portable(bytes));
          // A view that starts inside a larger buffer.
          const big = new Uint8Array(bytes.length + off + 3).fill(0xc3);
          big.set(bytes, off);
          const view = big.subarray(off, off + bytes.length);
          expect(isWellFormedUtf8(view)).toBe(isWellFormedUtf8Portable(bytes));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('knows the usual cases', () => {
    const enc = new TextEncoder();
    for (const ok of ['', 'plain', 'räksmörgås 日本語 😀', '\ufeffBOM', '\ufffd']) expect(isWellFormedUtf8(enc.encode(ok)), ok).toBe(true);
    for (const bad of [[0xc3], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xff], [0x80], [0x41, 0xe2, 0x82]]) {
      expect(isWellFormedUtf8(Uint8Array.from(bad)), bad.join(',')).toBe(false);
      expect(isWellFormedUtf8Portable(Uint8Array.from(bad)), bad.join(',')).toBe(false);
    }
  });
});
