/**
 * Exact ownership of what `ctxpkg sync` writes (issue 18 "Exact ownership", spec/pack.md §11
 * "Blocks and ownership"), for every one of the eight targets, on the machine that installed and
 * in a fresh clone (no `.ctxpkg/`, ownership derived from markers and names):
 *
 * - a generated file whose bytes are not exactly what ctxpkg wrote — a line after the end marker,
 *   a changed line inside the block, an edited frontmatter, a line before it — is left in place
 *   and reported by sync, by target removal and by uninstall, never overwritten or deleted;
 * - text the user writes around a block in their own file (AGENTS.md, CLAUDE.md, …) is kept;
 * - a file whose only content is ctxpkg's block is one ctxpkg created: when the block goes, the
 *   file goes (also in a fresh clone, where no record says who created it).
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXED_NOW, homeDeps, makeProject, mgraph, mnode, readFile, run, writeFile, writeGraph } from '../packages/cli/src/targets/__tests__/harness.js';
import { syncAfterChange } from '../packages/cli/src/targets/index.js';

const ALL = ['agents-md', 'claude', 'cursor', 'copilot', 'gemini', 'windsurf', 'kiro', 'cline'] as const;

/** One unscoped gotcha (always-on) and one rule scoped to src/api/** (path-scoped rule files). */
function graph() {
  return mgraph(
    [
      mnode('@acme/auth', 'root', { type: 'section', content: 'Auth rules' }),
      mnode('@acme/auth', 'g1', { type: 'gotcha', content: 'Never log session tokens.', file_path: 'AGENTS.md', line_start: 3, line_end: 3 }),
      mnode('@acme/auth', 'rules', { type: 'section', content: 'API rules' }),
      mnode('@acme/auth', 'c1', { type: 'convention', content: 'Validate JWT audience.', file_path: '.claude/rules/api.md', line_start: 6, line_end: 6 }),
      mnode('@acme/auth', 'scope1', { type: 'scope', content: 'src/api/**' }),
    ],
    [
      { from: '@acme/auth#root', to: '@acme/auth#g1', type: 'contains' },
      { from: '@acme/auth#rules', to: '@acme/auth#c1', type: 'contains' },
      { from: '@acme/auth#rules', to: '@acme/auth#scope1', type: 'applies_to' },
    ],
  );
}

const at = (root: string) => ({ cwd: root, clock: () => new Date(FIXED_NOW), ...homeDeps(root) });

/** The last uninstall, as `ctxpkg uninstall` runs it: nothing installed, then the automatic sync. */
function uninstallAll(root: string) {
  writeGraph(root, mgraph([]));
  return syncAfterChange(at(root));
}

const MCP_CONFIGS = ['.mcp.json', '.cursor/mcp.json', '.vscode/mcp.json', '.gemini/settings.json', '.kiro/settings/mcp.json'];

/** The files sync wrote for `target` alone (from its report), split into blocks and generated files. */
async function outputsOf(target: string, files: Record<string, string> = {}) {
  const root = makeProject({ files, graph: graph(), context: { sync: { targets: [target] } } });
  const r = await run(['sync', '--json'], root);
  expect(r.code, r.stderr).toBe(0);
  const written = r.json.written as string[];
  expect(written.length).toBeGreaterThan(0);
  const isBlockFile = (p: string) => ['AGENTS.md', 'CLAUDE.md', 'GEMINI.md', '.github/copilot-instructions.md'].includes(p);
  // MCP config files hold one entry of ctxpkg's among the user's (test/sync-mcp.test.ts).
  const isMcp = (p: string) => MCP_CONFIGS.includes(p);
  return { root, blocks: written.filter(isBlockFile), generated: written.filter((p) => !isBlockFile(p) && !isMcp(p)) };
}

/** Hand edits of a generated file: each leaves bytes that are not what ctxpkg wrote. */
const EDITS: Array<[string, (t: string) => string]> = [
  ['a line appended after the end marker', (t) => `${t}my own note, keep it\n`],
  ['a changed line inside the block', (t) => t.replace('Never log session tokens.', 'Never log tokens (mine).').replace('Validate JWT audience.', 'Validate the audience (mine).')],
  ['a line before the block (frontmatter)', (t) => (t.startsWith('---\n') ? t.replace('---\n', '---\nowner: me\n') : `my heading\n${t}`)],
  ['a blank line removed at the end', (t) => t.replace(/\n$/, '')],
];

describe('generated files: any byte not written by ctxpkg keeps the file (all targets, this machine and a fresh clone)', () => {
  for (const target of ALL) {
    for (const [what, edit] of EDITS) {
      it(`${target}: ${what} — sync, target removal and uninstall leave it and say so`, async () => {
        const { root, generated } = await outputsOf(target);
        if (generated.length === 0) {
          // agents-md and gemini write only blocks into files the user owns (covered below).
          expect(['agents-md', 'gemini']).toContain(target);
          return;
        }
        for (const fresh of [false, true]) {
          const { root: r0 } = fresh ? await outputsOf(target) : { root };
          if (fresh) rmSync(join(r0, '.ctxpkg'), { recursive: true, force: true });
          if (fresh) writeGraph(r0, graph()); // the clone installs: same graph, no sync record
          const edited = new Map(generated.map((p) => [p, edit(readFile(r0, p) as string)]));
          for (const [p, t] of edited) writeFile(r0, p, t);
          const s = await run(['sync'], r0);
          expect(s.code, s.stderr).toBe(0);
          for (const [p, t] of edited) {
            expect(readFile(r0, p), `${p} after sync`).toBe(t);
            expect(s.stderr).toContain(`warning: ${p}: edited by hand; left alone`);
            expect(s.stdout).not.toContain(`write ${p}`);
          }
          const rm = await run(['sync', '--remove', target], r0);
          expect(rm.code, rm.stderr).toBe(0);
          for (const [p, t] of edited) {
            expect(readFile(r0, p), `${p} after --remove`).toBe(t);
            expect(rm.stderr).toContain(`warning: ${p}: no longer wanted, but it was edited by hand; left alone`);
          }
          // Uninstall (in a fresh clone too: nothing but the files says what ctxpkg wrote).
          writeFile(r0, 'ctxpkg.json', JSON.stringify({ dependencies: {}, registries: {}, trust: { require_signature: true }, context: { sync: { targets: [target] } } }, null, 2) + '\n');
          if (fresh) rmSync(join(r0, '.ctxpkg'), { recursive: true, force: true });
          const u = uninstallAll(r0);
          for (const [p, t] of edited) {
            expect(readFile(r0, p), `${p} after uninstall`).toBe(t);
            expect(u?.skipped.map((x) => x.path)).toContain(p);
          }
        }
      });
    }
  }

  it('an unedited generated file is still rewritten and removed (the check is exact, not blind)', async () => {
    const { root, generated } = await outputsOf('cursor');
    expect(generated.sort()).toEqual(['.cursor/rules/ctxpkg-acme__auth--api.mdc', '.cursor/rules/ctxpkg.mdc']);
    rmSync(join(root, '.ctxpkg'), { recursive: true, force: true });
    writeGraph(root, graph());
    const u = uninstallAll(root);
    expect(u?.skipped).toEqual([]);
    expect(existsSync(join(root, '.cursor'))).toBe(false);
  });

  it('a checkout that turned LF into CRLF (git core.autocrlf) is not a hand edit', async () => {
    const { root, generated } = await outputsOf('kiro');
    for (const p of generated) writeFile(root, p, (readFile(root, p) as string).replace(/\n/g, '\r\n'));
    rmSync(join(root, '.ctxpkg'), { recursive: true, force: true });
    writeGraph(root, graph());
    const u = uninstallAll(root);
    expect(u?.skipped).toEqual([]);
    for (const p of generated) expect(existsSync(join(root, p))).toBe(false);
  });
});

describe('blocks in the user\'s own files: text around the block is the user\'s (all block targets)', () => {
  const BLOCK_FILES: Record<string, string> = { 'agents-md': 'AGENTS.md', claude: 'CLAUDE.md', copilot: '.github/copilot-instructions.md', gemini: 'GEMINI.md' };
  for (const [target, path] of Object.entries(BLOCK_FILES)) {
    it(`${target}: a line appended after the end marker survives sync and removal`, async () => {
      const { root } = await outputsOf(target, { [path]: '# Mine\n' });
      writeFile(root, path, `${readFile(root, path)}\nafter the block, mine\n`);
      expect((await run(['sync'], root)).code).toBe(0);
      expect(readFile(root, path)).toMatch(/<!-- ctxpkg:end sha256=[0-9a-f]{64} -->\n\nafter the block, mine\n$/);
      const rm = await run(['sync', '--remove', target], root);
      expect(rm.code, rm.stderr).toBe(0);
      expect(readFile(root, path)).toBe('# Mine\n\nafter the block, mine\n');
    });
  }
});

describe('a file whose only content is the block is one ctxpkg created (finding 15)', () => {
  for (const [target, path] of [['claude', 'CLAUDE.md'], ['copilot', '.github/copilot-instructions.md'], ['gemini', 'GEMINI.md'], ['agents-md', 'AGENTS.md']] as const) {
    it(`${target}: in a fresh clone, install then uninstall deletes ${path} (no 0-byte file left)`, async () => {
      const { root } = await outputsOf(target);
      expect(readFile(root, path)).toMatch(/^<!-- ctxpkg:begin /);
      // The clone: committed agent files, no .ctxpkg/; `ctxpkg install` syncs, `uninstall` removes.
      rmSync(join(root, '.ctxpkg'), { recursive: true, force: true });
      writeGraph(root, graph());
      expect(syncAfterChange(at(root))?.skipped).toEqual([]);
      const u = uninstallAll(root);
      expect(u?.removed).toContain(`${path} (block; the file sync created)`);
      expect(existsSync(join(root, path))).toBe(false);
      if (path.startsWith('.github/')) expect(existsSync(join(root, '.github'))).toBe(false);
    });
  }

  it('an empty file the user had before install stays (the record says sync did not create it)', async () => {
    const root = makeProject({ files: { 'GEMINI.md': '' }, graph: graph(), context: { sync: { targets: ['gemini'] } } });
    expect((await run(['sync'], root)).code).toBe(0);
    uninstallAll(root);
    expect(readFile(root, 'GEMINI.md')).toBe('');
  });

  it('a file with the user\'s own text keeps it, in a fresh clone too', async () => {
    const { root } = await outputsOf('claude', { 'CLAUDE.md': '# Claude\n' });
    rmSync(join(root, '.ctxpkg'), { recursive: true, force: true });
    writeGraph(root, graph());
    syncAfterChange(at(root));
    uninstallAll(root);
    expect(readFile(root, 'CLAUDE.md')).toBe('# Claude\n');
  });
});
