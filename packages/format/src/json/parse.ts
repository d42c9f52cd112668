/**
 * Strict JSON parser (spec/format.md §2 "JSON text").
 *
 * Stricter than `JSON.parse` in exactly the ways the reference (serde_json + typed structs) is,
 * plus the hostile-input rules of ADVERSARIAL HB-08/HB-09:
 * - duplicate keys at any depth are refused with the key path (`E_DUPLICATE_KEY`); the reference
 *   hashes the first duplicate `content` but parses the last (FORMAT-FACTS §3.3), so such files
 *   are never accepted;
 * - `__proto__`, `constructor`, `prototype` keys are refused anywhere (`E_FORBIDDEN_KEY`);
 * - lone UTF-16 surrogates, raw or escaped, are refused (`E_INVALID_JSON`);
 * - a leading byte order mark and trailing non-whitespace data are refused (`E_INVALID_JSON`);
 * - nesting deeper than `MAX_JSON_DEPTH` is refused (`E_JSON_DEPTH`);
 * - integer literals outside ±(2^53−1) are refused unless numbers are returned raw
 *   (`E_UNSAFE_INTEGER`); number literals that overflow f64 are refused (`E_INVALID_JSON`).
 */
import { CtxpkgError, type ErrorCode } from '../errors.js';

/** Maximum nesting of objects/arrays (the root object counts as depth 1). */
export const MAX_JSON_DEPTH = 64;

/** Keys refused anywhere in a document (prototype pollution, HB-08). */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** A number kept with its exact source text (returned when `rawNumbers` is set). */
export class RawNumber {
  constructor(
    /** The literal exactly as written, e.g. `1.0`, `90`, `1e-6`. */
    readonly text: string,
    /** The nearest f64 (`Number(text)`). */
    readonly value: number,
  ) {}
  /** True when the literal has no fraction and no exponent (`90`, `-3`). */
  get isIntegerLiteral(): boolean {
    return !/[.eE]/.test(this.text);
  }
}

/** Parsed JSON values. With `rawNumbers`, numbers are `RawNumber` instead of `number`. */
export type JsonValue = null | boolean | number | string | RawNumber | JsonValue[] | { [key: string]: JsonValue };

export interface StrictJsonOptions {
  /** Nesting cap; default `MAX_JSON_DEPTH`. */
  maxDepth?: number;
  /** Return numbers as `RawNumber` (schema decoding needs the literal). Default false. */
  rawNumbers?: boolean;
}

/** A parsed document plus the character spans `[start, end)` of the root object's members. */
export interface ParsedDocument {
  value: JsonValue;
  /** Only for a root object: member key → span of its value text in the input string. */
  memberSpans: Map<string, { start: number; end: number }>;
}

const WS_SPACE = 0x20;
const WS_TAB = 0x09;
const WS_LF = 0x0a;
const WS_CR = 0x0d;
const STRING_RUN = /[^"\\\u0000-\u001f]*/y;
const NUMBER_RE = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function isWellFormed(text: string): boolean {
  const f = (text as unknown as { isWellFormed?: () => boolean }).isWellFormed;
  return typeof f === 'function' ? f.call(text) : !LONE_SURROGATE.test(text);
}

class Parser {
  pos = 0;
  depth = 0;
  readonly path: Array<string | number> = [];
  readonly spans = new Map<string, { start: number; end: number }>();

  constructor(
    readonly text: string,
    readonly maxDepth: number,
    readonly raw: boolean,
  ) {}

  fail(code: ErrorCode, message: string, at = this.pos): never {
    const before = this.text.slice(0, at);
    const line = before.split('\n').length;
    const column = at - before.lastIndexOf('\n');
    const path = formatPath(this.path);
    throw new CtxpkgError(code, `${message} at line ${line} column ${column}${path ? ` (${path})` : ''}`, {
      details: { offset: at, line, column, path },
    });
  }

  skipWs(): void {
    const t = this.text;
    let p = this.pos;
    for (;;) {
      const c = t.charCodeAt(p);
      if (c === WS_SPACE || c === WS_LF || c === WS_CR || c === WS_TAB) p++;
      else break;
    }
    this.pos = p;
  }

  parseDocument(): ParsedDocument {
    const t = this.text;
    if (t.charCodeAt(0) === 0xfeff) this.fail('E_INVALID_JSON', 'byte order mark (BOM) before the JSON text', 0);
    if (!isWellFormed(t)) {
      const m = LONE_SURROGATE.exec(t);
      this.fail('E_INVALID_JSON', 'lone UTF-16 surrogate in the text', m ? m.index : 0);
    }
    this.skipWs();
    const value = this.parseValue(true);
    this.skipWs();
    if (this.pos < t.length) this.fail('E_INVALID_JSON', 'trailing data after the JSON value');
    return { value, memberSpans: this.spans };
  }

  parseValue(root = false): JsonValue {
    const c = this.text.charCodeAt(this.pos);
    switch (c) {
      case 0x7b: // {
        return this.parseObject(root);
      case 0x5b: // [
        return this.parseArray();
      case 0x22: // "
        return this.parseString();
      case 0x74: // t
        return this.literal('true', true);
      case 0x66: // f
        return this.literal('false', false);
      case 0x6e: // n
        return this.literal('null', null);
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.parseNumber();
        if (Number.isNaN(c)) this.fail('E_INVALID_JSON', 'unexpected end of JSON text');
        return this.fail('E_INVALID_JSON', `unexpected character ${JSON.stringify(this.text[this.pos])}`);
    }
  }

  literal<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail('E_INVALID_JSON', 'invalid literal');
    this.pos += word.length;
    return value;
  }

  enter(): void {
    if (++this.depth > this.maxDepth) this.fail('E_JSON_DEPTH', `nesting deeper than ${this.maxDepth} levels`);
  }

  parseObject(root: boolean): { [key: string]: JsonValue } {
    this.enter();
    this.pos++;
    const obj: { [key: string]: JsonValue } = {};
    this.skipWs();
    if (this.text.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      this.depth--;
      return obj;
    }
    for (;;) {
      if (this.text.charCodeAt(this.pos) !== 0x22) this.fail('E_INVALID_JSON', 'expected a string key');
      const keyAt = this.pos;
      const key = this.parseString();
      if (FORBIDDEN_KEYS.has(key)) {
        this.path.push(key);
        this.fail('E_FORBIDDEN_KEY', `forbidden key ${JSON.stringify(key)}`, keyAt);
      }
      if (Object.prototype.hasOwnProperty.call(obj, key)) {
        this.path.push(key);
        this.fail('E_DUPLICATE_KEY', `duplicate key ${JSON.stringify(key)}`, keyAt);
      }
      this.skipWs();
      if (this.text.charCodeAt(this.pos) !== 0x3a) this.fail('E_INVALID_JSON', "expected ':' after a key");
      this.pos++;
      this.skipWs();
      this.path.push(key);
      const start = this.pos;
      obj[key] = this.parseValue();
      if (root) this.spans.set(key, { start, end: this.pos });
      this.path.pop();
      if (this.closes(0x7d, "expected ',' or '}' in an object")) return obj;
    }
  }

  parseArray(): JsonValue[] {
    this.enter();
    this.pos++;
    const arr: JsonValue[] = [];
    this.skipWs();
    if (this.text.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      this.depth--;
      return arr;
    }
    for (let i = 0; ; i++) {
      this.path.push(i);
      arr.push(this.parseValue());
      this.path.pop();
      if (this.closes(0x5d, "expected ',' or ']' in an array")) return arr;
    }
  }

  /**
   * After a member or element: skip whitespace, then consume `,` (returns false: another
   * follows) or the closing `close` character (returns true: the container ends, depth restored);
   * anything else fails with `E_INVALID_JSON` and `message`.
   */
  closes(close: number, message: string): boolean {
    this.skipWs();
    const c = this.text.charCodeAt(this.pos);
    if (c === 0x2c) {
      this.pos++;
      this.skipWs();
      return false;
    }
    if (c === close) {
      this.pos++;
      this.depth--;
      return true;
    }
    return this.fail('E_INVALID_JSON', message);
  }

  parseString(): string {
    const t = this.text;
    let p = this.pos + 1;
    let out = '';
    for (;;) {
      STRING_RUN.lastIndex = p;
      STRING_RUN.test(t);
      const runEnd = STRING_RUN.lastIndex;
      const c = t.charCodeAt(runEnd);
      if (c === 0x22) {
        out = out === '' ? t.slice(p, runEnd) : out + t.slice(p, runEnd);
        this.pos = runEnd + 1;
        return out;
      }
      out += t.slice(p, runEnd);
      if (c === 0x5c) {
        p = this.escape(runEnd, (s) => (out += s));
        continue;
      }
      if (Number.isNaN(c)) this.fail('E_INVALID_JSON', 'unterminated string', this.pos);
      this.fail('E_INVALID_JSON', `unescaped control character U+${c.toString(16).padStart(4, '0')} in a string`, runEnd);
    }
  }

  /** Decode the escape at `at` (a backslash); returns the position after it. */
  escape(at: number, emit: (s: string) => void): number {
    const t = this.text;
    const e = t.charCodeAt(at + 1);
    switch (e) {
      case 0x22: emit('"'); return at + 2;
      case 0x5c: emit('\\'); return at + 2;
      case 0x2f: emit('/'); return at + 2;
      case 0x62: emit('\b'); return at + 2;
      case 0x66: emit('\f'); return at + 2;
      case 0x6e: emit('\n'); return at + 2;
      case 0x72: emit('\r'); return at + 2;
      case 0x74: emit('\t'); return at + 2;
      case 0x75: {
        const u = this.hex4(at + 2, at);
        if (u >= 0xd800 && u <= 0xdbff) {
          if (t.charCodeAt(at + 6) === 0x5c && t.charCodeAt(at + 7) === 0x75) {
            const lo = this.hex4(at + 8, at + 6);
            if (lo >= 0xdc00 && lo <= 0xdfff) {
              emit(String.fromCharCode(u, lo));
              return at + 12;
            }
          }
          this.fail('E_INVALID_JSON', 'lone UTF-16 surrogate escape (high surrogate without a low one)', at);
        }
        if (u >= 0xdc00 && u <= 0xdfff) this.fail('E_INVALID_JSON', 'lone UTF-16 surrogate escape (low surrogate)', at);
        emit(String.fromCharCode(u));
        return at + 6;
      }
      default:
        return this.fail('E_INVALID_JSON', 'invalid escape sequence', at);
    }
  }

  hex4(p: number, errAt: number): number {
    const s = this.text.slice(p, p + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(s)) this.fail('E_INVALID_JSON', 'invalid \\u escape', errAt);
    return parseInt(s, 16);
  }

  parseNumber(): number | RawNumber {
    NUMBER_RE.lastIndex = this.pos;
    const m = NUMBER_RE.exec(this.text);
    if (!m) return this.fail('E_INVALID_JSON', 'invalid number');
    const text = m[0];
    const value = Number(text);
    if (!Number.isFinite(value)) this.fail('E_INVALID_JSON', `number out of range: ${text}`);
    const at = this.pos;
    this.pos += text.length;
    if (this.raw) return new RawNumber(text, value);
    if (!Number.isSafeInteger(value) && !/[.eE]/.test(text)) {
      this.fail('E_UNSAFE_INTEGER', `integer ${text} is outside the safe range ±(2^53-1)`, at);
    }
    return value;
  }
}

/** `manifest.dependencies[0].name`-style path for messages and issue paths. */
export function formatPath(path: ReadonlyArray<string | number>): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(p)) out += out === '' ? p : `.${p}`;
    else out += `[${JSON.stringify(p)}]`;
  }
  return out;
}

/**
 * Parse `text` strictly (rules in the module comment). Returns plain objects/arrays; never
 * mutates prototypes. Throws `CtxpkgError` with code `E_INVALID_JSON`, `E_DUPLICATE_KEY`,
 * `E_FORBIDDEN_KEY`, `E_JSON_DEPTH` or `E_UNSAFE_INTEGER`, and `details` `{ offset, line, column,
 * path }` (offset in UTF-16 code units).
 */
export function parseStrictJson(text: string, opts: StrictJsonOptions = {}): JsonValue {
  return parseJsonDocument(text, opts).value;
}

/** Like `parseStrictJson`, also returning the spans of the root object's member values. */
export function parseJsonDocument(text: string, opts: StrictJsonOptions = {}): ParsedDocument {
  return new Parser(text, opts.maxDepth ?? MAX_JSON_DEPTH, opts.rawNumbers ?? false).parseDocument();
}

/** Re-exported here for existing importers; defined in `utf8.ts`. */
export { decodeUtf8Strict } from './utf8.js';
