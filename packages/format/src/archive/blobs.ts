/**
 * Blob references of the ZIP form (spec/archive.md §4): a node's `blob_ref` names a blob as
 * `sha256-<64 lowercase hex>` of its bytes, stored at `blobs/<blob_ref>` (optionally `.zst`).
 * Every reference must resolve, every blob must be referenced, every blob's bytes must hash to
 * its name. All problems are reported together (ARCHITECTURE "Errors").
 */
import { errorFromIssues, type Issue } from '../errors.js';
import { sha256Hex } from '../hash.js';
import { BLOB_REF_RE } from './names.js';

/** The part of a graph the blob check reads: nodes with an optional `blob_ref`. */
export interface BlobRefGraph {
  nodes?: ReadonlyArray<{ id?: unknown; blob_ref?: unknown }>;
}

/**
 * The blob_refs of `graph` (undefined/null graph → none), in node order, deduplicated.
 * Issues (`E_BLOB`) for a `blob_ref` that is not `sha256-<64 lowercase hex>` go to `issues`.
 */
export function collectBlobRefs(graph: BlobRefGraph | null | undefined, issues: Issue[] = []): string[] {
  const refs: string[] = [];
  const seen = new Set<string>();
  (graph?.nodes ?? []).forEach((node, i) => {
    const ref = node?.blob_ref;
    if (ref === undefined || ref === null) return;
    if (typeof ref !== 'string' || !BLOB_REF_RE.test(ref)) {
      const path = `content.context_graph.nodes[${i}].blob_ref`;
      issues.push({ path, code: 'E_BLOB', message: `blob_ref ${JSON.stringify(ref)} is not sha256-<64 lowercase hex>` });
      return;
    }
    if (!seen.has(ref)) {
      seen.add(ref);
      refs.push(ref);
    }
  });
  return refs;
}

/**
 * Check that the graph's blob_refs and the blob names are the same set (no missing, no extra).
 * Use when the blob hashes were already verified (e.g. `readArchive` with `keepBlobs: false`).
 * Throws `E_BLOB` listing every problem in `details.issues`.
 */
export function checkBlobRefs(graph: BlobRefGraph | null | undefined, blobNames: Iterable<string>): void {
  const issues: Issue[] = [];
  const refs = collectBlobRefs(graph, issues);
  const names = new Set(blobNames);
  const refSet = new Set(refs);
  for (const ref of refs) {
    if (!names.has(ref)) issues.push({ path: `blobs/${ref}`, code: 'E_BLOB', message: `blob ${ref} is referenced but missing` });
  }
  for (const name of [...names].sort()) {
    if (!refSet.has(name)) issues.push({ path: `blobs/${name}`, code: 'E_BLOB', message: `blob ${name} is not referenced by any node` });
  }
  if (issues.length) throw errorFromIssues(issues);
}

/**
 * Verify blobs against a graph: every `blob_ref` resolves to a blob, every blob is referenced,
 * and each blob's SHA-256 equals its name. `blobs` maps blob_ref → bytes.
 * Throws `E_BLOB` with all problems in `details.issues`. Source: spec/archive.md §4.
 */
export function verifyBlobs(graph: BlobRefGraph | null | undefined, blobs: ReadonlyMap<string, Uint8Array>): void {
  const issues: Issue[] = [];
  for (const [name, bytes] of [...blobs.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const digest = `sha256-${sha256Hex(bytes)}`;
    if (digest !== name) {
      issues.push({ path: `blobs/${name}`, code: 'E_BLOB', message: `blob ${name} hashes to ${digest}`, details: { expected: name, found: digest } });
    }
  }
  try {
    checkBlobRefs(graph, blobs.keys());
  } catch (err) {
    const more = (err as { details?: { issues?: Issue[] } }).details?.issues ?? [];
    issues.push(...more);
  }
  if (issues.length) throw errorFromIssues(issues);
}
