/**
 * `ctxpkg render` on budgets too small for the frame: the error names the smallest budget that
 * works, in the unit of the flag used (spec/pack.md §4), and that budget then works.
 */
import { mkdirSync, readdirSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unlinkPinned } from '../fsutil.js';
import { pruneReceipts, RECEIPTS_KEPT } from './render.js';
import { makeProject, mgraph, mnode, run } from '../targets/__tests__/harness.js';

const project = () => makeProject({ graph: mgraph([mnode('@acme/a', 'g', { type: 'gotcha', content: 'Never log tokens.' }), mnode('@acme/a', 'f')]) });

describe('ctxpkg render: E_BUDGET names the minimum', () => {
  it('--max-bytes: the smallest budget that works, which then works', async () => {
    const root = project();
    const r = await run(['render', '--max-bytes', '40'], root);
    expect(r.code).toBe(1);
    const m = /the smallest budget that works is (\d+) bytes/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    const need = Number(m?.[1]);
    expect((await run(['render', '--max-bytes', String(need)], root)).code).toBe(0);
    expect((await run(['render', '--max-bytes', String(need - 1)], root)).code).toBe(1);
  });

  it('--max-tokens: says it in tokens too', async () => {
    const root = project();
    const r = await run(['render', '--max-tokens', '10'], root);
    expect(r.code).toBe(1);
    const m = /the smallest that works is --max-tokens (\d+)\)/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    expect(r.stderr).toContain(`hint: use --max-tokens ${m?.[1]} or more`);
    expect((await run(['render', '--max-tokens', String(m?.[1])], root)).code).toBe(0);
    expect((await run(['render', '--max-tokens', String(Number(m?.[1]) - 1)], root)).code).toBe(1);
  });
});

describe('ctxpkg render: receipts of packs written to stdout', () => {
  it('keeps the newest RECEIPTS_KEPT in .ctxpkg/receipts, never sync.json (new-user trial 3, finding 10)', async () => {
    const root = project();
    const dir = join(root, '.ctxpkg', 'receipts');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'sync.json'), '{}\n');
    // Older receipts of other packs (distinct names, ascending ages), and a file of another name.
    const old = Array.from({ length: RECEIPTS_KEPT + 5 }, (_, i) => `${String(i).padStart(2, '0')}${'a'.repeat(62)}.json`);
    old.forEach((name, i) => {
      writeFileSync(join(dir, name), '{}\n');
      const t = new Date(Date.UTC(2026, 0, 1, 0, i));
      utimesSync(join(dir, name), t, t);
    });
    writeFileSync(join(dir, 'notes.txt'), 'mine\n');
    const r = await run(['render', '--now', '2026-06-01T00:00:00Z'], root);
    expect(r.code, r.stderr).toBe(0);
    const left = readdirSync(dir).sort();
    const packs = left.filter((n) => /^[0-9a-f]{64}\.json$/.test(n));
    expect(packs).toHaveLength(RECEIPTS_KEPT);
    // The receipt just written is kept, with the newest of the others; the oldest are gone.
    const written = packs.filter((n) => !old.includes(n));
    expect(written).toHaveLength(1);
    expect(packs.filter((n) => old.includes(n))).toEqual(old.slice(old.length - (RECEIPTS_KEPT - 1)).sort());
    expect(left).toContain('sync.json');
    expect(left).toContain('notes.txt');
  });

  it('never removes files through a symbolic link: .ctxpkg/receipts pointing elsewhere is left alone', async () => {
    const root = project();
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere);
    const names = Array.from({ length: RECEIPTS_KEPT + 3 }, (_, i) => `${String(i).padStart(2, '0')}${'c'.repeat(62)}.json`);
    for (const n of names) writeFileSync(join(elsewhere, n), '{}\n');
    mkdirSync(join(root, '.ctxpkg'), { recursive: true });
    symlinkSync(elsewhere, join(root, '.ctxpkg', 'receipts'));
    // The receipt is not written through the link (the render fails with a clear error) …
    const r = await run(['render', '--now', '2026-06-01T00:00:00Z'], root);
    expect(r.code).not.toBe(0);
    expect(readdirSync(elsewhere).filter((n) => names.includes(n))).toHaveLength(names.length);
    // … and the pruning itself, given the CLI's remover, deletes nothing through it.
    pruneReceipts(join(root, ".ctxpkg", "receipts"), 0, unlinkPinned);
    expect(readdirSync(elsewhere).filter((n) => names.includes(n))).toHaveLength(names.length);
  });

  it('pruneReceipts leaves a directory with fewer receipts alone', () => {
    const root = project();
    const dir = join(root, '.ctxpkg', 'receipts');
    mkdirSync(dir, { recursive: true });
    const name = `${'b'.repeat(64)}.json`;
    writeFileSync(join(dir, name), '{}\n');
    pruneReceipts(dir, 1, unlinkSync);
    expect(readdirSync(dir)).toEqual([name]);
    pruneReceipts(dir, 0, unlinkSync);
    expect(readdirSync(dir)).toEqual([]);
    pruneReceipts(join(root, 'missing'), 0, unlinkSync);
  });
});
