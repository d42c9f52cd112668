import { describe, expect, it } from 'vitest';
import { ByteSink } from '../json/bytesink.js';
import { CONTEXT_NODE } from './content-tables.js';
import { encodeStruct, writeStruct } from './encode.js';

const node = { id: 'n', type: 't', content: 'räksmörgås "q"\t', activation: 0.5, created_at: '2026-01-01T00:00:00Z', confidence: 0.9 };

describe('writeStruct', () => {
  it('writes the pretty and the compact text in one pass, in table order', () => {
    const sink = new ByteSink(true, true);
    writeStruct(CONTEXT_NODE, { ...node }, { sink, ctx: { roundF64: true, pretty: true } }, 1, 'n');
    const dec = new TextDecoder();
    const compact = '{"id":"n","type":"t","content":"räksmörgås \\"q\\"\\t","activation":0.5,"created_at":"2026-01-01T00:00:00Z","confidence":0.9}';
    expect(dec.decode(sink.compact())).toBe(compact);
    expect(dec.decode(sink.bytes())).toBe(JSON.stringify(JSON.parse(compact), null, 2).replace(/\n/g, '\n  '));
    expect(encodeStruct(CONTEXT_NODE, node, { roundF64: true, pretty: false }, 0, 'n')).toBe(compact);
  });

  it('refuses a string with a lone surrogate (E_INVALID_JSON), short or long', () => {
    for (const content of ['x\ud800', 'y'.repeat(300) + '\udc00']) {
      expect(() => encodeStruct(CONTEXT_NODE, { ...node, content }, { roundF64: true, pretty: true }, 0, 'n')).toThrow(
        expect.objectContaining({ code: 'E_INVALID_JSON' }),
      );
    }
  });
});
