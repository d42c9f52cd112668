import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatJsonString, hasLoneSurrogate } from './strings.js';
import { formatTimestamp, isValidTimestamp, normalizeTimestamp, parseTimestamp } from './timestamp.js';

// FORMAT-FACTS §3.4 "Timestamps" (chrono AutoSi, Z).
const CHRONO: Array<[string, string]> = [
  ['2026-01-02T03:04:05Z', '2026-01-02T03:04:05Z'],
  ['2026-01-02T03:04:05.000Z', '2026-01-02T03:04:05Z'],
  ['2026-01-02T03:04:05.120Z', '2026-01-02T03:04:05.120Z'],
  ['2026-01-02T03:04:05.123456Z', '2026-01-02T03:04:05.123456Z'],
  ['2026-01-02T03:04:05.123456789Z', '2026-01-02T03:04:05.123456789Z'],
  ['2026-01-02T04:04:05+01:00', '2026-01-02T03:04:05Z'],
  ['2026-01-02T03:04:05.100000Z', '2026-01-02T03:04:05.100Z'],
  ['2026-01-02T03:04:05.1Z', '2026-01-02T03:04:05.100Z'],
  ['2026-01-02T03:04:05.1234Z', '2026-01-02T03:04:05.123400Z'],
  ['2026-01-01T00:30:00+01:00', '2025-12-31T23:30:00Z'],
  ['2024-02-29t12:00:00z', '2024-02-29T12:00:00Z'],
];

describe('normalizeTimestamp', () => {
  for (const [input, out] of CHRONO) it(`${input} → ${out}`, () => expect(normalizeTimestamp(input)).toBe(out));

  it('formats a Date without .000', () => {
    expect(normalizeTimestamp(new Date('2026-01-02T03:04:05.000Z'))).toBe('2026-01-02T03:04:05Z');
    expect(normalizeTimestamp(new Date('2026-01-02T03:04:05.120Z'))).toBe('2026-01-02T03:04:05.120Z');
  });

  it('refuses text that is not RFC 3339 or not a real date', () => {
    for (const bad of ['2026-01-02', '2026-01-02 03:04:05Z', '2026-02-30T00:00:00Z', '2025-02-29T00:00:00Z', '2026-01-02T24:00:00Z',
      '2026-01-02T03:04:60Z', '2026-01-02T03:04:05', '2026-01-02T03:04:05.1234567890Z', '2026-13-01T00:00:00Z', ' 2026-01-02T03:04:05Z']) {
      expect(isValidTimestamp(bad)).toBe(false);
      expect(() => normalizeTimestamp(bad)).toThrow(/RFC 3339/);
    }
  });

  it('parses to epoch seconds and nanoseconds', () => {
    expect(parseTimestamp('1970-01-01T00:00:01.5Z')).toEqual({ epochSeconds: 1, nanos: 500_000_000 });
  });
});

// FORMAT-FACTS §3.4 "Strings".
describe('normalizeTimestamp fast path (UTC text keeps its digits)', () => {
  it('equals formatting the parsed instant, for random valid texts in every spelling', () => {
    const two = (n: number) => String(n).padStart(2, '0');
    const text = fc
      .record({
        y: fc.integer({ min: 0, max: 9999 }),
        mo: fc.integer({ min: 1, max: 12 }),
        d: fc.integer({ min: 1, max: 28 }),
        h: fc.integer({ min: 0, max: 23 }),
        mi: fc.integer({ min: 0, max: 59 }),
        s: fc.integer({ min: 0, max: 59 }),
        frac: fc.constantFrom('', '.0', '.000', '.5', '.120', '.000100', '.123456789', '.100000000'),
        t: fc.constantFrom('T', 't'),
        z: fc.constantFrom('Z', 'z', '+00:00', '+01:30', '-05:00'),
      })
      .map((r) => `${String(r.y).padStart(4, '0')}-${two(r.mo)}-${two(r.d)}${r.t}${two(r.h)}:${two(r.mi)}:${two(r.s)}${r.frac}${r.z}`);
    fc.assert(
      fc.property(text, (t) => {
        const p = parseTimestamp(t)!;
        const expected = formatTimestamp(p);
        if (expected === undefined) expect(() => normalizeTimestamp(t)).toThrow();
        else expect(normalizeTimestamp(t)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('formatJsonString', () => {
  const table: Array<[string, string]> = [
    ['plain', '"plain"'],
    ['quote" back\\slash', '"quote\\" back\\\\slash"'],
    ['slash/ok', '"slash/ok"'],
    ['tab\tnl\ncr\r', '"tab\\tnl\\ncr\\r"'],
    ['\b\f', '"\\b\\f"'],
    ['\u0001\u001f\u007f', '"\\u0001\\u001f\u007f"'],
    ['é ü 日本 😀', '"é ü 日本 😀"'],
    ['\u2028\u2029', '"\u2028\u2029"'],
    ['</script>', '"</script>"'],
  ];
  for (const [s, out] of table) it(JSON.stringify(s), () => expect(formatJsonString(s)).toBe(out));

  it('refuses lone surrogates', () => {
    expect(hasLoneSurrogate('a\ud800b')).toBe(true);
    expect(hasLoneSurrogate('😀')).toBe(false);
    expect(() => formatJsonString('a\udc00', 'node content')).toThrow(/node content.*lone/);
  });
});
