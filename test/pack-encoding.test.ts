/**
 * The Markdown encoding of packs (spec/pack.md §8) end to end from instruction files: importer →
 * merge → compiler.
 *
 * - Goldens from our own fixtures (`fixtures/encoding/`): a full pack, a tight one, and JSON.
 *   Regenerate deliberately with `UPDATE_GOLDEN=1 npx vitest run test/pack-encoding.test.ts` and
 *   review the diff: a change here changes what agents read.
 * - Structure and size over the real files in ../shared/corpus (read at run time, never copied):
 *   every source line is in the pack verbatim, headings once and in order, nodes in source order,
 *   no lead-in without its block, the size ratio, determinism.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compilePack, mergeGraphs, receiptText, STRUCTURAL_TYPES, type MergedGraph } from '@ctxpkg/format';
import { buildGraph, detectKind } from '../packages/cli/src/importers/index.js';
import { corpusDir, corpusFiles, corpusGraph, corpusReader } from '../bench/render/corpus.js';
import { describeShared, REPO_ROOT, SHARED_DIR } from './support/shared.js';

const NOW = '2025-06-01T00:00:00Z';
const FIX = join(REPO_ROOT, 'fixtures', 'encoding');
const GOLDEN = join(FIX, 'golden');

const read = (rel: string): string => readFileSync(join(FIX, rel), 'utf8');
const SOURCES = {
  '@acme/rules': { 'AGENTS.md': read('acme-rules/AGENTS.md'), '.cursor/rules/api.mdc': read('acme-rules/.cursor/rules/api.mdc') },
  '@acme/legacy': { '.cursorrules': read('legacy.cursorrules') },
} as const;

function fixtureGraph(): MergedGraph {
  return mergeGraphs(
    Object.entries(SOURCES).map(([pkg, files]) => ({
      package: pkg,
      version: '1.2.0',
      content_hash: '0'.repeat(64),
      graph: buildGraph(Object.entries(files).map(([path, text]) => ({ path, kind: detectKind(path) ?? 'markdown', text })), { package: pkg }),
    })),
  ).graph;
}

const readSource = (p: string): string | null => {
  for (const files of Object.values(SOURCES)) if (p in files) return (files as Record<string, string>)[p] as string;
  return null;
};

/**
 * Lines of a source that must appear verbatim in a full pack: all but headings (their level
 * moves), frontmatter, thematic breaks (no content), blank lines and run-on lines (split).
 */
function verbatimLines(text: string): string[] {
  const lines = text.split('\n');
  let start = 0;
  if (lines[0] === '---') start = lines.indexOf('---', 1) + 1;
  return lines.slice(start).filter((l) => l.trim() !== '' && !/^#{1,6} /.test(l) && !/^\s*(-{3,}|\*{3,}|_{3,})\s*$/.test(l) && l.length <= 300);
}

describe('Markdown encoding goldens (fixtures/encoding)', () => {
  const g = fixtureGraph();
  const cases = [
    { name: 'full.md', input: { maxBytes: 64 * 1024, receipt: true } },
    { name: 'tight.md', input: { maxBytes: 1400 } },
    { name: 'full.json', input: { maxBytes: 64 * 1024, format: 'json' as const, receipt: true } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = compilePack({ graph: g, now: NOW, read: readSource, ...c.input });
      const files = { [c.name]: p.text, [`${c.name}.receipt.json`]: receiptText(p.receipt) };
      for (const [file, text] of Object.entries(files)) {
        const path = join(GOLDEN, file);
        if (process.env.UPDATE_GOLDEN === '1') {
          mkdirSync(GOLDEN, { recursive: true });
          writeFileSync(path, text);
        }
        if (!existsSync(path)) throw new Error(`golden file ${file} is missing; run with UPDATE_GOLDEN=1 and review it`);
        expect(text, file).toBe(readFileSync(path, 'utf8'));
      }
      expect(p.bytes).toBeLessThanOrEqual(c.input.maxBytes);
    });
  }

  it('a full pack holds every source line verbatim, in source order, and no ids or time', () => {
    const p = compilePack({ graph: g, maxBytes: 64 * 1024, now: NOW, read: readSource });
    expect(p.receipt.counts.suppressed).toBe(0);
    const packLines = p.text.split('\n');
    for (const [, files] of Object.entries(SOURCES)) {
      for (const [path, text] of Object.entries(files)) {
        let at = -1;
        for (const line of verbatimLines(text)) {
          const found = packLines.indexOf(line, at + 1);
          expect(found, `${path}: ${line}`).toBeGreaterThan(at);
          at = found;
        }
      }
    }
    expect(p.text).not.toMatch(/~[0-9a-f]{8}/); // no importer ids
    expect(p.text).not.toContain('2025');
    // The run-on line's pieces keep their order.
    const legacy = SOURCES['@acme/legacy']['.cursorrules'];
    const pieces = ['You are an expert', 'Key Principles', 'Error Handling - Fail early:', 'Refer to the README'];
    const at = pieces.map((x) => p.text.indexOf(x));
    expect(at.every((v, i) => v > 0 && (i === 0 || v > (at[i - 1] as number)))).toBe(true);
    expect(legacy.split('  ').length).toBeGreaterThan(4);
  });

  it('tight budgets never deliver a lead-in without its block', () => {
    for (let max = 900; max <= 2400; max += 50) {
      const p = compilePack({ graph: g, maxBytes: max, now: NOW, read: readSource });
      const delivered = new Set(p.receipt.delivered.map((d) => d.id));
      for (const n of g.nodes) {
        if (!delivered.has(n.id) || STRUCTURAL_TYPES.has(n.type)) continue;
        if (/:\**$/.test(n.content.trim())) expect(n.content.split('\n').length, `${max}: ${n.content}`).toBeGreaterThan(1);
      }
      if (delivered.size > 0) {
        const lead = g.nodes.find((n) => n.content.startsWith('Before you push, run:'))!;
        if (delivered.has(lead.id)) expect(p.text).toContain('Before you push, run:\n\n```sh\nnpm ci --frozen-lockfile\n');
      }
    }
  });
});

describe('headings nested deeper than Markdown has levels', () => {
  it('a section below ###### is a bold line, so it does not read as a sibling of its parent', () => {
    const text = '# Guide\n\n## A\n\n### B\n\n#### C\n\nUnder C.\n\n##### D\n\nUnder D.\n\n###### E\n\nUnder E.\n';
    const graph = mergeGraphs([{ package: '@acme/deep', version: '1.0.0', content_hash: '0'.repeat(64), graph: buildGraph([{ path: 'AGENTS.md', kind: 'markdown', text }], { package: '@acme/deep' }) }]).graph;
    const md = compilePack({ graph, maxBytes: 64 * 1024, now: NOW, read: (p) => (p === 'AGENTS.md' ? text : null) }).text;
    const headings = md.split('\n').filter((l) => /^(#{1,6} |\*\*)/.test(l));
    expect(headings).toEqual(['# Context pack (ctxpkg)', '## @acme/deep@1.0.0', '### Guide', '#### A', '##### B', '###### C', '**D**', '**E**']);
    for (const under of ['Under C.', 'Under D.', 'Under E.']) expect(md).toContain(under);
  });
});

describeShared('Markdown encoding over ../shared/corpus', () => {
  const dir = corpusDir(SHARED_DIR) as string;
  const files = corpusFiles(dir);
  const graph = corpusGraph(files);
  const reader = corpusReader(files);
  const full = compilePack({ graph, maxBytes: 64 * 1024 * 1024, now: NOW, read: reader, receipt: true });
  const packLines = full.text.split('\n');

  it('a full render is at most 1.15× the source bytes (bench:render prints the figures)', () => {
    const source = files.reduce((s, f) => s + f.bytes, 0);
    expect(full.receipt.counts.suppressed).toBe(0);
    expect(full.bytes / source).toBeLessThanOrEqual(1.15);
  });

  for (const f of files) {
    it(`${f.corpusPath}: every source line verbatim in source order, each heading once`, () => {
      const start = packLines.indexOf(`## ${f.package}@1.0.0`);
      expect(start).toBeGreaterThan(0);
      let at = start;
      for (const line of verbatimLines(f.text)) {
        const found = packLines.indexOf(line, at + 1);
        expect(found, line).toBeGreaterThan(at);
        at = found;
      }
      // Headings outside code: each once, in the source's order, under its package.
      let fence = false;
      const headings: string[] = [];
      for (const l of f.text.split('\n')) {
        if (/^\s*(```|~~~)/.test(l)) fence = !fence;
        else if (!fence && /^#{1,6} /.test(l)) headings.push(l.replace(/^#+\s+/, '').trim());
      }
      let h = start;
      for (const title of headings) {
        const found = packLines.findIndex((l, i) => i > h && /^#{3,6} /.test(l) && l.replace(/^#+\s+/, '') === title);
        expect(found, title).toBeGreaterThan(h);
        expect(packLines.filter((l) => /^#{3,6} /.test(l) && l.replace(/^#+\s+/, '') === title).length, title).toBe(headings.filter((x) => x === title).length);
        h = found;
      }
    });
  }

  it('no node is a lead-in without its block, and a render is deterministic', () => {
    for (const n of graph.nodes) {
      if (STRUCTURAL_TYPES.has(n.type) || !/:\**$/.test(n.content.trim())) continue;
      // A paragraph ending in ':' stands alone only when no list, code or table follows it.
      const next = graph.nodes.find((m) => m.package === n.package && m.file_path === n.file_path && m.line_start === (n.line_end as number) + 2);
      if (next) expect(/^(\s*[-*+] |\s*\d+[.)] |\s*```|\s*\|)/.test(next.content), `${n.id}: ${n.content}`).toBe(false);
    }
    const again = compilePack({ graph: corpusGraph(files), maxBytes: 64 * 1024 * 1024, now: '2031-01-01T00:00:00Z', read: reader, receipt: true });
    expect(again.text).toBe(full.text);
  });
});
