/**
 * Issue 11 item 3 — package-supplied globs never run super-linearly against user input.
 *
 * A package's scope glob (`type: "scope"` node) is matched against `--focus` (render), the MCP
 * `render_pack` focus and, for path-scoped rule files, workspace paths. Before the fix a
 * backtracking matcher took 7.7 s for `src/*?*?…` (×4 per extra pair). Every family below is
 * exponential or high-polynomial for a backtracking engine; each is run at several sizes through
 * the pure API, `render --focus` and the MCP tool, and must complete (this file has no clock: a
 * regression shows as a test timeout; bench/glob prints the times). Globs over the bounds are
 * refused at create (`E_GLOB`, naming file and line) and at the registry gate (400 `E_GLOB`);
 * a refused glob in an installed graph simply never matches.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPackage, compileGlob, focusScore, GLOB_LIMITS, parseFocus, type ContextGraph } from '@ctxpkg/format';
import { stateLoader } from '../../packages/cli/src/mcp/state.js';
import { renderPack } from '../../packages/cli/src/mcp/tools.js';
import { homeDeps, makeProject, mgraph, mnode, run } from '../../packages/cli/src/targets/__tests__/harness.js';
import { cli, createWorld, putPackage, tempDir } from '../support/cli.js';
import { SEED } from './support.js';

/** Pathological glob families, each at size k, with a path that almost matches (none matches: the worst case of a backtracking engine). */
const FAMILIES: Array<{ name: string; glob: (k: number) => string; path: (k: number) => string }> = [
  { name: 'star-qmark pairs', glob: (k) => 'src/' + '*?'.repeat(k), path: (k) => 'src/' + 'a'.repeat(4 * k) + '/' },
  { name: 'stars between letters', glob: (k) => 'src/' + '*a'.repeat(k) + '*b', path: (k) => 'src/' + 'a'.repeat(6 * k) },
  { name: 'globstar chains', glob: (k) => '**/a'.repeat(k) + '/**/b', path: (k) => 'a/'.repeat(4 * k) + 'c' },
  { name: 'brace products', glob: (k) => 'src/' + '{a,*}'.repeat(k) + 'b', path: (k) => 'src/' + 'a'.repeat(4 * k) },
  { name: 'nested braces', glob: (k) => 'src/' + '{*,'.repeat(Math.min(k, GLOB_LIMITS.maxBraceDepth)) + 'a' + '}'.repeat(Math.min(k, GLOB_LIMITS.maxBraceDepth)) + '*b', path: (k) => 'src/' + 'a'.repeat(8 * k) },
  { name: 'class stars', glob: (k) => 'src/' + '[a-z]*'.repeat(k) + '!', path: (k) => 'src/' + 'ab'.repeat(3 * k) },
  { name: 'question runs', glob: (k) => 'src/' + '?*'.repeat(k) + '?', path: (k) => 'src/' + 'x'.repeat(2 * k) + '/y' },
];
const SIZES = [8, 16, 32, 60];

function scopedGraph(globs: string[]) {
  const nodes = [mnode('@evil/globs', 'root', { type: 'section', content: 'Rules' }), mnode('@evil/globs', 'g', { type: 'gotcha', content: 'Scoped advice.' })];
  const edges: Array<{ from: string; to: string; type: string }> = [{ from: '@evil/globs#root', to: '@evil/globs#g', type: 'contains' }];
  globs.forEach((glob, i) => {
    nodes.push(mnode('@evil/globs', `s${i}`, { type: 'scope', content: glob }));
    edges.push({ from: '@evil/globs#root', to: `@evil/globs#s${i}`, type: 'applies_to' });
  });
  return mgraph(nodes, edges as never);
}

describe('issue 11.3: pathological package globs', () => {
  for (const f of FAMILIES) {
    it(`${f.name}: focus matching completes at every size and answers no match`, () => {
      for (const k of SIZES) {
        const glob = f.glob(k).slice(0, GLOB_LIMITS.maxLength);
        const focus = parseFocus(f.path(k))!;
        expect(focus.kind).toBe('glob');
        const score = focusScore(focus, { id: 'x', content: '' }, [glob]);
        expect(compileGlob(glob).test(f.path(k)), `${f.name} k=${k}`).toBe(false);
        expect(score, `${f.name} k=${k}`).toBe(0);
        // And the reverse direction: a package path against a user glob.
        const user = parseFocus(glob)!;
        expect(focusScore(user, { id: 'x', content: '', file_path: f.path(k) }, [])).toBe(1);
      }
    });
  }

  it('render --focus and MCP render_pack complete with every family in one installed graph', async () => {
    const globs = FAMILIES.map((f) => f.glob(60).slice(0, GLOB_LIMITS.maxLength));
    const root = makeProject({ graph: scopedGraph(globs) });
    // A focus selects the item when one of the globs overlaps the path (a near miss of its own
    // family never does; another family's glob may), else nothing: E_NOT_FOUND, exit 4 — either
    // way after matching the path against every pathological glob, in linear time.
    const state = stateLoader({ cwd: root, clock: () => new Date('2026-01-02T03:04:05Z'), ...homeDeps(root) })();
    let misses = 0;
    for (const f of FAMILIES) {
      const hit = focusScore(parseFocus(f.path(60))!, { id: 'x', content: '' }, globs) === 2;
      const r = await run(['render', '--focus', f.path(60)], root);
      if (hit) {
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toContain('Scoped advice.');
        expect(renderPack(state, f.path(60), 8192).text).toContain('Scoped advice.');
      } else {
        misses++;
        expect(r.code, r.stderr).toBe(4);
        expect(r.stderr).toContain('E_NOT_FOUND: no installed item is scoped to');
        expect(() => renderPack(state, f.path(60), 8192)).toThrow(expect.objectContaining({ code: 'E_NOT_FOUND' }));
      }
    }
    expect(misses).toBeGreaterThan(0);
    // A path one of them does match ('question runs': src/ and 61 or more characters) selects it.
    const r = await run(['render', '--focus', `src/${'x'.repeat(200)}`], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Scoped advice.');
    expect(renderPack(state, `src/${'x'.repeat(200)}`, 8192).text).toContain('Scoped advice.');
  });

  it('a glob over the bounds in an installed graph never matches; a focus over the bounds is E_GLOB', async () => {
    const huge = 'src/' + '*'.repeat(GLOB_LIMITS.maxLength);
    const f = parseFocus('src/a.ts')!;
    expect(focusScore(f, { id: 'x', content: '' }, [huge])).toBe(0);
    expect(focusScore(f, { id: 'x', content: '' }, [huge, 'src/**'])).toBe(2);
    const root = makeProject({ graph: scopedGraph([huge]) });
    // The item scoped only by the refused glob matches no focus path.
    const miss = await run(['render', '--focus', 'src/a.ts'], root);
    expect(miss.code).toBe(4);
    expect(miss.stderr).toContain('E_NOT_FOUND');
    const r = await run(['render', '--focus', 'src/' + '*'.repeat(GLOB_LIMITS.maxLength)], root);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/E_GLOB: .*longer than 512 characters/);
  });

  it('create refuses an unusable glob in .mdc frontmatter, JSON scope or Copilot applyTo, naming file and line; nothing written', async () => {
    const dir = tempDir('ctxpkg-glob-create-');
    const cases: Array<[string, string]> = [
      ['.cursor/rules/a.mdc', `---\ndescription: x\nglobs: src/**, ${'*?'.repeat(300)}\n---\n# A\n\n- Use pnpm.\n`],
      ['.github/instructions/b.instructions.md', `---\napplyTo: "/etc/**"\n---\n# B\n\n- Use pnpm.\n`],
      ['kb.json', JSON.stringify({ format: 'ctxpkg-source-v1', title: 'KB', scope: ['src/../../x'], nodes: [{ id: 'a', type: 'fact', content: 'x' }] }, null, 2)],
    ];
    for (const [file, text] of cases) {
      const full = join(dir, file);
      await import('node:fs').then((fs) => fs.mkdirSync(join(full, '..'), { recursive: true }));
      writeFileSync(full, text);
      const out = join(dir, 'out.ctxpkg');
      const r = await cli(['create', '--name', '@acme/g', '--from', file, '--out', out], { cwd: dir, fetch: globalThis.fetch });
      expect(r.code, `${file}: ${r.stdout}`).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`E_GLOB: ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+: glob`));
      expect(existsSync(out)).toBe(false);
    }
  });

  it('the registry gate refuses a package whose scope glob is over the bounds (400 E_GLOB)', async () => {
    const world = createWorld();
    const reg = await world.addRegistry('reg.test');
    const tok = await reg.namespace('acme');
    const graph = (glob: string): ContextGraph => ({
      format: 'ctxpkg-graph-v2',
      nodes: [
        { id: 'r', type: 'section', content: 'R', activation: 1 },
        { id: 's', type: 'scope', content: glob, activation: 1 },
      ],
      edges: [{ from: 'r', to: 's', type: 'applies_to', weight: 1 }],
    });
    const pkg = (glob: string, v: string) => buildPackage({ manifest: { name: '@acme/g', version: v, description: 'x', created_at: '2026-01-02T03:04:05Z' }, content: { context_graph: graph(glob) } }, { seed: SEED }).bytes;
    for (const [i, bad] of ['*'.repeat(GLOB_LIMITS.maxLength + 1), '/abs/**', '{'.repeat(20) + 'a,b' + '}'.repeat(20)].entries()) {
      await expect(putPackage(reg, tok, '@acme/g', `1.0.${i}`, pkg(bad, `1.0.${i}`))).rejects.toThrow(/400 .*E_GLOB/);
    }
    await putPackage(reg, tok, '@acme/g', '2.0.0', pkg('src/' + '*?'.repeat(60), '2.0.0'));
  });
});
