/**
 * Fast path of the strict parser over UTF-8 bytes, for large JSON bundles: one validating pass
 * that also compacts — whitespace outside strings is dropped as the bytes are copied — then
 * native `JSON.parse` runs on the compacted text, made ASCII by writing each non-ASCII character
 * as its escape (`asciiEscaped`). A 10 MiB package
 * written pretty (2-space indent) is about 40 % whitespace, so decoding and parsing the compact
 * text costs less than the pretty one, and the compacted content member is exactly what
 * `content_hash` covers (`compactJsonBytes`, FORMAT-FACTS §3.2): it is hashed as it is, with no
 * second pass over the content.
 *
 * Same contract as `fastParseDocument` (fast.ts): the pass never reports an error itself; it
 * answers `undefined` for anything the strict parser (`parse.ts`) would refuse, or anything it
 * does not handle, and the caller takes the slower path, which gives the precise error. Checked
 * here: no BOM, no byte ≥ 0x80 or other stray character outside strings, valid `\u` escapes
 * without lone surrogates, no escape inside a key, unique keys per object (compared as bytes),
 * no forbidden key, nesting ≤ `MAX_JSON_DEPTH`, no decimal exponent beyond ±300, no fraction or
 * exponent in the direct value of a key listed in `integerKeys`, valid UTF-8 without U+FFFD (a
 * text with U+FFFD goes to the strict decoder). `JSON.parse` enforces the rest of the grammar.
 *
 * Why dropping whitespace cannot turn a bad text into a good one: outside strings only the JSON
 * structural characters, whitespace and the characters of numbers and literals (`0-9 A-Z a-z + - .`)
 * are accepted, so the text splits into the same tokens with or without its whitespace; the one
 * way removal could join two tokens — two number/literal tokens with only whitespace between,
 * `[1 2]` → `[12]`, `tr ue` → `true` — is refused. Inside strings nothing is removed, so every
 * string, its escapes and its UTF-8 stay as they were.
 */
import { FORBIDDEN_KEYS, MAX_JSON_DEPTH, type JsonValue } from './parse.js';
import { decodeUtf8Lenient } from './utf8.js';
import { nodeBuiltin } from '../builtin.js';

/** Result of `fastParseBytes`. Spans are byte offsets, `[start, end)`. */
export interface CompactParsedBytes {
  value: JsonValue;
  /** The whole document with whitespace outside strings removed (UTF-8). */
  compact: Uint8Array;
  /** Only for a root object: member key → span of its value in `compact`. */
  compactSpans: Map<string, { start: number; end: number }>;
  /** Only for a root object: member key → span of its value in the input bytes. */
  inputSpans: Map<string, { start: number; end: number }>;
}

const ENCODER = new TextEncoder();
const FORBIDDEN = [...FORBIDDEN_KEYS].map((k) => ENCODER.encode(k));

/**
 * Byte classes outside strings: 1 whitespace, 2 structural (`{ } [ ] , :`), 3 quote, 4 number
 * or literal character (`0-9 A-Z a-z + - .`), 0 anything else (refused).
 */
const CLASS = (() => {
  const t = new Uint8Array(256);
  for (const c of ' \t\n\r') t[c.charCodeAt(0)] = 1;
  for (const c of '{}[],:') t[c.charCodeAt(0)] = 2;
  t[0x22] = 3;
  for (let c = 0x30; c <= 0x39; c++) t[c] = 4;
  for (let c = 0x41; c <= 0x5a; c++) t[c] = 4;
  for (let c = 0x61; c <= 0x7a; c++) t[c] = 4;
  t[0x2b] = 4;
  t[0x2d] = 4;
  t[0x2e] = 4;
  return t;
})();

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

/** The code unit of the four hex digits at `b[i, i+4)`, or -1. */
function hex4(b: Uint8Array, i: number, end: number): number {
  if (i + 4 > end) return -1;
  let u = 0;
  for (let k = 0; k < 4; k++) {
    const d = hexDigit(b[i + k]!);
    if (d < 0) return -1;
    u = (u << 4) | d;
  }
  return u;
}

/** True when the `\u` escapes in the string body `b[start, end)` are valid and pair surrogates. */
function escapesOk(b: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    if (b[i] !== 0x5c) continue;
    if (b[i + 1] !== 0x75) {
      i++;
      continue;
    }
    const u = hex4(b, i + 2, end);
    if (u < 0 || (u >= 0xdc00 && u <= 0xdfff)) return false;
    if (u >= 0xd800 && u <= 0xdbff) {
      if (b[i + 6] !== 0x5c || b[i + 7] !== 0x75) return false;
      const lo = hex4(b, i + 8, end);
      if (lo < 0xdc00 || lo > 0xdfff) return false;
      i += 11;
    } else i += 5;
  }
  return true;
}

/** True when `b[start, end)` equals `key`. */
function bytesEqual(b: Uint8Array, start: number, end: number, key: Uint8Array): boolean {
  if (end - start !== key.length) return false;
  for (let j = 0; j < key.length; j++) if (b[start + j] !== key[j]) return false;
  return true;
}

/**
 * The keys of one open object as byte offsets: compared byte by byte; for objects with many keys a
 * set of decoded key strings (distinct valid UTF-8 decodes to distinct strings; invalid UTF-8
 * could only collide into a false duplicate, which sends the text to the strict parser).
 */
class ByteKeySet {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** Keys held (the arrays are reused across objects, never truncated). */
  private count = 0;
  private set: Set<string> | undefined;

  reset(): void {
    this.count = 0;
    this.set = undefined;
  }

  /** Add the key `b[start, end)`; false when it was already there. */
  add(b: Uint8Array, start: number, end: number): boolean {
    if (this.set) {
      const key = decodeUtf8Lenient(b.subarray(start, end));
      if (this.set.has(key)) return false;
      this.set.add(key);
      return true;
    }
    const len = end - start;
    const { starts, ends, count } = this;
    for (let k = 0; k < count; k++) {
      const s = starts[k]!;
      if (ends[k]! - s !== len) continue;
      let same = true;
      for (let j = 0; j < len; j++) {
        if (b[s + j] !== b[start + j]) {
          same = false;
          break;
        }
      }
      if (same) return false;
    }
    starts[count] = start;
    ends[count] = end;
    this.count = count + 1;
    if (count + 1 >= 32) {
      const set = new Set<string>();
      for (let k = 0; k <= count; k++) set.add(decodeUtf8Lenient(b.subarray(starts[k]!, ends[k])));
      this.set = set;
    }
    return true;
  }
}

const HEX_DIGITS = '0123456789abcdef';

/** Write `\uXXXX` (lowercase hex) for the code unit `u` at `dst[p]`; returns the next offset. */
function putEscape(dst: Uint8Array, p: number, u: number): number {
  dst[p] = 0x5c;
  dst[p + 1] = 0x75;
  dst[p + 2] = HEX_DIGITS.charCodeAt(u >>> 12);
  dst[p + 3] = HEX_DIGITS.charCodeAt((u >>> 8) & 15);
  dst[p + 4] = HEX_DIGITS.charCodeAt((u >>> 4) & 15);
  dst[p + 5] = HEX_DIGITS.charCodeAt(u & 15);
  return p + 6;
}

/**
 * The compacted text `b` with every non-ASCII character written as its JSON escape (`\uXXXX`,
 * a surrogate pair above U+FFFF), so the text handed to `JSON.parse` is ASCII: the runtime
 * makes a one-byte string of it by copying, instead of decoding UTF-8 into a two-byte string for
 * the whole document as soon as one character is not Latin-1 (measured on the bench package,
 * 6 MB with 19k non-ASCII characters: decode + parse 70 → 28 ms). The values `JSON.parse`
 * gives are the same: bytes ≥ 0x80 occur only inside strings (the scan refuses them elsewhere),
 * and a string's escape denotes the character it replaces. `b` itself when it is ASCII.
 *
 * The UTF-8 is validated here (RFC 3629 §3–4: no overlong form, no surrogate, nothing above
 * U+10FFFF, no truncated sequence); invalid UTF-8 — and U+FFFD, which the strict decoder must
 * tell apart from a replaced sequence — answer `undefined` (the slower path decides).
 */
function asciiEscaped(b: Uint8Array): Uint8Array | undefined {
  const m = b.length;
  let k = 0;
  while (k < m && b[k]! < 0x80) k++;
  if (k === m) return b;
  let dst = new Uint8Array(m + (m >> 4) + 64);
  let p = 0;
  let run = 0;
  while (k < m) {
    // Copy the ASCII run [run, k), then escape the character at k.
    if (p + (k - run) + 12 > dst.length) {
      const grown = new Uint8Array(Math.max(dst.length * 2, p + (k - run) + 12));
      grown.set(dst.subarray(0, p));
      dst = grown;
    }
    dst.set(b.subarray(run, k), p);
    p += k - run;
    const c = b[k]!;
    let cp: number;
    let len: number;
    if (c >= 0xc2 && c <= 0xdf) {
      len = 2;
      cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3;
      cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4;
      cp = c & 0x07;
    } else return undefined;
    if (k + len > m) return undefined;
    for (let j = 1; j < len; j++) {
      const t = b[k + j]!;
      if ((t & 0xc0) !== 0x80) return undefined;
      cp = (cp << 6) | (t & 0x3f);
    }
    // Overlong forms, surrogates, above U+10FFFF; U+FFFD to the strict decoder.
    if ((len === 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (len === 4 && (cp < 0x10000 || cp > 0x10ffff)) || cp === 0xfffd) return undefined;
    if (cp < 0x10000) p = putEscape(dst, p, cp);
    else {
      const v = cp - 0x10000;
      p = putEscape(dst, p, 0xd800 | (v >>> 10));
      p = putEscape(dst, p, 0xdc00 | (v & 0x3ff));
    }
    k += len;
    run = k;
    while (k < m && b[k]! < 0x80) k++;
  }
  if (p + (k - run) > dst.length) {
    const grown = new Uint8Array(p + (k - run));
    grown.set(dst.subarray(0, p));
    dst = grown;
  }
  dst.set(b.subarray(run, k), p);
  p += k - run;
  return dst.subarray(0, p);
}

type AsciiBuffer = { from(b: ArrayBufferLike, off: number, len: number): { toString(encoding: string): string } };

/**
 * ASCII bytes to a string: the runtime's Latin-1 copy (`Buffer#toString('latin1')`, by feature
 * probe as in `utf8.ts`) where it exists, else the lenient UTF-8 decoder (ASCII decodes the same).
 */
const decodeAscii: (bytes: Uint8Array) => string = (() => {
  try {
    const Buffer = nodeBuiltin<{ Buffer: AsciiBuffer }>('node:buffer')?.Buffer;
    if (Buffer && typeof Buffer.from === 'function') {
      return (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    }
  } catch {
    /* fall through */
  }
  return decodeUtf8Lenient;
})();

/**
 * Validate and compact the UTF-8 JSON text `bytes`, then parse it with `JSON.parse` (see the
 * module comment). `integerKeys`: keys whose direct number values must be integer literals
 * (ASCII). Returns the value with plain JS numbers, the compacted bytes and the root member
 * spans, or `undefined` to request the slower path. Linear in `bytes.length`; allocates one
 * buffer of that size.
 */
export function fastParseBytes(bytes: Uint8Array, integerKeys: ReadonlySet<string> = new Set()): CompactParsedBytes | undefined {
  const n = bytes.length;
  if (n === 0 || (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)) return undefined;
  const intKeys = [...integerKeys].map((k) => ENCODER.encode(k));
  const out = new Uint8Array(n);
  const compactSpans = new Map<string, { start: number; end: number }>();
  const inputSpans = new Map<string, { start: number; end: number }>();
  const stack: Array<ByteKeySet | null> = [];
  const pool: ByteKeySet[] = [];
  let o = 0;
  let lastKeyStart = 0;
  let lastKeyEnd = 0;
  let afterColon = false;
  /** The last token was a number or literal (a second one may not follow after whitespace only). */
  let prevScalar = false;
  let rootKey: string | undefined;
  let rootStart = -1;
  let rootInStart = -1;
  let i = 0;
  // The last quote bounds every string: a string that starts at or after it, or whose escape
  // steps past it, is unterminated; so the copy loop needs no end check of its own.
  const lastQuote = bytes.lastIndexOf(0x22);
  while (i < n) {
    const c = bytes[i]!;
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      // Whitespace; the indentation after a line end in one tight loop.
      i++;
      while (bytes[i] === 0x20) i++;
      continue;
    }
    if (c === 0x2c) {
      out[o++] = c;
      prevScalar = false;
      i++;
      continue;
    }
    const depth = stack.length;
    if (depth === 1 && afterColon && rootKey !== undefined && rootStart < 0) {
      rootStart = o;
      rootInStart = i;
    }
    if (c === 0x22) {
      // A string: copied as it is up to its closing quote, stepping over each escape's next byte.
      if (i >= lastQuote) return undefined;
      const start = i;
      out[o++] = c;
      let j = i + 1;
      let escaped = false;
      let d: number;
      while ((d = bytes[j++]!) !== 0x22) {
        out[o++] = d;
        if (d === 0x5c) {
          escaped = true;
          out[o++] = bytes[j++]!;
          if (j > lastQuote) return undefined;
        }
      }
      out[o++] = 0x22;
      if (escaped && !escapesOk(bytes, start + 1, j - 1)) return undefined;
      const top = depth > 0 ? stack[depth - 1] : null;
      if (top && !afterColon) {
        // Escaped keys (rare) go to the strict parser, which decodes before comparing.
        if (escaped) return undefined;
        const ks = start + 1;
        const ke = j - 1;
        const len = ke - ks;
        if (len === 9 || len === 11) for (const f of FORBIDDEN) if (bytesEqual(bytes, ks, ke, f)) return undefined;
        if (!top.add(bytes, ks, ke)) return undefined;
        lastKeyStart = ks;
        lastKeyEnd = ke;
        if (depth === 1) {
          rootKey = decodeUtf8Lenient(bytes.subarray(ks, ke));
          rootStart = -1;
        }
      } else if (depth === 1 && afterColon) {
        compactSpans.set(rootKey!, { start: rootStart, end: o });
        inputSpans.set(rootKey!, { start: rootInStart, end: j });
      }
      afterColon = false;
      prevScalar = false;
      i = j;
      continue;
    }
    const cls = CLASS[c]!;
    if (cls === 2) {
      out[o++] = c;
      prevScalar = false;
      i++;
      if (c === 0x3a) {
        afterColon = true;
        continue;
      }
      if (c === 0x7b || c === 0x5b) {
        if (depth >= MAX_JSON_DEPTH) return undefined;
        if (c === 0x7b) {
          const keys = pool[depth] ?? (pool[depth] = new ByteKeySet());
          keys.reset();
          stack.push(keys);
        } else stack.push(null);
      } else {
        if (depth === 0) return undefined;
        stack.pop();
        if (depth === 2 && rootKey !== undefined && rootStart >= 0) {
          compactSpans.set(rootKey, { start: rootStart, end: o });
          inputSpans.set(rootKey, { start: rootInStart, end: i });
        }
      }
      afterColon = false;
      continue;
    }
    if (cls !== 4 || prevScalar) return undefined;
    // A number or literal: up to the next delimiter.
    const start = i;
    let fraction = false;
    let expAt = -1;
    while (i < n) {
      const d = bytes[i]!;
      const k = CLASS[d]!;
      if (k !== 4) {
        if (k === 0) return undefined;
        break;
      }
      if (d === 0x2e) fraction = true;
      else if (d === 0x65 || d === 0x45) expAt = i;
      out[o++] = d;
      i++;
    }
    const first = bytes[start]!;
    if (first === 0x2d || (first >= 0x30 && first <= 0x39)) {
      if (expAt >= 0) {
        let e = 0;
        for (let k = expAt + 1; k < i; k++) {
          const d = bytes[k]! - 0x30;
          if (d >= 0 && d <= 9) e = Math.min(e * 10 + d, 100_000);
        }
        if (e > 300) return undefined;
      }
      if ((fraction || expAt >= 0) && afterColon) {
        for (const key of intKeys) if (bytesEqual(bytes, lastKeyStart, lastKeyEnd, key)) return undefined;
      }
    }
    if (depth === 1 && afterColon) {
      compactSpans.set(rootKey!, { start: rootStart, end: o });
      inputSpans.set(rootKey!, { start: rootInStart, end: i });
    }
    afterColon = false;
    prevScalar = true;
  }
  if (stack.length !== 0) return undefined;
  const compact = out.subarray(0, o);
  const ascii = asciiEscaped(compact);
  if (ascii === undefined) return undefined;
  const text = decodeAscii(ascii);
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
  return { value, compact, compactSpans, inputSpans };
}
