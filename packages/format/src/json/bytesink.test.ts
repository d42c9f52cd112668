import { describe, expect, it } from 'vitest';
import { concatBytes } from '../bytes.js';
import { ByteSink } from './bytesink.js';

const dec = new TextDecoder();

/** Write `count` key/value lines into a pretty+compact sink and, in parallel, the expected texts. */
function fill(count: number): { sink: ByteSink; pretty: string; compact: string } {
  const sink = new ByteSink(true, true);
  let pretty = '';
  let compact = '';
  const values = ['plain', 'räksmörgås', '日本語 "quoted"', 'tab\tand\\slash', 'x'.repeat(300), '😀'];
  for (let i = 0; i < count; i++) {
    sink.nl(2);
    pretty += '\n    ';
    const key = `"k${i % 7}"`;
    sink.ascii(key);
    sink.colon();
    pretty += `${key}: `;
    compact += `${key}:`;
    const v = values[i % values.length]!;
    sink.string(v);
    pretty += JSON.stringify(v);
    compact += JSON.stringify(v);
    sink.byte(0x2c);
    pretty += ',';
    compact += ',';
  }
  return { sink, pretty, compact };
}

describe('ByteSink', () => {
  it('keeps every byte across chunk boundaries (pretty and compact, whole and in pieces)', () => {
    for (const count of [0, 1, 100, 40_000]) {
      const { sink, pretty, compact } = fill(count);
      expect(dec.decode(sink.bytes())).toBe(pretty);
      expect(dec.decode(sink.compact())).toBe(compact);
      expect(dec.decode(concatBytes(sink.pieces()))).toBe(pretty);
      expect(dec.decode(concatBytes(sink.compactPieces()))).toBe(compact);
      expect(sink.size).toBe(new TextEncoder().encode(pretty).length);
      if (count === 40_000) expect(sink.pieces().length).toBeGreaterThan(3); // really chunked
    }
  });

  it('a token longer than a chunk gets a chunk of its own', () => {
    const sink = new ByteSink(false);
    const big = 'é'.repeat(200_000);
    sink.ascii('[');
    sink.string(big);
    sink.ascii(']');
    expect(dec.decode(sink.bytes())).toBe(`[${JSON.stringify(big)}]`);
  });

  it('concatBytes returns a single piece as is and joins several', () => {
    const a = new Uint8Array([1, 2]);
    expect(concatBytes([a])).toBe(a);
    expect([...concatBytes([a, new Uint8Array([3]), new Uint8Array(0)])]).toEqual([1, 2, 3]);
    expect(concatBytes([]).length).toBe(0);
  });
});

describe('ByteSink.string', () => {
  it('writes exactly the UTF-8 of JSON.stringify for every short string (controls, quotes, BMP, astral, DEL, U+2028)', () => {
    const chars: string[] = [];
    for (let c = 0; c < 0x80; c++) chars.push(String.fromCharCode(c));
    chars.push('é', 'ß', '\u07ff', '\u0800', '日', '\u2028', '\u2029', '\ud7ff', '\ue000', '\uffff', '😀', '\u{10ffff}', '\u{10000}');
    const samples = [...chars, chars.join(''), 'plain ascii', 'tab\tand "quotes" \\ back', 'x'.repeat(255), 'é'.repeat(255), '😀'.repeat(127)];
    for (let i = 0; i < 200; i++) samples.push(Array.from({ length: i % 40 }, (_, k) => chars[(i * 31 + k * 7) % chars.length]).join(''));
    for (const s of samples) {
      const sink = new ByteSink(true, true);
      sink.string(s);
      expect(dec.decode(sink.bytes())).toBe(JSON.stringify(s));
      expect(dec.decode(sink.compact())).toBe(JSON.stringify(s));
    }
  });

  it('falls back to JSON.stringify for a lone surrogate, leaving nothing half written', () => {
    for (const s of ['a\ud800', '\udc00b', 'x\ud800\ud800y', '\ud83d']) {
      const sink = new ByteSink(false);
      sink.ascii('[');
      sink.string(s);
      sink.ascii(']');
      expect(dec.decode(sink.bytes())).toBe(new TextDecoder().decode(new TextEncoder().encode(`[${JSON.stringify(s)}]`)));
    }
  });
});
