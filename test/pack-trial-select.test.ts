/**
 * New-user trial 2, findings 1 and 2 (always-on budget selection), end to end: three packages
 * made from real instruction files (codex AGENTS.md, the agentsmd example, nemo's .cursor/rules)
 * installed together with `init --trust @acme`, as the trial did. Checked as an agent reads
 * AGENTS.md: the codex file's top-level rule list is delivered (at least its lead-in and first
 * items, with a note when partial), a partly delivered section says so, security imperatives win
 * over routine advice, and the small package keeps all of its items.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { cli, createWorld, tempDir, type World } from './support/cli.js';
import { describeShared, sharedText } from './support/shared.js';

const PKGS: Array<{ name: string; files: Record<string, string>; from: string[] }> = [
  { name: '@acme/codex', files: { 'codex/AGENTS.md': 'AGENTS.md' }, from: ['AGENTS.md'] },
  { name: '@acme/web', files: { 'agentsmd/AGENTS.md': 'AGENTS.md' }, from: ['AGENTS.md'] },
  { name: '@acme/nat', files: { 'nemo-agent-toolkit/.cursor/rules/general.mdc': '.cursor/rules/general.mdc', 'nemo-agent-toolkit/.cursor/rules/nat-tests/general.mdc': '.cursor/rules/nat-tests/general.mdc' }, from: ['.cursor/rules'] },
];

describeShared('trial 2: three corpus packages installed together with trust', () => {
  let world: World;
  let env: Record<string, string>;
  let project: string;
  let agents: string;
  let receipt: { always_on: { delivered: Array<{ package: string; id: string; flags: string[] }>; omissions: Array<{ package: string; id: string; reason: string }> } };
  const run = (args: string[], cwd = project) => cli(args, { cwd, fetch: world.fetch, env, home: join(project, '.home') });

  beforeAll(async () => {
    world = createWorld();
    const reg = await world.addRegistry('trial.test');
    const acme = await reg.namespace('acme');
    project = tempDir();
    env = { CTXPKG_HOME: join(project, '.home'), CTXPKG_REGISTRY: reg.url, CTXPKG_TOKEN: acme };
    for (const p of PKGS) {
      const dir = tempDir();
      for (const [rel, to] of Object.entries(p.files)) {
        mkdirSync(dirname(join(dir, to)), { recursive: true });
        writeFileSync(join(dir, to), sharedText(`corpus/${rel}`));
      }
      const c = await run(['create', '--name', p.name, '--version', '1.0.0', '--from', ...p.from, '--out', join(dir, 'p.ctxpkg')], dir);
      expect(c.code, c.stderr).toBe(0);
      expect((await run(['publish', join(dir, 'p.ctxpkg')])).code).toBe(0);
    }
    writeFileSync(join(project, 'AGENTS.md'), '# Consumer\n\n- Our own line.\n');
    expect((await run(['init', '--trust', '@acme'])).code).toBe(0);
    const i = await run(['install', '@acme/web', '@acme/codex', '@acme/nat']);
    expect(i.code, i.stderr + i.stdout).toBe(0);
    agents = readFileSync(join(project, 'AGENTS.md'), 'utf8');
    receipt = JSON.parse(readFileSync(join(project, '.ctxpkg/receipts/sync.json'), 'utf8'));
    if (process.env.CTXPKG_TRIAL_DUMP) {
      writeFileSync(join(process.env.CTXPKG_TRIAL_DUMP, 'AGENTS.md'), agents);
      writeFileSync(join(process.env.CTXPKG_TRIAL_DUMP, 'sync.json'), JSON.stringify(receipt, null, 2));
    }
  });

  const block = (): string => agents.slice(agents.indexOf('<!-- ctxpkg:begin'), agents.indexOf('<!-- ctxpkg:end'));
  const after = (needle: string): string => {
    const b = block();
    const i = b.indexOf(needle);
    expect(i, needle).toBeGreaterThanOrEqual(0);
    return b.slice(i);
  };

  it("finding 1: the codex file's top-level rule list is delivered from its lead-in, with a note when partial", () => {
    const list = after('In the codex-rs folder where the rust code lives:\n\n- Crate names are prefixed with `codex-`.');
    expect(list).toContain('- Never add or modify any code related to `CODEX_SANDBOX_NETWORK_DISABLED_ENV_VAR`');
    const rec = receipt.always_on.delivered.find((d) => d.id === '@acme/codex#AGENTS.md:~56ab0c16') as { items?: { delivered: number; total: number } } | undefined;
    expect(rec, 'the rule list node is delivered').toBeDefined();
    if (rec?.items) {
      // Partial: the note follows the list, before the next heading.
      const upToHeading = list.slice(0, list.indexOf('\n#'));
      expect(upToHeading).toMatch(/\n\(ctxpkg: \d+ of \d+ items here; the rest: `search_context` or `ctxpkg render --focus <topic>`\)\n/);
    }
    expect(receipt.always_on.omissions.map((o) => o.id)).not.toContain('@acme/codex#AGENTS.md:~56ab0c16');
  });

  it('finding 2: security rules are not lost to routine advice; partial sections say how many items they show', () => {
    const sec = after('#### Security\n');
    const body = sec.slice(0, sec.indexOf('\n#', 1));
    expect(body).toContain('- Never commit API keys, credentials or personal data');
    if (body.includes('Periodically run')) expect(body.indexOf('Never commit API keys')).toBeLessThan(body.indexOf('Periodically run'));
    const b = block();
    // Every note counts fewer delivered items than the section has.
    const partialNotes = b.match(/\(ctxpkg: (\d+) of (\d+) items here/g) ?? [];
    for (const n of partialNotes) {
      const [, a, t] = /(\d+) of (\d+)/.exec(n) as RegExpExecArray;
      expect(Number(a)).toBeLessThan(Number(t));
    }
  });

  it('finding 2: the small package keeps all its items next to two big ones', () => {
    expect(receipt.always_on.omissions.filter((o) => o.package === '@acme/web')).toEqual([]);
    expect(block()).toContain('* Co-locate component-specific styles in the same folder as the component when');
  });

  it('same input, same bytes: a second sync changes nothing', async () => {
    const r = await run(['sync']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(project, 'AGENTS.md'), 'utf8')).toBe(agents);
  });
});
