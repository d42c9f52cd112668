import { describe, expect, it } from 'vitest';
import { withBuiltins } from './__tests__/builtins.js';
import { SHA256_BACKEND, sha256Hex, sha256Into } from './hash.js';
import { sha256HexPortable } from './hash-portable.js';
import { compareIntegrity, computeIntegrity, computeIntegrityOfContentBytes, packageSha256 } from './integrity.js';
import { compactJsonText } from './json/text.js';

// FORMAT-FACTS §11.2 computed vectors, inline.
const EMPTY_HASH = '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a';

describe('computeIntegrity (FORMAT-FACTS §11.2)', () => {
  it('empty content {}', () => {
    expect(computeIntegrity('test-pkg', '1.0.0', '{}')).toEqual({
      content_hash: EMPTY_HASH,
      byte_size: 2,
      sha256: 'f0afa76171bb179e6232ec3e563ce99299ebdb8f46ecee059e532e7caaa2db9e',
    });
  });

  it.each([
    ['export-test', '2.0.0', '9badda7a6626e3b631f214bb7ba93cbb053523a8bca64e098145a300aea2cb27'],
    ['signed-test', '1.0.0', '080bbc2ed4a6a6050eb65377233fa5e46b8a86383985f81d8641e318c78808bd'],
    ['legacy-test', '1.0.0', 'e1969bb3f1b3b0837c0b387229875f8837f9d66939721a07758fcbbea4b67bbb'],
  ])('package hash of %s@%s over empty content', (name, version, sha) => {
    expect(packageSha256(name, version, EMPTY_HASH)).toBe(sha);
  });

  it('verify fixture {"note":"hello","weight":1.0}', () => {
    expect(computeIntegrity('vt-pkg', '1.0.0', '{"note":"hello","weight":1.0}')).toEqual({
      content_hash: '6b7c625366e1a9837ef1a6c5c4481a8c57ea2d7281da0b0e9357d226ba271612',
      byte_size: 29,
      sha256: '39e35efb6265536becff30670bf72e3fece4e3faa2983add99a8383d5e76300d',
    });
  });

  it('TS-style text vs the reference re-serialization (§3.4 demonstration)', () => {
    const ts = '{"context_graph":{"format":"ctxpkg-graph-v2","nodes":[{"id":"a","type":"fact","content":"x","activation":1}],"edges":[]}}';
    const rust = ts.replace('"activation":1}', '"activation":1.0}');
    expect(computeIntegrity('x', '1.0.0', ts)).toMatchObject({ content_hash: 'd40f7973cf047e9ae92ab0584d9d348064a774f39dbf07b9194137af60676f6e', byte_size: 121 });
    expect(computeIntegrity('x', '1.0.0', rust)).toMatchObject({ content_hash: '9617cd173fe2dfe1cadebb05b0abea73053d9855aa943e634e9c922e2fd26c04', byte_size: 123 });
  });

  it('counts byte_size in UTF-8 bytes, not characters', () => {
    expect(computeIntegrity('a', '1.0.0', '{"x":"é😀"}').byte_size).toBe(14);
  });
});

describe('compareIntegrity', () => {
  const computed = computeIntegrity('test-pkg', '1.0.0', '{}');

  it('passes identical values', () => {
    expect(compareIntegrity({ ...computed }, computed)).toEqual([]);
  });

  it('reports every mismatch with expected (manifest) and found (recomputed)', () => {
    const m = compareIntegrity({ content_hash: 'ab', sha256: computed.sha256, byte_size: 3 }, computed);
    expect(m).toEqual([
      { field: 'content_hash', expected: 'ab', found: EMPTY_HASH },
      { field: 'byte_size', expected: 3, found: 2 },
    ]);
  });

  it('treats uppercase hex as a mismatch (the reference compares strings)', () => {
    const m = compareIntegrity({ ...computed, content_hash: computed.content_hash.toUpperCase() }, computed);
    expect(m.map((x) => x.field)).toEqual(['content_hash']);
  });
});

describe('sha256Hex', () => {
  it('native and portable backends agree (strings hashed as UTF-8)', () => {
    for (const s of ['', 'abc', 'é日本😀', 'x'.repeat(100000)]) {
      expect(sha256Hex(s)).toBe(sha256HexPortable(s));
      expect(sha256Hex(new TextEncoder().encode(s))).toBe(sha256HexPortable(s));
    }
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(['node', 'noble']).toContain(SHA256_BACKEND);
  });

  it('sha256Into writes the same digest as bytes at the offset, and nothing else', () => {
    for (const s of ['', 'abc', 'é日本😀', 'lone \ud800 surrogate', 'x'.repeat(100000)]) {
      const out = new Uint8Array(70).fill(7);
      sha256Into(s, out, 5);
      expect(Buffer.from(out.subarray(5, 37)).toString('hex')).toBe(sha256Hex(s));
      expect([...out.subarray(0, 5), ...out.subarray(37)].every((b) => b === 7)).toBe(true);
    }
    expect(() => sha256Into('abc', new Uint8Array(40), 9)).toThrow(RangeError);
    expect(() => sha256Into('abc', new Uint8Array(40), -1)).toThrow(RangeError);
  });

  it('sha256Into with node:crypto but no one-shot crypto.hash (Node < 20.12): createHash gives the same digest', async () => {
    const real = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule?.('node:crypto') as { createHash: unknown } | undefined;
    if (!real) return; // nothing to take away here
    await withBuiltins(
      (saved) => (id: string) => (id === 'node:crypto' ? { createHash: real.createHash } : saved?.(id)),
      async () => {
        const h = await import('./hash.js');
        expect(h.SHA256_BACKEND).toBe('node');
        for (const s of ['', 'abc', 'é日本😀', 'x'.repeat(1000)]) {
          const out = new Uint8Array(32);
          h.sha256Into(s, out, 0);
          expect(Buffer.from(out).toString('hex')).toBe(sha256Hex(s));
        }
      },
    );
  });

  it('without a synchronous node:crypto, hash.ts loads the portable backend itself: the same digests, one-shot, by parts and streamed', async () => {
    await withBuiltins(undefined, async () => {
      const h = await import('./hash.js');
      expect(h.SHA256_BACKEND).toBe('noble');
      const enc = new TextEncoder();
      for (const s of ['', 'abc', 'é日本😀', 'x'.repeat(100000)]) {
        expect(h.sha256Hex(s)).toBe(sha256Hex(s));
        const bytes = enc.encode(s);
        const half = bytes.length >> 1;
        expect(Buffer.from(h.sha256Bytes(bytes.subarray(0, half), bytes.subarray(half))).toString('hex')).toBe(sha256Hex(s));
        const stream = h.createSha256();
        stream.update(bytes.subarray(0, half));
        stream.update(bytes.subarray(half));
        expect(stream.digestHex()).toBe(sha256Hex(s));
        const out = new Uint8Array(40);
        h.sha256Into(s, out, 8);
        expect(Buffer.from(out.subarray(8)).toString('hex')).toBe(sha256Hex(s));
      }
    });
  });
});

describe('computeIntegrityOfContentBytes (both compaction paths)', () => {
  const enc = new TextEncoder();
  it('equals computeIntegrity over compactJsonText, below and above the native-compaction size', () => {
    const node = (i: number) => `{\n      "id": "n${i}",\n      "content": "räksmörgås \\"${i}\\"\\t日本語 with  spaces"\n    }`;
    for (const count of [1, 50, 5000]) {
      const text = `{\n  "context_graph": {\n    "nodes": [\n    ${Array.from({ length: count }, (_, i) => node(i)).join(',\n    ')}\n    ]\n  }\n}`;
      const bytes = enc.encode(text);
      if (count === 5000) expect(bytes.length).toBeGreaterThan(256 * 1024);
      expect(computeIntegrityOfContentBytes('@a/b', '1.0.0', bytes)).toEqual(computeIntegrity('@a/b', '1.0.0', compactJsonText(text)));
    }
  });
});
