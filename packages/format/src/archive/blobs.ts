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
 * The blob_refs of `graph` (undefined/null graph, or `nodes` not an array → none), in node order, deduplicated.
 * Issues (`E_BLOB`) for a `blob_ref` that is not `sha256-<64 lowercase hex>` go to `issues`.
 */
export function collectBlobRefs(graph: BlobRefGraph | null | undefined, issues: Issue[] = []): string[] {
  const refs: string[] = [];
  const seen = new Set<string>();
  const nodes = Array.isArray(graph?.nodes) ? graph.nodes : [];
  for (let i = 0; i < nodes.length; i++) {
    const ref = nodes[i]?.blob_ref;
    if (ref === undefined || ref === null) continue;
    if (typeof ref !== 'string' || !BLOB_REF_RE.test(ref)) {
      const path = `content.context_graph.nodes[${i}].blob_ref`;
      issues.push({ path, code: 'E_BLOB', message: `blob_ref ${JSON.stringify(ref)} is not sha256-<64 lowercase hex>` });
      continue;
    }
    if (!seen.has(ref)) {
      seen.add(ref);
      refs.push(ref);
    }
  }
  return refs;
}

/**
 * Check that the graph's blob_refs and the blob names are the same set (no missing, no extra).
 * Use when the blob hashes were already verified (e.g. `readArchive` with `keepBlobs: false`).
 * `blobNames`: the names, or a map or set keyed by them (looked up as it is, not copied).
 * Throws `E_BLOB` listing every problem in `details.issues`: missing blobs in node order, then
 * unreferenced blobs sorted by name.
 */
export function checkBlobRefs(graph: BlobRefGraph | null | undefined, blobNames: Iterable<string> | ReadonlyMap<string, unknown> | ReadonlySet<string>): void {
  const issues: Issue[] = [];
  const refs = collectBlobRefs(graph, issues);
  const names: ReadonlySet<string> | ReadonlyMap<string, unknown> =
    blobNames instanceof Map || blobNames instanceof Set ? blobNames : new Set(blobNames as Iterable<string>);
  let found = 0;
  for (const ref of refs) {
    if (names.has(ref)) found++;
    else issues.push({ path: `blobs/${ref}`, code: 'E_BLOB', message: `blob ${ref} is referenced but missing` });
  }
  // The refs are distinct: when every name was found among them, none is unreferenced.
  if (found < names.size) {
    const refSet = new Set(refs);
    // The unreferenced names in sorted order: only they are sorted, not every name.
    const unreferenced: string[] = [];
    for (const name of names.keys()) if (!refSet.has(name)) unreferenced.push(name);
    for (const name of unreferenced.sort()) {
      issues.push({ path: `blobs/${name}`, code: 'E_BLOB', message: `blob ${name} is not referenced by any node` });
    }
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
    checkBlobRefs(graph, blobs);
  } catch (err) {
    const more = (err as { details?: { issues?: Issue[] } }).details?.issues ?? [];
    issues.push(...more);
  }
  if (issues.length) throw errorFromIssues(issues);
}
