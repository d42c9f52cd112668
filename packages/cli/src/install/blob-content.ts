/**
 * Blob content in the merged graph (spec/archive.md §4.3 "Delivery", spec/pack.md §1): a node
 * with `blob_ref` reaches agents through the same channels as every other node — `render`,
 * `sync`, MCP `search_context`/`get_node` — because the CLI folds a bounded preview of the blob
 * and a pointer to the blob file into the node's `content` when it writes
 * `.ctxpkg/graph/merged.json`. The pack compiler and the MCP tools need no blob access of their
 * own, budgets and secret screening apply to the preview like to any content, and the receipt's
 * content hash is that of the delivered text.
 *
 * Layout of the content of a node with `blob_ref` (deterministic: same node and blob → same text):
 * - UTF-8 text blob (valid UTF-8 without NUL): the node's content, then blob text up to byte
 *   `BLOB_PREVIEW_BYTES` of the blob. When the blob begins with the node's content (the excerpt
 *   `ctxpkg create` leaves, §4.2), the preview continues where the content stops; otherwise it
 *   follows after a blank line. The cut is at the last line break in the second half of the
 *   window, else at a character boundary. Then one line:
 *   `[blob sha256-<hex>: <n> bytes of text, shown in full; file: <path>]` or
 *   `[blob sha256-<hex>: <n> bytes of text, the first <k> shown; the rest is in <path>]`.
 * - Binary blob: the content, a blank line (when the content is not empty), then
 *   `[blob sha256-<hex>: <n> bytes of binary data, not shown; file: <path>]`.
 * `<path>` is the project-relative blob file `.ctxpkg/store/blobs/sha256/<hex>`.
 */
import { CtxpkgError, type ContextGraph } from '@ctxpkg/format';
import { blobDisplayPath } from '../blob-store.js';

/** Bytes of a text blob shown in the merged graph (counting what the node's content already shows). */
export const BLOB_PREVIEW_BYTES = 4096;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const enc = new TextEncoder();

function asText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** End (exclusive byte offset) of the preview window `[start, limit)` of `bytes`: see the module doc. */
export function previewEnd(bytes: Uint8Array, start: number, limit = BLOB_PREVIEW_BYTES): number {
  if (bytes.length <= limit) return bytes.length;
  if (start >= limit) return start;
  const half = start + Math.floor((limit - start) / 2);
  for (let i = limit - 1; i >= half; i--) if (bytes[i] === 0x0a) return i + 1;
  let end = limit;
  while (end > start && (bytes[end]! & 0xc0) === 0x80) end--; // never split a UTF-8 sequence
  return end;
}

/**
 * The delivered content of a node with blob `ref` whose bytes are `bytes` (already verified
 * against `ref`). Pure; see the module doc for the layout.
 */
export function blobNodeContent(content: string, ref: string, bytes: Uint8Array): string {
  const path = blobDisplayPath(ref);
  const text = asText(bytes);
  if (text === undefined) {
    return `${content}${content === '' ? '' : '\n\n'}[blob ${ref}: ${bytes.length} bytes of binary data, not shown; file: ${path}]`;
  }
  const continues = text.startsWith(content);
  const start = continues ? enc.encode(content).length : 0;
  const end = previewEnd(bytes, start);
  const shown = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
  let body = continues ? content + shown : `${content}${content === '' ? '' : '\n\n'}${shown}`;
  if (!body.endsWith('\n')) body += '\n';
  const tail =
    end === bytes.length
      ? `${bytes.length} bytes of text, shown in full; file: ${path}`
      : `${bytes.length} bytes of text, the first ${end} shown; the rest is in ${path}`;
  return `${body}[blob ${ref}: ${tail}]`;
}

/**
 * A copy of `graph` in which every node with `blob_ref` carries its delivered content
 * (`blobNodeContent`); `graph` itself is not changed, and is returned as is when no node has a
 * blob. `read(ref)` returns the verified blob bytes or undefined. Throws `E_BLOB` when a blob is
 * missing (install stores every blob before it merges, so this means a damaged store).
 */
export function expandBlobContent(graph: ContextGraph, read: (ref: string) => Uint8Array | undefined, what = 'package'): ContextGraph {
  if (!graph.nodes.some((n) => typeof n.blob_ref === 'string')) return graph;
  const nodes = graph.nodes.map((n) => {
    if (typeof n.blob_ref !== 'string') return n;
    const bytes = read(n.blob_ref);
    if (!bytes) {
      throw new CtxpkgError('E_BLOB', `${what}: node ${n.id} references blob ${n.blob_ref}, which is not in the store`, {
        hint: 'run `ctxpkg install` to restore the blob store from the stored packages',
      });
    }
    return { ...n, content: blobNodeContent(n.content, n.blob_ref, bytes) };
  });
  return { ...graph, nodes };
}
