import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ContextGraph } from '@ctxpkg/format';
import { BLOB_PREVIEW_BYTES, blobNodeContent, expandBlobContent, previewEnd } from './blob-content.js';

const enc = new TextEncoder();
const refOf = (b: Uint8Array) => `sha256-${createHash('sha256').update(b).digest('hex')}`;
const hexOf = (ref: string) => ref.slice(7);

describe('blob content in the merged graph', () => {
  it('a small text blob is shown in full after the content, with its file', () => {
    const blob = enc.encode('line one\nline two\n');
    const ref = refOf(blob);
    expect(blobNodeContent('Summary', ref, blob)).toBe(
      `Summary\n\nline one\nline two\n[blob ${ref}: ${blob.length} bytes of text, shown in full; file: .ctxpkg/store/blobs/sha256/${hexOf(ref)}]`,
    );
  });

  it('continues where an excerpt (the blob\'s beginning) stops, cut at a line end, and points to the rest', () => {
    const lines = Array.from({ length: 400 }, (_, i) => `line ${String(i).padStart(3, '0')} of a long runbook`).join('\n') + '\n';
    const blob = enc.encode(lines);
    const ref = refOf(blob);
    const excerpt = lines.slice(0, lines.indexOf('line 010'));
    const out = blobNodeContent(excerpt, ref, blob);
    const shownEnd = previewEnd(blob, enc.encode(excerpt).length);
    expect(shownEnd).toBeLessThanOrEqual(BLOB_PREVIEW_BYTES);
    expect(blob[shownEnd - 1]).toBe(0x0a);
    expect(out.startsWith(lines.slice(0, shownEnd))).toBe(true); // no text repeated
    expect(out.endsWith(`[blob ${ref}: ${blob.length} bytes of text, the first ${shownEnd} shown; the rest is in .ctxpkg/store/blobs/sha256/${hexOf(ref)}]`)).toBe(true);
    expect(out.split('line 000').length).toBe(2);
  });

  it('never splits a UTF-8 character when there is no line break to cut at', () => {
    const blob = enc.encode('é'.repeat(5000));
    const end = previewEnd(blob, 0);
    expect(end % 2).toBe(0);
    expect(end).toBeLessThanOrEqual(BLOB_PREVIEW_BYTES);
    expect(blobNodeContent('', refOf(blob), blob)).not.toContain('\ufffd');
  });

  it('a binary blob is named, sized and pointed to, never shown', () => {
    const blob = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0xff);
    const ref = refOf(blob);
    expect(blobNodeContent('diagram', ref, blob)).toBe(`diagram\n\n[blob ${ref}: 8 bytes of binary data, not shown; file: .ctxpkg/store/blobs/sha256/${hexOf(ref)}]`);
  });

  it('expands only nodes with blob_ref, leaves the input graph alone, refuses a missing blob', () => {
    const blob = enc.encode('text');
    const ref = refOf(blob);
    const graph: ContextGraph = {
      format: 'ctxpkg-graph-v2',
      nodes: [
        { id: 'a', type: 'fact', content: 'plain', activation: 1 },
        { id: 'b', type: 'fact', content: 'with blob', activation: 1, blob_ref: ref },
      ],
      edges: [],
    };
    const out = expandBlobContent(graph, (r) => (r === ref ? blob : undefined));
    expect(out.nodes[0]).toBe(graph.nodes[0]);
    expect(out.nodes[1]!.content).toContain('with blob\n\ntext\n[blob ');
    expect(graph.nodes[1]!.content).toBe('with blob');
    const plain: ContextGraph = { ...graph, nodes: [graph.nodes[0]!] };
    expect(expandBlobContent(plain, () => undefined)).toBe(plain);
    expect(() => expandBlobContent(graph, () => undefined)).toThrow(expect.objectContaining({ code: 'E_BLOB' }));
  });
});
