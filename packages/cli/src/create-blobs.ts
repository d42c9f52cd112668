/**
 * `ctxpkg create` in the ZIP form: large node content becomes a blob (spec/archive.md §4.2).
 *
 * A node whose content is longer than `BLOB_NODE_BYTES` (UTF-8 bytes) keeps an excerpt — its
 * first `BLOB_EXCERPT_BYTES` at most, cut after the last line break in the second half of that
 * window, else at a character boundary — and gets `blob_ref: "sha256-<hex>"` of its full content,
 * which is stored as the blob `blobs/sha256-<hex>` (UTF-8, byte for byte). Everything else of the
 * node (id, type, provenance lines and hash) is unchanged, so freshness checks still work, and
 * the blob begins with the excerpt, so delivery continues the text where the excerpt stops
 * (`install/blob-content.ts`). Only the ZIP form can carry blobs; the JSON bundle keeps content
 * inline (the form the reference reads).
 */
import { createHash } from 'node:crypto';
import type { ContextGraph } from '@ctxpkg/format';
import { previewEnd } from './install/blob-content.js';

/** Node content above this many UTF-8 bytes goes into a blob (ZIP form only). */
export const BLOB_NODE_BYTES = 16 * 1024;

/** At most this many bytes of a blob-backed node's content stay inline as its excerpt. */
export const BLOB_EXCERPT_BYTES = 1024;

const enc = new TextEncoder();

/**
 * A copy of `graph` with every node above `threshold` bytes moved into a blob, and the blobs by
 * blob_ref (sorted). Nodes that already have a `blob_ref` are left alone. `graph` is not changed.
 */
export function moveLargeContentToBlobs(
  graph: ContextGraph,
  threshold = BLOB_NODE_BYTES,
): { graph: ContextGraph; blobs: Map<string, Uint8Array> } {
  const blobs = new Map<string, Uint8Array>();
  const nodes = graph.nodes.map((n) => {
    if (n.blob_ref !== undefined) return n;
    if (n.content.length * 3 <= threshold) return n; // ≤ 3 UTF-8 bytes per UTF-16 unit: small for sure
    const bytes = enc.encode(n.content);
    if (bytes.length <= threshold) return n;
    const ref = `sha256-${createHash('sha256').update(bytes).digest('hex')}`;
    blobs.set(ref, bytes);
    const excerpt = Buffer.from(bytes.buffer, bytes.byteOffset, previewEnd(bytes, 0, BLOB_EXCERPT_BYTES)).toString('utf8');
    return { ...n, content: excerpt, blob_ref: ref };
  });
  const sorted = new Map([...blobs.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { graph: { ...graph, nodes }, blobs: sorted };
}
