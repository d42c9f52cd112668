/**
 * What a new team trips over (issue 13): each test drives the CLI in process against registry
 * apps and fails without its fix. Login (item 1) is in new-user-trial.test.ts; the range dialect
 * (items 12–16) in packages/format/src/versions*.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { buildPackage } from '@ctxpkg/format';
import { cli, createWorld, makePackage, putPackage, tempDir, type TestRegistry, type World } from './support/cli.js';

const SEED = new Uint8Array(32).fill(0x2a);
let world: World;
let P: TestRegistry;
let token: string;
let dir: string;

beforeEach(async () => {
  world = createWorld();
  P = await world.addRegistry('p.test');
  token = await P.namespace('acme');
  dir = tempDir();
  writeFileSync(join(dir, 'AGENTS.md'), '# Rules\n\n- Never log tokens.\n');
});

const run = (args: string[], env: Record<string, string | undefined> = {}) => cli(args, { cwd: dir, fetch: world.fetch, env: { CTXPKG_REGISTRY: P.url, ...env } });

describe('item 13: create --dep never writes a range the reference refuses', () => {
  it.each(['x.x.x', '*.*', '*.*.*', '\uFEFF^1.2'])('--dep @acme/base@%j is refused and nothing is written', async (range) => {
    const r = await run(['create', '--name', '@acme/rules', '--from', 'AGENTS.md', '--dep', `@acme/base@${range}`]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/error E_(INVALID_)?RANGE: /);
    expect(readdirSync(dir).filter((f) => f.endsWith('.ctxpkg'))).toEqual([]);
  });
  it('"*" and a comma range are written', async () => {
    const r = await run(['create', '--name', '@acme/rules', '--from', 'AGENTS.md', '--dep', '@acme/base@*', '--dep', '@acme/style@>=1.2, <2']);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(dir, 'acme-rules-1.0.0.ctxpkg'))).toBe(true);
  });
});

describe('item 6: E_RANGE in the user\'s terms', () => {
  it('install @acme/x@^x says what is wrong and what to write, without naming another tool', async () => {
    expect((await run(['init'])).code).toBe(0);
    const r = await run(['install', '@acme/x@^x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error E_RANGE: @acme/x@^x: version range "^x" cannot be saved in ctxpkg.json: it uses a wildcard after an operator or next to other comparators ("*" must stand alone); write "*"');
    expect(r.stderr).toContain("hint: run `ctxpkg install '@acme/x@*'`; ctxpkg.json takes one requirement per dependency");
    expect(r.stderr).not.toContain('lean-ctx');
    expect(r.stderr).not.toContain('into a package'); // install saves the range in ctxpkg.json; it writes no package
    expect(world.log).toEqual([]);
  });
  it("install '@acme/x@>=1 <2' names ctxpkg.json, where install saves the range, and the command to run instead", async () => {
    expect((await run(['init'])).code).toBe(0);
    const r = await run(['install', '@acme/x@>=1 <2']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error E_RANGE: @acme/x@>=1 <2: version range ">=1 <2" cannot be saved in ctxpkg.json: it uses comparators separated by spaces (they must be separated by commas); write ">=1, <2"');
    expect(r.stderr).toContain("hint: run `ctxpkg install '@acme/x@>=1, <2'`");
    expect(world.log).toEqual([]);
  });
});

describe('item 6: a bad registry URL in a settings file names the file and the key', () => {
  it('ctxpkg.json registries["@acme"]', async () => {
    writeFileSync(join(dir, 'ctxpkg.json'), JSON.stringify({ dependencies: {}, registries: { '@acme': 'not a url' } }));
    const r = await run(['install', '@acme/x']);
    expect(r.code).toBe(78);
    expect(r.stderr).toContain(`error E_CONFIG: ${join(dir, 'ctxpkg.json')}: registries["@acme"]: not a registry URL: "not a url"`);
  });
  it('a bad --registry flag stays a usage error (exit 2): it is not a setting', async () => {
    const r = await run(['search', 'x', '--registry', 'p.test/api']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error E_USAGE: --registry: not a registry URL: "p.test/api"');
  });
  it('ctxpkg.json registries key that is not a scope, and "registry"', async () => {
    writeFileSync(join(dir, 'ctxpkg.json'), JSON.stringify({ dependencies: {}, registries: { acme: 'http://p.test/api' } }));
    expect((await run(['install', '@acme/x'])).stderr).toContain(`${join(dir, 'ctxpkg.json')}: registries key "acme": not a scope: "acme"`);
    writeFileSync(join(dir, 'ctxpkg.json'), JSON.stringify({ dependencies: {}, registry: 'ftp://p.test' }));
    expect((await run(['install', '@acme/x'])).stderr).toContain(`${join(dir, 'ctxpkg.json')}: registry: registry URL must use http or https: ftp://p.test`);
  });
  it('the user config and CTXPKG_REGISTRY', async () => {
    mkdirSync(join(dir, '.home'), { recursive: true });
    writeFileSync(join(dir, '.home', 'config.json'), JSON.stringify({ registries: { '@acme': 'http//p.test' }, tokens: {} }));
    expect((await run(['install', '@acme/x'])).stderr).toContain(`${join(dir, '.home', 'config.json')}: registries["@acme"]: not a registry URL: "http//p.test"`);
    writeFileSync(join(dir, '.home', 'config.json'), '{}');
    const env = await run(['search', 'x'], { CTXPKG_REGISTRY: 'p.test/api' });
    expect(env.code).toBe(78);
    expect(env.stderr).toContain('error E_CONFIG: CTXPKG_REGISTRY: not a registry URL: "p.test/api"');
  });
});

describe('item 4: a file ctxpkg needs that the machine stops it from using is an environment error (exit 9), not a bug (exit 70)', () => {
  it('ctxpkg.json that is a directory', async () => {
    mkdirSync(join(dir, 'ctxpkg.json'));
    for (const args of [['install', '@acme/x'], ['ls']]) {
      const r = await run(args);
      expect([r.code, r.stdout], args.join(' ')).toEqual([9, '']);
      expect(r.stderr).toContain(`error E_ENVIRONMENT: cannot read ${join(dir, 'ctxpkg.json')}: EISDIR`);
      expect(r.stderr).toContain(`hint: ${join(dir, 'ctxpkg.json')} is a directory, but ctxpkg needs a file there: move or remove the directory`);
    }
    expect(world.log).toEqual([]);
  });
  it('a user config that is a directory', async () => {
    mkdirSync(join(dir, '.home', 'config.json'), { recursive: true });
    const r = await run(['search', 'x']);
    expect(r.code).toBe(9);
    expect(r.stderr).toContain(`error E_ENVIRONMENT: cannot read ${join(dir, '.home', 'config.json')}: EISDIR`);
  });
});

describe('item 6: E_LOCKFILE_OUT_OF_SYNC names the dependency that drifted', () => {
  beforeEach(async () => {
    for (const [name, version] of [['@acme/auth', '1.2.0'], ['@acme/auth', '2.0.0'], ['@acme/base', '1.0.0']] as const) {
      await putPackage(P, token, name, version, makePackage(name, version, SEED));
    }
    expect((await run(['init'])).code).toBe(0);
    const r = await run(['install', '@acme/auth@^1.0.0', '@acme/base']);
    expect(r.code, r.stderr).toBe(0);
  });
  const edit = (file: string, fn: (j: any) => void) => {
    const j = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    fn(j);
    writeFileSync(join(dir, file), JSON.stringify(j, null, 2) + '\n');
  };

  it('a changed range, an added and a removed dependency are each named', async () => {
    edit('ctxpkg.json', (m) => {
      m.dependencies['@acme/auth'] = '^2.0.0';
      delete m.dependencies['@acme/base'];
      m.dependencies['@acme/new'] = '^1';
    });
    const r = await run(['install', '--frozen-lockfile']);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain(
      'error E_LOCKFILE_OUT_OF_SYNC: ctxpkg.lock is out of sync with ctxpkg.json: ' +
        '@acme/auth is declared as "^2.0.0" in ctxpkg.json but ctxpkg.lock records "^1.0.0"; ' +
        '@acme/base is recorded in ctxpkg.lock ("^1.0.0") but no longer declared in ctxpkg.json; ' +
        '@acme/new is declared in ctxpkg.json ("^1") but not in ctxpkg.lock',
    );
  });

  it('a frozen install that would rewrite the lock names the entries it would change', async () => {
    edit('ctxpkg.lock', (l) => {
      l.packages['@acme/stale'] = { ...l.packages['@acme/base'], version: '0.9.0' };
    });
    const r = await run(['install', '--frozen-lockfile']);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain('installing ctxpkg.lock exactly would change it (@acme/stale@0.9.0 would be removed); refusing under --frozen-lockfile');
  });
});

describe('item 3: a typo in the scope or the package name gets "did you mean"', () => {
  beforeEach(async () => {
    await putPackage(P, token, '@acme/agents', '1.0.0', makePackage('@acme/agents', '1.0.0', SEED));
    await putPackage(P, token, '@acme/rules', '1.0.0', makePackage('@acme/rules', '1.0.0', SEED));
    expect((await run(['init'])).code).toBe(0);
  });

  it('an unbound scope names the closest bound scope (ctxpkg.json or user config) and its registry', async () => {
    writeFileSync(join(dir, 'ctxpkg.json'), JSON.stringify({ dependencies: {}, registries: { '@acme': P.url } }));
    const r = await run(['install', '@acmee/agents'], { CTXPKG_REGISTRY: undefined });
    // a configuration error (sysexits EX_CONFIG), not a usage error: the command line was fine
    expect(r.code).toBe(78);
    expect(r.stderr).toContain(`error E_CONFIG: no registry configured for @acmee/agents; did you mean @acme/agents? (scope @acme is bound to ${P.url})`);
    // the hint binds the scope to the one registry the project knows, not to a placeholder
    expect(r.stderr).toContain(`hint: if the scope is mistyped, use the name suggested; if @acmee is right, bind it to its registry: \`ctxpkg login --registry ${P.url} --scope @acmee\``);
    const json = JSON.parse((await run(['install', '@acmee/agents', '--json'], { CTXPKG_REGISTRY: undefined })).stdout);
    expect(json.error).toMatchObject({ code: 'E_CONFIG', details: { package: '@acmee/agents', bound_scopes: ['@acme'] } });
    writeFileSync(join(dir, 'ctxpkg.json'), JSON.stringify({ dependencies: {} }));
    mkdirSync(join(dir, '.home'), { recursive: true });
    writeFileSync(join(dir, '.home', 'config.json'), JSON.stringify({ registries: { '@acme': P.url }, tokens: {} }));
    expect((await run(['install', '@amce/agents'], { CTXPKG_REGISTRY: undefined })).stderr).toContain('did you mean @acme/agents?');
    expect((await run(['install', '@zzzz/agents'], { CTXPKG_REGISTRY: undefined })).stderr).not.toContain('did you mean');
  });

  it('a mistyped package name suggests close names the registry lists (install, info)', async () => {
    const r = await run(['install', '@acme/agnets']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('@acme/agnets was not found on registry http://p.test/api: package not found; did you mean @acme/agents?');
    expect(r.stderr).not.toContain('@acme/rules');
    expect((await run(['info', '@acme/rulez'])).stderr).toContain('; did you mean @acme/rules?');
    expect((await run(['info', '@acmee/rules'])).stderr).toContain('; did you mean @acme/rules?');
    expect((await run(['info', '@acme/completely-different'])).stderr).not.toContain('did you mean');
  });

  it('a private package of another namespace is never suggested', async () => {
    const other = await P.namespace('other');
    const priv = buildPackage(
      { manifest: { name: '@other/agents', version: '1.0.0', description: 'private', created_at: '2026-01-02T03:04:05Z', visibility: 'private' }, content: { context_graph: { format: 'ctxpkg-graph-v2', nodes: [{ id: 'n1', type: 'gotcha', content: 'secret', activation: 1.0 }], edges: [] } } },
      { seed: SEED },
    ).bytes;
    await P.addKey('other', SEED);
    await putPackage(P, other, '@other/agents', '1.0.0', priv);
    const r = await run(['info', '@othr/agents']);
    expect(r.stderr).not.toContain('did you mean');
    const withToken = await run(['info', '@othr/agents'], { CTXPKG_TOKEN: other });
    expect(withToken.stderr).toContain('did you mean @other/agents?');
  });
});

describe('item 8: outdated aligns its columns and explains a latest older than current', () => {
  it('after a yank of the newest versions', async () => {
    for (const [name, version] of [['@acme/base', '1.0.0'], ['@acme/base', '1.1.0'], ['@acme/style', '2.0.0-rc.1'], ['@acme/style', '1.9.0'], ['@acme/longer-name', '3.0.0']] as const) {
      await putPackage(P, token, name, version, makePackage(name, version, SEED));
    }
    expect((await run(['init'])).code).toBe(0);
    expect((await run(['install', '@acme/base', '@acme/style@^2.0.0-rc.1', '@acme/longer-name'])).code).toBe(0);
    await P.store.setYanked('acme', 'base', '1.1.0', true, '2026-01-02T03:04:05Z', 'test');
    const r = await run(['outdated']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      'package            current         wanted          latest',
      '@acme/base         1.1.0 (yanked)  1.1.0 (yanked)  1.0.0   latest is older than current: the publisher yanked 1.1.0; 1.0.0 is the newest version not yanked',
      '@acme/longer-name  3.0.0           3.0.0           3.0.0   up to date',
      '@acme/style        2.0.0-rc.1      2.0.0-rc.1      1.9.0   latest is older than current: 2.0.0-rc.1 is a pre-release, and latest counts stable versions only',
      '',
    ]);
  });
});
