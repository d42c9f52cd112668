import { describe, expect, it } from 'vitest';
import { collectScanTargets, searchText } from './gate-text.js';

describe('collectScanTargets', () => {
  it('collects every content string with its path, plus manifest free text, skipping hex digests', () => {
    const { texts, skipped } = collectScanTargets({
      manifest: { description: 'desc', author: 'ann', tags: ['a', 'b'], name: '@acme/kb' },
      content: { gotchas: { gotchas: [{ id: 'g1', trigger: 'x', resolution: 'y', sha: 'a'.repeat(64) }] } },
    });
    expect(texts.map((t) => t.path)).toEqual([
      'manifest.description',
      'manifest.author',
      'manifest.tags[0]',
      'manifest.tags[1]',
      'content.gotchas.gotchas[0].id',
      'content.gotchas.gotchas[0].trigger',
      'content.gotchas.gotchas[0].resolution',
    ]);
    expect(skipped).toEqual([]);
  });

  it('screens UTF-8 blobs and reports binary ones as not screened', () => {
    const blobs = new Map([
      ['sha256-b', new TextEncoder().encode('readme text')],
      ['sha256-a', new Uint8Array([0xff, 0xfe, 0x00])],
      ['sha256-c', new Uint8Array([0x61, 0x00, 0x62])],
    ]);
    const { texts, skipped } = collectScanTargets({ manifest: {}, content: {}, blobs });
    expect(texts).toEqual([{ path: 'blobs/sha256-b', text: 'readme text' }]);
    expect(skipped).toEqual([{ check: 'secrets:binary_blobs', reason: '2 blob(s) are not UTF-8 text and were not screened' }]);
  });

  it('does not scan an encoded body as text, and says so when it cannot decode it', () => {
    const { texts, skipped } = collectScanTargets({ manifest: {}, content: { other: { encoding: 'gzip+base64', body: 'H4sIAAAA' } } });
    expect(texts.map((t) => t.path)).toEqual(['content.other.encoding']);
    expect(skipped.map((s) => s.check)).toEqual(['secrets:encoded_fields']);
  });
});

describe('searchText', () => {
  it('joins name, description, tags and node text, cut at the character cap', () => {
    const graph = { format: 'ctxpkg-graph-v2', edges: [], nodes: [{ id: 'N1', type: 'gotcha', content: 'token races', activation: 1, category: 'auth', file_path: 'src/a.ts' }] };
    expect(searchText('@acme/kb', 'desc', ['t1', 't2'], { manifest: {}, content: {}, graph }, 1000)).toBe('@acme/kb\ndesc\nt1 t2\ngotcha auth src/a.ts token races');
    expect(searchText('@acme/kb', 'desc', [], { manifest: {}, content: {}, graph }, 5)).toBe('@acme');
  });
});
