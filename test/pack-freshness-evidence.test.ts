/**
 * Freshness under the default policy (`freshness: "auto"`) after the evidence is gone (issue 6
 * item 1, spec/pack.md §6 "Evidence"): a package created from this project's docs/rules.md,
 * published and installed, is fresh; after every line is edited it is STALE, after `rm` ABSENT
 * (omitted with reason `absent` under `stale: "omit"`) — in `render`, in `sync`'s per-package
 * files and in the MCP `render_pack`, alike. A package built in another repository from its own
 * docs/rules.md stays unflagged throughout. Same inputs give the same bytes.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stateLoader } from '../packages/cli/src/mcp/state.js';
import { renderPack } from '../packages/cli/src/mcp/tools.js';
import { cli, createWorld, tempDir, type World } from './support/cli.js';

const RULES = ['# Rules', '', '- Never log tokens.', '- Use pnpm for every script.', '', '## Tests', '', '1. Run `make test-db` before `make test`.', ''].join('\n');
const THEIRS = ['# Their rules', '', '- Deploy only on Fridays.', '- Use yarn classic.', ''].join('\n');
const NOW = '2026-01-02T03:04:05Z';

describe('auto freshness keeps checking a package built here after its file changed or went away', () => {
  let world: World;
  let env: Record<string, string>;
  let project: string;
  const run = (args: string[], cwd = project) => cli(args, { cwd, fetch: world.fetch, env, home: join(project, '.home') });
  const render = async (name: string) => {
    const r = await run(['render', '--out', name, '--now', NOW]);
    expect(r.code, r.stderr).toBe(0);
    return { text: readFileSync(join(project, name), 'utf8'), receipt: JSON.parse(readFileSync(join(project, `${name}.receipt.json`), 'utf8')) };
  };
  const flagsOf = (receipt: { delivered: Array<{ package: string; flags: string[] }> }, pkg: string) => receipt.delivered.filter((d) => d.package === pkg).map((d) => d.flags);
  const mcpPack = () => renderPack(stateLoader({ cwd: project, clock: () => new Date(NOW), env, homeDir: project })(), undefined, 64 * 1024).text;
  const setStale = (policy: 'flag' | 'omit') => {
    const m = JSON.parse(readFileSync(join(project, 'ctxpkg.json'), 'utf8'));
    m.context = { ...(m.context ?? {}), stale: policy };
    writeFileSync(join(project, 'ctxpkg.json'), JSON.stringify(m, null, 2) + '\n');
  };

  beforeAll(async () => {
    world = createWorld();
    const reg = await world.addRegistry('fresh.test');
    const token = await reg.namespace('acme');
    project = tempDir();
    const other = tempDir();
    env = { CTXPKG_HOME: join(project, '.home'), CTXPKG_REGISTRY: reg.url, CTXPKG_TOKEN: token };
    mkdirSync(join(project, 'docs'));
    writeFileSync(join(project, 'docs/rules.md'), RULES);
    mkdirSync(join(other, 'docs'));
    writeFileSync(join(other, 'docs/rules.md'), THEIRS);
    expect((await run(['init'])).code).toBe(0);
    for (const [cwd, name] of [[project, '@acme/rules'], [other, '@acme/theirs']] as const) {
      const out = join(project, '.home', `${name.split('/')[1]}.ctxpkg`);
      const c = await run(['create', '--name', name, '--from', 'docs/rules.md', '--out', out], cwd);
      expect(c.code, c.stderr).toBe(0);
      const p = await run(['publish', out]);
      expect(p.code, p.stderr).toBe(0);
    }
    const i = await run(['install', '@acme/rules', '@acme/theirs']);
    expect(i.code, i.stderr + i.stdout).toBe(0);
  });

  it('fresh after install: no flags, and the receipt names the package built here', async () => {
    // Recorded by the automatic sync of `install`, before any render.
    expect(existsSync(join(project, '.ctxpkg/built-here.json'))).toBe(true);
    const { text, receipt } = await render('fresh.md');
    expect(receipt.counts.flagged).toBe(0);
    expect(receipt.omissions).toEqual([]);
    expect(receipt.policy.freshness).toBe('auto');
    expect(receipt.policy.built_here).toEqual(['@acme/rules']);
    expect(text).toContain('Never log tokens.');
    expect(text).toContain('Deploy only on Fridays.');
  });

  it('every line edited: the package built here is STALE everywhere, the other one unflagged', async () => {
    writeFileSync(join(project, 'docs/rules.md'), RULES.split('\n').map((l) => (l === '' ? l : `${l} (v2)`)).join('\n'));
    const { text, receipt } = await render('edited.md');
    const ours = flagsOf(receipt, '@acme/rules');
    expect(ours.length).toBeGreaterThanOrEqual(3);
    expect(ours.every((f) => f.length === 1 && f[0] === 'stale')).toBe(true);
    expect(flagsOf(receipt, '@acme/theirs').every((f) => f.length === 0)).toBe(true);
    expect(text.match(/\(ctxpkg: STALE/g)?.length).toBe(ours.length);
    expect(mcpPack().match(/\(ctxpkg: STALE/g)?.length).toBe(ours.length);
  });

  it('file removed: ABSENT in render, sync and MCP; omitted as absent under stale: "omit"', async () => {
    rmSync(join(project, 'docs/rules.md'));
    const { text, receipt } = await render('gone.md');
    const ours = flagsOf(receipt, '@acme/rules');
    expect(ours.length).toBeGreaterThanOrEqual(3);
    expect(ours.every((f) => f.length === 1 && f[0] === 'absent')).toBe(true);
    expect(flagsOf(receipt, '@acme/theirs').every((f) => f.length === 0)).toBe(true);
    expect(text.match(/\(ctxpkg: ABSENT/g)?.length).toBe(ours.length);
    expect(mcpPack().match(/\(ctxpkg: ABSENT/g)?.length).toBe(ours.length);
    const s = await run(['sync', '--target', 'copilot']);
    expect(s.code, s.stderr).toBe(0);
    // Copilot reads the AGENTS.md block (no copy in .github/copilot-instructions.md).
    const agentsMd = readFileSync(join(project, 'AGENTS.md'), 'utf8');
    const file = agentsMd.slice(agentsMd.indexOf('<!-- ctxpkg:begin'));
    expect(file.match(/\(ctxpkg: ABSENT/g)?.length).toBe(ours.length);
    // @acme/theirs is delivered in the same block, unflagged.
    expect(file.match(/\(ctxpkg: /g)?.length).toBe(ours.length);
    expect(file).toContain('\n## @acme/theirs@');

    // Determinism: the same inputs render the same bytes (pack and receipt).
    const again = await render('gone2.md');
    expect(again.text).toBe(text);
    expect(JSON.stringify(again.receipt)).toBe(JSON.stringify(receipt));

    setStale('omit');
    const omitted = await render('omit.md');
    const ourOmissions = omitted.receipt.omissions.filter((o: { package: string }) => o.package === '@acme/rules');
    expect(ourOmissions.length).toBe(ours.length);
    expect(ourOmissions.every((o: { reason: string }) => o.reason === 'absent')).toBe(true);
    expect(omitted.receipt.omissions.filter((o: { package: string }) => o.package !== '@acme/rules')).toEqual([]);
    expect(omitted.receipt.counts.by_reason.absent).toBe(ours.length);
    expect(omitted.text).not.toContain('Never log tokens.');
    expect(omitted.text).toContain('Deploy only on Fridays.');
    expect(mcpPack()).not.toContain('Never log tokens.');
    setStale('flag');
  });
});
