/**
 * `parseLargeJsonObject` (the merged.json reader of render, sync and mcp) gives what
 * `parseJsonObject` gives — the same value or the same error code — on the fast path and off it.
 */
import { describe, expect, it } from 'vitest';
import { parseJsonObject, parseLargeJsonObject } from './jsonfile.js';

const code = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
};

describe('parseLargeJsonObject', () => {
  const cases: Array<[string, string]> = [
    ['plain graph', JSON.stringify({ format: 'ctxpkg-merged-v1', nodes: [{ id: 'a#b', content: 'räksmörgås 日本語 "q"' }], edges: [] }, null, 2)],
    ['escaped control character in a value', '{"a":"x\\u001by"}'],
    ['"__proto__" key', '{"nodes":[{"__proto__":{"polluted":true}}]}'],
    ['"constructor" key', '{"a":{"constructor":{"prototype":{}}}}'],
    ['"prototype" key', '{"prototype":1}'],
    ['escaped "\\u005f_proto__" key', '{"\\u005f_proto__":{"polluted":true}}'],
    ['escaped "c\\u006fnstructor" key', '{"x":[{"c\\u006fnstructor":1}]}'],
    ['forbidden word as a value only', '{"a":"__proto__","b":"constructor"}'],
    ['duplicate key (last wins, as JSON.parse)', '{"a":1,"a":2}'],
    ['BOM', '\ufeff{"a":1}'],
    ['syntax error', '{"a":'],
    ['array root', '[1,2]'],
    ['string root', '"x"'],
    ['null root', 'null'],
  ];
  it.each(cases)('%s: same value or error code as parseJsonObject', (_name, text) => {
    const slow = code(() => parseJsonObject(text, 'merged.json'));
    const fast = code(() => parseLargeJsonObject(text, 'merged.json'));
    expect(fast).toBe(slow);
    if (slow === undefined) expect(parseLargeJsonObject(text, 'merged.json')).toEqual(parseJsonObject(text, 'merged.json'));
  });

  it('refuses a forbidden key plain or escaped, and reads the rest', () => {
    expect(code(() => parseLargeJsonObject('{"nodes":[{"__proto__":{}}]}', 'm'))).toBe('E_FORBIDDEN_KEY');
    expect(code(() => parseLargeJsonObject('{"\\u005f_proto__":{}}', 'm'))).toBe('E_FORBIDDEN_KEY');
    expect(code(() => parseLargeJsonObject('[]', 'm'))).toBe('E_INVALID_JSON');
    expect(parseLargeJsonObject('{"a":"constructor"}', 'm')).toEqual({ a: 'constructor' });
  });
});
