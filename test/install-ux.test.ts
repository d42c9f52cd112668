/**
 * Install UX defects from the clean-clone trial (engineer W7), the CLI driven in process:
 * B4 uninstall and context.pins, a sync failure exits 8, B7 scope bindings from the user config
 * for teammates/CI, C4 `pkg@X.Y.Z` installs exactly X.Y.Z and saves ^X.Y.Z, C6 yanked versions
 * in update/outdated/ls, C18 .gitignore and no empty .ctxpkg/ after a failure, truthful summaries.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cli, createWorld, makePackage, putPackage, tempDir, type TestRegistry, type World } from './support/cli.js';

const SEED = new Uint8Array(32).fill(0x2a);
const T = '2026-01-02T03:04:05Z';

let world: World;
let P: TestRegistry;
let token: string;
let project: string;

const run = (args: string[], cwd = project, env: Record<string, string | undefined> = { CTXPKG_REGISTRY: P.url }, home?: string) => cli(args, { cwd, fetch: world.fetch, env, home });
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const writeJson = (path: string, v: unknown) => writeFileSync(path, JSON.stringify(v, null, 2) + '\n');

beforeEach(async () => {
  world = createWorld();
  P = await world.addRegistry('p.test');
  token = await P.namespace('acme');
  for (const v of ['1.0.0', '1.1.0']) await putPackage(P, token, '@acme/base', v, makePackage('@acme/base', v, SEED, { nodes: [`base rule ${v}`] }));
  await putPackage(P, token, '@acme/auth', '1.2.0', makePackage('@acme/auth', '1.2.0', SEED, { deps: { '@acme/base': '^1.0.0' }, nodes: ['auth rule'] }));
  await putPackage(P, token, '@acme/style', '1.0.0', makePackage('@acme/style', '1.0.0', SEED, { nodes: ['style rule'] }));
  project = tempDir();
  expect((await run(['init'])).code).toBe(0);
});

describe('B4: uninstall and context.pins', () => {
  it('removes the pins of the uninstalled package (and says so); sync succeeds and drops its context from AGENTS.md', async () => {
    expect((await run(['install', '@acme/auth', '@acme/style'])).code).toBe(0);
    const m = readJson(join(project, 'ctxpkg.json'));
    m.context = { pins: ['@acme/auth#n1', '@acme/style', '@acme/base'] };
    writeJson(join(project, 'ctxpkg.json'), m);
    expect((await run(['sync'])).code).toBe(0);
    expect(readFileSync(join(project, 'AGENTS.md'), 'utf8')).toContain('auth rule');
    const r = await run(['uninstall', '@acme/auth']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('removed pin "@acme/auth#n1" from context.pins in ctxpkg.json');
    expect(r.stdout).toContain('removed pin "@acme/base"'); // its dependency left too
    // npm-like: what was removed and what is left, never "installed" for an uninstall.
    expect(r.stdout).toMatch(/^- @acme\/auth@\S+$/m);
    expect(r.stdout).toContain('removed 2 packages, 1 package still installed, no network');
    expect(r.stdout).not.toMatch(/packages? installed, 0 downloaded/);
    expect(readJson(join(project, 'ctxpkg.json')).context).toEqual({ pins: ['@acme/style'] });
    const agents = readFileSync(join(project, 'AGENTS.md'), 'utf8');
    expect(agents).not.toContain('auth rule');
    expect(agents).toContain('style rule');
    const last = await run(['uninstall', '@acme/style']);
    expect(last.code, last.stderr).toBe(0);
    expect(last.stdout).toContain('removed 1 package, no package still installed, no network');
  });

  it('a sync that still fails after the change exits 8 with the report, and the warning names the command that ran', async () => {
    expect((await run(['install', '@acme/style'])).code).toBe(0);
    const m = readJson(join(project, 'ctxpkg.json'));
    // An always-on cap too small for the block's header: sync refuses (a broken pin would not:
    // it is a warning, and the rest is delivered).
    m.context = { sync: { max_bytes: 64 } };
    writeJson(join(project, 'ctxpkg.json'), m);
    const ins = await run(['install', '@acme/base@^1.0.0', '--json']);
    expect(ins.code).toBe(8);
    expect(ins.json.sync_error.code).toBe('E_BUDGET');
    expect(ins.stderr).toContain('warning: installed, but syncing agent files failed');
    expect(readJson(join(project, 'ctxpkg.json')).dependencies['@acme/base']).toBe('^1.0.0'); // committed
    const un = await run(['uninstall', '@acme/base']);
    expect(un.stdout).toContain('removed 1 package, 1 package still installed, no network'); // @acme/style stays
    expect(un.code).toBe(8);
    expect(un.stderr).toContain('warning: uninstalled, but syncing agent files failed');
    expect(un.stderr).not.toContain('warning: installed');
  });
});

describe('B7: a teammate or CI installs from the committed files', () => {
  it('a scope resolved through the user config is bound in ctxpkg.json; a fresh clone without that config installs --frozen-lockfile', async () => {
    const home = tempDir('ctxpkg-home-');
    mkdirSync(join(home, 'u'), { recursive: true });
    writeJson(join(home, 'u', 'config.json'), { registries: { '@acme': P.url }, tokens: {} });
    const r = await run(['install', '@acme/auth'], project, { CTXPKG_HOME: join(home, 'u') }, home);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`bound @acme to ${P.url} in ctxpkg.json (from your user config)`);
    expect(readJson(join(project, 'ctxpkg.json')).registries).toEqual({ '@acme': P.url });
    const c = tempDir('ctxpkg-clone-');
    for (const f of ['ctxpkg.json', 'ctxpkg.lock']) writeFileSync(join(c, f), readFileSync(join(project, f)));
    const ci = await run(['install', '--frozen-lockfile'], c, {});
    expect(ci.code, ci.stderr).toBe(0);
    // Without the binding (the old state): E_CONFIG whose hint is the binding from the lock.
    const d = tempDir('ctxpkg-clone-');
    writeFileSync(join(d, 'ctxpkg.lock'), readFileSync(join(project, 'ctxpkg.lock')));
    writeJson(join(d, 'ctxpkg.json'), { ...readJson(join(project, 'ctxpkg.json')), registries: {} });
    const old = await run(['install', '--frozen-lockfile'], d, {});
    expect(old.code).toBe(78);
    expect(old.stderr).toContain('E_CONFIG');
    expect(old.stderr).toContain(`"registries": { "@acme": "${P.url}" }`);
  });

  it('install --registry URL binds the scope in ctxpkg.json, so a teammate installs --frozen-lockfile (issue 12 item 4, trial 14)', async () => {
    const r = await run(['install', '@acme/style', '--registry', `${P.url}/`], project, {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`bound @acme to ${P.url} in ctxpkg.json (from --registry); commit it so teammates and CI install @acme from the same registry`);
    expect(readJson(join(project, 'ctxpkg.json')).registries).toEqual({ '@acme': P.url });
    const c = tempDir('ctxpkg-clone-');
    for (const f of ['ctxpkg.json', 'ctxpkg.lock']) writeFileSync(join(c, f), readFileSync(join(project, f)));
    const mate = await run(['install', '--frozen-lockfile'], c, {});
    expect(mate.code, mate.stderr).toBe(0);
  });

  it('registries from CTXPKG_REGISTRY are not written (they are per run, not per user)', async () => {
    expect((await run(['install', '@acme/style'])).code).toBe(0);
    expect(readJson(join(project, 'ctxpkg.json')).registries).toEqual({});
  });
});

describe('C4: pkg@X.Y.Z', () => {
  it('installs exactly X.Y.Z, saves ^X.Y.Z (and says so); update then moves within the range', async () => {
    const r = await run(['install', '@acme/base@1.0.0']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('+ @acme/base@1.0.0');
    expect(r.stdout).toContain('saved @acme/base "^1.0.0" in ctxpkg.json');
    expect(readJson(join(project, 'ctxpkg.json')).dependencies).toEqual({ '@acme/base': '^1.0.0' });
    expect(readJson(join(project, 'ctxpkg.lock')).packages['@acme/base'].version).toBe('1.0.0');
    expect((await run(['install', '--frozen-lockfile'])).code).toBe(0);
    const up = await run(['update', '--json']);
    expect(up.json.changed).toEqual([{ name: '@acme/base', from: '1.0.0', to: '1.1.0' }]);
    const down = await run(['install', '@acme/base@1.0.0']);
    expect(down.stdout).toContain('~ @acme/base 1.1.0 → 1.0.0 (downgrade)');
  });
});

describe('C6: yanked versions', () => {
  it('update keeps a locked yanked version when nothing newer is allowed (and says how to move), outdated and ls mark it; a newer version moves off it', async () => {
    expect((await run(['install', '@acme/base'])).code).toBe(0);
    await P.store.setYanked('acme', 'base', '1.1.0', true, T, 'test');
    const up = await run(['update', '--json']);
    expect(up.code, up.stderr).toBe(0);
    expect(up.json.changed).toEqual([]);
    expect(up.json.yanked).toEqual([{ name: '@acme/base', version: '1.1.0', kept: true, olderAllowed: '1.0.0' }]);
    const text = await run(['update']);
    // the notice comes before the result it qualifies (new-user trial 22), not after the summary
    expect(text.stdout.split('\n').slice(0, 2)).toEqual([
      '! @acme/base@1.1.0 is yanked by its publisher; kept, because no newer version is allowed (to move to 1.0.0: ctxpkg install @acme/base@1.0.0)',
      'up to date',
    ]);
    expect(readJson(join(project, 'ctxpkg.lock')).packages['@acme/base'].version).toBe('1.1.0');
    const out = await run(['outdated', '--json']);
    expect(out.json.packages).toEqual([
      {
        name: '@acme/base', range: '^1.1.0', current: '1.1.0', current_yanked: true, wanted: '1.1.0', wanted_yanked: true, latest: '1.0.0', outdated: true,
        note: 'latest is older than current: the publisher yanked 1.1.0; 1.0.0 is the newest version not yanked',
      },
    ]);
    expect((await run(['outdated'])).stdout).toContain('@acme/base  1.1.0 (yanked)  1.1.0 (yanked)  1.0.0');
    expect((await run(['ls'])).stdout).toContain('@acme/base@1.1.0 (yanked)');
    await putPackage(P, token, '@acme/base', '1.2.0', makePackage('@acme/base', '1.2.0', SEED));
    const moved = await run(['update', '--json']);
    expect(moved.json.changed).toEqual([{ name: '@acme/base', from: '1.1.0', to: '1.2.0' }]);
    expect((await run(['ls'])).stdout).not.toContain('(yanked)');
  });

  it('a range that still allows an older version: update does not move down to it (cargo), and says so', async () => {
    expect((await run(['install', '@acme/base@^1.0.0'])).code).toBe(0);
    await putPackage(P, token, '@acme/base', '2.0.0', makePackage('@acme/base', '2.0.0', SEED));
    await P.store.setYanked('acme', 'base', '1.1.0', true, T, 'test');
    const up = await run(['update', '@acme/base', '--json']);
    expect(up.code, up.stderr).toBe(0);
    expect(up.json.changed).toEqual([]);
    expect(up.json.yanked).toEqual([{ name: '@acme/base', version: '1.1.0', kept: true, olderAllowed: '1.0.0' }]);
    const out = await run(['outdated', '--json']);
    expect(out.json.packages[0]).toMatchObject({ current: '1.1.0', current_yanked: true, wanted: '1.1.0', latest: '2.0.0' });
  });

  it('installing a yanked version named exactly says so (not "ctxpkg.lock pins it"), before the result', async () => {
    await P.store.setYanked('acme', 'base', '1.0.0', true, T, 'test');
    const r = await run(['install', '@acme/base@1.0.0']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').slice(0, 2)).toEqual([
      '! @acme/base@1.0.0 is yanked by its publisher; installed because you named exactly this version (ranges never pick a yanked version)',
      '+ @acme/base@1.0.0',
    ]);
    expect((await run(['install', '@acme/base@1.0.0', '--json'])).json.yanked).toEqual([{ name: '@acme/base', version: '1.0.0' }]);
  });

  it('install of another package keeps a locked yanked dependency and notes it', async () => {
    expect((await run(['install', '@acme/base'])).code).toBe(0);
    await P.store.setYanked('acme', 'base', '1.1.0', true, T, 'test');
    const r = await run(['install', '@acme/style']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('! @acme/base@1.1.0 is yanked by its publisher; kept because ctxpkg.lock pins it');
  });
});

describe('C18: .gitignore and a failed install', () => {
  it('install without init creates ctxpkg.json and ignores .ctxpkg/', async () => {
    const d = tempDir('ctxpkg-noinit-');
    const r = await run(['install', '@acme/style'], d);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(`created ctxpkg.json in ${d} (there was none here or in a parent directory); commit it with ctxpkg.lock`);
    expect((await run(['install', '@acme/style', '--json'], tempDir('ctxpkg-noinit-'))).json.manifest_created).toBe(true);
    expect((await run(['install', '@acme/base', '--json'], d)).json.manifest_created).toBe(false);
    expect(r.stdout).toContain('added .ctxpkg/ to .gitignore');
    expect(readFileSync(join(d, '.gitignore'), 'utf8')).toBe('.ctxpkg/\n');
  });

  it('a failed install in a fresh directory leaves neither ctxpkg.json nor an empty .ctxpkg/', async () => {
    const d = tempDir('ctxpkg-fail-');
    const r = await run(['install', '@acme/ghost'], d);
    expect(r.code).toBe(4);
    expect(existsSync(join(d, '.ctxpkg'))).toBe(false);
    expect(existsSync(join(d, 'ctxpkg.json'))).toBe(false);
    expect(existsSync(join(d, '.gitignore'))).toBe(false);
  });
});

describe('no project (new-user trial 12): bare install and update refuse instead of creating one', () => {
  for (const args of [['install'], ['i'], ['install', '--frozen-lockfile'], ['update'], ['update', '@acme/base'], ['uninstall', '@acme/base']]) {
    it(`ctxpkg ${args.join(' ')} in a directory without ctxpkg.json: E_NOT_FOUND (exit 4) with the way out, nothing written`, async () => {
      const d = tempDir('ctxpkg-noproject-');
      const r = await run(args, d);
      expect(r.code).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`error E_NOT_FOUND: no ctxpkg.json in ${d} or any parent directory`);
      expect(r.stderr).toContain('hint: run `ctxpkg init` to start a project here, or `ctxpkg install <@ns/name | file.ctxpkg>` to start one with a package');
      expect(readdirSync(d)).toEqual([]);
      const j = await run([...args, '--json'], d);
      expect(j.json.error).toMatchObject({ code: 'E_NOT_FOUND', details: { cwd: d } });
      expect(readdirSync(d)).toEqual([]);
    });
  }

  it('uninstall of a name that is not a dependency names the closest declared one; nothing written', async () => {
    expect((await run(['install', '@acme/style'])).code).toBe(0);
    const before = readFileSync(join(project, 'ctxpkg.json'), 'utf8');
    const r = await run(['uninstall', '@acme/styel', '--json']);
    expect(r.code).toBe(4);
    expect(r.json.error).toMatchObject({ code: 'E_NOT_FOUND', message: '@acme/styel is not a dependency of this project; did you mean @acme/style?', details: { suggestions: ['@acme/style'] } });
    expect(readFileSync(join(project, 'ctxpkg.json'), 'utf8')).toBe(before);
  });

  it('in a subdirectory of a project, bare install works on that project (nearest ctxpkg.json, as npm)', async () => {
    expect((await run(['install', '@acme/style'])).code).toBe(0);
    const sub = join(project, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    const r = await run(['install'], sub);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('created ctxpkg.json');
    expect(readdirSync(sub).filter((f) => f !== '.home')).toEqual([]); // .home: the harness's user directory
  });
});

describe('file: dependencies hold a project-relative path (new-user trial)', () => {
  it('install file:/abs/path saves and locks the path relative to the project root', async () => {
    mkdirSync(join(project, 'vendor'));
    const abs = join(project, 'vendor', 'kb.ctxpkg');
    writeFileSync(abs, makePackage('@acme/kb', '1.0.0', SEED));
    const r = await run(['install', `file:${abs}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('saved @acme/kb "file:vendor/kb.ctxpkg" in ctxpkg.json');
    const lock = readJson(join(project, 'ctxpkg.lock'));
    expect(lock.dependencies['@acme/kb']).toBe('file:vendor/kb.ctxpkg');
    expect(lock.packages['@acme/kb'].registry).toBe('file:vendor/kb.ctxpkg');
    expect(readFileSync(join(project, 'ctxpkg.lock'), 'utf8')).not.toContain(project);
    expect((await run(['install', '--frozen-lockfile'])).code).toBe(0);
  });

  it('an absolute file: path written into ctxpkg.json is E_MANIFEST naming the relative form; nothing written', async () => {
    const abs = join(project, 'vendor', 'kb.ctxpkg');
    mkdirSync(join(project, 'vendor'));
    writeFileSync(abs, makePackage('@acme/kb', '1.0.0', SEED));
    const m = readJson(join(project, 'ctxpkg.json'));
    m.dependencies = { '@acme/kb': `file:${abs}` };
    writeJson(join(project, 'ctxpkg.json'), m);
    const before = readFileSync(join(project, 'ctxpkg.json'), 'utf8');
    const r = await run(['install', '--json']);
    expect(r.code).toBe(1);
    expect(r.json.error).toMatchObject({ code: 'E_MANIFEST', details: { name: '@acme/kb', relative: 'file:vendor/kb.ctxpkg' } });
    expect(r.json.error.hint).toContain('"@acme/kb": "file:vendor/kb.ctxpkg"');
    expect(readFileSync(join(project, 'ctxpkg.json'), 'utf8')).toBe(before);
    expect(existsSync(join(project, 'ctxpkg.lock'))).toBe(false);
  });
});

describe('truthful summaries', () => {
  it('adding an already-installed dependency says what was saved, not "up to date"', async () => {
    expect((await run(['install', '@acme/auth'])).code).toBe(0);
    const r = await run(['install', '@acme/base']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('saved @acme/base "^1.1.0" in ctxpkg.json');
    expect(r.stdout).not.toContain('up to date');
  });

  it('after deleting .ctxpkg/: "restored", not "up to date"; a second run is "up to date" with no network', async () => {
    expect((await run(['install', '@acme/auth'])).code).toBe(0);
    rmSync(join(project, '.ctxpkg'), { recursive: true, force: true });
    const r = await run(['install']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('ctxpkg.lock unchanged; restored 2 packages into .ctxpkg/store');
    expect(r.stdout).toContain('2 packages installed, 2 downloaded, 2 registry requests');
    const again = await run(['install']);
    expect(again.stdout.split('\n').slice(0, 2)).toEqual(['up to date', '2 packages installed, 0 downloaded, no network']);
  });

  it('a local file install makes no registry request and says so; restoring it from the file is not a download', async () => {
    writeFileSync(join(project, 'kb.ctxpkg'), makePackage('@acme/kb', '1.0.0', SEED));
    world.log.length = 0;
    const r = await run(['install', './kb.ctxpkg']);
    expect(r.code, r.stderr).toBe(0);
    expect(world.log).toEqual([]);
    expect(r.stdout).toContain('1 package installed, 0 downloaded, no network');
    rmSync(join(project, '.ctxpkg'), { recursive: true, force: true });
    const again = await run(['install']);
    expect(again.stdout).toContain('ctxpkg.lock unchanged; restored 1 package into .ctxpkg/store');
    expect(again.stdout).toContain('1 package installed, 0 downloaded, 1 read from local files, no network');
  });
});
