import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastParseDocument } from './fast.js';
import { plain, REFUSED_BY_EVERY_FAST_PATH } from './__tests__/fast-cases.js';
import { parseJsonDocument, parseStrictJson } from './parse.js';

/**
 * The fast path replaces the strict parser in `rawNumbers` mode (unsafe integers are the
 * schema's business there): it must accept only what that accepts, with equal values and spans.
 */
function agrees(text: string, integerKeys: ReadonlySet<string> = new Set()): void {
  const fast = fastParseDocument(text, integerKeys);
  let strict: ReturnType<typeof parseJsonDocument> | undefined;
  try {
    strict = parseJsonDocument(text, { rawNumbers: true });
  } catch {
    strict = undefined;
  }
  if (fast === undefined) return; // the caller falls back to the strict parser
  expect(strict).toBeDefined();
  expect(fast.value).toEqual(plain(strict!.value));
  expect([...fast.memberSpans.entries()]).toEqual([...strict!.memberSpans.entries()]);
}

describe('fastParseDocument', () => {
  it('agrees with the strict parser on random JSON, pretty or compact', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 6 }), fc.boolean(), (j, pretty) => {
        const text = pretty ? JSON.stringify(JSON.parse(j), null, 2) : j;
        agrees(text);
        agrees(`{"manifest":${text},"content":{"x":${text}}}`);
      }),
      { numRuns: 400 },
    );
  });

  it('finds string ends across escaped quotes and backslashes; duplicates behind them are still refused', () => {
    const tricky = fc.array(fc.constantFrom('\\', '"', 'a', 'é', '\n', '😀', '\\"'), { maxLength: 8 }).map((a) => a.join(''));
    fc.assert(
      fc.property(tricky, tricky, fc.integer(), (k, v, n) => {
        const K = JSON.stringify(k);
        const V = JSON.stringify(v);
        agrees(`{"manifest":{${K}:${V},"n":${n}},"content":{"s":${V},"t":[${V},${K}]}}`);
        // The same key twice, with tricky string values between: never accepted by the fast path.
        expect(fastParseDocument(`{"a":${V},"b":{"x":${V},"y":${K},"x":${n}}}`)).toBeUndefined();
        expect(fastParseDocument(`{${K}:${V},${K}:${V}}`)).toBeUndefined();
      }),
      { numRuns: 400 },
    );
    expect(fastParseDocument('{"a":"\\\\","a":1}')).toBeUndefined();
    expect(fastParseDocument('{"a":"\\\\"","b":1}')).toBeUndefined(); // not JSON: the string ends after the escaped backslash
    expect(fastParseDocument('{"a":"\\"","b":1}')!.value).toEqual({ a: '"', b: 1 }); // an escaped quote does not end it
    expect(fastParseDocument('{"a":"x\\')).toBeUndefined(); // unterminated
    expect(fastParseDocument('{"a":"\\\\","b":"\\"x"}')!.value).toEqual({ a: '\\', b: '"x' });
  });

  it('checks well-formedness unless the text came from UTF-8', () => {
    const lone = '{"a":"\ud800"}'.replace('\\ud800', '\ud800');
    expect((lone as unknown as { isWellFormed(): boolean }).isWellFormed()).toBe(false);
    expect(fastParseDocument(lone)).toBeUndefined();
    expect(fastParseDocument('{"a":"é😀"}', new Set(), { fromUtf8: true })!.value).toEqual({ a: 'é😀' });
  });

  it('takes the fast path for ordinary package text', () => {
    const text = '{\n  "manifest": {"a": 1, "b": [true, null, "x\\n"]},\n  "content": {"n": -1.5e3, "s": "é😀"}\n}';
    const doc = fastParseDocument(text)!;
    expect(doc).toBeDefined();
    expect(doc.value).toEqual(parseStrictJson(text));
    const c = doc.memberSpans.get('content')!;
    expect(text.slice(c.start, c.end)).toBe('{"n": -1.5e3, "s": "é😀"}');
  });

  it('refers every hostile or unusual input to the strict parser', () => {
    for (const t of REFUSED_BY_EVERY_FAST_PATH) expect(fastParseDocument(t), JSON.stringify(t.slice(0, 40))).toBeUndefined();
  });

  it('sends a fraction or exponent in an integer field to the strict parser, and nothing else', () => {
    const keys = new Set(['line_start']);
    expect(fastParseDocument('{"line_start":1.0}', keys)).toBeUndefined();
    expect(fastParseDocument('{"line_start":1e2}', keys)).toBeUndefined();
    expect(fastParseDocument('{"line_start":12}', keys)).toBeDefined();
    expect(fastParseDocument('{"weight":1.0}', keys)).toBeDefined();
  });

  it('detects duplicates in objects with many keys', () => {
    const many = Array.from({ length: 100 }, (_, i) => `"k${i}":${i}`).join(',');
    expect(fastParseDocument(`{${many}}`)).toBeDefined();
    expect(fastParseDocument(`{${many},"k57":1}`)).toBeUndefined();
  });
});
