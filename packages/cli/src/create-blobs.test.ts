import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ContextGraph } from '@ctxpkg/format';
import { BLOB_EXCERPT_BYTES, BLOB_NODE_BYTES, moveLargeContentToBlobs } from './create-blobs.js';

const enc = new TextEncoder();

describe('create: large node content into blobs', () => {
  const big = Array.from({ length: 1200 }, (_, i) => `step ${i}: check the service and note the result`).join('\n');
  const graph: ContextGraph = {
    format: 'ctxpkg-graph-v2',
    nodes: [
      { id: 'small', type: 'fact', content: 'x'.repeat(BLOB_NODE_BYTES), activation: 1 },
      { id: 'big', type: 'procedure', content: big, activation: 1, file_path: 'RUNBOOK.md', line_start: 1, line_end: 1200, source: 'sha256:' + 'a'.repeat(64) },
    ],
    edges: [],
  };

  it('moves only content above the threshold, keeps an excerpt that begins the blob, and the provenance', () => {
    const { graph: out, blobs } = moveLargeContentToBlobs(graph);
    expect(out.nodes[0]).toBe(graph.nodes[0]); // exactly at the threshold: stays inline
    const n = out.nodes[1]!;
    const bytes = enc.encode(big);
    const ref = `sha256-${createHash('sha256').update(bytes).digest('hex')}`;
    expect(n.blob_ref).toBe(ref);
    expect([...blobs.keys()]).toEqual([ref]);
    expect(blobs.get(ref)).toEqual(bytes);
    expect(enc.encode(n.content).length).toBeLessThanOrEqual(BLOB_EXCERPT_BYTES);
    expect(n.content.endsWith('\n')).toBe(true);
    expect(big.startsWith(n.content)).toBe(true);
    expect([n.file_path, n.line_start, n.line_end, n.source]).toEqual(['RUNBOOK.md', 1, 1200, 'sha256:' + 'a'.repeat(64)]);
    expect(graph.nodes[1]!.content).toBe(big); // input untouched
  });

  it('is deterministic and shares one blob between equal contents', () => {
    const twice: ContextGraph = { ...graph, nodes: [...graph.nodes, { ...graph.nodes[1]!, id: 'copy' }] };
    const a = moveLargeContentToBlobs(twice);
    const b = moveLargeContentToBlobs(twice);
    expect(a.blobs.size).toBe(1);
    expect(JSON.stringify(a.graph)).toBe(JSON.stringify(b.graph));
  });
});
