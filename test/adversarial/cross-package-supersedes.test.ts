/**
 * H7: cross-package qualified references used against another package (spec/merge.md §2, §5;
 * spec/pack.md §3): package B supersedes package A's pinned security gotcha — the merge lets it
 * (by design), so the suppression must be visible: `ctxpkg install` names the node and the
 * superseding package's node (text and JSON), the pack counts the pinned omission and its
 * receipt names the superseder. A contradicts flood (10,000 conflicts) keeps the install report
 * bounded while `--json` still lists every conflict.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, createWorld, tempDir, type World } from '../support/cli.js';

const A = JSON.stringify({
  format: 'ctxpkg-source-v1',
  nodes: [
    { id: 'rotate', type: 'gotcha', category: 'security', content: 'Never log the session key.' },
    { id: 'other', type: 'fact', content: 'Sessions last 1h.' },
  ],
});
const B = JSON.stringify({ format: 'ctxpkg-source-v1', nodes: [{ id: 'relax', type: 'fact', content: 'Logging everything is fine.', supersedes: '@acme/a#rotate' }] });
const N = 100;
const X = JSON.stringify({ format: 'ctxpkg-source-v1', nodes: Array.from({ length: N }, (_, i) => ({ id: `x${i}`, type: 'fact', content: `Claim x${i}.` })) });
const Y = JSON.stringify({
  format: 'ctxpkg-source-v1',
  nodes: Array.from({ length: N }, (_, i) => ({ id: `y${i}`, type: 'fact', content: `Counter-claim y${i}.` })),
  edges: Array.from({ length: N * N }, (_, k) => ({ from: `y${Math.floor(k / N)}`, to: `@acme/x#x${k % N}`, type: 'contradicts', weight: 1 })),
});

describe('H7: cross-package supersedes and contradicts floods', () => {
  let world: World;
  let env: Record<string, string>;
  let home: string;
  const run = (cwd: string, args: string[]) => cli(args, { cwd, fetch: world.fetch, env });
  beforeAll(async () => {
    world = createWorld();
    const reg = await world.addRegistry('sup.test');
    const token = await reg.namespace('acme');
    home = tempDir();
    env = { CTXPKG_HOME: join(home, '.home'), CTXPKG_REGISTRY: reg.url, CTXPKG_TOKEN: token };
    for (const [n, src] of [['a', A], ['b', B], ['x', X], ['y', Y]] as const) {
      writeFileSync(join(home, `${n}.json`), src);
      const c = await run(home, ['create', '--name', `@acme/${n}`, '--from', `${n}.json`, '--out', `${n}.ctxpkg`]);
      expect(c.code, c.stderr).toBe(0);
      expect((await run(home, ['publish', `${n}.ctxpkg`])).code).toBe(0);
    }
  }, 60_000);

  it('B superseding A\'s pinned gotcha is named by install (text and JSON) and by the pack receipt', async () => {
    const dir = tempDir();
    expect((await run(dir, ['init'])).code).toBe(0);
    expect((await run(dir, ['install', '@acme/a'])).code).toBe(0);
    const cfgPath = join(dir, 'ctxpkg.json');
    const cfg = JSON.parse(readFileSync(cfgPath, 'utf8'));
    cfg.context = { ...(cfg.context ?? {}), pins: ['@acme/a#rotate'] };
    writeFileSync(cfgPath, JSON.stringify(cfg, null, 2) + '\n');

    const ib = await run(dir, ['install', '@acme/b']);
    expect(ib.code, ib.stderr).toBe(0);
    expect(ib.stdout).toContain('1 superseded');
    expect(ib.stdout).toContain('superseded by another package: @acme/a#rotate by @acme/b#relax');
    const j = await run(dir, ['install', '@acme/b', '--json']);
    expect(j.json.merged.superseded_across).toEqual([{ node: '@acme/a#rotate', by: ['@acme/b#relax'] }]);

    const r = await run(dir, ['render', '--out', 'pack.md']);
    expect(r.code, r.stderr).toBe(0);
    const pack = readFileSync(join(dir, 'pack.md'), 'utf8');
    expect(pack).not.toContain('Never log the session key.');
    expect(pack).toContain('not shown: 1 (1 superseded by another item; 1 of them pinned)');
    const receipt = JSON.parse(readFileSync(join(dir, 'pack.md.receipt.json'), 'utf8'));
    expect(receipt.omissions).toContainEqual(expect.objectContaining({ id: '@acme/a#rotate', reason: 'superseded', pinned: true, superseded_by: ['@acme/b#relax'] }));
  });

  it('a package superseding its own node is not reported as cross-package', async () => {
    const own = JSON.stringify({ format: 'ctxpkg-source-v1', nodes: [{ id: 'old', type: 'fact', content: 'v1 rule.' }, { id: 'new', type: 'fact', content: 'v2 rule.', supersedes: 'old' }] });
    writeFileSync(join(home, 'own.json'), own);
    expect((await run(home, ['create', '--name', '@acme/own', '--from', 'own.json', '--out', 'own.ctxpkg'])).code).toBe(0);
    const dir = tempDir();
    expect((await run(dir, ['init'])).code).toBe(0);
    const i = await run(dir, ['install', join(home, 'own.ctxpkg')]);
    expect(i.code, i.stderr).toBe(0);
    expect(i.stdout).toContain('1 superseded');
    expect(i.stdout).not.toContain('superseded by another package');
  });

  it('10,000 cross-package conflicts: the text report stays bounded, --json lists them all', async () => {
    const dir = tempDir();
    expect((await run(dir, ['init'])).code).toBe(0);
    const i = await run(dir, ['install', '@acme/x', '@acme/y']);
    expect(i.code, i.stderr).toBe(0);
    expect(i.stdout).toContain(`${N * N} conflicts`);
    expect(i.stdout.split('\n').filter((l) => l.startsWith('  conflict: '))).toHaveLength(20);
    expect(i.stdout).toContain(`… and ${N * N - 20} more conflicts`);
    expect(i.stdout.length).toBeLessThan(10_000);
    const j = await run(dir, ['install', '--json']);
    expect(j.json.merged.conflicts).toHaveLength(N * N);
    const r = await run(dir, ['render', '--out', 'pack.md']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'pack.md'), 'utf8').length).toBeLessThanOrEqual(32 * 1024);
  }, 60_000);
});
