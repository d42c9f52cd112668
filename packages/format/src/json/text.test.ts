import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactJsonBytes, compactJsonBytesNative, compactJsonText, extractTopLevelMemberText, streamCompactJsonBytes } from './text.js';

describe('compactJsonText (reference compact_json_text)', () => {
  it('removes space, tab, LF and CR outside strings only', () => {
    expect(compactJsonText('{ "a b" : [ 1 ,\t2 ],\r\n "c":"x\ty" }')).toBe('{"a b":[1,2],"c":"x\ty"}');
  });

  it('copies escape sequences verbatim, including escaped quotes and backslashes', () => {
    expect(compactJsonText('{ "k" : "a\\" b\\\\" , "n" : "\\u0020 x" }')).toBe('{"k":"a\\" b\\\\","n":"\\u0020 x"}');
  });

  it('keeps other whitespace-like characters (form feed, NBSP, U+2028) untouched', () => {
    expect(compactJsonText('[\f1,\u00a02,\u20283]')).toBe('[\f1,\u00a02,\u20283]');
  });

  it('reproduces the reference compact form from pretty text', () => {
    const pretty = '{\n  "context_graph": {\n    "nodes": [\n      {\n        "id": "N1",\n        "activation": 1.0\n      }\n    ],\n    "edges": []\n  }\n}';
    expect(compactJsonText(pretty)).toBe('{"context_graph":{"nodes":[{"id":"N1","activation":1.0}],"edges":[]}}');
  });

  it('treats an unterminated string as running to the end (like the reference byte loop)', () => {
    expect(compactJsonText('{ "a" : "b c')).toBe('{"a":"b c');
    expect(compactJsonText('[ "a\\')).toBe('["a\\');
  });

  it('is idempotent', () => {
    const t = '{ "a" : [ "x y" , 1 ] }';
    expect(compactJsonText(compactJsonText(t))).toBe(compactJsonText(t));
  });
});

describe('extractTopLevelMemberText (reference extract_top_level_value_text)', () => {
  const doc = '{ "manifest" : { "content": "not me" },\n  "content" :  {\n "a" : [1, "}"] } , "z": 1 }';

  it('returns the raw text of the member value', () => {
    expect(extractTopLevelMemberText(doc, 'content')).toBe('{\n "a" : [1, "}"] }');
    expect(extractTopLevelMemberText(doc, 'manifest')).toBe('{ "content": "not me" }');
    expect(extractTopLevelMemberText(doc, 'z')).toBe('1');
  });

  it('decodes keys before comparing', () => {
    expect(extractTopLevelMemberText('{"\\u0063ontent":{"x":1}}', 'content')).toBe('{"x":1}');
  });

  it('returns the FIRST duplicate (why strict readers refuse duplicates first)', () => {
    expect(extractTopLevelMemberText('{"content":{"a":1},"content":{"b":2}}', 'content')).toBe('{"a":1}');
  });

  it('returns undefined for missing members and non-objects', () => {
    expect(extractTopLevelMemberText(doc, 'nope')).toBeUndefined();
    expect(extractTopLevelMemberText('[1]', 'content')).toBeUndefined();
    expect(extractTopLevelMemberText('{}', 'content')).toBeUndefined();
  });
});

describe('compactJsonBytesNative (regular-expression form)', () => {
  const enc = new TextEncoder();
  const streamed = (b: Uint8Array) => {
    const parts: number[] = [];
    streamCompactJsonBytes(b, (c) => parts.push(...c), 7);
    return Uint8Array.from(parts);
  };

  it('equals the byte loop on any text: JSON or not, unterminated strings, lone backslashes, UTF-8', () => {
    const piece = fc.constantFrom(' ', '\t', '\n', '\r', '"', '\\', 'a', '{', ':', ',', 'é', '日', '😀', '\\"', '  ', '1.0');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (a) => {
        const b = enc.encode(a.join(''));
        const expected = compactJsonBytes(b);
        expect([...compactJsonBytesNative(b)!]).toEqual([...expected]);
        expect([...streamed(b)]).toEqual([...expected]);
      }),
      { numRuns: 3000 },
    );
  });

  it('equals the byte loop on random JSON, pretty or not, and keeps string whitespace', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 5 }), (j) => {
        const b = enc.encode(JSON.stringify(JSON.parse(j), null, 2));
        expect([...compactJsonBytesNative(b)!]).toEqual([...compactJsonBytes(b)]);
      }),
      { numRuns: 300 },
    );
    const b = enc.encode('{ "a b" : "c\\" d" ,\n "e":[ 1 , 2 ] }');
    expect(new TextDecoder().decode(compactJsonBytesNative(b))).toBe('{"a b":"c\\" d","e":[1,2]}');
    const plain = enc.encode('{"a":1}');
    expect(compactJsonBytesNative(plain)).toBe(plain); // nothing to remove: the same array
  });
});
