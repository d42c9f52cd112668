/**
 * A UTF-8 byte writer for the serializer: JSON tokens are written straight into `Uint8Array`
 * chunks (no intermediate strings or part lists — on a 10 MiB package those cost more in
 * garbage collection than the serialization itself). It can keep a second, compact copy in the
 * same pass: whitespace goes only to the pretty output, so the compact text (what the content
 * hash covers) never has to be recovered by scanning.
 */
import { concatBytes } from '../bytes.js';
import { hasLoneSurrogate } from './strings.js';

const encoder = new TextEncoder();

/** The character after `\\` in a short escape (`\b \t \n \f \r \" \\`), else 0 (`\u00xx`), for ASCII. */
const ESCAPES = new Uint8Array(128);
ESCAPES[0x08] = 0x62;
ESCAPES[0x09] = 0x74;
ESCAPES[0x0a] = 0x6e;
ESCAPES[0x0c] = 0x66;
ESCAPES[0x0d] = 0x72;
ESCAPES[0x22] = 0x22;
ESCAPES[0x5c] = 0x5c;
/** Lowercase hex digits (serde_json writes `\u001f`). */
const HEX = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));

/** First chunk size; each later chunk is as large as everything before it, up to `MAX_CHUNK`. */
const FIRST_CHUNK = 1 << 16;
const MAX_CHUNK = 1 << 22;

/**
 * Bytes in a list of chunks: a full chunk is closed and a new one started, so nothing written is
 * ever copied to grow (doubling one array copies the output about twice and leaves the old
 * arrays to the collector). A token never straddles two chunks.
 */
class Buf {
  private readonly done: Uint8Array[] = [];
  private doneBytes = 0;
  bytes = new Uint8Array(FIRST_CHUNK);
  length = 0;

  /** Bytes written so far. */
  get size(): number {
    return this.doneBytes + this.length;
  }

  reserve(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    this.done.push(this.bytes.subarray(0, this.length));
    this.doneBytes += this.length;
    this.bytes = new Uint8Array(Math.max(extra, Math.min(MAX_CHUNK, this.doneBytes)));
    this.length = 0;
  }

  ascii(s: string): void {
    const n = s.length;
    this.reserve(n);
    const b = this.bytes;
    let o = this.length;
    for (let i = 0; i < n; i++) b[o++] = s.charCodeAt(i);
    this.length = o;
  }

  byte(c: number): void {
    if (this.length === this.bytes.length) this.reserve(1);
    this.bytes[this.length++] = c;
  }

  /**
   * The JSON string literal of `s` as UTF-8, escaped like `JSON.stringify` (and serde_json): `\"`,
   * `\\`, `\b \t \n \f \r`, other control characters as `\u00xx`, everything else raw. Escapes,
   * encodes and copies in one pass. Returns false, leaving the buffer as it was, for a string
   * with a lone surrogate (which `JSON.stringify` would escape instead).
   */
  jsonString(s: string): boolean {
    const n = s.length;
    this.reserve(n * 6 + 2);
    const b = this.bytes;
    let o = this.length;
    b[o++] = 0x22;
    for (let i = 0; i < n; i++) {
      const ch = s.charCodeAt(i);
      if (ch < 0x80) {
        if (ch >= 0x20 && ch !== 0x22 && ch !== 0x5c) b[o++] = ch;
        else {
          b[o++] = 0x5c;
          const short = ESCAPES[ch]!;
          if (short !== 0) b[o++] = short;
          else {
            b[o++] = 0x75; // u00xx
            b[o++] = 0x30;
            b[o++] = 0x30;
            b[o++] = HEX[ch >> 4]!;
            b[o++] = HEX[ch & 15]!;
          }
        }
      } else if (ch < 0x800) {
        b[o++] = 0xc0 | (ch >> 6);
        b[o++] = 0x80 | (ch & 0x3f);
      } else if (ch < 0xd800 || ch > 0xdfff) {
        b[o++] = 0xe0 | (ch >> 12);
        b[o++] = 0x80 | ((ch >> 6) & 0x3f);
        b[o++] = 0x80 | (ch & 0x3f);
      } else {
        const lo = i + 1 < n ? s.charCodeAt(i + 1) : 0;
        if (ch > 0xdbff || lo < 0xdc00 || lo > 0xdfff) return false;
        const cp = 0x10000 + ((ch - 0xd800) << 10) + (lo - 0xdc00);
        i++;
        b[o++] = 0xf0 | (cp >> 18);
        b[o++] = 0x80 | ((cp >> 12) & 0x3f);
        b[o++] = 0x80 | ((cp >> 6) & 0x3f);
        b[o++] = 0x80 | (cp & 0x3f);
      }
    }
    b[o++] = 0x22;
    this.length = o;
    return true;
  }

  /** Append `src[from..to)` (a token just written elsewhere: small). */
  copyRange(src: Uint8Array, from: number, to: number): void {
    this.reserve(to - from);
    const b = this.bytes;
    let o = this.length;
    for (let i = from; i < to; i++) b[o++] = src[i]!;
    this.length = o;
  }

  /** Append the bytes of `src` (a token: small). */
  copy(src: Uint8Array): void {
    const n = src.length;
    this.reserve(n);
    this.bytes.set(src, this.length);
    this.length += n;
  }

  utf8(s: string): void {
    this.reserve(s.length * 3);
    this.length += encoder.encodeInto(s, this.bytes.subarray(this.length)).written;
  }

  /** The output as chunk views, in order (no copy). */
  pieces(): Uint8Array[] {
    return this.length > 0 || this.done.length === 0 ? [...this.done, this.bytes.subarray(0, this.length)] : [...this.done];
  }

  /** The output as one array (a view when it is a single chunk, else one copy). */
  result(): Uint8Array {
    return concatBytes(this.pieces(), this.size);
  }
}

/** Pretty (and optionally compact) UTF-8 output of JSON tokens. */
export class ByteSink {
  private readonly p = new Buf();
  private readonly c: Buf | undefined;
  private readonly indents: string[] = [''];

  constructor(
    /** Emit newlines and indentation (serde `to_string_pretty`). */
    readonly pretty: boolean,
    /** Also keep a compact copy (`compact()`). */
    withCompact = false,
  ) {
    if (withCompact) this.c = new Buf();
  }

  /** An ASCII token (punctuation, numbers, literals, plain keys). */
  ascii(s: string): void {
    this.p.ascii(s);
    this.c?.ascii(s);
  }

  /** One ASCII byte (punctuation). */
  byte(ch: number): void {
    this.p.byte(ch);
    this.c?.byte(ch);
  }

  /**
   * Structure between values, given in both spellings (ASCII): `pretty` (newlines and
   * indentation) goes to the pretty output, `compact` to the compact one.
   */
  token(pretty: string, compact: string): void {
    this.p.ascii(this.pretty ? pretty : compact);
    this.c?.ascii(compact);
  }

  /** `token` with both spellings given as (ASCII) bytes, e.g. precomputed by the caller. */
  tokenBytes(pretty: Uint8Array, compact: Uint8Array): void {
    this.p.copy(this.pretty ? pretty : compact);
    this.c?.copy(compact);
  }

  /**
   * A JSON string literal for `s`, escaped like serde_json / `JSON.stringify` (the caller has
   * refused lone surrogates). A short string is escaped and encoded in one pass, then its bytes
   * copied to the compact output.
   */
  string(s: string): void {
    if (s.length < 256) {
      const p = this.p;
      p.reserve(s.length * 6 + 2); // the literal's bytes end up in one chunk
      const start = p.length;
      if (p.jsonString(s)) {
        this.c?.copyRange(p.bytes, start, p.length);
        return;
      }
    }
    const lit = JSON.stringify(s);
    this.p.utf8(lit);
    this.c?.utf8(lit);
  }

  /**
   * `string(s)` when `s` is well-formed UTF-16 (true); false, writing nothing, when it has a lone
   * surrogate (which serde cannot write). The check costs nothing extra for a short string.
   */
  wellFormedString(s: string): boolean {
    if (s.length < 256) {
      const p = this.p;
      p.reserve(s.length * 6 + 2);
      const start = p.length;
      if (!p.jsonString(s)) return false;
      this.c?.copyRange(p.bytes, start, p.length);
      return true;
    }
    if (hasLoneSurrogate(s)) return false;
    this.string(s);
    return true;
  }

  /** Newline and indentation for `level` (pretty output only). */
  nl(level: number): void {
    if (!this.pretty) return;
    while (this.indents.length <= level) this.indents.push(this.indents[this.indents.length - 1] + '  ');
    this.p.byte(0x0a);
    this.p.ascii(this.indents[level]!);
  }

  /** The key/value separator: `": "` pretty, `":"` compact. */
  colon(): void {
    this.p.byte(0x3a);
    if (this.pretty) this.p.byte(0x20);
    this.c?.byte(0x3a);
  }

  /** The pretty (or, when not pretty, compact) output. */
  bytes(): Uint8Array {
    return this.p.result();
  }

  /** The compact copy (requires `withCompact`, or a non-pretty sink). */
  compact(): Uint8Array {
    return this.c ? this.c.result() : this.p.result();
  }

  /** `bytes()` as chunk views in order, without joining them. */
  pieces(): Uint8Array[] {
    return this.p.pieces();
  }

  /** `compact()` as chunk views in order, without joining them. */
  compactPieces(): Uint8Array[] {
    return this.c ? this.c.pieces() : this.p.pieces();
  }

  /** Length in bytes of `bytes()`. */
  get size(): number {
    return this.p.size;
  }
}
