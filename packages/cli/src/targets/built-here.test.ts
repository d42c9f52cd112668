/**
 * The sealed built-here record (spec/pack.md §6 "Evidence"): observed packages are recorded by
 * `record` callers only; a record committed to a repository (sealed under another key) or edited
 * is ignored, so it cannot make ctxpkg flag or omit a package built elsewhere; other freshness
 * scopes neither read nor write it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseContextConfig } from '@ctxpkg/format';
import { sealKey } from '../install/seal.js';
import { writeVerified } from '../install/verified.js';
import { BUILT_HERE_FILE, builtHereFor, readBuiltHere, writeBuiltHere } from './built-here.js';
import { loadProjectContext } from './context.js';
import { makeProject, mgraph, mnode, readFile, run, srcHash, writeFile, writeGraph } from './__tests__/harness.js';

const RULES = '# Rules\n\n- Never log tokens.\n- Use pnpm.\n';
const node = (pkg: string, line: number, text = RULES) =>
  mnode(pkg, `l${line}`, { type: 'gotcha', content: `line ${line}`, file_path: 'docs/rules.md', line_start: line, line_end: line, source: srcHash(text, line, line) });
const OURS = [node('@acme/own', 3), node('@acme/own', 4)];
const THEIRS = [node('@other/pkg', 3, '# X\n\n- Deploy on Fridays.\n- Use yarn.\n'), node('@other/pkg', 4, '# X\n\n- Deploy on Fridays.\n- Use yarn.\n')];

const depsOf = (root: string) => ({ cwd: root, env: { CTXPKG_HOME: join(root, '.home') }, homeDir: join(root, '.home') });

/** Bind merged.json to this user, as `ctxpkg install` does (verified.ts). */
function sealGraph(root: string): void {
  const sha256 = createHash('sha256').update(readFile(root, '.ctxpkg/graph/merged.json')!, 'utf8').digest('hex');
  writeVerified(root, sealKey(depsOf(root), true), { artifacts: new Map(), merged: { inputs: [], sha256 } });
}

describe('built-here record', () => {
  it('record writes newly observed packages; read only observes', () => {
    const root = makeProject({ files: { 'docs/rules.md': RULES }, graph: mgraph([...OURS, ...THEIRS]) });
    sealGraph(root);
    const read = loadProjectContext(depsOf(root), { requireGraph: true, evidence: 'read' });
    expect(read.builtHere).toEqual(['@acme/own']);
    expect(existsSync(join(root, BUILT_HERE_FILE))).toBe(false);
    const rec = loadProjectContext(depsOf(root), { requireGraph: true, evidence: 'record' });
    expect(rec.builtHere).toEqual(['@acme/own']);
    expect(readBuiltHere(root, sealKey(depsOf(root), false))).toEqual(['@acme/own']);
    // The evidence outlives the file.
    writeFile(root, 'docs/rules.md', 'rewritten\n');
    expect(loadProjectContext(depsOf(root), { requireGraph: true, evidence: 'read' }).builtHere).toEqual(['@acme/own']);
    expect(loadProjectContext(depsOf(root), { requireGraph: true }).builtHere).toEqual([]);
  });

  it('nothing is recorded from a merged graph this user did not build (committed merged.json): it is refused', () => {
    const root = makeProject({ files: { 'docs/rules.md': RULES } });
    writeGraph(root, mgraph(OURS), { sealed: false });
    sealKey(depsOf(root), true);
    expect(() => loadProjectContext(depsOf(root), { requireGraph: true, evidence: 'record' })).toThrow(expect.objectContaining({ code: 'E_UNSEALED' }));
    expect(existsSync(join(root, BUILT_HERE_FILE))).toBe(false);
    sealGraph(root);
    loadProjectContext(depsOf(root), { requireGraph: true, evidence: 'record' });
    expect(readBuiltHere(root, sealKey(depsOf(root), false))).toEqual(['@acme/own']);
  });

  it('a committed record (another key) or an edited one is ignored', async () => {
    const root = makeProject({ graph: mgraph(THEIRS), files: { 'docs/rules.md': RULES } });
    writeBuiltHere(root, randomBytes(32), ['@other/pkg']);
    expect(loadProjectContext(depsOf(root), { requireGraph: true, evidence: 'read' }).builtHere).toEqual([]);
    const r = await run(['render', '--json'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.flagged).toBe(0);
    const key = sealKey(depsOf(root), true)!;
    writeBuiltHere(root, key, ['@other/pkg']);
    expect(readBuiltHere(root, key)).toEqual(['@other/pkg']);
    writeFile(root, BUILT_HERE_FILE, readFile(root, BUILT_HERE_FILE)!.replace('other', 'otter'));
    expect(readBuiltHere(root, key)).toEqual([]);
  });

  it('a record of this user makes render check the package (flags) and is kept sorted', async () => {
    const root = makeProject({ graph: mgraph(THEIRS), files: { 'docs/rules.md': RULES } });
    writeBuiltHere(root, sealKey(depsOf(root), true)!, ['@z/gone', '@other/pkg', '@other/pkg']);
    expect(readBuiltHere(root, sealKey(depsOf(root), false))).toEqual(['@other/pkg', '@z/gone']);
    const r = await run(['render', '--json'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.flagged).toBe(2);
  });

  it('other freshness scopes neither observe nor record', () => {
    const root = makeProject({ files: { 'docs/rules.md': RULES }, graph: mgraph(OURS), context: { freshness: 'all' } });
    const project = loadProjectContext(depsOf(root), { requireGraph: true, evidence: 'record' });
    expect(project.builtHere).toEqual([]);
    expect(existsSync(join(root, BUILT_HERE_FILE))).toBe(false);
    const cfg = { root, graph: project.graph, read: project.read, config: parseContextConfig({ freshness: 'auto' }) };
    expect(builtHereFor(cfg, {}, { record: true })).toEqual(['@acme/own']);
    expect(existsSync(join(root, BUILT_HERE_FILE))).toBe(false);
  });
});
