import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectSources, findClaudeImports } from './collect.js';
import { buildGraph } from './index.js';

function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'ctxpkg-src-'));
  for (const [p, t] of Object.entries(files)) {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), t);
  }
  return root;
}

describe('collectSources', () => {
  it('follows CLAUDE.md @imports, cycle-safe, and adds imports edges', () => {
    const root = project({
      'CLAUDE.md': '# Main\n\n- See @docs/style.md for style.\n- Email me@example.com\n',
      'docs/style.md': '# Style\n\nBack to @../CLAUDE.md\n\n- Use tabs.\n',
    });
    const c = collectSources(root, root, ['CLAUDE.md']);
    expect(c.files.map((f) => f.path)).toEqual(['CLAUDE.md', 'docs/style.md']);
    const g = buildGraph(c.files);
    expect(g.edges).toContainEqual({ from: 'CLAUDE.md:~5be7abd1', to: 'docs/style.md', type: 'imports', weight: 1.0 });
    expect(g.edges).toContainEqual({ from: 'docs/style.md:~0c79c064', to: 'CLAUDE.md', type: 'imports', weight: 1.0 });
  });
  it('drops a line that only imports files it followed (CLAUDE.md = @AGENTS.md), keeps the edge from the file', () => {
    const root = project({ 'CLAUDE.md': '@AGENTS.md\n\n# Claude\n\n- See @docs/style.md for style.\n@docs/style.md @docs/missing.md\n', 'AGENTS.md': '# Rules\n\n- Use tabs.\n', 'docs/style.md': '# Style\n' });
    const c = collectSources(root, root, ['CLAUDE.md']);
    expect(c.files.map((f) => f.path)).toEqual(['AGENTS.md', 'CLAUDE.md', 'docs/style.md']);
    const g = buildGraph(c.files);
    const claude = g.nodes.filter((n) => n.file_path === 'CLAUDE.md').map((n) => n.content);
    expect(claude.some((t) => /^@AGENTS\.md/m.test(t))).toBe(false);
    // A sentence that mentions an import, and a line with an import that was not followed, stay.
    expect(claude.some((t) => t.includes('- See @docs/style.md for style.'))).toBe(true);
    expect(claude.some((t) => t.includes('@docs/style.md @docs/missing.md'))).toBe(true);
    expect(g.edges.filter((e) => e.type === 'imports' && e.to === 'AGENTS.md')).toHaveLength(1);
  });
  it('does not follow imports out of the project or inside code', () => {
    const outside = project({ 'secret.md': 'outside\n' });
    const root = project({ 'CLAUDE.md': `@~/notes.md\n\n\`@docs/x.md\`\n\n\`\`\`\n@docs/x.md\n\`\`\`\n@link.md\n`, 'docs/x.md': 'x\n' });
    symlinkSync(join(outside, 'secret.md'), join(root, 'link.md'));
    const c = collectSources(root, root, ['CLAUDE.md']);
    expect(c.files.map((f) => f.path)).toEqual(['CLAUDE.md']);
    expect(c.warnings.join('\n')).toMatch(/outside the project/);
    expect(findClaudeImports('`@a.md`\n```\n@b.md\n```\n@c.md')).toEqual([{ ref: 'c.md', line: 5 }]);
  });
  it('lists @imports that do not resolve, keeps their text, and ignores mentions', () => {
    const root = project({ 'CLAUDE.md': '# Main\n\n- Style: @docs/missing.md\n- Home: @~/.claude/me.md\n- Up: @../../etc/x.md\n- Ask @alice in review.\n- Dir: @docs/\n', 'docs/keep.md': 'x\n' });
    const c = collectSources(root, root, ['CLAUDE.md']);
    expect(c.unresolved).toEqual([
      { file: 'CLAUDE.md', line: 3, ref: 'docs/missing.md', reason: 'names no existing file' },
      { file: 'CLAUDE.md', line: 4, ref: '~/.claude/me.md', reason: 'is outside the project' },
      { file: 'CLAUDE.md', line: 5, ref: '../../etc/x.md', reason: 'is outside the project' },
      { file: 'CLAUDE.md', line: 7, ref: 'docs/', reason: 'is not a file' },
    ]);
    expect(c.warnings).toContain('CLAUDE.md:3: import @docs/missing.md names no existing file; kept as text, not imported');
    const g = buildGraph(c.files);
    expect(g.nodes.some((n) => n.content === '- Style: @docs/missing.md')).toBe(true);
  });
  it('walks folders, scopes nested AGENTS.md to their subtree, refuses outside paths', () => {
    const root = project({
      'AGENTS.md': '# Root\n\n- Use ESM.\n',
      'packages/api/AGENTS.md': '# API\n\n- Never log tokens.\n',
      '.cursor/rules/a.mdc': '---\nglobs: "*.ts"\n---\nUse strict.\n',
      'node_modules/x/AGENTS.md': 'ignored\n',
      'data.json': '{}',
    });
    const c = collectSources(root, root, ['.']);
    expect(c.files.map((f) => f.path)).toEqual(['.cursor/rules/a.mdc', 'AGENTS.md', 'packages/api/AGENTS.md']);
    const g = buildGraph(c.files);
    expect(g.nodes.filter((n) => n.type === 'scope').map((n) => n.content).sort()).toEqual(['*.ts', 'packages/api/**']);
    expect(() => collectSources(root, root, ['../'])).toThrow(/outside the source root/);
  });
  it('a --from path that does not exist says so, with a hint to leave it out, not to pass --root (new-user trial)', () => {
    // The README's `create --from AGENTS.md .cursor/rules CLAUDE.md` in a project without a CLAUDE.md.
    const root = project({ 'AGENTS.md': '# Root\n\n- Use ESM.\n' });
    let err: unknown;
    try {
      collectSources(root, root, ['AGENTS.md', 'CLAUDE.md']);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'E_SOURCE', message: expect.stringMatching(/^CLAUDE\.md does not exist \(looked for /) });
    expect((err as { message: string }).message).not.toMatch(/outside the source root/);
    expect((err as { hint?: string }).hint).toMatch(/leave it out of --from/);
    expect((err as { hint?: string }).hint).not.toMatch(/--root/);
  });
});

describe('document paths with bidi controls or invisible characters (issue 11 item 5)', () => {
  it('are refused with E_SOURCE before anything is imported', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { collectSources } = await import('./collect.js');
    for (const name of ['rules\u202egnp.md', 'ru\u200bles.md', 'x\u{e0041}.md']) {
      const root = mkdtempSync(join(tmpdir(), 'ctxpkg-bidi-'));
      writeFileSync(join(root, name), '- a rule\n');
      expect(() => collectSources(root, root, [name])).toThrow(expect.objectContaining({ code: 'E_SOURCE', message: expect.stringContaining('bidi control or invisible') }));
    }
  });
});
