import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastParseBytes } from './fast-bytes.js';
import { parseJsonDocument, MAX_JSON_DEPTH } from './parse.js';
import { compactJsonBytes } from './text.js';
import { plain, REFUSED_BY_EVERY_FAST_PATH } from './__tests__/fast-cases.js';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

/**
 * The byte fast path replaces UTF-8 decoding plus the strict parser in `rawNumbers` mode: it must
 * accept only what those accept, with equal values; its compacted bytes are `compactJsonBytes` of
 * the input, and each root member's spans cut out that member (compacted, and as written).
 */
let accepted = 0;
function agrees(text: string, integerKeys: ReadonlySet<string> = new Set()): void {
  const bytes = enc(text);
  const fast = fastParseBytes(bytes, integerKeys);
  let strict: ReturnType<typeof parseJsonDocument> | undefined;
  try {
    strict = parseJsonDocument(text, { rawNumbers: true });
  } catch {
    strict = undefined;
  }
  if (fast === undefined) return; // the caller takes the text path
  accepted++;
  expect(strict).toBeDefined();
  expect(fast.value).toEqual(plain(strict!.value));
  expect(dec(fast.compact)).toBe(dec(compactJsonBytes(bytes)));
  expect([...fast.compactSpans.keys()]).toEqual([...strict!.memberSpans.keys()]);
  for (const [k, s] of strict!.memberSpans) {
    const written = text.slice(s.start, s.end);
    const c = fast.compactSpans.get(k)!;
    const w = fast.inputSpans.get(k)!;
    expect(dec(fast.compact.subarray(c.start, c.end))).toBe(dec(compactJsonBytes(enc(written))));
    expect(dec(bytes.subarray(w.start, w.end))).toBe(written);
  }
}

describe('fastParseBytes', () => {
  it('agrees with the strict parser on random JSON, pretty or compact', () => {
    accepted = 0;
    fc.assert(
      fc.property(fc.json({ maxDepth: 6 }), fc.boolean(), (j, pretty) => {
        const text = pretty ? JSON.stringify(JSON.parse(j), null, 2) : j;
        agrees(text);
        agrees(`{"manifest":${text},\n "content": {"x": ${text}}, "n": 1 }`);
      }),
      { numRuns: 400 },
    );
    // Most random JSON is ordinary: the fast path must take it, not refer it on.
    expect(accepted).toBeGreaterThan(400);
  });

  it('finds string ends across escaped quotes and backslashes; duplicates behind them are still refused', () => {
    const tricky = fc.array(fc.constantFrom('\\', '"', 'a', 'é', '\n', ' ', '😀', '\\"'), { maxLength: 8 }).map((a) => a.join(''));
    fc.assert(
      fc.property(tricky, tricky, fc.integer(), (k, v, n) => {
        const K = JSON.stringify(k);
        const V = JSON.stringify(v);
        agrees(`{"manifest":{${K}: ${V},"n":${n}},\n  "content":{"s":${V},"t":[${V}, ${K}]}}`);
        expect(fastParseBytes(enc(`{"a":${V},"b":{"x":${V},"y":${K},"x":${n}}}`))).toBeUndefined();
        expect(fastParseBytes(enc(`{${K}:${V},${K}:${V}}`))).toBeUndefined();
      }),
      { numRuns: 400 },
    );
    expect(fastParseBytes(enc('{"a":"\\\\","a":1}'))).toBeUndefined();
    expect(fastParseBytes(enc('{"a":"\\\\"","b":1}'))).toBeUndefined();
    expect(fastParseBytes(enc('{"a":"\\"","b":1}'))!.value).toEqual({ a: '"', b: 1 });
    expect(fastParseBytes(enc('{"a":"x\\'))).toBeUndefined();
    expect(fastParseBytes(enc('{"a":"x\\"'))).toBeUndefined(); // the last quote is escaped: unterminated
    expect(fastParseBytes(enc('{"a":"\\\\","b":"\\"x"}'))!.value).toEqual({ a: '\\', b: '"x' });
  });

  it('gives the values of the strict parser for any Unicode text, keys included (non-ASCII is parsed through escapes)', () => {
    accepted = 0;
    const cp = fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }),
      fc.integer({ min: 0x80, max: 0x7ff }),
      fc.integer({ min: 0x800, max: 0xffff }).filter((c) => c < 0xd800 || c > 0xdfff),
      fc.integer({ min: 0x10000, max: 0x10ffff }),
      fc.constantFrom(0x7f, 0x80, 0xff, 0x100, 0x7ff, 0x800, 0x2028, 0x2029, 0xd7ff, 0xe000, 0xfeff, 0xfffe, 0xffff, 0x10000, 0x10ffff),
    );
    const text = fc.array(cp, { maxLength: 10 }).map((a) => String.fromCodePoint(...a));
    fc.assert(
      fc.property(fc.dictionary(text, fc.oneof(text, fc.array(text, { maxLength: 3 })), { maxKeys: 4 }), fc.boolean(), (obj, pretty) => {
        const t = JSON.stringify({ manifest: obj, content: { list: Object.values(obj) } }, null, pretty ? 2 : undefined);
        agrees(t);
      }),
      { numRuns: 600 },
    );
    expect(accepted).toBeGreaterThan(500);
    // Escapes longer than the text's ASCII share leaves room for (the escaped copy grows).
    for (const t of ['😀'.repeat(300), 'é'.repeat(500), `${'a'.repeat(40)}日本語${'😀'.repeat(50)}z`]) agrees(`{"manifest":{"${t}":"${t}"},"content":["${t}",1]}`);
    expect(fastParseBytes(enc('{"k😀é":"日本語\u00e9😀","a":["\ud83d\ude00"]}'))!.value).toEqual({ 'k😀é': '日本語é😀', a: ['😀'] });
  });

  it('refers invalid UTF-8 and U+FFFD inside strings to the slower path, and takes every other byte sequence (property)', () => {
    const edge = fc.constantFrom(0x41, 0x7e, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xbb, 0xbd, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff);
    const strict = new TextDecoder('utf-8', { fatal: true });
    fc.assert(
      fc.property(fc.array(edge, { minLength: 1, maxLength: 10 }), fc.boolean(), (seq, inKey) => {
        const head = enc(inKey ? '{"manifest":{"' : '{"manifest":{"k":"');
        const tail = enc(inKey ? '":1},"content":[]}' : '"},"content":[]}');
        const bytes = new Uint8Array(head.length + seq.length + tail.length);
        bytes.set(head);
        bytes.set(seq, head.length);
        bytes.set(tail, head.length + seq.length);
        let decoded: string | undefined;
        try {
          decoded = strict.decode(bytes);
        } catch {
          decoded = undefined;
        }
        const fast = fastParseBytes(bytes);
        if (decoded === undefined || decoded.includes('\ufffd')) expect(fast).toBeUndefined();
        else {
          expect(fast).toBeDefined();
          expect(fast!.value).toEqual(JSON.parse(decoded));
          expect(fast!.compact).toEqual(bytes);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps whitespace inside strings and drops it outside', () => {
    const r = fastParseBytes(enc('{ "manifest" : { "a b" : " x\\n y " } ,\r\n\t"content":[ 1 , -2.5e3 , true ] }'))!;
    expect(dec(r.compact)).toBe('{"manifest":{"a b":" x\\n y "},"content":[1,-2.5e3,true]}');
    expect(r.value).toEqual({ manifest: { 'a b': ' x\n y ' }, content: [1, -2500, true] });
  });

  it('never joins two tokens that whitespace kept apart', () => {
    // Each is invalid JSON that compacting naively would make valid.
    for (const t of ['[1 2]', '{"a":tr ue}', '[- 1]', '[1 .5]', '[1 e5]', '{"a":nu ll}', '[1\n2]', '[true false]']) {
      expect(() => JSON.parse(t), t).toThrow();
      expect(fastParseBytes(enc(t)), t).toBeUndefined();
    }
  });

  it('refers every hostile or unusual input to the slower path', () => {
    const cases = [
      ...REFUSED_BY_EVERY_FAST_PATH,
      '{"k":"a\\ud800\\u0041"}',
      '{"k":"a\\u12"}',
      '{"a":1E-301}',
      '{"a":1}}',
      '{"a":\u00a01}',
      '{"a":é}',
      '{"a":"\ufffd"}',
    ];
    for (const t of cases) expect(fastParseBytes(enc(t)), JSON.stringify(t.slice(0, 40))).toBeUndefined();
    // Invalid UTF-8 inside a string, and a stray byte ≥ 0x80 outside one.
    expect(fastParseBytes(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d]))).toBeUndefined();
    expect(fastParseBytes(new Uint8Array([0x5b, 0xc3, 0x20, 0xa9, 0x5d]))).toBeUndefined();
    // The nesting limit itself is accepted.
    expect(fastParseBytes(enc('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH)))).toBeDefined();
  });

  it('sends a fraction or exponent in an integer field to the slower path, and nothing else', () => {
    const keys = new Set(['line_start']);
    expect(fastParseBytes(enc('{"line_start":1.0}'), keys)).toBeUndefined();
    expect(fastParseBytes(enc('{"line_start": 1e2}'), keys)).toBeUndefined();
    expect(fastParseBytes(enc('{"line_start":12}'), keys)).toBeDefined();
    expect(fastParseBytes(enc('{"weight":1.0}'), keys)).toBeDefined();
  });

  it('detects duplicates in objects with many keys', () => {
    const many = Array.from({ length: 100 }, (_, i) => `"k${i}":${i}`).join(',');
    expect(fastParseBytes(enc(`{${many}}`))).toBeDefined();
    expect(fastParseBytes(enc(`{${many},"k57":1}`))).toBeUndefined();
    expect(fastParseBytes(enc(`{${many},"k5":1}`))).toBeUndefined();
    expect(fastParseBytes(enc(`{"k0":{${many}},"x":{${many}}}`))).toBeDefined();
    const few = Array.from({ length: 31 }, (_, i) => `"k${i}":${i}`).join(',');
    expect(fastParseBytes(enc(`{${few},"k0":1}`))).toBeUndefined();
    expect(fastParseBytes(enc(`{${few},"k31":1,"k30":1}`))).toBeUndefined();
  });
});
