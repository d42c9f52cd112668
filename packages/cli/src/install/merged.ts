/**
 * `.ctxpkg/graph/merged.json`: the deterministic merged graph of every installed package
 * (spec/merge.md), with its inputs and conflicts. Derived data: rebuilt from verified packages
 * whenever the installed artifacts change, and reused only when `.ctxpkg/verified.json` — sealed
 * to this user (seal.ts) — records that this exact text was built from exactly these artifacts.
 * A merged.json committed to a repository (or edited by hand) is therefore never delivered: it
 * does not match a sealed record, so the install rebuilds it from the verified store bytes.
 */
import { createHash } from 'node:crypto';
import { existsSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { mergeGraphs, type MergedGraph, type MergeInput } from '@ctxpkg/format';
import { readBlob } from '../blob-store.js';
import { readTextIfExists, writeFileAtomic } from '../fsutil.js';
import { PROJECT_FILES } from '../paths.js';
import { expandBlobContent } from './blob-content.js';
import type { VerifiedEntry } from './types.js';
import type { VerifiedRecord } from './verified.js';

export interface MergeSummary {
  /** False when merged.json already described exactly these inputs. */
  rebuilt: boolean;
  nodes: number;
  edges: number;
  /** Node ids new relative to the previous merged graph, sorted. */
  nodesAdded: string[];
  /** Qualified ids of superseded nodes, sorted. */
  superseded: string[];
  /**
   * Nodes superseded by a node of another package (any package may supersede any installed node
   * by qualified id, spec/merge.md §5, a pinned one included): `node` and the superseding ids
   * `by` of other packages, sorted by node. The install report names each one.
   */
  supersededAcross: Array<{ node: string; by: string[] }>;
  conflicts: MergedGraph['conflicts'];
}

function parseMerged(text: string | undefined): MergedGraph | undefined {
  if (text === undefined) return undefined;
  try {
    const g = JSON.parse(text) as MergedGraph;
    return g && g.format === 'ctxpkg-merged-v1' && Array.isArray(g.nodes) ? g : undefined;
  } catch {
    return undefined;
  }
}

const sha256Text = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');

/** Nodes of `g` superseded by another package's node, with those superseders (see `MergeSummary`). */
export function supersededAcross(g: MergedGraph): MergeSummary['supersededAcross'] {
  const pkgOf = new Map(g.nodes.map((n) => [n.id, n.package]));
  const out: MergeSummary['supersededAcross'] = [];
  for (const n of g.nodes) {
    const by = (n.superseded_by ?? []).filter((s) => pkgOf.get(s) !== n.package);
    if (by.length > 0) out.push({ node: n.id, by: [...by].sort() });
  }
  return out.sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
}

/** The artifact list a merged graph is bound to: sorted `name@version sha256` lines. */
export function mergedInputs(entries: readonly VerifiedEntry[]): string[] {
  return entries.map((e) => `${e.name}@${e.version} ${e.artifact_sha256}`).sort();
}

/**
 * Merge the installed packages' graphs and write merged.json atomically, unless `sealed` (the
 * merged binding of an opened verified record) shows that the current merged.json text was built
 * from exactly these artifacts. `load` parses an entry that came without its graph (a vouched
 * store artifact). Nodes with `blob_ref` get their delivered content from the blob store
 * (`expandBlobContent`; every blob must be stored first, else `E_BLOB`). Returns the summary and
 * the binding to record. The legacy unsealed `.ctxpkg/graph/sources.json` is removed.
 */
export async function rebuildMergedGraph(
  root: string,
  entries: VerifiedEntry[],
  load: (e: VerifiedEntry) => Promise<{ graph: NonNullable<VerifiedEntry['graph']>; content_hash: string }>,
  sealed: VerifiedRecord['merged'],
): Promise<{ summary: MergeSummary; binding: NonNullable<VerifiedRecord['merged']> }> {
  const legacy = join(root, PROJECT_FILES.dir, 'graph', 'sources.json');
  if (existsSync(legacy)) unlinkSync(legacy);
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const inputsList = mergedInputs(sorted);
  const path = join(root, PROJECT_FILES.mergedGraph);
  const text = readTextIfExists(path);
  const trusted = sealed && text !== undefined && sha256Text(text) === sealed.sha256 ? parseMerged(text) : undefined;
  const superseded = (g: MergedGraph): string[] => g.nodes.filter((n) => (n.superseded_by?.length ?? 0) > 0).map((n) => n.id);
  if (trusted && sealed && sealed.inputs.join('\n') === inputsList.join('\n')) {
    return {
      summary: { rebuilt: false, nodes: trusted.nodes.length, edges: trusted.edges.length, nodesAdded: [], superseded: superseded(trusted), supersededAcross: supersededAcross(trusted), conflicts: trusted.conflicts },
      binding: sealed,
    };
  }
  const inputs: MergeInput[] = [];
  for (const e of sorted) {
    const g = e.graph ? { graph: e.graph, content_hash: e.content_hash } : await load(e);
    // Nodes with blob_ref carry a preview of the blob and its file path (blob-content.ts).
    const graph = expandBlobContent(g.graph, (ref) => readBlob(root, ref), `${e.name}@${e.version}`);
    inputs.push({ package: e.name, version: e.version, content_hash: g.content_hash, graph });
  }
  let merged: ReturnType<typeof mergeGraphs>;
  try {
    // The previous graph only feeds the report (nodes added); an unsealed one is not used at all.
    merged = mergeGraphs(inputs, trusted ? { previous: trusted } : {});
  } catch (err) {
    if (!trusted) throw err;
    merged = mergeGraphs(inputs);
  }
  const { graph, report } = merged;
  const out = JSON.stringify(graph, null, 2) + '\n';
  writeFileAtomic(path, out);
  return {
    summary: { rebuilt: true, nodes: graph.nodes.length, edges: graph.edges.length, nodesAdded: report.nodes_added, superseded: report.nodes_superseded, supersededAcross: supersededAcross(graph), conflicts: graph.conflicts },
    binding: { inputs: inputsList, sha256: sha256Text(out) },
  };
}

/** Read merged.json (for `why`, `ls`), or undefined. */
export function readMergedGraph(root: string): MergedGraph | undefined {
  return parseMerged(readTextIfExists(join(root, PROJECT_FILES.mergedGraph)));
}
