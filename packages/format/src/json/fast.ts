/**
 * Fast path of the strict parser for large documents: a validating scan over the text that
 * enforces the strict rules (spec/format.md §2), then the runtime's native `JSON.parse` builds
 * the values. The scan never reports an error itself: whenever it sees anything the strict
 * parser would refuse — or anything it does not handle — it answers `undefined`, and the caller
 * runs the strict parser (`parse.ts`), which gives the precise error. So the fast path accepts a
 * text only when the strict parser in `rawNumbers` mode accepts it too, with the same values
 * (property-tested); as in that mode, unsafe integers are left to the schema layer.
 *
 * Checked in the scan: no BOM, no raw lone surrogate (`isWellFormed`; skipped for text decoded
 * from valid UTF-8, which cannot contain one), valid escapes without
 * lone surrogates, no escape inside a key (left to the strict parser), unique keys per object
 * (compared in place, without creating strings), no forbidden key, nesting ≤ the cap, no number with
 * a decimal exponent beyond ±300 (overflow), and — since `JSON.parse` loses the literal — no
 * fraction or exponent in a number that is the direct value of a key listed in `integerKeys`.
 * `JSON.parse` enforces the rest of the grammar; any `SyntaxError` also means "take the slow path".
 */
import { FORBIDDEN_KEYS, MAX_JSON_DEPTH, type JsonValue, type ParsedDocument } from './parse.js';

function wellFormed(text: string): boolean {
  const f = (text as unknown as { isWellFormed?: () => boolean }).isWellFormed;
  return typeof f === 'function' ? f.call(text) : !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

const HEX4 = /^[0-9a-fA-F]{4}$/;

/** True when the escapes in `text[start, end)` (a string body) are valid and pair surrogates. */
function escapesOk(text: string, start: number, end: number): boolean {
  for (let i = text.indexOf('\\', start); i >= 0 && i < end; i = text.indexOf('\\', i)) {
    const e = text.charCodeAt(i + 1);
    if (e !== 0x75) {
      i += 2;
      continue;
    }
    const h = text.slice(i + 2, i + 6);
    if (!HEX4.test(h)) return false;
    const u = parseInt(h, 16);
    if (u >= 0xdc00 && u <= 0xdfff) return false;
    if (u >= 0xd800 && u <= 0xdbff) {
      if (text.charCodeAt(i + 6) !== 0x5c || text.charCodeAt(i + 7) !== 0x75) return false;
      const l = text.slice(i + 8, i + 12);
      if (!HEX4.test(l)) return false;
      const lo = parseInt(l, 16);
      if (lo < 0xdc00 || lo > 0xdfff) return false;
      i += 12;
    } else i += 6;
  }
  return true;
}

/**
 * The keys of one open object as offsets into the text (no strings are created): keys are
 * compared character by character; a set of key strings is built only for objects with many keys.
 */
class KeySet {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private set: Set<string> | undefined;

  reset(): void {
    this.starts.length = 0;
    this.ends.length = 0;
    this.set = undefined;
  }

  /** Add the key `text[start, end)`; false when it was already there. */
  add(text: string, start: number, end: number): boolean {
    if (this.set) {
      const key = text.slice(start, end);
      if (this.set.has(key)) return false;
      this.set.add(key);
      return true;
    }
    const len = end - start;
    const { starts, ends } = this;
    for (let k = 0; k < starts.length; k++) {
      const s = starts[k]!;
      if (ends[k]! - s !== len) continue;
      let same = true;
      for (let j = 0; j < len; j++) {
        if (text.charCodeAt(s + j) !== text.charCodeAt(start + j)) {
          same = false;
          break;
        }
      }
      if (same) return false;
    }
    starts.push(start);
    ends.push(end);
    if (starts.length >= 32) this.set = new Set(starts.map((s, k) => text.slice(s, ends[k])));
    return true;
  }
}

/** True when `text[start, end)` equals one of the forbidden keys. */
function isForbidden(text: string, start: number, end: number): boolean {
  const len = end - start;
  if (len !== 9 && len !== 11) return false;
  for (const k of FORBIDDEN_KEYS) if (k.length === len && text.startsWith(k, start)) return true;
  return false;
}

/** Set by `stringEnd`: whether the last string scanned contains a backslash. */
let sawBackslash = false;

/**
 * End (index after the closing quote) of the string starting at `start`, or -1. One forward pass
 * that steps over each escape's next character (so `\"` does not end the string) and records in
 * `sawBackslash` whether there was any escape. A plain loop beats `indexOf`'s per-call cost on
 * the short strings that make up most of a package.
 */
function stringEnd(text: string, start: number, n: number): number {
  let j = start + 1;
  let escaped = false;
  while (j < n) {
    const d = text.charCodeAt(j);
    if (d === 0x22) {
      sawBackslash = escaped;
      return j + 1;
    }
    if (d === 0x5c) {
      escaped = true;
      j += 2;
    } else j++;
  }
  return -1;
}

/** True when `text[start, end)` is one of `keys` (compared in place, no string created). */
function isOneOf(keys: readonly string[], text: string, start: number, end: number): boolean {
  const len = end - start;
  for (let k = 0; k < keys.length; k++) if (keys[k]!.length === len && text.startsWith(keys[k]!, start)) return true;
  return false;
}

/**
 * Scan `text` and parse it with `JSON.parse` (see module comment). Returns the document with
 * plain JS numbers and the root member spans, or `undefined` to request the strict parser.
 */
export function fastParseDocument(
  text: string,
  integerKeys: ReadonlySet<string> = new Set(),
  opts: { fromUtf8?: boolean } = {},
): ParsedDocument | undefined {
  const n = text.length;
  // Text decoded from valid UTF-8 (`fromUtf8`) cannot hold a lone surrogate: UTF-8 has no
  // encoding for one, so the strict decoder refused it already.
  if (n === 0 || text.charCodeAt(0) === 0xfeff || (!opts.fromUtf8 && !wellFormed(text))) return undefined;
  const intKeys = [...integerKeys];
  const spans = new Map<string, { start: number; end: number }>();
  // Per open container: the keys seen so far for objects (arrays reused per depth, so a large
  // document allocates almost nothing here), null for arrays.
  const stack: Array<KeySet | null> = [];
  const pool: KeySet[] = [];
  let lastKeyStart = 0;
  let lastKeyEnd = 0;
  let afterColon = false;
  let rootKey: string | undefined;
  let rootStart = -1;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x2c) {
      i++;
      continue;
    }
    const depth = stack.length;
    if (depth === 1 && afterColon && rootKey !== undefined && rootStart < 0) rootStart = i;
    if (c === 0x22) {
      const end = stringEnd(text, i, n);
      if (end < 0) return undefined;
      const escaped = sawBackslash;
      if (escaped && !escapesOk(text, i + 1, end - 1)) return undefined;
      const top = depth > 0 ? stack[depth - 1] : null;
      if (top && !afterColon) {
        // Escaped keys (rare) go to the strict parser, which decodes before comparing.
        if (escaped) return undefined;
        if (isForbidden(text, i + 1, end - 1) || !top.add(text, i + 1, end - 1)) return undefined;
        lastKeyStart = i + 1;
        lastKeyEnd = end - 1;
        if (depth === 1) {
          rootKey = text.slice(i + 1, end - 1);
          rootStart = -1;
        }
      } else if (depth === 1 && afterColon) {
        spans.set(rootKey!, { start: rootStart, end });
      }
      afterColon = false;
      i = end;
      continue;
    }
    if (c === 0x3a) {
      afterColon = true;
      i++;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      if (depth >= MAX_JSON_DEPTH) return undefined;
      if (c === 0x7b) {
        const keys = pool[depth] ?? (pool[depth] = new KeySet());
        keys.reset();
        stack.push(keys);
      } else stack.push(null);
      afterColon = false;
      i++;
      continue;
    }
    if (c === 0x7d || c === 0x5d) {
      if (depth === 0) return undefined;
      stack.pop();
      if (depth === 2 && rootKey !== undefined && rootStart >= 0) spans.set(rootKey, { start: rootStart, end: i + 1 });
      afterColon = false;
      i++;
      continue;
    }
    // A number or literal: up to the next delimiter.
    const start = i;
    let fraction = false;
    let expAt = -1;
    while (i < n) {
      const d = text.charCodeAt(i);
      if (d === 0x2e) fraction = true;
      else if (d === 0x65 || d === 0x45) expAt = i;
      else if (d === 0x2c || d === 0x7d || d === 0x5d || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break;
      i++;
    }
    const first = text.charCodeAt(start);
    if (first === 0x2d || (first >= 0x30 && first <= 0x39)) {
      if (expAt >= 0 && Math.abs(Number(text.slice(expAt + 1, i))) > 300) return undefined;
      if ((fraction || expAt >= 0) && afterColon && isOneOf(intKeys, text, lastKeyStart, lastKeyEnd)) return undefined;
    }
    if (depth === 1 && afterColon) spans.set(rootKey!, { start: rootStart, end: i });
    afterColon = false;
  }
  if (stack.length !== 0) return undefined;
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
  return { value, memberSpans: spans };
}
