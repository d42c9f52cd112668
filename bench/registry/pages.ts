/**
 * Server render time of the registry's pages (issue 14), a section of `npm run bench:registry`.
 *
 * In process (`app.request`, no socket): a registry filled from ../shared/corpus by the page
 * tests' fixture (test/support/pages-fixture.ts), then for each page type one cold request on a
 * fresh app (empty content and layout caches: the package is read, verified and laid out) and
 * WARM requests on a warm one; median and p95 in ms, page bytes, and the warm median as a multiple
 * of the floor measured in the same run: `GET /v1/packages/…/{version}` of the same package (the
 * API's JSON for one version: the same store reads, no page). Without ../shared the section is
 * skipped with a printed reason.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, openSqliteStore } from '@ctxpkg/registry';
import { fillPagesRegistry } from '../../test/support/pages-fixture.js';
import { HAS_SHARED, SHARED_DIR } from '../../test/support/shared.js';
import { sized, SMOKE } from '../smoke.js';

const WARM = sized(Number(process.env.BENCH_PAGE_REQUESTS ?? 40), 3);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Times `n` sequential requests of `url`; returns sorted ms and the last body size in bytes. */
async function time(app: ReturnType<typeof createApp>, url: string, n: number): Promise<{ ms: number[]; bytes: number; status: number }> {
  const ms: number[] = [];
  let bytes = 0;
  let status = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await app.request(`http://bench.test${url}`);
    const body = await res.arrayBuffer();
    ms.push(performance.now() - t0);
    bytes = body.byteLength;
    status = res.status;
  }
  return { ms: ms.sort((a, b) => a - b), bytes, status };
}

export async function pagesBench(): Promise<void> {
  if (!HAS_SHARED) {
    console.log(`pages: [skip] ${SHARED_DIR} is absent: the pages section reads the corpus; set CTXPKG_SHARED_DIR to run it`);
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), 'ctxpkg-bench-pages-'));
  const store = await openSqliteStore({ dataDir: dir });
  try {
    const fillApp = createApp({ store });
    const t0 = performance.now();
    const f = await fillPagesRegistry(store, fillApp, { small: SMOKE });
    const p = (full: string) => full.slice(1);
    console.log(`pages bench: ${SMOKE ? 'small' : 'corpus'} registry filled in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${WARM} warm requests per page, in process`);
    const warmApp = createApp({ store });
    const nodeUrl = `/ui/node/${p(f.changed)}/1.1.0?id=${encodeURIComponent('agentsmd/AGENTS.md:3-coding-conventions')}`;
    const pages: Array<[string, string]> = [
      ['home', '/ui/'],
      ['search', '/ui/search?q=tests'],
      ['namespace', '/ui/ns/corpus'],
      ['package (16 nodes)', `/ui/pkg/${p(f.changed)}`],
      ...(f.all !== f.big ? [['package (425 nodes)', `/ui/pkg/${p(f.all)}`] as [string, string]] : []),
      ['package (1,000 nodes)', `/ui/pkg/${p(f.big)}`],
      ['node', nodeUrl],
      ['graph (16 nodes)', `/ui/graph/${p(f.changed)}/1.1.0`],
      ['graph (1,000 nodes)', `/ui/graph/${p(f.big)}/1.0.0`],
      ['diff', `/ui/diff/${p(f.changed)}`],
      ['login', '/ui/login'],
      ['not found (private)', '/ui/pkg/acme/secret-rules'],
    ];
    const floor = await time(warmApp, `/v1/packages/${p(f.changed)}/1.1.0`, WARM + 1);
    const floorMedian = percentile(floor.ms.slice(1), 50);
    const rows = [];
    let slowest = { page: '', ms: 0 };
    for (const [page, url] of pages) {
      const cold = await time(createApp({ store }), url, 1);
      await time(warmApp, url, 1);
      const warm = await time(warmApp, url, WARM);
      const median = percentile(warm.ms, 50);
      if (median > slowest.ms) slowest = { page, ms: median };
      if (warm.status !== 200 && !page.startsWith('not found')) throw new Error(`${page}: status ${warm.status}`);
      rows.push({
        page,
        KB: Number((warm.bytes / 1000).toFixed(1)),
        'cold ms': Number(cold.ms[0].toFixed(1)),
        'warm p50 ms': Number(median.toFixed(2)),
        'warm p95 ms': Number(percentile(warm.ms, 95).toFixed(2)),
        '× floor': Number((median / floorMedian).toFixed(1)),
      });
    }
    console.table(rows);
    console.log(`pages: floor (version JSON of the same package) p50 ${floorMedian.toFixed(2)} ms; slowest warm page: ${slowest.page} p50 ${slowest.ms.toFixed(2)} ms`);
    await rm(f.workDir, { recursive: true, force: true });
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}
