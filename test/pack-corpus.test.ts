/**
 * The renderer over packs built from the real instruction files in ../shared/corpus (skipped
 * with a printed reason when absent): each file is imported with the create importers, merged
 * (with `mergeGraphs` when the format exports it, else by qualifying ids the way the merge
 * does), and compiled under several budgets and both formats.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import * as format from '@ctxpkg/format';
import { buildSearchIndex, compilePack, scanSecrets, searchIndex, type ContextGraph, type MergedGraph } from '@ctxpkg/format';
import { buildGraph, detectKind } from '../packages/cli/src/importers/index.js';
import { describeShared, SHARED_DIR } from './support/shared.js';

const CORPUS = join(SHARED_DIR, 'corpus');
const NOW = '2025-06-01T00:00:00Z';

function corpusFiles(): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const f of readdirSync(d).sort()) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (f !== 'SOURCES.md') out.push(relative(CORPUS, p).split('\\').join('/'));
    }
  };
  walk(CORPUS);
  return out;
}

function merged(pkg: string, g: ContextGraph): MergedGraph {
  const input = { package: pkg, version: '1.0.0', content_hash: '0'.repeat(64), graph: g };
  const fn = (format as unknown as { mergeGraphs?: (i: unknown[]) => { graph: MergedGraph } }).mergeGraphs;
  if (fn) return fn([input]).graph;
  const q = (id: string): string => `${pkg}#${id}`;
  return {
    format: 'ctxpkg-merged-v1',
    inputs: [{ package: pkg, version: '1.0.0', content_hash: input.content_hash }],
    nodes: g.nodes.map((n) => ({ ...n, id: q(n.id), package: pkg, version: '1.0.0', local_id: n.id, ...(n.supersedes ? { supersedes: q(n.supersedes) } : {}) })).sort((a, b) => (a.id < b.id ? -1 : 1)),
    edges: g.edges.map((e) => ({ ...e, from: q(e.from), to: q(e.to), packages: [pkg] })),
    conflicts: [],
  };
}

describeShared('context packs over ../shared/corpus', () => {
  const files = corpusFiles();
  it('finds the corpus', () => expect(files.length).toBeGreaterThanOrEqual(6));

  files.forEach((file, i) => {
    it(file, () => {
      const text = readFileSync(join(CORPUS, file), 'utf8');
      const kind = detectKind(file) ?? 'markdown';
      const g = merged(`@corpus/f${i}`, buildGraph([{ path: file, kind, text }]));
      const read = (p: string): string | null => (p === file ? text : null);
      const items = g.nodes.filter((n) => n.type !== 'section' && n.type !== 'scope');
      expect(items.length).toBeGreaterThan(3);
      for (const fmt of ['md', 'json'] as const) {
        for (const maxBytes of [2048, 8192, 32768, 1 << 20]) {
          const p = compilePack({ graph: g, maxBytes, now: NOW, format: fmt, read });
          expect(Buffer.byteLength(p.text)).toBe(p.bytes);
          expect(p.bytes).toBeLessThanOrEqual(maxBytes);
          expect(p.receipt.counts.delivered + p.receipt.counts.suppressed).toBe(items.length);
          expect(scanSecrets(p.text)).toEqual([]);
          // Everything is fresh against the very files it came from.
          expect(p.receipt.counts.flagged).toBe(0);
          if (fmt === 'json') JSON.parse(p.text);
          if (maxBytes === 1 << 20) expect(p.receipt.omissions).toEqual([]);
          // The package heading names package@version once; the file's provenance line names the file and line range.
          if (fmt === 'md' && p.receipt.counts.delivered > 0) expect(p.text).toContain(`\n## @corpus/f${i}@1.0.0\n`);
          if (fmt === 'md' && p.receipt.counts.delivered > 0) expect(p.text).toMatch(new RegExp(`\\n<!-- ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1(-\\d+)? -->\\n`));
        }
      }
      // Edit the line of the first delivered leaf: exactly the nodes covering it turn stale.
      const target = items.find((n) => n.line_start === n.line_end && (n.content.length ?? 0) > 10)!;
      const lines = text.split('\n');
      lines[(target.line_start as number) - 1] += ' (edited)';
      const edited = lines.join('\n');
      // (freshness 'all': a one-line legacy file has no untouched line left to anchor 'auto')
      const p = compilePack({ graph: g, maxBytes: 1 << 20, now: NOW, read: (q) => (q === file ? edited : null), policy: { freshness: 'all' } });
      const stale = p.receipt.delivered.filter((d) => d.flags.includes('stale')).map((d) => d.id);
      expect(stale).toContain(target.id);
      for (const id of stale) {
        const n = g.nodes.find((x) => x.id === id)!;
        expect((n.line_start as number) <= (target.line_start as number) && (target.line_start as number) <= (n.line_end as number)).toBe(true);
      }
      // The MCP search finds the node by its own words.
      const idx = buildSearchIndex(g, { nowMs: Date.parse(NOW) });
      const words = target.content.split(/\s+/).filter((w) => /^[A-Za-z]{5,}$/.test(w)).slice(0, 3).join(' ');
      if (words) expect(searchIndex(idx, words).results.map((r) => idx.docs[r.doc]!.id)).toContain(target.id);
    });
  });
});
