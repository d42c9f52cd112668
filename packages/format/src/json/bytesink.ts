/**
 * A UTF-8 byte writer for the serializer: JSON tokens are written straight into a growing
 * `Uint8Array` (no intermediate strings or part lists — on a 10 MiB package those cost more in
 * garbage collection than the serialization itself). It can keep a second, compact copy in the
 * same pass: whitespace goes only to the pretty output, so the compact text (what the content
 * hash covers) never has to be recovered by scanning.
 */
const encoder = new TextEncoder();

class Buf {
  bytes = new Uint8Array(1 << 16);
  length = 0;

  reserve(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    let cap = this.bytes.length * 2;
    while (cap < this.length + extra) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
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

  utf8(s: string): void {
    this.reserve(s.length * 3);
    this.length += encoder.encodeInto(s, this.bytes.subarray(this.length)).written;
  }

  result(): Uint8Array {
    return this.bytes.subarray(0, this.length);
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
   * A JSON string literal for `s`, escaped like serde_json / `JSON.stringify` (the caller has
   * refused lone surrogates). Plain printable ASCII is copied byte by byte.
   */
  string(s: string): void {
    const n = s.length;
    let plain = n < 256;
    if (plain) {
      for (let i = 0; i < n; i++) {
        const ch = s.charCodeAt(i);
        if (ch < 0x20 || ch > 0x7e || ch === 0x22 || ch === 0x5c) {
          plain = false;
          break;
        }
      }
    }
    if (plain) {
      this.byte(0x22);
      this.ascii(s);
      this.byte(0x22);
      return;
    }
    const lit = JSON.stringify(s);
    this.p.utf8(lit);
    this.c?.utf8(lit);
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
}
