/**
 * `ctxpkg sync` end to end (in process, issue 18): one selection written into every agent
 * target, path-scoped rule files with each agent's own frontmatter (parsed with a YAML parser),
 * targets chosen by detection or by name and saved, ownership read from the files, user edits
 * left alone, removal of exactly what sync wrote (install → uninstall is byte-identical).
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { removeSyncOutputs, syncAfterChange } from '../packages/cli/src/targets/index.js';
import { FIXED_NOW, homeDeps, makeProject, mgraph, mnode, readFile, run, writeFile, writeGraph } from '../packages/cli/src/targets/__tests__/harness.js';

const USER_AGENTS = '# My project\n\nHand-written rules stay.\n';

/** @acme/auth: one unscoped gotcha, two nodes scoped to src/auth/** and src/api/**; @acme/style: one fact. */
function twoPackages() {
  return mgraph(
    [
      mnode('@acme/auth', 'root', { type: 'section', content: 'Auth rules' }),
      mnode('@acme/auth', 'g1', { type: 'gotcha', content: 'Never log session tokens.', file_path: 'AGENTS.md', line_start: 3, line_end: 3 }),
      mnode('@acme/auth', 'rules', { type: 'section', content: 'API rules' }),
      mnode('@acme/auth', 'c1', { type: 'convention', content: 'Validate JWT audience.', file_path: '.claude/rules/api.md', line_start: 6, line_end: 6 }),
      mnode('@acme/auth', 'c2', { type: 'gotcha', content: 'Return 422 for validation errors, never 500.', file_path: '.claude/rules/api.md', line_start: 7, line_end: 7 }),
      mnode('@acme/auth', 'scope1', { type: 'scope', content: 'src/auth/**' }),
      mnode('@acme/auth', 'scope2', { type: 'scope', content: 'src/api/**/*.ts' }),
      mnode('@acme/style', 'f1', { type: 'fact', content: 'Two-space indentation.' }),
    ],
    [
      { from: '@acme/auth#root', to: '@acme/auth#g1', type: 'contains' },
      { from: '@acme/auth#rules', to: '@acme/auth#c1', type: 'contains' },
      { from: '@acme/auth#rules', to: '@acme/auth#c2', type: 'contains' },
      { from: '@acme/auth#rules', to: '@acme/auth#scope1', type: 'applies_to' },
      { from: '@acme/auth#rules', to: '@acme/auth#scope2', type: 'applies_to' },
    ],
  );
}

const ALL = ['agents-md', 'claude', 'cursor', 'copilot', 'gemini', 'windsurf', 'kiro', 'cline'];
const UNSCOPED = ['Never log session tokens.', 'Two-space indentation.'];
const SCOPED = ['Validate JWT audience.', 'Return 422 for validation errors, never 500.'];

function frontmatterOf(text: string): Record<string, unknown> {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  expect(m, text.slice(0, 200)).not.toBeNull();
  return parse(m?.[1] ?? '') as Record<string, unknown>;
}

/** Every regular file under `root` (POSIX paths), `.ctxpkg/` and `.home/` excluded. */
function tree(root: string, dir = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(join(root, dir))) {
    const rel = dir ? `${dir}/${name}` : name;
    if (rel === '.ctxpkg' || rel === '.home') continue;
    if (statSync(join(root, rel)).isDirectory()) {
      const sub = tree(root, rel);
      if (sub.size === 0) out.set(`${rel}/`, '<empty dir>');
      for (const [k, v] of sub) out.set(k, v);
    } else out.set(rel, readFile(root, rel) as string);
  }
  return out;
}

describe('ctxpkg sync: targets', () => {
  it('default: AGENTS.md only, holding the unscoped items and naming the path-scoped rule set and how to read it', async () => {
    const root = makeProject({ files: { 'AGENTS.md': USER_AGENTS }, graph: twoPackages() });
    const r = await run(['sync'], root);
    expect(r.code, r.stderr).toBe(0);
    const agents = readFile(root, 'AGENTS.md') as string;
    expect(agents.startsWith(USER_AGENTS + '\n<!-- ctxpkg:begin sha256=')).toBe(true);
    for (const t of UNSCOPED) expect(agents).toContain(t);
    for (const t of SCOPED) expect(agents).not.toContain(t);
    expect(agents).toContain('Some rules apply only to certain files. Before you work on a file that matches a pattern below, run the command named there to read its rules');
    expect(agents).toContain("\n- `src/api/**/*.ts`, `src/auth/**`: run `ctxpkg render --focus 'src/api/**/*.ts'`\n");
    expect(agents).not.toMatch(/generated: /); // no timestamp: files change only with content
    expect([...tree(root).keys()].sort()).toEqual(['AGENTS.md', 'ctxpkg.json']);
    expect(r.stdout).toContain('targets: agents-md (AGENTS.md + detected');
    // Idempotent.
    const again = await run(['sync'], root);
    expect(again.stdout).toContain('unchanged: AGENTS.md');
    expect(readFile(root, 'AGENTS.md')).toBe(agents);
  });

  it('detects the agents a project uses from their files and folders', async () => {
    const root = makeProject({ files: { 'CLAUDE.md': '# Claude\n', '.cursor/rules/mine.mdc': 'x\n', '.kiro/steering/product.md': 'p\n', '.github/workflows/ci.yml': 'on: push\n' }, graph: twoPackages() });
    const r = await run(['sync', '--json'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.targets).toEqual(['agents-md', 'claude', 'cursor', 'kiro']);
    expect(r.json.detected).toEqual(['claude: CLAUDE.md', 'cursor: .cursor', 'kiro: .kiro']);
    expect(existsSync(join(root, '.github/instructions'))).toBe(false); // a .github folder alone is not Copilot
  });

  it('names the user\'s own file or folder as the reason a target is detected, never one ctxpkg wrote', async () => {
    // `.claude/` is the user's; CLAUDE.md is created by the first sync and is not a reason.
    const root = makeProject({ files: { '.claude/settings.json': '{}\n', '.gemini/settings.json': '{}\n' }, graph: twoPackages() });
    const first = await run(['sync', '--json'], root);
    expect(first.json.detected).toEqual(['claude: .claude', 'gemini: .gemini']);
    expect(readFile(root, 'CLAUDE.md')).toMatch(/^<!-- ctxpkg:begin /);
    const second = await run(['sync', '--json'], root);
    expect(second.json.detected).toEqual(['claude: .claude', 'gemini: .gemini']);
    // Once the user writes their own text into CLAUDE.md, it is a reason of its own.
    writeFile(root, 'CLAUDE.md', `# Mine\n\n${readFile(root, 'CLAUDE.md')}`);
    expect((await run(['sync', '--json'], root)).json.detected).toEqual(['claude: CLAUDE.md', 'gemini: .gemini']);
  });

  it('a folder the user made stays the reason even when only ctxpkg files are in it', async () => {
    const root = makeProject({ files: { '.windsurf/.keep': '' }, graph: twoPackages() });
    rmSync(join(root, '.windsurf/.keep'));
    expect((await run(['sync', '--json'], root)).json.detected).toEqual(['windsurf: .windsurf']);
    expect(existsSync(join(root, '.windsurf/rules/ctxpkg-acme__auth--api.md'))).toBe(true);
    expect((await run(['sync', '--json'], root)).json.detected).toEqual(['windsurf: .windsurf']);
  });

  it('a target whose folder holds only files ctxpkg generated is on because of that output, not "detected" by the folder', async () => {
    const root = makeProject({ graph: twoPackages(), context: { sync: { targets: ['agents-md', 'cursor', 'windsurf'] } } });
    expect((await run(['sync'], root)).code).toBe(0);
    expect(existsSync(join(root, '.cursor/rules/ctxpkg-acme__auth--api.mdc'))).toBe(true);
    const m = JSON.parse(readFile(root, 'ctxpkg.json') as string);
    delete m.context;
    writeFile(root, 'ctxpkg.json', JSON.stringify(m, null, 2) + '\n');
    const r = await run(['sync', '--json'], root);
    expect(r.json.targets).toEqual(['agents-md', 'cursor', 'windsurf']);
    expect(r.json.detected).toEqual(['cursor: ctxpkg output present', 'windsurf: ctxpkg output present']);
    // The same without a record (a fresh clone: .ctxpkg/ is not committed).
    rmSync(join(root, '.ctxpkg/sync.json'));
    expect((await run(['sync', '--json'], root)).json.detected).toEqual(['cursor: ctxpkg output present', 'windsurf: ctxpkg output present']);
    // A file of the user's in the folder makes it a reason again.
    writeFile(root, '.cursor/rules/mine.mdc', '---\nalwaysApply: true\n---\nmine\n');
    expect((await run(['sync', '--json'], root)).json.detected).toEqual(['cursor: .cursor', 'windsurf: ctxpkg output present']);
  });

  it('notes (does not warn) when a Copilot instruction file runs past the 4,000 characters code review reads, naming the file and the setting', async () => {
    const nodes = [mnode('@acme/a', 'root', { type: 'section', content: 'Rules' }), mnode('@acme/a', 'scope', { type: 'scope', content: 'src/**' })];
    const edges = [{ from: '@acme/a#root', to: '@acme/a#scope', type: 'applies_to' }];
    for (let i = 0; i < 30; i++) nodes.push(mnode('@acme/a', `u${i}`, { type: 'convention', content: `Unscoped rule ${i}: ${'u'.repeat(150)}` }));
    for (let i = 0; i < 30; i++) {
      nodes.push(mnode('@acme/a', `s${i}`, { type: 'convention', content: `Scoped rule ${i}: ${'s'.repeat(150)}` }));
      edges.push({ from: '@acme/a#root', to: `@acme/a#s${i}`, type: 'contains' });
    }
    // Copilot alone: with the agents-md target on, copilot-instructions.md gets no block (Copilot reads AGENTS.md).
    const root = makeProject({ graph: mgraph(nodes, edges), context: { sync: { targets: ['copilot'] } } });
    const r = await run(['sync', '--json'], root);
    expect(r.code, r.stderr).toBe(0);
    const rule = '.github/instructions/ctxpkg-acme__a--scoped.instructions.md';
    const chars = (p: string) => [...(readFile(root, p) as string)].length;
    expect(chars('.github/copilot-instructions.md')).toBeGreaterThan(4000);
    expect(chars(rule)).toBeGreaterThan(4000);
    // A soft limit is not a budget: information, not a warning (a full block at the default budget passes it).
    expect((r.json.warnings as string[]).filter((x) => x.startsWith('GitHub Copilot'))).toEqual([]);
    const w = (r.json.notes as string[]).filter((x) => x.startsWith('GitHub Copilot code review reads only the first 4,000 characters'));
    expect(w).toHaveLength(1);
    expect(w[0]).toContain(`sync wrote 2 files over 4000 characters: .github/copilot-instructions.md (${chars('.github/copilot-instructions.md')} characters), ${rule} (${chars(rule)} characters), of which that reads the start`);
    expect(w[0]).toContain('set "context.sync.max_bytes" and "context.sync.file_max_bytes" in ctxpkg.json to 4000 or less — budgets every agent shares');
    expect(r.stderr).not.toMatch(/^warning: GitHub Copilot/m);
    // A sync that changes nothing does not warn again (the warning came with the run that wrote the files).
    const same = await run(['sync', '--json'], root);
    expect(same.code, same.stderr).toBe(0);
    expect(same.json.written).toEqual([]);
    expect((same.json.notes as string[]).filter((x) => x.startsWith('GitHub Copilot'))).toEqual([]);
    expect(same.stderr).not.toContain('4,000');
    // Following the advice silences it.
    const m = JSON.parse(readFile(root, 'ctxpkg.json') as string);
    m.context.sync.max_bytes = 4000;
    m.context.sync.file_max_bytes = 4000;
    writeFile(root, 'ctxpkg.json', JSON.stringify(m, null, 2) + '\n');
    const again = await run(['sync', '--json'], root);
    expect(again.code, again.stderr).toBe(0);
    expect((again.json.notes as string[]).filter((x) => x.startsWith('GitHub Copilot'))).toEqual([]);
  });

  it('Copilot reads AGENTS.md: with the agents-md target on, copilot-instructions.md carries no copy of the block (an earlier one is removed, the user text kept byte for byte)', async () => {
    const mine = '# Copilot\n\nUse tabs.\n';
    const root = makeProject({ files: { '.github/copilot-instructions.md': mine }, graph: twoPackages(), context: { sync: { targets: ['copilot'] } } });
    expect((await run(['sync'], root)).code).toBe(0);
    const copilot = readFile(root, '.github/copilot-instructions.md') as string;
    for (const t of UNSCOPED) expect(copilot).toContain(t); // without AGENTS.md, Copilot's own file has the text
    const m = JSON.parse(readFile(root, 'ctxpkg.json') as string);
    m.context.sync.targets = ['agents-md', 'copilot'];
    writeFile(root, 'ctxpkg.json', JSON.stringify(m, null, 2) + '\n');
    const r = await run(['sync', '--json'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.removed).toEqual(['.github/copilot-instructions.md (block)']);
    expect(readFile(root, '.github/copilot-instructions.md')).toBe(mine);
    for (const t of UNSCOPED) expect(readFile(root, 'AGENTS.md')).toContain(t);
    expect(r.json.notes).toContain('GitHub Copilot reads AGENTS.md itself: its always-on context is the AGENTS.md block');
    // Its path-scoped instructions are still written.
    expect(readFile(root, '.github/instructions/ctxpkg-acme__auth--api.instructions.md')).toContain(SCOPED[0]);
  });

  it('Gemini CLI configured to read AGENTS.md (context.fileName) gets no GEMINI.md block, not even the import line; an earlier one is removed', async () => {
    const root = makeProject({ files: { 'GEMINI.md': '# Gemini\n' }, graph: twoPackages(), context: { sync: { targets: ['agents-md', 'gemini'] } } });
    expect((await run(['sync'], root)).code).toBe(0);
    expect(readFile(root, 'GEMINI.md')).toMatch(/\n@AGENTS\.md\n/);
    // The user tells Gemini CLI to load AGENTS.md too (JSON with comments, as Gemini CLI reads it).
    const settings = JSON.parse(readFile(root, '.gemini/settings.json') as string);
    writeFile(root, '.gemini/settings.json', `// mine\n${JSON.stringify({ ...settings, context: { fileName: ['AGENTS.md', 'GEMINI.md'] } }, null, 2)}\n`);
    const r = await run(['sync', '--json'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.removed).toEqual(['GEMINI.md (block)']);
    expect(readFile(root, 'GEMINI.md')).toBe('# Gemini\n');
    expect(r.json.notes).toContain('Gemini CLI reads AGENTS.md itself: its always-on context is the AGENTS.md block');
    for (const t of UNSCOPED) expect(readFile(root, 'AGENTS.md')).toContain(t);
  });

  it('a version bump with the same text changes only the package headings and the block markers of each agent file', async () => {
    const bump = (version: string) => mgraph(twoPackages().nodes.map((n) => (n.package === '@acme/auth' ? { ...n, version } : n)), twoPackages().edges);
    const root = makeProject({ files: { 'AGENTS.md': USER_AGENTS }, graph: bump('1.0.0'), context: { sync: { targets: ['agents-md', 'cursor', 'copilot'] } } });
    expect((await run(['sync'], root)).code).toBe(0);
    const paths = ['AGENTS.md', '.cursor/rules/ctxpkg-acme__auth--api.mdc', '.github/instructions/ctxpkg-acme__auth--api.instructions.md'];
    expect(existsSync(join(root, '.github/copilot-instructions.md'))).toBe(false); // Copilot reads AGENTS.md
    const before = paths.map((p) => readFile(root, p) as string);
    writeGraph(root, bump('1.0.1'));
    expect((await run(['sync'], root)).code).toBe(0);
    paths.forEach((p, i) => {
      const a = (before[i] as string).split('\n');
      const b = (readFile(root, p) as string).split('\n');
      expect(b.length, p).toBe(a.length);
      const changed = a.map((l, k) => [l, b[k] as string]).filter(([x, y]) => x !== y);
      for (const [x, y] of changed) {
        const marker = /^<!-- ctxpkg:(begin|end) sha256=/.test(x as string) && /^<!-- ctxpkg:(begin|end) sha256=/.test(y as string);
        const heading = (x as string).replace('@acme/auth@1.0.0', '@acme/auth@1.0.1') === y && /^## /.test(y as string);
        expect(marker || heading, `${p}: ${x} → ${y}`).toBe(true);
      }
      expect(changed.filter(([x]) => /^## /.test(x as string)).length, p).toBe(1);
    });
  });

  it('writes the same selection into all eight targets, each in its own files and frontmatter', async () => {
    const root = makeProject({ files: { 'AGENTS.md': USER_AGENTS }, graph: twoPackages(), context: { sync: { targets: ALL } } });
    const r = await run(['sync', '--json'], root);
    expect(r.code, r.stderr).toBe(0);
    const files = tree(root);
    const slug = 'acme__auth--api';
    expect([...files.keys()].sort()).toEqual([
      '.claude/rules/ctxpkg-acme__auth--api.md',
      '.clinerules/ctxpkg-acme__auth--api.md',
      '.cursor/mcp.json',
      '.cursor/rules/ctxpkg-acme__auth--api.mdc',
      '.gemini/settings.json',
      '.github/instructions/ctxpkg-acme__auth--api.instructions.md',
      '.kiro/settings/mcp.json',
      '.kiro/steering/ctxpkg-acme__auth--api.md',
      '.mcp.json',
      '.vscode/mcp.json',
      '.windsurf/rules/ctxpkg-acme__auth--api.md',
      'AGENTS.md',
      'CLAUDE.md',
      'GEMINI.md',
      'ctxpkg.json',
    ]);
    expect(r.json.notes).toContain('Cursor, GitHub Copilot, Windsurf, Kiro, Cline read AGENTS.md themselves: their always-on context is the AGENTS.md block');
    // Frontmatter, parsed as YAML: keys and patterns in each agent's own form.
    const patterns = ['src/api/**/*.ts', 'src/auth/**'];
    expect(frontmatterOf(files.get(`.claude/rules/ctxpkg-${slug}.md`) as string)).toEqual({ paths: patterns });
    expect(frontmatterOf(files.get(`.cursor/rules/ctxpkg-${slug}.mdc`) as string)).toEqual({
      description: '@acme/auth: .claude/rules/api.md',
      globs: patterns.join(','),
      alwaysApply: false,
    });
    expect(frontmatterOf(files.get(`.github/instructions/ctxpkg-${slug}.instructions.md`) as string)).toEqual({ applyTo: patterns.join(',') });
    expect(frontmatterOf(files.get(`.windsurf/rules/ctxpkg-${slug}.md`) as string)).toEqual({ trigger: 'glob', globs: patterns.join(',') });
    expect(frontmatterOf(files.get(`.kiro/steering/ctxpkg-${slug}.md`) as string)).toEqual({ inclusion: 'fileMatch', fileMatchPattern: patterns });
    expect(frontmatterOf(files.get(`.clinerules/ctxpkg-${slug}.md`) as string)).toEqual({ paths: patterns });
    // The same nodes reach every agent: the always-on text is identical in every always-on
    // file, and every rule file carries the same scoped text.
    // CLAUDE.md and GEMINI.md import AGENTS.md (its user text and block) instead of a copy.
    for (const p of ['CLAUDE.md', 'GEMINI.md']) expect(files.get(p)).toMatch(/^<!-- ctxpkg:begin [^\n]*\n@AGENTS\.md\n<!-- ctxpkg:end [^\n]*\n$/);
    // The always-on text is in AGENTS.md once; no other file an agent reads carries a copy of it.
    const agentsMd = files.get('AGENTS.md') as string;
    for (const t of UNSCOPED) expect(agentsMd).toContain(t);
    for (const t of SCOPED) expect(agentsMd).not.toContain(t);
    for (const [p, text] of files) if (p !== 'AGENTS.md') for (const t of UNSCOPED) expect(text, p).not.toContain(t);
    // The MCP server that serves the rest is registered with every agent that has a project MCP config.
    for (const [p, key] of [['.mcp.json', 'mcpServers'], ['.cursor/mcp.json', 'mcpServers'], ['.vscode/mcp.json', 'servers'], ['.gemini/settings.json', 'mcpServers'], ['.kiro/settings/mcp.json', 'mcpServers']] as const) {
      expect(JSON.parse(files.get(p) as string)[key].ctxpkg, p).toMatchObject({ command: 'ctxpkg', args: ['mcp'] });
    }
    const ruleFiles = [...files.keys()].filter((p) => p.includes(`ctxpkg-${slug}`));
    expect(ruleFiles).toHaveLength(6);
    const bodyOf = (t: string) => t.slice(t.indexOf('\n', t.indexOf('<!-- ctxpkg:begin')) + 1, t.indexOf('<!-- ctxpkg:end'));
    for (const p of ruleFiles) {
      expect(bodyOf(files.get(p) as string)).toBe(bodyOf(files.get(ruleFiles[0] as string) as string));
      for (const t of SCOPED) expect(files.get(p)).toContain(t);
      for (const t of UNSCOPED) expect(files.get(p)).not.toContain(t);
    }
    // Agents without scoping are told how to get the rule set — the same line as with AGENTS.md
    // alone (no target's file: it exists only while that target is enabled).
    expect(files.get('AGENTS.md')).toContain("\n- `src/api/**/*.ts`, `src/auth/**`: run `ctxpkg render --focus 'src/api/**/*.ts'`\n");
    // The receipt lists both tiers and every file.
    const receipt = JSON.parse(readFile(root, '.ctxpkg/receipts/sync.json') as string);
    expect(receipt.always_on.delivered.map((d: { id: string }) => d.id).sort()).toEqual(['@acme/auth#g1', '@acme/style#f1']);
    expect(receipt.rule_sets[0].receipt.delivered.map((d: { id: string }) => d.id).sort()).toEqual(['@acme/auth#c1', '@acme/auth#c2']);
    expect(receipt.files).toHaveLength(14);
  });

  it('writes globs that start with * bare in Cursor and Windsurf (their readers keep quotes), quoted in Copilot; leaves out, with a warning, each pattern a target cannot carry', async () => {
    const scoped = (patterns: string[]) =>
      mgraph(
        [
          mnode('@acme/web', 'rules', { type: 'section', content: 'Web rules' }),
          mnode('@acme/web', 'c1', { type: 'convention', content: 'Prefer function components.', file_path: '.cursor/rules/web.mdc', line_start: 5, line_end: 5 }),
          ...patterns.map((p, i) => mnode('@acme/web', `s${i}`, { type: 'scope', content: p })),
        ],
        [{ from: '@acme/web#rules', to: '@acme/web#c1', type: 'contains' }, ...patterns.map((_, i) => ({ from: '@acme/web#rules', to: `@acme/web#s${i}`, type: 'applies_to' }))],
      );
    const lineOf = (text: string, key: string) => text.split('\n').find((l) => l.startsWith(`${key}: `));
    const root = makeProject({ graph: scoped(['**/*.ts', '**/*.tsx']), context: { sync: { targets: ['agents-md', 'cursor', 'windsurf', 'copilot', 'claude'] } } });
    const r = await run(['sync', '--json'], root);
    expect(r.code, r.stderr).toBe(0);
    const slug = 'acme__web--web';
    expect(lineOf(readFile(root, `.cursor/rules/ctxpkg-${slug}.mdc`) as string, 'globs')).toBe('globs: **/*.ts,**/*.tsx');
    expect(lineOf(readFile(root, `.windsurf/rules/ctxpkg-${slug}.md`) as string, 'globs')).toBe('globs: **/*.ts,**/*.tsx');
    expect(lineOf(readFile(root, `.github/instructions/ctxpkg-${slug}.instructions.md`) as string, 'applyTo')).toBe('applyTo: "**/*.ts,**/*.tsx"');
    expect(frontmatterOf(readFile(root, `.claude/rules/ctxpkg-${slug}.md`) as string)).toEqual({ paths: ['**/*.ts', '**/*.tsx'] });
    expect(r.json.warnings).toEqual([]);

    // Hostile scope globs: none may add a frontmatter line or change what the line matches.
    // (Edge spaces never get this far: scope text is trimmed on import; yaml.test.ts covers them.)
    const hostile = ['src/**', 'a,{b,{c,d}}', 'src/** #x', 'true', '"quoted/**"'];
    writeGraph(root, scoped(hostile));
    const h = await run(['sync', '--json'], root);
    expect(h.code, h.stderr).toBe(0);
    const cursorFile = readFile(root, `.cursor/rules/ctxpkg-${slug}.mdc`) as string;
    expect(cursorFile).toMatch(/^---\ndescription: [^\n]*\nglobs: src\/\*\*\nalwaysApply: false\n---\n/);
    expect(lineOf(readFile(root, `.windsurf/rules/ctxpkg-${slug}.md`) as string, 'globs')).toBe('globs: src/**');
    // Copilot's value is quoted YAML: only the unsplittable comma is left out there.
    expect(frontmatterOf(readFile(root, `.github/instructions/ctxpkg-${slug}.instructions.md`) as string)).toEqual({ applyTo: '"quoted/**",src/**,src/** #x,true' });
    const warnings = h.json.warnings as string[];
    for (const p of hostile.slice(1)) {
      expect(warnings.some((w) => w.includes(`${JSON.stringify(p)} left out of Cursor's rule file .cursor/rules/ctxpkg-${slug}.mdc`)), p).toBe(true);
      expect(warnings.some((w) => w.includes(`${JSON.stringify(p)} left out of Windsurf's rule file`)), p).toBe(true);
    }
    expect(warnings.filter((w) => w.includes("GitHub Copilot's rule file"))).toEqual([
      `@acme/web: scope pattern "a,{b,{c,d}}" left out of GitHub Copilot's rule file .github/instructions/ctxpkg-${slug}.instructions.md: it holds a comma outside a simple {a,b} group, and the agent splits the field at commas`,
    ]);

    // A set none of whose patterns Cursor can carry gets no Cursor rule file (the others still do).
    writeGraph(root, scoped(['true', '#x/**']));
    const n = await run(['sync', '--json'], root);
    expect(n.code, n.stderr).toBe(0);
    expect(existsSync(join(root, `.cursor/rules/ctxpkg-${slug}.mdc`))).toBe(false);
    expect(existsSync(join(root, `.claude/rules/ctxpkg-${slug}.md`))).toBe(true);
    expect((n.json.warnings as string[]).some((w) => w.includes('no other pattern is left, so no Cursor rule file is written for it'))).toBe(true);
  });

  it('without the AGENTS.md target, Cursor, Windsurf, Kiro and Cline get their own always-on files', async () => {
    const root = makeProject({ graph: twoPackages(), context: { sync: { targets: ['cursor', 'windsurf', 'kiro', 'cline'] } } });
    expect((await run(['sync'], root)).code).toBe(0);
    expect(frontmatterOf(readFile(root, '.cursor/rules/ctxpkg.mdc') as string)).toEqual({ alwaysApply: true });
    expect(frontmatterOf(readFile(root, '.windsurf/rules/ctxpkg.md') as string)).toEqual({ trigger: 'always_on' });
    expect(frontmatterOf(readFile(root, '.kiro/steering/ctxpkg.md') as string)).toEqual({ inclusion: 'always' });
    expect(readFile(root, '.clinerules/ctxpkg.md')).toMatch(/^<!-- ctxpkg:begin sha256=/);
    for (const p of ['.cursor/rules/ctxpkg.mdc', '.windsurf/rules/ctxpkg.md', '.kiro/steering/ctxpkg.md', '.clinerules/ctxpkg.md']) {
      for (const t of UNSCOPED) expect(readFile(root, p)).toContain(t);
    }
    expect(existsSync(join(root, 'AGENTS.md'))).toBe(false);
  });

  it('--target saves the target in context.sync.targets, so the next plain sync keeps it; --remove names what it removes', async () => {
    const root = makeProject({ files: { 'AGENTS.md': USER_AGENTS }, graph: twoPackages() });
    const added = await run(['sync', '--target', 'claude-md', 'copilot'], root);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('saved "context.sync.targets": ["agents-md", "claude", "copilot"] in ctxpkg.json');
    expect(JSON.parse(readFile(root, 'ctxpkg.json') as string).context.sync.targets).toEqual(['agents-md', 'claude', 'copilot']);
    const plain = await run(['sync', '--json'], root);
    expect(plain.json.written).toEqual([]);
    expect(plain.json.removed).toEqual([]);
    expect(existsSync(join(root, '.github/instructions/ctxpkg-acme__auth--api.instructions.md'))).toBe(true);
    const removed = await run(['sync', '--remove', 'copilot'], root);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain('saved "context.sync.targets": ["agents-md", "claude"] in ctxpkg.json');
    expect(removed.stdout).toContain('remove .github/instructions/ctxpkg-acme__auth--api.instructions.md');
    expect(removed.stdout).toContain('remove .github/instructions/ (empty folder)');
    expect(removed.stdout).toContain('remove .github/ (empty folder)');
    expect(existsSync(join(root, '.github'))).toBe(false);
    expect((await run(['sync', '--remove'], root)).stderr).toMatch(/E_USAGE: --remove needs the targets to remove, by name/);
    expect((await run(['sync', '--target', 'vim'], root)).stderr).toMatch(/E_USAGE: unknown sync target vim for --target \(one of /);
    expect((await run(['sync', '--target', 'cursr'], root)).stderr).toContain('E_USAGE: unknown sync target cursr for --target; did you mean cursor? (one of agents-md, claude, cursor');
    expect((await run(['sync', '--remove', 'al'], root)).stderr).toContain('unknown sync target al for --remove; did you mean all?');
  });

  it('--remove of a target that is not enabled says so and changes nothing in ctxpkg.json (auto-detection stays on), exit 0', async () => {
    const root = makeProject({ files: { 'AGENTS.md': USER_AGENTS }, graph: twoPackages() });
    const before = readFile(root, 'ctxpkg.json');
    const r = await run(['sync', '--remove', 'cursor', '--json'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.saved).toBe(false);
    expect(r.json.not_targets).toEqual(['cursor']);
    expect(readFile(root, 'ctxpkg.json')).toBe(before);
    const text = await run(['sync', '--remove', 'kiro'], root);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('kiro is not a sync target (targets: agents-md): nothing to remove');
    expect(text.stdout).not.toContain('saved "context.sync.targets"');
    expect(readFile(root, 'ctxpkg.json')).toBe(before);
    // The next plain sync still detects agents: a .cursor folder turns Cursor on by itself.
    writeFile(root, '.cursor/.keep', '');
    const detected = await run(['sync'], root);
    expect(detected.stdout).toContain('write .cursor/rules/ctxpkg-acme__auth--api.mdc');
    // With explicit targets, naming one that is not there changes nothing either; the others go.
    expect((await run(['sync', '--target', 'claude'], root)).code).toBe(0);
    const saved = readFile(root, 'ctxpkg.json');
    const mixed = await run(['sync', '--remove', 'kiro', 'claude'], root);
    expect(mixed.code, mixed.stderr).toBe(0);
    expect(mixed.stdout).toContain('kiro is not a sync target (targets: agents-md, claude, cursor): nothing to remove');
    expect(mixed.stdout).toContain('saved "context.sync.targets": ["agents-md", "cursor"] in ctxpkg.json');
    expect(readFile(root, 'ctxpkg.json')).not.toBe(saved);
    // `--remove all` does not list every target that was not enabled.
    const all = await run(['sync', '--remove', 'all'], root);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).not.toMatch(/is not a sync target/);
  });

  it('--dry-run saves and writes nothing', async () => {
    const root = makeProject({ graph: twoPackages() });
    const dry = await run(['sync', '--target', 'copilot', '--dry-run'], root);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('would save "context.sync.targets": ["agents-md", "copilot"]');
    expect(dry.stdout).toContain('would write .github/instructions/ctxpkg-acme__auth--api.instructions.md');
    expect(existsSync(join(root, '.github'))).toBe(false);
    expect(JSON.parse(readFile(root, 'ctxpkg.json') as string).context).toBeUndefined();
  });
});

describe('ctxpkg sync: ownership', () => {
  it('install → uninstall leaves every agent file byte-identical (user files, user text, folders)', async () => {
    const before = {
      'AGENTS.md': '# Mine, no trailing newline',
      'CLAUDE.md': '# Claude\n\n\n',
      '.claude/settings.json': '{}\n',
      '.cursor/rules/mine.mdc': '---\nalwaysApply: true\n---\nuser rule\n',
      '.github/copilot-instructions.md': 'Use tabs.\n',
      'GEMINI.md': '',
    };
    const root = makeProject({ files: before, context: { sync: { targets: ALL } } });
    const snapshot = tree(root);
    writeGraph(root, twoPackages());
    const installed = syncAfterChange({ cwd: root, clock: () => new Date(FIXED_NOW), ...homeDeps(root) });
    expect(installed?.skipped).toEqual([]);
    expect(tree(root).size).toBeGreaterThan(snapshot.size);
    rmSync(join(root, '.ctxpkg/graph/merged.json'));
    const removed = removeSyncOutputs({ cwd: root, clock: () => new Date(FIXED_NOW), ...homeDeps(root) });
    expect(removed.skipped).toEqual([]);
    expect(tree(root)).toEqual(snapshot);
  });

  it('after the last uninstall no empty block is left behind (auto sync with nothing installed)', async () => {
    const root = makeProject({ files: { 'AGENTS.md': USER_AGENTS }, graph: twoPackages() });
    await run(['sync'], root);
    writeGraph(root, mgraph([]));
    const r = syncAfterChange({ cwd: root, clock: () => new Date(FIXED_NOW), ...homeDeps(root) });
    expect(r?.removed).toEqual(['AGENTS.md (block)']);
    expect(readFile(root, 'AGENTS.md')).toBe(USER_AGENTS);
  });

  it('uninstalling one package removes exactly its rule files, nothing else', async () => {
    const root = makeProject({ files: { 'AGENTS.md': USER_AGENTS, '.cursor/rules/mine.mdc': 'user rule\n' }, graph: twoPackages(), context: { sync: { targets: ['agents-md', 'cursor', 'claude'] } } });
    await run(['sync'], root);
    const g = twoPackages();
    writeGraph(root, { ...g, nodes: g.nodes.filter((n) => n.package !== '@acme/auth'), edges: [], inputs: g.inputs.filter((i) => i.package !== '@acme/auth') });
    const report = syncAfterChange({ cwd: root, clock: () => new Date(FIXED_NOW), ...homeDeps(root) })!;
    expect(report.removed.sort()).toEqual(['.claude/ (empty folder)', '.claude/rules/ (empty folder)', '.claude/rules/ctxpkg-acme__auth--api.md', '.cursor/rules/ctxpkg-acme__auth--api.mdc']);
    expect(readFile(root, '.cursor/rules/mine.mdc')).toBe('user rule\n');
    expect(readFile(root, 'AGENTS.md')).toContain('Two-space indentation.');
    expect(readFile(root, 'AGENTS.md')).not.toContain('Never log session tokens.');
  });

  it('leaves a user-edited block alone with a warning, and never removes it', async () => {
    const root = makeProject({ files: { 'AGENTS.md': USER_AGENTS }, graph: twoPackages() });
    await run(['sync'], root);
    const edited = (readFile(root, 'AGENTS.md') as string).replace('Never log session tokens.', 'Never log session tokens (I added this).');
    writeFile(root, 'AGENTS.md', edited);
    const r = await run(['sync'], root);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: AGENTS.md: the ctxpkg block was edited by hand; left alone/);
    expect(readFile(root, 'AGENTS.md')).toBe(edited);
    const removed = await run(['sync', '--remove', 'all'], root);
    expect(removed.stderr).toMatch(/AGENTS\.md: no longer wanted, but the ctxpkg block was edited by hand; left alone/);
    expect(readFile(root, 'AGENTS.md')).toBe(edited);
  });

  it('leaves an edited generated file alone and reports it; never touches a foreign file of the same name', async () => {
    const targets = { sync: { targets: ['agents-md', 'cursor'] } };
    const root = makeProject({ graph: twoPackages(), context: targets });
    await run(['sync'], root);
    const path = '.cursor/rules/ctxpkg-acme__auth--api.mdc';
    const edited = (readFile(root, path) as string).replace('alwaysApply: false', 'alwaysApply: true');
    writeFile(root, path, edited);
    const r = await run(['sync'], root);
    expect(r.stderr).toContain(`warning: ${path}: edited by hand; left alone`);
    expect(readFile(root, path)).toBe(edited);
    expect((await run(['sync', '--remove', 'cursor'], root)).stderr).toContain(`warning: ${path}: no longer wanted, but it was edited by hand; left alone`);
    expect(readFile(root, path)).toBe(edited);
    const other = makeProject({ graph: twoPackages(), context: targets, files: { [path]: 'my own rules\n' } });
    const r2 = await run(['sync'], other);
    expect(r2.stderr).toContain(`warning: ${path}: not written by ctxpkg sync; left alone`);
    expect(readFile(other, path)).toBe('my own rules\n');
  });

  it('recognises its own outputs from markers and names alone (fresh clone, no record) and removes them', async () => {
    const root = makeProject({ files: { 'AGENTS.md': USER_AGENTS }, graph: twoPackages(), context: { sync: { targets: ALL } } });
    await run(['sync'], root);
    rmSync(join(root, '.ctxpkg'), { recursive: true });
    const r = await run(['sync', '--remove', 'all', '--json'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.removed).toContain('.windsurf/rules/ctxpkg-acme__auth--api.md');
    expect([...tree(root).keys()].sort()).toEqual(['AGENTS.md', 'ctxpkg.json']);
    expect(readFile(root, 'AGENTS.md')).toBe(USER_AGENTS);
  });

  it('with AGENTS.md on, CLAUDE.md and GEMINI.md import AGENTS.md (@AGENTS.md) instead of a second copy; stable, and uninstall restores them', async () => {
    const root = makeProject({ files: { 'AGENTS.md': USER_AGENTS, 'CLAUDE.md': '# Claude\n\nUse plan mode.\n' }, graph: twoPackages(), context: { sync: { targets: ['agents-md', 'claude', 'gemini'] } } });
    const r = await run(['sync'], root);
    expect(r.code, r.stderr).toBe(0);
    const claude = readFile(root, 'CLAUDE.md') as string;
    expect(claude.startsWith('# Claude\n\nUse plan mode.\n\n<!-- ctxpkg:begin sha256=')).toBe(true);
    expect(claude.slice(claude.indexOf('\n', claude.indexOf('<!-- ctxpkg:begin')) + 1)).toMatch(/^@AGENTS\.md\n<!-- ctxpkg:end sha256=[0-9a-f]{64} -->\n$/);
    expect(readFile(root, 'GEMINI.md')).toMatch(/^<!-- ctxpkg:begin sha256=[0-9a-f]{64} [^\n]*-->\n@AGENTS\.md\n<!-- ctxpkg:end /);
    for (const t of UNSCOPED) expect(claude).not.toContain(t);
    for (const t of UNSCOPED) expect(readFile(root, 'AGENTS.md')).toContain(t);
    // The import line inside ctxpkg's own block is not mistaken for the user's: the next sync keeps it.
    const again = await run(['sync', '--json'], root);
    expect(again.json.written).toEqual([]);
    expect(again.json.unchanged).toContain('CLAUDE.md');
    // Without the AGENTS.md target, CLAUDE.md gets the text itself.
    const alone = makeProject({ graph: twoPackages(), context: { sync: { targets: ['claude'] } } });
    expect((await run(['sync'], alone)).code).toBe(0);
    for (const t of UNSCOPED) expect(readFile(alone, 'CLAUDE.md')).toContain(t);
    expect(readFile(alone, 'CLAUDE.md')).not.toContain('@AGENTS.md');
    // Removing everything restores the user's CLAUDE.md byte for byte and deletes the GEMINI.md sync created.
    const rm = await run(['sync', '--remove', 'all'], root);
    expect(rm.code, rm.stderr).toBe(0);
    expect(readFile(root, 'CLAUDE.md')).toBe('# Claude\n\nUse plan mode.\n');
    expect(existsSync(join(root, 'GEMINI.md'))).toBe(false);
  });

  it('skips CLAUDE.md when it imports AGENTS.md', async () => {
    const root = makeProject({ files: { 'CLAUDE.md': '@AGENTS.md\n' }, graph: twoPackages() });
    const r = await run(['sync'], root);
    expect(r.stdout).toContain('note: CLAUDE.md imports AGENTS.md');
    expect(readFile(root, 'CLAUDE.md')).toBe('@AGENTS.md\n');
    expect(existsSync(join(root, '.claude/rules/ctxpkg-acme__auth--api.md'))).toBe(true);
  });

  it('refuses (E_BUDGET) and writes nothing when pinned nodes exceed the block cap', async () => {
    const g = mgraph([mnode('@acme/big', 'n', { content: 'x'.repeat(9000) })]);
    const root = makeProject({ files: { 'AGENTS.md': USER_AGENTS }, graph: g, context: { pins: ['@acme/big#n'] } });
    const r = await run(['sync'], root);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/E_BUDGET/);
    expect(readFile(root, 'AGENTS.md')).toBe(USER_AGENTS);
    expect(existsSync(join(root, '.ctxpkg', 'sync.json'))).toBe(false);
  });

  it('with nothing installed writes nothing', async () => {
    const root = makeProject({ files: { 'AGENTS.md': USER_AGENTS } });
    const r = await run(['sync'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(readFile(root, 'AGENTS.md')).toBe(USER_AGENTS);
  });
});

describe('ctxpkg sync: 100 installed packages', () => {
  it('keeps the block header bounded and within the cap (no E_BUDGET), counting what is left out', async () => {
    const nodes = [];
    for (let p = 0; p < 120; p++) {
      const pkg = `@acme/package-number-${String(p).padStart(3, '0')}`;
      nodes.push(mnode(pkg, 'root', { type: 'section', content: 'Rules' }));
      for (let i = 0; i < 5; i++) nodes.push(mnode(pkg, `n${i}`, { type: i === 0 ? 'gotcha' : 'fact', content: `Rule ${i} of ${pkg}: keep the handler small.` }));
      nodes.push(mnode(pkg, 's', { type: 'scope', content: `services/svc-${p}/**` }));
    }
    const edges = [];
    for (let p = 0; p < 120; p++) {
      const pkg = `@acme/package-number-${String(p).padStart(3, '0')}`;
      edges.push({ from: `${pkg}#root`, to: `${pkg}#n4`, type: 'contains' }, { from: `${pkg}#root`, to: `${pkg}#s`, type: 'applies_to' });
    }
    const root = makeProject({ graph: mgraph(nodes, edges), context: { sync: { targets: ['agents-md', 'claude'] } } });
    const r = await run(['sync', '--json'], root);
    expect(r.code, r.stderr).toBe(0);
    const agents = readFile(root, 'AGENTS.md') as string;
    expect(Buffer.byteLength(agents)).toBeLessThanOrEqual(8192 + 1);
    const header = agents.slice(0, agents.indexOf('--- BEGIN UNTRUSTED CONTEXT'));
    expect(header).not.toMatch(/^inputs: /m); // the package headings name what is delivered
    expect(header.match(/^- `services\/svc-\d+\/\*\*`: run `ctxpkg render --focus 'services\/svc-\d+\/\*\*'`$/gm)).toHaveLength(12);
    expect(header).toContain('- 108 more rule sets for other paths: run `ctxpkg render --focus <path>` to get the rules for a path');
    const left = 120 * 5 - r.json.tiers.always_on - r.json.tiers.path_scoped;
    expect(header).toContain(`${left} more installed items did not fit in this file: find them with the \`search_context\` tool of the ctxpkg MCP server`);
    expect(Buffer.byteLength(header)).toBeLessThan(4096);
    expect(r.json.tiers.rule_sets).toBe(120);
    expect(r.json.tiers.always_on).toBeGreaterThan(10);
    expect(r.json.tiers.on_demand).toBe(120 * 5 - r.json.tiers.always_on - r.json.tiers.path_scoped);
  });
});
