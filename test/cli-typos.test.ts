/**
 * Typos and quiet edits a new user hit (new-user trial findings 13 and 22): a package name that is
 * not installed is an error naming it with the closest installed names — for `pin` (not a search
 * query) and `trust add` (not a silent dead entry); `trust add|rm` bring the agent files up to
 * date as `pin` does; and a pin with many targets prints what changed plus one summary line, not
 * one "unchanged" line per file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cli, createWorld, makePackage, putPackage, tempDir, type TestRegistry, type World } from './support/cli.js';

const SEED = new Uint8Array(32).fill(0x2a);
let world: World;
let P: TestRegistry;
let project: string;

const run = (args: string[]) => cli(args, { cwd: project, fetch: world.fetch, env: { CTXPKG_REGISTRY: P.url } });
const manifestText = () => readFileSync(join(project, 'ctxpkg.json'), 'utf8');
const agents = () => readFileSync(join(project, 'AGENTS.md'), 'utf8');

beforeEach(async () => {
  world = createWorld();
  P = await world.addRegistry('p.test');
  const token = await P.namespace('acme');
  await putPackage(P, token, '@acme/payments', '1.0.0', makePackage('@acme/payments', '1.0.0', SEED, { nodes: ['Never retry a charge without the idempotency key.'] }));
  await putPackage(P, token, '@acme/style', '1.0.0', makePackage('@acme/style', '1.0.0', SEED, { nodes: ['Use ESM only.'] }));
  project = tempDir('ctxpkg-typos-');
  expect((await run(['init'])).code).toBe(0);
  const inst = await run(['install', '@acme/payments', '@acme/style']);
  expect(inst.code, inst.stderr).toBe(0);
});

describe('pin <package> of a package that is not installed', () => {
  it('is E_NOT_FOUND naming the package and the closest installed one, not a query; nothing written', async () => {
    const before = manifestText();
    for (const arg of ['@acme/payment', '@acme/paymnts#n1']) {
      const r = await run(['pin', arg]);
      expect(r.code, r.stdout).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`error E_NOT_FOUND: ${arg.split('#')[0]} is not installed in this project; did you mean @acme/payments?`);
      expect(r.stderr).toContain(`\`ctxpkg install ${arg.split('#')[0]}\` first`);
    }
    const j = await run(['pin', '@zeta/other', '--json']);
    expect(j.json.error).toMatchObject({ code: 'E_NOT_FOUND', details: { package: '@zeta/other', suggestions: [] } });
    expect(manifestText()).toBe(before);
    // a query is still a query, and an installed package still pins
    expect((await run(['pin', 'idempotency'])).stdout).toContain('nothing pinned');
    expect((await run(['pin', '@acme/payments'])).code).toBe(0);
  });
});

describe('pin <package>#<heading> with a typo in the heading path', () => {
  it('is E_NOT_FOUND naming the package and its closest heading, not a query', async () => {
    writeFileSync(join(project, 'RULES.md'), '# Rules\n\n## Security\n\n- Never log tokens.\n\n## Testing\n\n- Run the whole suite before a release.\n');
    expect((await run(['create', '--name', '@acme/rules', '--from', 'RULES.md', '--out', 'rules.ctxpkg'])).code).toBe(0);
    const inst = await run(['install', './rules.ctxpkg']);
    expect(inst.code, inst.stderr).toBe(0);
    const before = manifestText();
    const r = await run(['pin', '@acme/rules#RULES.md:securty', '--json']);
    expect(r.code).toBe(4);
    expect(r.json.error).toMatchObject({
      code: 'E_NOT_FOUND',
      message: '@acme/rules has no heading "RULES.md:securty"; did you mean @acme/rules#RULES.md:security?',
      details: { package: '@acme/rules', heading: 'RULES.md:securty', suggestions: ['@acme/rules#RULES.md:security'] },
    });
    expect(manifestText()).toBe(before);
    const ok = await run(['pin', '@acme/rules#RULES.md:security']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('pinned @acme/rules#RULES.md:security: 1 item is delivered first');
  });
});

describe('trust add with a typo', () => {
  it('a package neither installed nor declared is refused with the closest name; nothing written', async () => {
    const before = manifestText();
    const r = await run(['trust', 'add', '@acme/paymnts']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('error E_NOT_FOUND: @acme/paymnts is neither installed nor declared in ctxpkg.json; did you mean @acme/payments?');
    expect(r.stderr).toContain('trust its scope (`ctxpkg trust add @acme`)');
    expect(manifestText()).toBe(before);
  });

  it('a scope close to one the project uses is refused; an unrelated new scope is accepted with a note', async () => {
    const before = manifestText();
    const typo = await run(['trust', 'add', '@acmee', '--json']);
    expect(typo.code).toBe(4);
    expect(typo.json.error).toMatchObject({ code: 'E_NOT_FOUND', message: 'no installed or declared package is in @acmee; did you mean @acme?', details: { suggestions: ['@acme'] } });
    expect(manifestText()).toBe(before);
    const fresh = await run(['trust', 'add', '@platform']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stdout).toContain('note: no installed or declared package is in @platform yet');
    expect(JSON.parse(manifestText()).trust.instructions).toEqual(['@platform']);
  });
});

describe('trust add|rm re-sync the agent files, as pin does', () => {
  it('the trusted package moves out of the untrusted fence at once; --no-sync leaves the files', async () => {
    expect(agents().indexOf('idempotency key')).toBeGreaterThan(agents().indexOf('--- BEGIN UNTRUSTED CONTEXT'));
    const add = await run(['trust', 'add', '@acme/payments']);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain('sync: write AGENTS.md');
    expect(agents()).toContain('## Instructions from @acme/payments@1.0.0');
    expect(agents().indexOf('idempotency key')).toBeLessThan(agents().indexOf('--- BEGIN UNTRUSTED CONTEXT'));
    const rm = await run(['trust', 'rm', '@acme/payments', '--no-sync']);
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toContain('run `ctxpkg sync` to update the agent files');
    expect(agents()).toContain('## Instructions from @acme/payments@1.0.0');
    expect((await run(['trust', 'rm', '@acme/payments'])).stdout).toContain('was not in "trust.instructions"');
    const again = await run(['trust', 'add', '@acme/payments']);
    expect(again.code).toBe(0);
    const rm2 = await run(['trust', 'rm', '@acme/payments']);
    expect(rm2.stdout).toContain('sync: write AGENTS.md');
    expect(agents()).not.toContain('## Instructions from');
  });
});

describe('pin output with every target enabled', () => {
  it('names the files it wrote and sums up the unchanged ones in one line', async () => {
    const s = await run(['sync', '--target', 'claude', 'cursor', 'copilot', 'gemini', 'windsurf', 'kiro', 'cline']);
    expect(s.code, s.stderr).toBe(0);
    const r = await run(['pin', '@acme/style']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    const unchanged = lines.filter((l) => l.includes('unchanged'));
    expect(unchanged).toHaveLength(1);
    expect(unchanged[0]).toMatch(/^sync: unchanged: (\d+ files \(`ctxpkg sync --json` lists them\)|[^,]+(, [^,]+){0,2})$/);
    expect(lines.some((l) => l.startsWith('sync: delivered: '))).toBe(true);
    expect(lines.length).toBeLessThan(12);
    const json = await run(['sync', '--json']);
    const names = json.json.unchanged as string[];
    expect(names.length).toBeGreaterThanOrEqual(3);
    // Up to three unchanged files are named; more are counted (and listed by --json).
    expect((await run(['sync'])).stdout).toContain(names.length > 3 ? `unchanged: ${names.length} files` : `unchanged: ${names.join(', ')}\n`);
  });
});
