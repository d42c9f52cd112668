/**
 * H7: hostile `.ctxpkg/built-here.json` (spec/pack.md §6 "Evidence"): the record is optional
 * derived data, so whatever sits at its path — a directory, a symlink to a device, a FIFO or
 * another user's file, a huge file, a forged or another user's sealed record — must neither
 * fail, hang nor slow `render`/`sync`, must not be written through, and must not be believed.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { sealKey } from '../../packages/cli/src/install/seal.js';
import { readBuiltHere, writeBuiltHere } from '../../packages/cli/src/targets/built-here.js';
import { REPO_ROOT } from '../support/shared.js';
import { cli, createWorld, tempDir, type World } from '../support/cli.js';
import { temp, treeSnapshot } from './support.js';

const RULES = ['# Rules', '', '- Never log tokens.', '- Use pnpm for every script.', ''].join('\n');
const NOW = '2026-01-02T03:04:05Z';

describe('H7: hostile built-here records', () => {
  let world: World;
  let env: Record<string, string>;
  let project: string;
  const record = () => join(project, '.ctxpkg', 'built-here.json');
  const run = (args: string[], cwd = project) => cli(args, { cwd, fetch: world.fetch, env, home: join(project, '.home') });

  beforeAll(async () => {
    world = createWorld();
    const reg = await world.addRegistry('bh.test');
    const token = await reg.namespace('acme');
    project = tempDir();
    env = { CTXPKG_HOME: join(project, '.home'), CTXPKG_REGISTRY: reg.url, CTXPKG_TOKEN: token };
    mkdirSync(join(project, 'docs'));
    writeFileSync(join(project, 'docs/rules.md'), RULES);
    expect((await run(['init'])).code).toBe(0);
    const out = join(project, '.home', 'rules.ctxpkg');
    expect((await run(['create', '--name', '@acme/rules', '--from', 'docs/rules.md', '--out', out])).code).toBe(0);
    expect((await run(['publish', out])).code).toBe(0);
    const i = await run(['install', '@acme/rules']);
    expect(i.code, i.stderr + i.stdout).toBe(0);
  });

  const renders = async (label: string) => {
    const r = await run(['render', '--out', 'pack.md', '--now', NOW]);
    expect([label, r.code, r.stderr]).toEqual([label, 0, '']);
    const s = await run(['sync']);
    expect([label, s.code]).toEqual([label, 0]);
  };

  it('a directory at the record path: render and sync still work', async () => {
    rmSync(record(), { force: true, recursive: true });
    mkdirSync(record());
    writeFileSync(join(record(), 'x'), 'x');
    await renders('directory');
    expect(lstatSync(record()).isDirectory()).toBe(true);
    rmSync(record(), { force: true, recursive: true });
  });

  it('a symlink at the record path pointing outside: not read as the record, not written through', async () => {
    const outside = temp('ctxpkg-h7-outside-');
    writeFileSync(join(outside, 'victim.json'), 'do not touch');
    const before = treeSnapshot(outside);
    rmSync(record(), { force: true, recursive: true });
    symlinkSync(join(outside, 'victim.json'), record());
    await renders('symlink');
    expect(treeSnapshot(outside)).toEqual(before);
    rmSync(record(), { force: true, recursive: true });
  });

  it('a symlink to /dev/zero or a FIFO at the record path: render neither hangs nor reads without bound', async () => {
    for (const kind of ['devzero', 'fifo'] as const) {
      rmSync(record(), { force: true, recursive: true });
      if (kind === 'devzero') symlinkSync('/dev/zero', record());
      else execFileSync('mkfifo', [record()]);
      await renders(kind);
      rmSync(record(), { force: true, recursive: true });
    }
  });

  it('a huge record (64 MiB) is not read', async () => {
    rmSync(record(), { force: true, recursive: true });
    writeFileSync(record(), Buffer.alloc(64 * 1024 * 1024, 0x20));
    await renders('huge');
    rmSync(record(), { force: true, recursive: true });
  });

  it('a committed `.ctxpkg` symlink to a directory outside: render/sync write nothing there', async () => {
    const p = tempDir();
    expect((await run(['init'], p)).code).toBe(0);
    const outside = temp('ctxpkg-h7-outside-');
    writeFileSync(join(outside, 'keep'), 'x');
    rmSync(join(p, '.ctxpkg'), { recursive: true, force: true });
    symlinkSync(outside, join(p, '.ctxpkg'));
    const before = treeSnapshot(outside);
    for (const args of [['render', '--out', 'pack.md', '--now', NOW], ['render', '--now', NOW], ['sync']]) {
      const r = await run(args, p);
      expect(treeSnapshot(outside), `${args.join(' ')}: ${r.stderr}`).toEqual(before);
    }
  });

  it('`.ctxpkg/receipts` symlinked outside: render to stdout refuses (E_UNSAFE_PATH) and writes no receipt there', async () => {
    for (const sub of ['receipts']) {
      const outside = temp('ctxpkg-h7-outside-');
      const before = treeSnapshot(outside);
      rmSync(join(project, '.ctxpkg', sub), { recursive: true, force: true });
      symlinkSync(outside, join(project, '.ctxpkg', sub));
      const r = await run(['render', '--now', NOW]);
      expect(treeSnapshot(outside), `${sub}: exit ${r.code} ${r.stderr}`).toEqual(before);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`E_UNSAFE_PATH: .ctxpkg/${sub} is a symbolic link`);
      rmSync(join(project, '.ctxpkg', sub), { force: true });
    }
  });

  it('four concurrent render processes: every one succeeds, the record opens and names the package, no temp file is left', async () => {
    rmSync(record(), { force: true, recursive: true });
    const one = () =>
      new Promise<number>((resolve) => {
        const c = execFile(process.execPath, ['--conditions=source', '--import', pathToFileURL(join(REPO_ROOT, 'node_modules/tsx/dist/loader.mjs')).href, join(REPO_ROOT, 'packages/cli/src/bin.ts'), 'render', '--now', NOW], { cwd: project, env: { ...process.env, ...env, HOME: join(project, '.home') } }, () => undefined);
        c.on('exit', (code) => resolve(code ?? -1));
      });
    expect(await Promise.all([one(), one(), one(), one()])).toEqual([0, 0, 0, 0]);
    expect(readdirSync(join(project, '.ctxpkg')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const key = sealKey({ env, homeDir: join(project, '.home') } as never, false);
    expect(readBuiltHere(project, key)).toEqual(['@acme/rules']);
  }, 60_000);

  it('readBuiltHere: a record sealed under another key, or an unsealed one, names nothing', () => {
    const dir = temp('ctxpkg-h7-bh-');
    mkdirSync(join(dir, '.ctxpkg'));
    const mine = Buffer.alloc(32, 1);
    const theirs = Buffer.alloc(32, 2);
    writeBuiltHere(dir, theirs, ['@acme/rules']);
    expect(readBuiltHere(dir, mine)).toEqual([]);
    expect(readBuiltHere(dir, theirs)).toEqual(['@acme/rules']);
    writeFileSync(join(dir, '.ctxpkg', 'built-here.json'), JSON.stringify({ packages: ['@acme/rules'] }));
    expect(readBuiltHere(dir, mine)).toEqual([]);
    expect(existsSync(join(dir, '.ctxpkg', 'built-here.json'))).toBe(true);
    expect(readFileSync(join(dir, '.ctxpkg', 'built-here.json'), 'utf8')).toContain('packages');
  });
});
