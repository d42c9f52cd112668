/**
 * Size of a full render against the source files (issue 17 item 1): the packages made from
 * `../shared/corpus` (`corpus.ts`), rendered whole in Markdown, compared with the bytes of their
 * source files. Per corpus file: the bytes of that file's part of the pack (its package header,
 * file and heading headers, provenance lines and nodes; `layoutItems`) over the file's bytes.
 * Total: the whole pack (frame included) over all source bytes. Target: total ≤ 1.15×.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSearchIndex, compareOutput, compilePack, layoutItems, renderMarkdown, utf8Length } from '@ctxpkg/format';
import { corpusDir, corpusFiles, corpusGraph, corpusReader } from './corpus.js';
import { verdict } from '../smoke.js';

const NOW = '2025-06-01T00:00:00Z';
/** Target of the full-render ratio (issue 17). */
export const RATIO_TARGET = 1.15;

/** The shared folder: `$CTXPKG_SHARED_DIR`, else `<repo>/../shared` (as test/support/shared.ts). */
export function sharedDir(): string {
  return process.env.CTXPKG_SHARED_DIR ?? resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared');
}

/** Print the ratio per corpus file and in total; returns the total ratio (undefined without a corpus). */
export function printCorpusRatio(): number | undefined {
  const dir = corpusDir(sharedDir());
  if (!dir) {
    console.log(`corpus ratio: skipped (${join(sharedDir(), 'corpus')} is absent; set CTXPKG_SHARED_DIR)`);
    return undefined;
  }
  const files = corpusFiles(dir);
  const graph = corpusGraph(files);
  const full = compilePack({ graph, maxBytes: 64 * 1024 * 1024, now: NOW, read: corpusReader(files), receipt: true });
  if (full.receipt.counts.suppressed > 0) throw new Error(`bench: the full render omitted ${full.receipt.counts.suppressed} nodes`);
  const items = buildSearchIndex(graph, { nowMs: Date.parse(NOW) }).items;
  let source = 0;
  for (const f of files) {
    const mine = items.filter((it) => it.package === f.package && it.file_path === f.path);
    const part = utf8Length(layoutItems(renderMarkdown, mine, compareOutput).text);
    source += f.bytes;
    console.log(`corpus ${f.corpusPath.padEnd(56)} source ${String(f.bytes).padStart(6)} B  pack part ${String(part).padStart(6)} B  = ${(part / f.bytes).toFixed(3)}×  (${mine.length} nodes)`);
  }
  const ratio = full.bytes / source;
  console.log(
    `corpus full render (${files.length} files, ${full.receipt.counts.delivered} nodes, frame included): ${full.bytes} B / ${source} B source = ${ratio.toFixed(3)}×  ` +
      `→ ${verdict(ratio <= RATIO_TARGET, 'PASS', 'FAIL')} (target: ≤ ${RATIO_TARGET}×)`,
  );
  return ratio;
}
