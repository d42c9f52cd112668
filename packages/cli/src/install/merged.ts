/**
 * `.ctxpkg/graph/merged.json`: the deterministic merged graph of every installed package
 * (spec/merge.md), with its inputs and conflicts. Derived data: rebuilt from the store whenever
 * the set of installed packages changes, and skipped when its recorded inputs already match.
 */
import { join } from 'node:path';
import { mergeGraphs, type MergedGraph, type MergeInput } from '@ctxpkg/format';
import { readBlob } from '../blob-store.js';
import { readTextIfExists, writeFileAtomic } from '../fsutil.js';
import { PROJECT_FILES } from '../paths.js';
import { expandBlobContent } from './blob-content.js';
import type { VerifiedEntry } from './types.js';

export interface MergeSummary {
  /** False when merged.json already described exactly these inputs. */
  rebuilt: boolean;
  nodes: number;
  edges: number;
  /** Node ids new relative to the previous merged graph, sorted. */
  nodesAdded: string[];
  /** Qualified ids of superseded nodes, sorted. */
  superseded: string[];
  conflicts: MergedGraph['conflicts'];
}

function readPrevious(root: string): MergedGraph | undefined {
  const text = readTextIfExists(join(root, PROJECT_FILES.mergedGraph));
  if (text === undefined) return undefined;
  try {
    const g = JSON.parse(text) as MergedGraph;
    return g && g.format === 'ctxpkg-merged-v1' && Array.isArray(g.nodes) ? g : undefined;
  } catch {
    return undefined;
  }
}

function sameInputs(a: MergedGraph['inputs'], b: MergedGraph['inputs']): boolean {
  return a.length === b.length && a.every((x, i) => x.package === b[i].package && x.version === b[i].version && x.content_hash === b[i].content_hash);
}

/** Where the artifact hashes that merged.json was built from are recorded (derived, like it). */
function sourcesPath(root: string): string {
  return join(root, PROJECT_FILES.dir, 'graph', 'sources.json');
}

/**
 * Merge the installed packages' graphs and write merged.json atomically when the set of
 * installed artifacts changed (recorded in `.ctxpkg/graph/sources.json`). `load` parses an entry
 * that came without its graph (a pinned store artifact). Nodes with `blob_ref` get their
 * delivered content from the blob store (`expandBlobContent`; every blob must be stored first,
 * else `E_BLOB`).
 */
export async function rebuildMergedGraph(
  root: string,
  entries: VerifiedEntry[],
  load: (e: VerifiedEntry) => Promise<{ graph: NonNullable<VerifiedEntry['graph']>; content_hash: string }>,
): Promise<MergeSummary> {
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const sources = JSON.stringify(sorted.map((e) => `${e.name}@${e.version} ${e.artifact_sha256}`));
  const previous = readPrevious(root);
  if (previous && readTextIfExists(sourcesPath(root)) === sources && previous.inputs.length === sorted.length) {
    const superseded = previous.nodes.filter((n) => (n.superseded_by?.length ?? 0) > 0).map((n) => n.id);
    return { rebuilt: false, nodes: previous.nodes.length, edges: previous.edges.length, nodesAdded: [], superseded, conflicts: previous.conflicts };
  }
  const inputs: MergeInput[] = [];
  for (const e of sorted) {
    const g = e.graph && e.content_hash ? { graph: e.graph, content_hash: e.content_hash } : await load(e);
    // Nodes with blob_ref carry a preview of the blob and its file path (blob-content.ts).
    const graph = expandBlobContent(g.graph, (ref) => readBlob(root, ref), `${e.name}@${e.version}`);
    inputs.push({ package: e.name, version: e.version, content_hash: g.content_hash, graph });
  }
  const wanted = inputs.map((i) => ({ package: i.package, version: i.version, content_hash: i.content_hash }));
  const summary = (g: MergedGraph, rebuilt: boolean, nodesAdded: string[], superseded: string[]): MergeSummary => ({
    rebuilt,
    nodes: g.nodes.length,
    edges: g.edges.length,
    nodesAdded,
    superseded,
    conflicts: g.conflicts,
  });
  if (previous && sameInputs(previous.inputs, wanted)) {
    writeFileAtomic(sourcesPath(root), sources);
    const superseded = previous.nodes.filter((n) => (n.superseded_by?.length ?? 0) > 0).map((n) => n.id);
    return summary(previous, false, [], superseded);
  }
  let merged: ReturnType<typeof mergeGraphs>;
  try {
    merged = mergeGraphs(inputs, previous ? { previous } : {});
  } catch (err) {
    // merged.json is derived data: a damaged previous graph only costs the "added" report.
    if (!previous) throw err;
    merged = mergeGraphs(inputs);
  }
  const { graph, report } = merged;
  writeFileAtomic(join(root, PROJECT_FILES.mergedGraph), JSON.stringify(graph, null, 2) + '\n');
  writeFileAtomic(sourcesPath(root), sources);
  return summary(graph, true, report.nodes_added, report.nodes_superseded);
}

/** Read merged.json (for `why`, `ls`), or undefined. */
export function readMergedGraph(root: string): MergedGraph | undefined {
  return readPrevious(root);
}
