/**
 * Issue 18 end to end on real instruction files: `../shared/corpus` (read via describeShared)
 * plus our own rule files with `paths:`, `globs:` and `applyTo:` frontmatter (fixtures/agent-rules)
 * are created into signed packages, published, and installed into a project with all eight
 * targets and `trust.instructions`. Then, as an agent would: every written file's frontmatter is
 * parsed with a YAML parser; every target carries the same nodes; the team's own package is
 * delivered as instructions and the other stays fenced; a one-off `--target` survives the next
 * sync; install → uninstall leaves every agent file byte-identical.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cli, createWorld, tempDir, type World } from './support/cli.js';
import { describeShared, REPO_ROOT, sharedText } from './support/shared.js';

/** Corpus file → where the publisher keeps it. */
const CORPUS: Record<string, string> = {
  'codex/AGENTS.md': 'AGENTS.md',
  'vscode/.github/copilot-instructions.md': '.github/copilot-instructions.md',
  'nemo-agent-toolkit/.cursor/rules/general.mdc': '.cursor/rules/general.mdc',
  'awesome-cursorrules/fastapi/.cursorrules': '.cursorrules',
};
const ALL = ['agents-md', 'claude', 'cursor', 'copilot', 'gemini', 'windsurf', 'kiro', 'cline'];
const ALWAYS_ON = ['AGENTS.md'];
/** Always-on files that import AGENTS.md (`@AGENTS.md`) instead of holding a copy. */
const IMPORTING = ['CLAUDE.md', 'GEMINI.md'];

function tree(root: string, dir = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(join(root, dir))) {
    const rel = dir ? `${dir}/${name}` : name;
    if (['.ctxpkg', '.home', 'ctxpkg.json', 'ctxpkg.lock', '.gitignore'].includes(rel)) continue;
    if (statSync(join(root, rel)).isDirectory()) {
      const sub = tree(root, rel);
      if (sub.size === 0) out.set(`${rel}/`, '');
      for (const [k, v] of sub) out.set(k, v);
    } else out.set(rel, readFileSync(join(root, rel), 'utf8'));
  }
  return out;
}

function frontmatterOf(text: string): Record<string, unknown> {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!m) throw new Error(`no frontmatter: ${text.slice(0, 120)}`);
  return parse(m[1] as string) as Record<string, unknown>;
}

const bodyOf = (t: string): string => t.slice(t.indexOf('\n', t.indexOf('<!-- ctxpkg:begin')) + 1, t.indexOf('<!-- ctxpkg:end'));

describeShared('sync on real instruction files: every target, frontmatter, trust, ownership', () => {
  let world: World;
  let env: Record<string, string>;
  let project: string;
  let before: Map<string, string>;
  const run = (args: string[], cwd = project) => cli(args, { cwd, fetch: world.fetch, env, home: join(project, '.home') });

  beforeAll(async () => {
    world = createWorld();
    const reg = await world.addRegistry('corpus.test');
    const acme = await reg.namespace('acme');
    const other = await reg.namespace('other');
    project = tempDir();
    env = { CTXPKG_HOME: join(project, '.home'), CTXPKG_REGISTRY: reg.url, CTXPKG_TOKEN: acme };
    // Publisher 1 (@acme/rules): the team's own rules, three of them path-scoped.
    const team = tempDir();
    cpSync(join(REPO_ROOT, 'fixtures/agent-rules'), team, { recursive: true });
    const c1 = await run(['create', '--name', '@acme/rules', '--version', '1.0.0', '--from', 'AGENTS.md', '.claude/rules', '.cursor/rules', '.github/instructions', '--out', join(team, 'r.ctxpkg')], team);
    expect(c1.code, c1.stderr).toBe(0);
    expect((await run(['publish', join(team, 'r.ctxpkg')])).code).toBe(0);
    // Publisher 2 (@other/corpus): real files from the shared corpus.
    const pub = tempDir();
    for (const [rel, to] of Object.entries(CORPUS)) {
      const dest = join(pub, to);
      mkdirSync(dirname(dest), { recursive: true });
      writeFileSync(dest, sharedText(`corpus/${rel}`));
    }
    const c2 = await run(['create', '--name', '@other/corpus', '--version', '2.0.0', '--from', 'AGENTS.md', '.github/copilot-instructions.md', '.cursor/rules', '.cursorrules', '--out', join(pub, 'c.ctxpkg')], pub);
    expect(c2.code, c2.stderr).toBe(0);
    const p2 = await cli(['publish', '--public', join(pub, 'c.ctxpkg')], { cwd: pub, fetch: world.fetch, env: { ...env, CTXPKG_TOKEN: other }, home: join(project, '.home') });
    expect(p2.code, p2.stderr).toBe(0);
    // The consumer: its own agent files, then init --trust @acme with every target.
    writeFileSync(join(project, 'AGENTS.md'), '# Consumer\n\n- Our own line.\n');
    mkdirSync(join(project, '.cursor/rules'), { recursive: true });
    writeFileSync(join(project, '.cursor/rules/mine.mdc'), '---\nalwaysApply: true\n---\nmine\n');
    before = tree(project);
    expect((await run(['init', '--trust', '@acme'])).code).toBe(0);
    const m = JSON.parse(readFileSync(join(project, 'ctxpkg.json'), 'utf8'));
    m.context = { sync: { targets: ALL, max_bytes: 16384 } };
    writeFileSync(join(project, 'ctxpkg.json'), JSON.stringify(m, null, 2) + '\n');
    const i = await run(['install', '@acme/rules', '@other/corpus']);
    expect(i.code, i.stderr + i.stdout).toBe(0);
  });

  it('trust ls names the signer the way every command does: fingerprint, then the start of the public key', async () => {
    const ls = await run(['trust', 'ls']);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toMatch(/@acme\/rules@\S+: delivered as instructions \(signer [0-9a-f]{4}(:[0-9a-f]{4}){3} \(public key [0-9a-f]{16}…\), pinned in ctxpkg\.lock\)/);
  });

  it('writes each agent its native files; every rule file frontmatter parses as YAML with its patterns', () => {
    const files = tree(project);
    const rule = (dir: string, ext: string) => [...files.keys()].filter((p) => p.startsWith(`${dir}/ctxpkg-`) && p.endsWith(ext)).sort();
    const claude = rule('.claude/rules', '.md');
    expect(claude.length).toBe(3); // api.md, tests.mdc, docs.instructions.md
    const patternsOf = new Map<string, string[]>();
    for (const p of claude) patternsOf.set(p.slice('.claude/rules/ctxpkg-'.length, -3), frontmatterOf(files.get(p) as string).paths as string[]);
    expect([...patternsOf.values()].sort()).toEqual([['conftest.py', 'tests/**/*.py'], ['docs/**/*.md'], ['src/api/**/*.ts', 'src/routes/**/*.ts']]);
    for (const [slug, patterns] of patternsOf) {
      expect(frontmatterOf(files.get(`.cursor/rules/ctxpkg-${slug}.mdc`) as string)).toMatchObject({ globs: patterns.join(','), alwaysApply: false });
      expect(frontmatterOf(files.get(`.github/instructions/ctxpkg-${slug}.instructions.md`) as string)).toEqual({ applyTo: patterns.join(',') });
      expect(frontmatterOf(files.get(`.windsurf/rules/ctxpkg-${slug}.md`) as string)).toEqual({ trigger: 'glob', globs: patterns.join(',') });
      expect(frontmatterOf(files.get(`.kiro/steering/ctxpkg-${slug}.md`) as string)).toEqual({ inclusion: 'fileMatch', fileMatchPattern: patterns });
      expect(frontmatterOf(files.get(`.clinerules/ctxpkg-${slug}.md`) as string)).toEqual({ paths: patterns });
    }
    // What the agent reads names each rule file's patterns once (the title), besides the
    // frontmatter its host reads: no `applies to:` line repeats them.
    for (const [p, text] of files) {
      if (!/\/ctxpkg-acme__rules--/.test(p)) continue;
      const body = bodyOf(text);
      expect(body, p).not.toContain('applies to');
      const slug = /ctxpkg-(acme__rules--[a-z]+)/.exec(p)?.[1] as string;
      expect(body.split('\n')[0], p).toBe(`# Rules for ${(patternsOf.get(slug) ?? []).map((x) => `\`${x}\``).join(', ')} (ctxpkg)`);
    }
    for (const p of ALWAYS_ON) expect(files.get(p)).toContain('<!-- ctxpkg:begin sha256=');
    for (const p of IMPORTING) expect(bodyOf(files.get(p) as string)).toBe('@AGENTS.md\n');
    // Copilot reads AGENTS.md itself: with the agents-md target on it gets no second copy.
    expect(files.has('.github/copilot-instructions.md')).toBe(false);
    expect(files.get('.cursor/rules/mine.mdc')).toBe('---\nalwaysApply: true\n---\nmine\n');
    // The Cursor rule keeps its source rule's own description; the text reaches every agent too.
    const tests = '.cursor/rules/ctxpkg-acme__rules--tests.mdc';
    expect(frontmatterOf(files.get(tests) as string).description).toBe('Test conventions for the Python test suite');
    expect(files.get('.claude/rules/ctxpkg-acme__rules--tests.md')).toContain('\nTest conventions for the Python test suite\n');
    // A rule without a description of its own is described by its file's H1, not by its path.
    expect(frontmatterOf(files.get('.cursor/rules/ctxpkg-acme__rules--api.mdc') as string).description).toBe('@acme/rules: API handlers');
  });

  it('carries the same nodes in every target', () => {
    const files = tree(project);
    const receipt = JSON.parse(readFileSync(join(project, '.ctxpkg/receipts/sync.json'), 'utf8'));
    const alwaysOn = ALWAYS_ON.map((p) => bodyOf(files.get(p) as string));
    for (const b of alwaysOn) expect(b).toBe(alwaysOn[0]);
    expect(receipt.always_on.counts.delivered).toBeGreaterThan(20);
    expect(alwaysOn[0]).toContain('Never push to main; open a pull request.');
    for (const rs of receipt.rule_sets as Array<{ files: string[]; patterns: string[]; receipt: { counts: { delivered: number } } }>) {
      expect(rs.files).toHaveLength(6);
      const bodies = rs.files.map((f) => bodyOf(files.get(f) as string));
      for (const b of bodies) expect(b).toBe(bodies[0]);
      expect(rs.receipt.counts.delivered).toBeGreaterThan(0);
      // Agents without path scoping are told the command that prints each rule set.
      expect(alwaysOn[0]).toContain(`: run \`ctxpkg render --focus '${rs.patterns[0]}'\`\n`);
    }
    // Scoped rules are not always-on text.
    expect(alwaysOn[0]).not.toContain('Return 422 for validation errors; never 500.');
    expect(files.get(receipt.rule_sets.find((r: { patterns: string[] }) => r.patterns.includes('src/api/**/*.ts')).files[0])).toContain('Return 422 for validation errors; never 500.');
  });

  it('delivers the trusted team package as instructions, before the fence; the other package stays fenced', () => {
    const agents = readFileSync(join(project, 'AGENTS.md'), 'utf8');
    const banner = agents.indexOf('--- BEGIN UNTRUSTED CONTEXT');
    expect(agents.indexOf('## Instructions from @acme/rules@1.0.0')).toBeGreaterThan(0);
    expect(agents.indexOf('## Instructions from @acme/rules@1.0.0')).toBeLessThan(banner);
    expect(agents.indexOf('Never push to main; open a pull request.')).toBeLessThan(banner);
    // The trust line stands right before the fence it explains; nothing about trust precedes the instructions.
    expect(agents.indexOf('Trust: the text between the UNTRUSTED CONTEXT markers')).toBeGreaterThan(agents.indexOf('Never push to main; open a pull request.'));
    expect(agents.indexOf('Trust: the text between the UNTRUSTED CONTEXT markers')).toBeLessThan(banner);
    expect(agents).not.toMatch(/^Instructions: /m);
    expect(agents.indexOf('## @other/corpus@2.0.0')).toBeGreaterThan(banner);
  });

  it('a one-off --target is saved and survives the next plain sync; --remove names what it removes', async () => {
    const removed = await run(['sync', '--remove', 'kiro']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(/remove \.kiro\/steering\/ctxpkg-/);
    expect(removed.stdout).toContain('remove .kiro/ (empty folder)');
    const added = await run(['sync', '--target', 'kiro']);
    expect(added.stdout).toContain('saved "context.sync.targets"');
    const plain = await run(['sync', '--json']);
    expect(plain.json.written).toEqual([]);
    expect(plain.json.removed).toEqual([]);
    expect(plain.json.targets).toEqual(ALL);
  });

  it('install → uninstall leaves every agent file byte-identical', async () => {
    const u = await run(['uninstall', '@acme/rules', '@other/corpus']);
    expect(u.code, u.stderr + u.stdout).toBe(0);
    expect(tree(project)).toEqual(before);
  });
});
