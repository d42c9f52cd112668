/**
 * Text-level JSON operations that must match the reference byte for byte (FORMAT-FACTS §3.2,
 * `cp/verify.rs` `compact_json_text` and `extract_top_level_value_text`). These work on the
 * writer's text, never on re-serialized values.
 */

/**
 * One token at a time: a run of insignificant whitespace, or a string literal (kept verbatim).
 * An unterminated string runs to the end of the text, and a backslash always consumes the next
 * character, exactly like the reference's byte loop.
 */
const COMPACT_RE = /[ \t\n\r]+|("[^"\\]*(?:\\[^][^"\\]*)*(?:"|\\?$))/g;

/**
 * Remove every space, tab, LF and CR outside string literals; copy string literals verbatim
 * (escape sequences included). This is the reference's `compact_json_text`: the content hash is
 * SHA-256 over the UTF-8 bytes of `compactJsonText(<content member text>)` (FORMAT-FACTS §3.2).
 * Works on any text (no validation); output length is in UTF-16 code units like the input.
 */
export function compactJsonText(text: string): string {
  return text.replace(COMPACT_RE, '$1');
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

function skipWs(t: string, p: number): number {
  while (p < t.length && WS.has(t.charCodeAt(p))) p++;
  return p;
}

/** End (exclusive) of the string literal starting at `p` (a quote), or -1 if unterminated. */
function stringEnd(t: string, p: number): number {
  for (let i = p + 1; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return -1;
}

/** End (exclusive) of the JSON value starting at `p`, skipping nested strings and brackets. */
function valueEnd(t: string, p: number): number {
  const c = t.charCodeAt(p);
  if (c === 0x22) return stringEnd(t, p);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let i = p; i < t.length; i++) {
      const d = t.charCodeAt(i);
      if (d === 0x22) {
        const e = stringEnd(t, i);
        if (e < 0) return -1;
        i = e - 1;
      } else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  let i = p;
  while (i < t.length) {
    const d = t.charCodeAt(i);
    if (d === 0x2c || d === 0x7d || d === 0x5d || WS.has(d)) break;
    i++;
  }
  return i > p ? i : -1;
}

/**
 * The raw text of the FIRST member `key` of the top-level object, exactly as written (no
 * trimming inside), or `undefined` when there is no such member or the text is not an object.
 * Keys are JSON-decoded before comparison, so `"\u0063ontent"` matches `content` (reference
 * `extract_top_level_value_text`). Strict readers refuse duplicate keys before calling this.
 */
export function extractTopLevelMemberText(text: string, key: string): string | undefined {
  let p = skipWs(text, 0);
  if (text.charCodeAt(p) !== 0x7b) return undefined;
  p = skipWs(text, p + 1);
  if (text.charCodeAt(p) === 0x7d) return undefined;
  while (p < text.length) {
    if (text.charCodeAt(p) !== 0x22) return undefined;
    const kEnd = stringEnd(text, p);
    if (kEnd < 0) return undefined;
    let decoded: unknown;
    try {
      decoded = JSON.parse(text.slice(p, kEnd));
    } catch {
      return undefined;
    }
    p = skipWs(text, kEnd);
    if (text.charCodeAt(p) !== 0x3a) return undefined;
    p = skipWs(text, p + 1);
    const vEnd = valueEnd(text, p);
    if (vEnd < 0) return undefined;
    if (decoded === key) return text.slice(p, vEnd);
    p = skipWs(text, vEnd);
    const c = text.charCodeAt(p);
    if (c === 0x2c) p = skipWs(text, p + 1);
    else return undefined;
  }
  return undefined;
}
