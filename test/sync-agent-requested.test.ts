/**
 * Cursor's agent-requested rule (`.cursor/rules/*.mdc` with `alwaysApply: false`, a `description:`
 * and no `globs:`) end to end (issue 18): created into a package, installed, synced. Such a rule
 * has no scope, so its items are always-on like every unscoped item; its description reaches the
 * agents once — also when the rule's body opens with the same sentence, which printed it twice
 * (the importer's description node, then the body's first line).
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, createWorld, tempDir, type World } from './support/cli.js';

/** Body opens with its own description (a final period aside). */
const REPEATED = 'Use these rules when writing or changing database migrations';
const MIGRATIONS = `---\ndescription: ${REPEATED}\nalwaysApply: false\n---\n${REPEATED}.\n\n- Never edit an applied migration; add a new one.\n`;
/** Body does not say it: the description is the only place it is said. */
const SQL = 'Apply when writing SQL queries';
const QUERIES = `---\ndescription: ${SQL}\nglobs:\nalwaysApply: false\n---\n# Queries\n\n- Quote identifiers.\n`;

/** A path-scoped rule whose body opens with its description: Cursor's rule file keeps it in frontmatter. */
const PY = 'Python style for the service code';
const PYTHON = `---\ndescription: ${PY}\nglobs: src/**/*.py\nalwaysApply: false\n---\n${PY}\n\n- Format with black.\n`;

const WITHOUT_AGENTS_MD = ['claude', 'cursor', 'copilot', 'gemini', 'windsurf', 'kiro', 'cline'];

/** Every text file under `root` except ctxpkg's own state and JSON settings. */
function agentFiles(root: string, dir = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(join(root, dir))) {
    const rel = dir ? `${dir}/${name}` : name;
    if (['.ctxpkg', '.home'].includes(rel) || rel.endsWith('.json') || rel.endsWith('.lock')) continue;
    if (statSync(join(root, rel)).isDirectory()) for (const [k, v] of agentFiles(root, rel)) out.set(k, v);
    else out.set(rel, readFileSync(join(root, rel), 'utf8'));
  }
  return out;
}

const count = (text: string, s: string): number => text.split(s).length - 1;

describe('sync: an agent-requested Cursor rule (description, no globs)', () => {
  let world: World;
  let project: string;
  let env: Record<string, string>;
  const run = (args: string[], cwd = project) => cli(args, { cwd, fetch: world.fetch, env, home: join(project, '.home') });
  const setTargets = (targets: string[]) => {
    const m = JSON.parse(readFileSync(join(project, 'ctxpkg.json'), 'utf8'));
    m.context = { sync: { targets } };
    writeFileSync(join(project, 'ctxpkg.json'), JSON.stringify(m, null, 2) + '\n');
  };

  beforeAll(async () => {
    world = createWorld();
    const reg = await world.addRegistry('requested.test');
    const acme = await reg.namespace('acme');
    project = tempDir();
    env = { CTXPKG_HOME: join(project, '.home'), CTXPKG_REGISTRY: reg.url, CTXPKG_TOKEN: acme };
    const team = tempDir();
    mkdirSync(join(team, '.cursor/rules'), { recursive: true });
    writeFileSync(join(team, '.cursor/rules/migrations.mdc'), MIGRATIONS);
    writeFileSync(join(team, '.cursor/rules/queries.mdc'), QUERIES);
    writeFileSync(join(team, '.cursor/rules/python.mdc'), PYTHON);
    const c = await run(['create', '--name', '@acme/db', '--version', '1.0.0', '--from', '.cursor/rules', '--out', join(team, 'db.ctxpkg')], team);
    expect(c.code, c.stderr).toBe(0);
    expect((await run(['publish', join(team, 'db.ctxpkg')])).code).toBe(0);
    expect((await run(['init', '--trust', '@acme'])).code).toBe(0);
    setTargets(WITHOUT_AGENTS_MD);
    const i = await run(['install', '@acme/db']);
    expect(i.code, i.stderr + i.stdout).toBe(0);
  });

  it('is always-on in every agent\'s own file, its description said once in each', () => {
    const files = agentFiles(project);
    const holding = [...files].filter(([, t]) => t.includes('Never edit an applied migration'));
    // Each agent's own always-on file (no AGENTS.md target): Cursor's is an alwaysApply rule.
    expect(holding.map(([p]) => p).sort()).toEqual(['.clinerules/ctxpkg.md', '.cursor/rules/ctxpkg.mdc', '.github/copilot-instructions.md', '.kiro/steering/ctxpkg.md', '.windsurf/rules/ctxpkg.md', 'CLAUDE.md', 'GEMINI.md'].sort());
    expect(files.get('.cursor/rules/ctxpkg.mdc')?.startsWith('---\nalwaysApply: true\n---\n')).toBe(true);
    for (const [p, t] of holding) {
      expect(count(t, REPEATED), p).toBe(1);
      expect(count(t, SQL), p).toBe(1);
      expect(count(t, 'Quote identifiers.'), p).toBe(1);
    }
  });

  it('a path-scoped rule that opens with its description: said once in every rule file body, kept in Cursor\'s frontmatter', () => {
    const files = agentFiles(project);
    const ruleFiles = [...files].filter(([p]) => /\/ctxpkg-acme__db--python\./.test(p));
    expect(ruleFiles.length).toBeGreaterThanOrEqual(5);
    for (const [p, t] of ruleFiles) {
      const body = t.slice(t.indexOf('<!-- ctxpkg:begin'));
      expect(count(body, PY), p).toBe(1);
      expect(body, p).toContain('Format with black.');
    }
    expect(files.get('.cursor/rules/ctxpkg-acme__db--python.mdc')).toMatch(/^---\ndescription: "Python style for the service code"\nglobs: /);
  });

  it('says it once in the AGENTS.md block and in render', async () => {
    setTargets(['agents-md']);
    const s = await run(['sync']);
    expect(s.code, s.stderr).toBe(0);
    const agents = readFileSync(join(project, 'AGENTS.md'), 'utf8');
    expect(count(agents, REPEATED)).toBe(1);
    expect(count(agents, SQL)).toBe(1);
    const r = await run(['render']);
    expect(r.code, r.stderr).toBe(0);
    expect(count(r.stdout, REPEATED)).toBe(1);
    expect(count(r.stdout, SQL)).toBe(1);
  });
});
