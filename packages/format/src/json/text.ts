/**
 * Text-level JSON operations that must match the reference byte for byte (FORMAT-FACTS §3.2,
 * `cp/verify.rs` `compact_json_text` and `extract_top_level_value_text`). These work on the
 * writer's text, never on re-serialized values.
 */
import { nodeBuiltin } from '../builtin.js';

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Remove every space, tab, LF and CR outside string literals; copy string literals verbatim
 * (escape sequences included; a backslash always takes the next character, and an unterminated
 * string runs to the end of the text, exactly like the reference's byte loop). This is the
 * reference's `compact_json_text`: the content hash is SHA-256 over the UTF-8 bytes of
 * `compactJsonText(<content member text>)` (FORMAT-FACTS §3.2). Works on any text (no
 * validation); output length is in UTF-16 code units like the input.
 */
export function compactJsonText(text: string): string {
  const n = text.length;
  const out: string[] = [];
  let segStart = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Find the closing quote: the first '"' preceded by an even number of backslashes.
      let from = i + 1;
      for (;;) {
        const q = text.indexOf('"', from);
        if (q < 0) {
          i = n;
          break;
        }
        let k = q - 1;
        while (k > i && text.charCodeAt(k) === 0x5c) k--;
        if ((q - 1 - k) % 2 === 0) {
          i = q + 1;
          break;
        }
        from = q + 1;
      }
    } else if (isWs(c)) {
      if (i > segStart) out.push(text.slice(segStart, i));
      i++;
      while (i < n && isWs(text.charCodeAt(i))) i++;
      segStart = i;
    } else i++;
  }
  if (segStart === 0) return text;
  out.push(text.slice(segStart, n));
  return out.join('');
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

/**
 * `compactJsonText` on UTF-8 bytes (same rule; multi-byte sequences never contain the ASCII
 * bytes involved, so a byte scan is exact). Returns a new array (or `bytes` itself when there is
 * nothing to remove). Used by the reader so the content hash needs no string building.
 */
export function compactJsonBytes(bytes: Uint8Array): Uint8Array {
  const n = bytes.length;
  let out: Uint8Array | undefined;
  let o = 0;
  let i = 0;
  while (i < n) {
    const c = bytes[i]!;
    if (c === 0x22) {
      const start = i++;
      while (i < n) {
        const d = bytes[i++]!;
        if (d === 0x22) break;
        if (d === 0x5c) i++;
      }
      if (i > n) i = n;
      if (out) {
        if (i - start > 64) {
          out.set(bytes.subarray(start, i), o);
          o += i - start;
        } else for (let k = start; k < i; k++) out[o++] = bytes[k]!;
      }
    } else if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      if (!out) {
        out = new Uint8Array(n);
        out.set(bytes.subarray(0, i));
        o = i;
      }
      i++;
    } else {
      if (out) out[o++] = c;
      i++;
    }
  }
  return out ? out.subarray(0, o) : bytes;
}

type NodeBufferCtor = {
  from(b: ArrayBufferLike, off: number, len: number): { toString(enc: 'latin1'): string };
  from(s: string, enc: 'latin1'): Uint8Array;
};

/** Node's Buffer, probed without importing `node:` modules (its Latin-1 codec keeps every byte). */
const NodeBuffer: NodeBufferCtor | undefined = (() => {
  try {
    const B = nodeBuiltin<{ Buffer: NodeBufferCtor }>('node:buffer')?.Buffer;
    return B && typeof B.from === 'function' ? B : undefined;
  } catch {
    return undefined;
  }
})();

/**
 * A string literal (a backslash takes the next character; an unterminated literal runs to the
 * end, a trailing lone backslash included), or a run of whitespace. Every character is matched
 * by exactly one branch, so matching is linear.
 */
const COMPACT_RE = /("(?:[^"\\]|\\[\s\S])*(?:"|\\?$))|[ \t\n\r]+/g;

/**
 * `compactJsonBytes` through the runtime's regular-expression engine, over the bytes read as
 * Latin-1 (one character per byte, so UTF-8 sequences — all bytes ≥ 0x80 — pass through
 * untouched): string literals are kept, whitespace runs outside them dropped. Same result as
 * `compactJsonBytes` for any input. Native code, so much faster than the byte loop in a process
 * where that loop has not been optimized yet (installing many small packages), and slower than
 * the optimized loop on large texts. `undefined` when the runtime has no byte-preserving Latin-1
 * codec (Node's `Buffer`; the WHATWG "latin1" decoder is windows-1252).
 */
export function compactJsonBytesNative(bytes: Uint8Array): Uint8Array | undefined {
  if (!NodeBuffer) return undefined;
  const text = NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const compact = text.replace(COMPACT_RE, '$1');
  if (compact.length === text.length) return bytes;
  const b = NodeBuffer.from(compact, 'latin1');
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** UTF-8 byte length of `text[from, to)` (UTF-16 indices). */
export function utf8ByteLength(text: string, from = 0, to = text.length): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < to && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3; // BMP, or a lone surrogate (encoded as U+FFFD, 3 bytes)
  }
  return n;
}

/**
 * Stream `compactJsonBytes(bytes)` to `sink` in chunks of at most `chunkSize` bytes, without
 * materializing the whole compacted text. Returns its length in bytes. The chunk buffer is
 * reused: `sink` must consume (e.g. hash) each chunk before returning.
 */
export function streamCompactJsonBytes(bytes: Uint8Array, sink: (chunk: Uint8Array) => void, chunkSize = 1 << 16): number {
  const n = bytes.length;
  const buf = new Uint8Array(chunkSize);
  let o = 0;
  let total = 0;
  let i = 0;
  let inString = false;
  let escaped = false;
  // Each input byte gives at most one output byte, so a block of at most `chunkSize - o` input
  // bytes never overflows the chunk: one flush site, outside the byte loop. The first flush comes
  // early (after 64 output bytes) so it has run, with type feedback, before the optimizing
  // compiler takes over the loop of a large input: code it has never seen run would send the
  // loop back to the interpreter (measured: three deoptimizations per 10 MiB package before).
  let first = true;
  while (i < n) {
    const stop = Math.min(n, i + (first ? Math.min(256, chunkSize - o) : chunkSize - o));
    for (; i < stop; i++) {
      const c = bytes[i]!;
      if (inString) {
        buf[o++] = c;
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) inString = false;
      } else if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
        buf[o++] = c;
        if (c === 0x22) inString = true;
      }
    }
    if (o >= (first ? Math.min(64, chunkSize) : chunkSize - 256) || i === n) {
      if (o > 0) sink(buf.subarray(0, o));
      total += o;
      o = 0;
      first = false;
    }
  }
  return total;
}
