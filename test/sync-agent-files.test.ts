/**
 * `ctxpkg sync` end to end (in process): managed blocks in AGENTS.md/CLAUDE.md, per-package
 * Cursor and Copilot files with scope frontmatter, the sync record, user edits left alone,
 * removal of exactly what sync wrote (uninstall), caps.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { removeSyncOutputs, syncAfterChange } from '../packages/cli/src/targets/index.js';
import { FIXED_NOW, homeDeps, makeProject, mgraph, mnode, readFile, run, writeFile, writeGraph } from '../packages/cli/src/targets/__tests__/harness.js';

const USER_AGENTS = '# My project\n\nHand-written rules stay.\n';

function twoPackages() {
  return mgraph(
    [
      mnode('@acme/auth', 'root', { type: 'section', content: 'Auth rules' }),
      mnode('@acme/auth', 'g1', { type: 'gotcha', content: 'Never log session tokens.' }),
      mnode('@acme/auth', 'c1', { type: 'convention', content: 'Validate JWT audience.' }),
      mnode('@acme/auth', 'scope1', { type: 'scope', content: 'src/auth/**' }),
      mnode('@acme/auth', 'scope2', { type: 'scope', content: 'src/api/**' }),
      mnode('@acme/style', 'f1', { type: 'fact', content: 'Two-space indentation.' }),
    ],
    [
      { from: '@acme/auth#root', to: '@acme/auth#g1', type: 'contains' },
      { from: '@acme/auth#root', to: '@acme/auth#c1', type: 'contains' },
      { from: '@acme/auth#root', to: '@acme/auth#scope1', type: 'applies_to' },
      { from: '@acme/auth#root', to: '@acme/auth#scope2', type: 'applies_to' },
    ],
  );
}

const ALL = { pins: ['@acme/auth#g1'], sync: { targets: ['agents-md', 'claude-md', 'cursor', 'copilot'] } };

describe('ctxpkg sync', () => {
  it('writes a managed AGENTS.md block (default target) after the user text, within 4 KiB', async () => {
    const root = makeProject({ files: { 'AGENTS.md': USER_AGENTS }, graph: twoPackages(), context: { pins: ['@acme/auth#g1'] } });
    const r = await run(['sync'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('write AGENTS.md');
    const agents = readFile(root, 'AGENTS.md')!;
    expect(agents.startsWith(USER_AGENTS)).toBe(true);
    const block = agents.slice(agents.indexOf('<!-- ctxpkg:begin'));
    expect(Buffer.byteLength(block.trimEnd())).toBeLessThanOrEqual(4096);
    expect(block).toContain('items: @acme/auth 2, @acme/style 1');
    expect(block).toContain('Never log session tokens.'); // pinned
    expect(block).not.toContain('Two-space indentation.'); // not pinned: reachable via render/MCP
    expect(block).toContain('--- END UNTRUSTED CONTEXT ---\n<!-- ctxpkg:end -->');
    expect(block).not.toMatch(/generated: /); // no timestamp: files change only with content
    expect(existsSync(join(root, 'CLAUDE.md'))).toBe(false);
    const record = JSON.parse(readFile(root, '.ctxpkg/sync.json')!);
    expect(record.entries).toEqual([expect.objectContaining({ path: 'AGENTS.md', target: 'agents-md', kind: 'block', created: false })]);
    // Idempotent.
    const again = await run(['sync'], root);
    expect(again.stdout).toContain('unchanged AGENTS.md');
    expect(readFile(root, 'AGENTS.md')).toBe(agents);
  });

  it('writes Cursor and Copilot files per package with scope frontmatter', async () => {
    const root = makeProject({ graph: twoPackages(), context: ALL });
    const r = await run(['sync', '--json'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.written.sort()).toEqual([
      '.cursor/rules/ctxpkg-acme__auth.mdc',
      '.cursor/rules/ctxpkg-acme__style.mdc',
      '.github/instructions/ctxpkg-acme__auth.instructions.md',
      '.github/instructions/ctxpkg-acme__style.instructions.md',
      'AGENTS.md',
      'CLAUDE.md',
    ]);
    const mdc = readFile(root, '.cursor/rules/ctxpkg-acme__auth.mdc')!;
    const fm = parseDocument(mdc.split('---\n')[1]!).toJS();
    expect(fm).toEqual({ description: 'Installed context from @acme/auth@1.0.0 (managed by ctxpkg sync)', globs: 'src/api/**,src/auth/**', alwaysApply: false });
    expect(mdc).toContain('scope: src/api/**, src/auth/**');
    const style = readFile(root, '.cursor/rules/ctxpkg-acme__style.mdc')!;
    expect(parseDocument(style.split('---\n')[1]!).toJS()).toMatchObject({ globs: null, alwaysApply: true });
    const copilot = readFile(root, '.github/instructions/ctxpkg-acme__auth.instructions.md')!;
    expect(parseDocument(copilot.split('---\n')[1]!).toJS()).toEqual({ applyTo: 'src/api/**,src/auth/**' });
    expect(copilot).toContain('from: @acme/auth@1.0.0 · node g1');
    for (const f of r.json.written as string[]) expect(Buffer.byteLength(readFile(root, f)!)).toBeLessThanOrEqual(8192);
  });

  it('leaves a user-edited block alone with a warning, and never removes it', async () => {
    const root = makeProject({ files: { 'AGENTS.md': USER_AGENTS }, graph: twoPackages(), context: { pins: ['@acme/auth#g1'] } });
    await run(['sync'], root);
    const edited = readFile(root, 'AGENTS.md')!.replace('Never log session tokens.', 'Never log session tokens (I added this).');
    writeFile(root, 'AGENTS.md', edited);
    const r = await run(['sync'], root);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: AGENTS.md: the ctxpkg block was edited by hand; left alone/);
    expect(readFile(root, 'AGENTS.md')).toBe(edited);
    const removed = await run(['sync', '--remove'], root);
    expect(removed.stderr).toMatch(/edited by hand/);
    expect(readFile(root, 'AGENTS.md')).toBe(edited);
  });

  it('leaves an edited generated file alone, and a foreign file of the same name', async () => {
    const root = makeProject({ graph: twoPackages(), context: ALL });
    await run(['sync'], root);
    const path = '.cursor/rules/ctxpkg-acme__auth.mdc';
    const edited = readFile(root, path)!.replace('alwaysApply: false', 'alwaysApply: true');
    writeFile(root, path, edited);
    const r = await run(['sync'], root);
    expect(r.stderr).toContain(`warning: ${path}: edited by hand or not written by ctxpkg sync; left alone`);
    expect(readFile(root, path)).toBe(edited);
    const other = makeProject({ graph: twoPackages(), context: ALL, files: { [path]: 'my own rules\n' } });
    const r2 = await run(['sync'], other);
    expect(r2.stderr).toContain(`warning: ${path}`);
    expect(readFile(other, path)).toBe('my own rules\n');
  });

  it('uninstall removes exactly what sync wrote (files of a removed package; created files)', async () => {
    const root = makeProject({ files: { 'AGENTS.md': USER_AGENTS, '.cursor/rules/mine.mdc': 'user rule\n' }, graph: twoPackages(), context: ALL });
    await run(['sync'], root);
    // "uninstall @acme/style": the merged graph loses it, then install/uninstall calls syncAfterChange.
    const g = twoPackages();
    writeGraph(root, { ...g, nodes: g.nodes.filter((n) => n.package !== '@acme/style'), inputs: g.inputs.filter((i) => i.package !== '@acme/style') });
    const report = syncAfterChange({ cwd: root, clock: () => new Date(FIXED_NOW), ...homeDeps(root) })!;
    expect(report.removed.sort()).toEqual(['.cursor/rules/ctxpkg-acme__style.mdc', '.github/instructions/ctxpkg-acme__style.instructions.md']);
    expect(existsSync(join(root, '.cursor/rules/ctxpkg-acme__style.mdc'))).toBe(false);
    expect(existsSync(join(root, '.cursor/rules/ctxpkg-acme__auth.mdc'))).toBe(true);
    // Remove everything: user files and text survive byte for byte; files sync created are gone.
    const all = removeSyncOutputs({ cwd: root, clock: () => new Date(FIXED_NOW), ...homeDeps(root) });
    expect(all.skipped).toEqual([]);
    expect(readFile(root, 'AGENTS.md')).toBe(USER_AGENTS);
    expect(existsSync(join(root, 'CLAUDE.md'))).toBe(false);
    expect(readFile(root, '.cursor/rules/mine.mdc')).toBe('user rule\n');
    expect(existsSync(join(root, '.github/instructions'))).toBe(false);
    expect(JSON.parse(readFile(root, '.ctxpkg/sync.json')!).entries).toEqual([]);
  });

  it('recognises its own outputs without the record (fresh clone) and removes them', async () => {
    const root = makeProject({ files: { 'AGENTS.md': USER_AGENTS }, graph: twoPackages(), context: ALL });
    await run(['sync'], root);
    rmSync(join(root, '.ctxpkg', 'sync.json'));
    const r = await run(['sync', '--remove', '--json'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(root, '.cursor/rules/ctxpkg-acme__auth.mdc'))).toBe(false);
    expect(readFile(root, 'AGENTS.md')).toBe(USER_AGENTS);
  });

  it('skips CLAUDE.md when it imports AGENTS.md', async () => {
    const root = makeProject({ files: { 'CLAUDE.md': '@AGENTS.md\n' }, graph: twoPackages(), context: ALL });
    const r = await run(['sync'], root);
    expect(r.stdout).toContain('note: CLAUDE.md imports AGENTS.md');
    expect(readFile(root, 'CLAUDE.md')).toBe('@AGENTS.md\n');
  });

  it('--target overrides the configured targets; --dry-run writes nothing', async () => {
    const root = makeProject({ graph: twoPackages() });
    const dry = await run(['sync', '--target', 'copilot', '--dry-run'], root);
    expect(dry.stdout).toContain('would write .github/instructions/ctxpkg-acme__auth.instructions.md');
    expect(existsSync(join(root, '.github'))).toBe(false);
    expect((await run(['sync', '--target', 'vim'], root)).stderr).toMatch(/E_USAGE: unknown sync target vim/);
  });

  it('refuses (E_BUDGET) and writes nothing when pinned nodes exceed the block cap', async () => {
    const g = mgraph([mnode('@acme/big', 'n', { content: 'x'.repeat(5000) })]);
    const root = makeProject({ files: { 'AGENTS.md': USER_AGENTS }, graph: g, context: { pins: ['@acme/big#n'] } });
    const r = await run(['sync'], root);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/E_BUDGET/);
    expect(readFile(root, 'AGENTS.md')).toBe(USER_AGENTS);
    expect(existsSync(join(root, '.ctxpkg', 'sync.json'))).toBe(false);
  });

  it('with nothing installed writes an index saying so', async () => {
    const root = makeProject();
    const r = await run(['sync'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(readFile(root, 'AGENTS.md')).toContain('items: none installed');
  });
});
