import { describe, expect, it } from 'vitest';
import { CtxpkgError } from '../errors.js';
import { formatPath, MAX_JSON_DEPTH, parseJsonDocument, parseStrictJson, RawNumber } from './parse.js';
import { decodeUtf8Strict } from './utf8.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof CtxpkgError ? e.code : `not a CtxpkgError: ${String(e)}`;
  }
  return undefined;
}

function errOf(fn: () => unknown): CtxpkgError {
  try {
    fn();
  } catch (e) {
    if (e instanceof CtxpkgError) return e;
    throw e;
  }
  throw new Error('expected a throw');
}

describe('parseStrictJson: accepts valid JSON like JSON.parse', () => {
  const cases = [
    '{}', '[]', '0', '-0', '1.5e3', 'true', 'false', 'null', '"x"',
    '{"a":[1,2,{"b":null}],"c":"\\u00e9\\n\\"q\\"","d":-1.25E-2}',
    ' \t\r\n{ "a" : 1 } \n',
    '"\\ud83d\\ude00"',
    '"é 日本 😀"',
  ];
  for (const text of cases) {
    it(JSON.stringify(text), () => {
      expect(parseStrictJson(text)).toEqual(JSON.parse(text));
    });
  }

  it('keeps number literals with rawNumbers', () => {
    const v = parseStrictJson('{"a":1.0,"b":90,"c":1e-6}', { rawNumbers: true }) as Record<string, RawNumber>;
    expect(v.a).toBeInstanceOf(RawNumber);
    expect(v.a!.text).toBe('1.0');
    expect(v.a!.isIntegerLiteral).toBe(false);
    expect(v.b!.isIntegerLiteral).toBe(true);
    expect(v.c!.value).toBe(1e-6);
  });

  it('reports the spans of top-level members', () => {
    const text = '{ "manifest" : {"a": 1} , "content":\n [ 1 ,2 ] }';
    const doc = parseJsonDocument(text);
    const m = doc.memberSpans.get('manifest')!;
    const c = doc.memberSpans.get('content')!;
    expect(text.slice(m.start, m.end)).toBe('{"a": 1}');
    expect(text.slice(c.start, c.end)).toBe('[ 1 ,2 ]');
  });
});

describe('parseStrictJson: refusals', () => {
  it('refuses duplicate keys at any depth, with the key path', () => {
    expect(codeOf(() => parseStrictJson('{"a":1,"a":2}'))).toBe('E_DUPLICATE_KEY');
    const e = errOf(() => parseStrictJson('{"manifest":{"deps":[{"name":"x","name":"y"}]}}'));
    expect(e.code).toBe('E_DUPLICATE_KEY');
    expect(e.details?.path).toBe('manifest.deps[0].name');
    expect(e.message).toContain('manifest.deps[0].name');
  });

  it('treats escaped spellings of the same key as duplicates', () => {
    expect(codeOf(() => parseStrictJson('{"content":{},"\\u0063ontent":{}}'))).toBe('E_DUPLICATE_KEY');
  });

  it('refuses __proto__, constructor and prototype keys anywhere (HB-08) without polluting', () => {
    for (const text of [
      '{"__proto__":{"polluted":true}}',
      '{"manifest":{"constructor":{"prototype":{"polluted":true}}}}',
      '{"a":[{"prototype":1}]}',
      '{"\\u005f_proto__":{"polluted":true}}',
    ]) {
      expect(codeOf(() => parseStrictJson(text))).toBe('E_FORBIDDEN_KEY');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });

  it('allows the forbidden words as string values', () => {
    expect(parseStrictJson('{"k":"__proto__"}')).toEqual({ k: '__proto__' });
  });

  it('refuses lone surrogates, escaped or raw (HB-09), and accepts a valid pair', () => {
    expect(codeOf(() => parseStrictJson('"x\\ud800y"'))).toBe('E_INVALID_JSON');
    expect(codeOf(() => parseStrictJson('"x\\udc00y"'))).toBe('E_INVALID_JSON');
    expect(codeOf(() => parseStrictJson('{"\\ud800":1}'))).toBe('E_INVALID_JSON');
    expect(codeOf(() => parseStrictJson('"\\ud800\\u0041"'))).toBe('E_INVALID_JSON');
    expect(codeOf(() => parseStrictJson('"x\ud800y"'))).toBe('E_INVALID_JSON');
    expect(parseStrictJson('"\\ud83d\\ude00"')).toBe('😀');
  });

  it('refuses a BOM and trailing data', () => {
    expect(codeOf(() => parseStrictJson('\ufeff{}'))).toBe('E_INVALID_JSON');
    expect(codeOf(() => parseStrictJson('{} x'))).toBe('E_INVALID_JSON');
    expect(codeOf(() => parseStrictJson('{}{}'))).toBe('E_INVALID_JSON');
  });

  it('refuses nesting deeper than the cap, and accepts exactly the cap', () => {
    const ok = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
    expect(() => parseStrictJson(ok)).not.toThrow();
    const deep = '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1);
    expect(codeOf(() => parseStrictJson(deep))).toBe('E_JSON_DEPTH');
    expect(codeOf(() => parseStrictJson('{"a":'.repeat(100000)))).toBe('E_JSON_DEPTH');
  });

  it('refuses unsafe integer literals unless numbers are raw', () => {
    expect(codeOf(() => parseStrictJson('{"n":9007199254740992}'))).toBe('E_UNSAFE_INTEGER');
    expect(parseStrictJson('{"n":9007199254740991}')).toEqual({ n: 9007199254740991 });
    expect(parseStrictJson('1e300')).toBe(1e300);
    expect((parseStrictJson('9007199254740993', { rawNumbers: true }) as RawNumber).text).toBe('9007199254740993');
  });

  it('refuses numbers that overflow f64', () => {
    expect(codeOf(() => parseStrictJson('1e400'))).toBe('E_INVALID_JSON');
  });

  it('refuses everything JSON.parse refuses', () => {
    for (const bad of ['', ' ', '{', '[1,]', '{"a":1,}', "{'a':1}", '01', '1.', '.5', '+1', 'NaN', 'tru', '"a\tb"', '"\\x"', '"\\u12"', '{"a" 1}', '[1 2]', '"unterminated']) {
      expect(() => JSON.parse(bad)).toThrow();
      expect(codeOf(() => parseStrictJson(bad))).toBe('E_INVALID_JSON');
    }
  });

  it('gives line and column of the problem', () => {
    const e = errOf(() => parseStrictJson('{\n  "a": 1,\n  "a": 2\n}'));
    expect(e.details).toMatchObject({ line: 3, column: 3, path: 'a' });
  });
});

describe('decodeUtf8Strict', () => {
  it('refuses invalid UTF-8 and keeps a BOM for the parser to refuse', () => {
    expect(codeOf(() => decodeUtf8Strict(new Uint8Array([0x7b, 0xff, 0x7d])))).toBe('E_INVALID_JSON');
    expect(codeOf(() => decodeUtf8Strict(new Uint8Array([0xed, 0xa0, 0x80])))).toBe('E_INVALID_JSON'); // CESU surrogate
    const text = decodeUtf8Strict(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]));
    expect(text.charCodeAt(0)).toBe(0xfeff);
    expect(codeOf(() => parseStrictJson(text))).toBe('E_INVALID_JSON');
  });
});

describe('formatPath', () => {
  it('renders keys and indices', () => {
    expect(formatPath(['manifest', 'dependencies', 0, 'name'])).toBe('manifest.dependencies[0].name');
    expect(formatPath(['a b', 1])).toBe('["a b"][1]');
  });
});
