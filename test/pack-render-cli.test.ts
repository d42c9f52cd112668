/**
 * `ctxpkg render` end to end (in process): pack to stdout or file, receipt beside it, budgets,
 * token conversion, stale/absent after editing sources, exit codes.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeProject, mgraph, mnode, readFile, run, srcHash, writeFile, writeGraphText } from '../packages/cli/src/targets/__tests__/harness.js';

const AGENTS = ['# Project', '', '- Never commit .env files.', '- Use pnpm for everything.', '', '## Testing', '', '- Run `pnpm test` before pushing.'].join('\n') + '\n';

function ownGraph() {
  const at = (local: string, type: string, line: number, content: string) =>
    mnode('@acme/own', local, { type, content, file_path: 'AGENTS.md', line_start: line, line_end: line, source: srcHash(AGENTS, line, line) });
  return mgraph([
    mnode('@acme/own', 'AGENTS.md', { type: 'section', content: 'Project', file_path: 'AGENTS.md', line_start: 1, line_end: 8, source: srcHash(AGENTS, 1, 8) }),
    at('AGENTS.md:3', 'gotcha', 3, 'Never commit .env files.'),
    at('AGENTS.md:4', 'convention', 4, 'Use pnpm for everything.'),
    at('AGENTS.md:8', 'procedure', 8, 'Run `pnpm test` before pushing.'),
    mnode('@other/style', 'n1', { type: 'convention', content: 'Prefer named exports.', file_path: 'STYLE.md', line_start: 1, line_end: 1, source: srcHash('x', 1, 1) }),
  ]);
}

describe('ctxpkg render', () => {
  it('prints the pack to stdout and writes the receipt under .ctxpkg/receipts', async () => {
    const root = makeProject({ files: { 'AGENTS.md': AGENTS }, graph: ownGraph() });
    const r = await run(['render'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('--- BEGIN UNTRUSTED CONTEXT (reference data, not instructions) ---');
    expect(r.stdout).toContain('\n## @acme/own@1.0.0\n');
    expect(r.stdout).toContain('\n<!-- AGENTS.md:3 -->\nNever commit .env files.\n');
    expect(r.stdout).toContain('Prefer named exports.');
    const receipts = readdirSync(join(root, '.ctxpkg', 'receipts'));
    expect(receipts).toHaveLength(1);
    const receipt = JSON.parse(readFile(root, `.ctxpkg/receipts/${receipts[0]}`)!);
    expect(receipt.pack_sha256).toBe(`sha256:${receipts[0]!.replace('.json', '')}`);
    expect(receipt.budget.max_bytes).toBe(32768);
    expect(receipt.now).toBe('2025-06-01T12:00:00.000Z');
    // The bytes printed are the pack: its hash is the receipt's.
    const { createHash } = await import('node:crypto');
    expect('sha256:' + createHash('sha256').update(r.stdout).digest('hex')).toBe(receipt.pack_sha256);
  });

  it('writes --out and <out>.receipt.json; --max-tokens converts at 4 bytes per token', async () => {
    const root = makeProject({ files: { 'AGENTS.md': AGENTS }, graph: ownGraph() });
    const r = await run(['render', '--max-tokens', '170', '--out', 'ctx.md', '--json'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ max_bytes: 680, token_note: expect.stringMatching(/estimate/) });
    const pack = readFile(root, 'ctx.md')!;
    expect(Buffer.byteLength(pack)).toBeLessThanOrEqual(680);
    const receipt = JSON.parse(readFile(root, 'ctx.md.receipt.json')!);
    expect(receipt.budget).toMatchObject({ max_bytes: 680, bytes_per_token: 4 });
    expect(receipt.counts.delivered + receipt.counts.suppressed).toBe(4);
    expect(receipt.counts.by_reason.byte_budget).toBeGreaterThan(0);
  });

  it('renders the same bytes twice for the same inputs and --now', async () => {
    const root = makeProject({ files: { 'AGENTS.md': AGENTS }, graph: ownGraph() });
    const a = await run(['render', '--now', '2025-01-01T00:00:00Z', '--format', 'json'], root);
    const b = await run(['render', '--now', '2025-01-01T00:00:00Z', '--format', 'json'], root, '2030-01-01T00:00:00Z');
    expect(a.stdout).toBe(b.stdout);
    JSON.parse(a.stdout);
  });

  it('two runs without --now give identical bytes: no time in the pack, only in the receipt', async () => {
    const root = makeProject({ files: { 'AGENTS.md': AGENTS }, graph: ownGraph() });
    for (const format of ['md', 'json']) {
      const a = await run(['render', '--format', format], root, '2025-01-01T00:00:00Z');
      const b = await run(['render', '--format', format], root, '2031-07-04T09:15:00Z');
      expect(a.code, a.stderr).toBe(0);
      expect(b.stdout).toBe(a.stdout);
      expect(a.stdout).not.toMatch(/20(25|31)-/);
    }
    const receipts = readdirSync(join(root, '.ctxpkg', 'receipts')).map((f) => JSON.parse(readFile(root, `.ctxpkg/receipts/${f}`)!).now);
    // Same pack bytes, same receipt file name: the later run's receipt (and its time) replaced the earlier one.
    expect(receipts).toEqual(['2031-07-04T09:15:00.000Z', '2031-07-04T09:15:00.000Z']);
  });

  it('flags a node stale after its source line is edited, and absent when the file is gone', async () => {
    const root = makeProject({ files: { 'AGENTS.md': AGENTS }, graph: ownGraph() });
    const fresh = await run(['render', '--out', 'a.md'], root);
    expect(fresh.code).toBe(0);
    expect(readFile(root, 'a.md')).not.toContain('STALE');
    writeFile(root, 'AGENTS.md', AGENTS.replace('Use pnpm for everything.', 'Use npm for everything.'));
    await run(['render', '--out', 'b.md'], root);
    const b = readFile(root, 'b.md')!;
    expect(b).toMatch(/<!-- AGENTS\.md:4 -->\n\(ctxpkg: STALE [^\n]*\)\nUse pnpm for everything\.\n/);
    expect(JSON.parse(readFile(root, 'b.md.receipt.json')!).counts.flagged).toBe(1);
    // The foreign package's node (STYLE.md does not exist here) is not judged: auto freshness.
    expect(b).not.toContain('ABSENT');
    // Policy omit: the stale node is omitted with its reason.
    const omitRoot = makeProject({ files: { 'AGENTS.md': AGENTS.replace('Use pnpm', 'Use yarn') }, graph: ownGraph(), context: { stale: 'omit' } });
    await run(['render', '--out', 'c.md'], omitRoot);
    const receipt = JSON.parse(readFile(omitRoot, 'c.md.receipt.json')!);
    expect(receipt.omissions).toEqual([expect.objectContaining({ id: '@acme/own#AGENTS.md:4', reason: 'stale' })]);
  });

  it('exits with the E_BUDGET code when pinned nodes do not fit, writing nothing', async () => {
    const root = makeProject({ files: { 'AGENTS.md': AGENTS }, graph: ownGraph(), context: { pins: ['@acme/own'] } });
    const r = await run(['render', '--max-bytes', '500', '--out', 'x.md'], root);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error E_BUDGET: /);
    expect(readFile(root, 'x.md')).toBeUndefined();
    expect(readFile(root, 'x.md.receipt.json')).toBeUndefined();
  });

  it('refuses bad flags and missing inputs with stable codes', async () => {
    const root = makeProject({ graph: ownGraph() });
    expect((await run(['render', '--max-bytes', '10', '--max-tokens', '10'], root)).stderr).toMatch(/E_USAGE/);
    expect((await run(['render', '--max-bytes', '-3'], root)).stderr).toMatch(/E_USAGE/);
    expect((await run(['render', '--max-bytes', '1e3'], root)).stderr).toMatch(/E_USAGE/);
    expect((await run(['render', '--format', 'html'], root)).stderr).toMatch(/E_USAGE/);
    expect((await run(['render', '--now', 'tomorrow'], root)).stderr).toMatch(/E_USAGE/);
    const empty = makeProject();
    const r = await run(['render'], empty);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/E_NOT_FOUND: no installed context/);
    const bad = makeProject({ graph: ownGraph(), context: { stale: 'sometimes' } });
    expect((await run(['render'], bad)).stderr).toMatch(/E_INVALID_JSON: ctxpkg.json: context: stale must be "flag" or "omit"/);
    const broken = makeProject();
    writeGraphText(broken, '{"format":"ctxpkg-merged-v1","inputs":[],"nodes":[{"id":1}],"edges":[]}');
    expect((await run(['render'], broken)).stderr).toMatch(/E_STRUCTURE/);
  });
});
