/**
 * The delivery path end to end, in process against a registry app: create a package from the
 * project's own AGENTS.md, publish, install it into the same project, `render` (pack + receipt,
 * each claim traceable to package, node and source line), `sync` (agent files), edit a source
 * line (the node turns STALE), uninstall + sync (the package's generated files go away).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, createWorld, tempDir, type TestRegistry, type World } from './support/cli.js';

const AGENTS = [
  '# Payments service',
  '',
  '- Never retry a charge without the idempotency key.',
  '- Amounts are integers in minor units.',
  '',
  '## Testing',
  '',
  '1. Run `make test-db` before `make test`.',
  '',
].join('\n');

describe('create → publish → install → render → sync', () => {
  let world: World;
  let reg: TestRegistry;
  let env: Record<string, string>;
  let project: string;
  const run = (args: string[]) => cli(args, { cwd: project, fetch: world.fetch, env });

  beforeAll(async () => {
    world = createWorld();
    reg = await world.addRegistry('e2e.test');
    const token = await reg.namespace('acme');
    project = tempDir();
    env = { CTXPKG_HOME: join(project, '.home'), CTXPKG_REGISTRY: reg.url, CTXPKG_TOKEN: token };
    writeFileSync(join(project, 'AGENTS.md'), AGENTS);
    expect((await run(['init'])).code).toBe(0);
    const created = await run(['create', '--name', '@acme/payments', '--from', 'AGENTS.md', '--out', join(project, '.home', 'p.ctxpkg'), '--json']);
    expect(created.code, created.stderr).toBe(0);
    const published = await run(['publish', join(project, '.home', 'p.ctxpkg'), '--json']);
    expect(published.code, published.stderr).toBe(0);
    const installed = await run(['install', '@acme/payments', '--json']);
    expect(installed.code, installed.stderr + installed.stdout).toBe(0);
  });

  it('render gives a pack whose every node traces to package, node and source line', async () => {
    const r = await run(['render', '--out', 'pack.md', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const pack = readFileSync(join(project, 'pack.md'), 'utf8');
    const receipt = JSON.parse(readFileSync(join(project, 'pack.md.receipt.json'), 'utf8'));
    expect(receipt.inputs).toEqual([expect.objectContaining({ package: '@acme/payments', version: expect.any(String), content_hash: expect.stringMatching(/^[0-9a-f]{64}$/) })]);
    expect(receipt.counts.delivered).toBeGreaterThanOrEqual(3);
    expect(receipt.omissions).toEqual([]);
    const lines = AGENTS.split('\n');
    expect(pack).toMatch(/^## @acme\/payments@\S+$/m);
    const provenance = [...pack.matchAll(/^<!-- AGENTS\.md:(\d+)(?:-(\d+))? -->$/gm)];
    expect(provenance.length).toBeGreaterThan(0);
    for (const m of provenance) {
      const a = Number(m[1]);
      const b = Number(m[2] ?? m[1]);
      expect(a).toBeGreaterThanOrEqual(1);
      expect(b).toBeLessThanOrEqual(lines.length);
    }
    expect(pack).toContain('Never retry a charge without the idempotency key.');
    expect(pack).not.toContain('STALE');
  });

  it('sync writes the AGENTS.md block, which Copilot reads (no second copy in its own file); editing a source line makes its node stale', async () => {
    const s = await run(['sync', '--target', 'agents-md', 'copilot']);
    expect(s.code, s.stderr).toBe(0);
    const agents = readFileSync(join(project, 'AGENTS.md'), 'utf8');
    expect(agents.startsWith(AGENTS)).toBe(true);
    const block = agents.slice(AGENTS.length);
    expect(block).toContain('\n## @acme/payments@1.0.0\n');
    expect(block).toContain('Never retry a charge without the idempotency key.');
    expect(existsSync(join(project, '.github/copilot-instructions.md'))).toBe(false);

    // Edit line 4 of the source (the block sync appended keeps the earlier lines in place).
    writeFileSync(join(project, 'AGENTS.md'), agents.replace('integers in minor units', 'decimals'));
    const r = await run(['render', '--out', 'pack2.md']);
    expect(r.code, r.stderr).toBe(0);
    const pack = readFileSync(join(project, 'pack2.md'), 'utf8');
    expect(pack).toMatch(/\(ctxpkg: STALE [^\n]*\)\n(- )?Amounts are integers in minor units\.\n/);
    expect(pack.match(/\(ctxpkg: STALE/g)).toHaveLength(1);
  });

  it('after uninstall, sync removes what it wrote for the package', async () => {
    const u = await run(['uninstall', '@acme/payments']);
    expect(u.code, u.stderr).toBe(0);
    const s = await run(['sync', '--target', 'agents-md', 'copilot']);
    expect(s.code, s.stderr).toBe(0);
    expect(existsSync(join(project, '.github'))).toBe(false);
    expect(readFileSync(join(project, 'AGENTS.md'), 'utf8').replace('decimals', 'integers in minor units')).toBe(AGENTS);
  });
});
