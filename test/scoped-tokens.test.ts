/**
 * Tokens per (registry, scope) (new-user trial: logging in to a second namespace on the same
 * registry silently replaced the first token, and `ctxpkg install @vendor/guide` then failed with
 * E_NOT_FOUND for the already-installed private @acme/agents). End to end in process against one
 * registry app serving two namespaces with private packages: both logins are kept, every request
 * about a package carries its own scope's token, both private packages install (also in one
 * resolution, across a dependency from one scope to the other), `logout --scope` removes exactly
 * one, and a config written before scoped tokens keeps working.
 */
import { readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createToken } from '@ctxpkg/registry';
import { cli, createWorld, makePackage, putPackage, tempDir, type RunResult, type TestRegistry, type World } from './support/cli.js';

const SEED_ACME = new Uint8Array(32).fill(0x2a);
const SEED_VENDOR = new Uint8Array(32).fill(0x07);
let world: World;
let R: TestRegistry;
let home: string;
let tokens: { acmeRead: string; vendorRead: string; acmePublish: string; vendorPublish: string };

/** Publish without a visibility header: a new package is private to its namespace's tokens. */
async function putPrivate(token: string, name: string, version: string, bytes: Uint8Array): Promise<void> {
  const [ns, n] = name.slice(1).split('/');
  const res = await R.app.request(`${R.url}/v1/packages/${ns}/${n}/${version}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body: bytes,
  });
  if (res.status !== 201) throw new Error(`setup publish of ${name}@${version} failed: ${res.status} ${await res.text()}`);
}

beforeEach(async () => {
  world = createWorld();
  R = await world.addRegistry('r.test');
  const acmePublish = await R.namespace('acme');
  const vendorPublish = await R.namespace('vendor');
  tokens = {
    acmePublish,
    vendorPublish,
    acmeRead: (await createToken({ store: R.store }, { namespace: 'acme', scope: 'read' })).token,
    vendorRead: (await createToken({ store: R.store }, { namespace: 'vendor', scope: 'read' })).token,
  };
  await putPrivate(acmePublish, '@acme/agents', '1.0.0', makePackage('@acme/agents', '1.0.0', SEED_ACME, { nodes: ['Never skip the acme review'] }));
  await putPrivate(vendorPublish, '@vendor/guide', '1.0.0', makePackage('@vendor/guide', '1.0.0', SEED_VENDOR, { nodes: ['Always follow the vendor guide'] }));
  await putPrivate(acmePublish, '@acme/kit', '1.0.0', makePackage('@acme/kit', '1.0.0', SEED_ACME, { deps: { '@vendor/guide': '^1.0.0' }, nodes: ['The kit needs the vendor guide'] }));
  home = tempDir('ctxpkg-home-');
});

const run = (cwd: string, args: string[], stdin?: string): Promise<RunResult> => cli(args, { cwd, fetch: world.fetch, home, env: {}, stdin });

const userConfig = () => JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'));

/** The Authorization header of every logged request under `/v1/packages/<ns>/`, deduplicated. */
function authOf(ns: string): Array<string | null> {
  return [...new Set(world.log.filter((r) => r.path.startsWith(`/api/v1/packages/${ns}/`)).map((r) => r.authorization))];
}

/** No output of `runs` shows any token. */
function expectNoToken(runs: RunResult[]): void {
  for (const r of runs) for (const t of Object.values(tokens)) expect(r.stdout + r.stderr).not.toContain(t);
}

/**
 * `ctxpkg install @vendor/guide` in `dir`, where @acme/agents is installed: both end up locked,
 * @vendor's requests carry @vendor's read token, and @acme's (if any) only @acme's.
 */
async function installVendorBesideAcme(dir: string): Promise<RunResult> {
  world.log.length = 0;
  const r = await run(dir, ['install', '@vendor/guide']);
  expect(r.code, r.stderr).toBe(0);
  expect(lockedNames(dir)).toEqual(['@acme/agents', '@vendor/guide']);
  expect(authOf('vendor')).toEqual([`Bearer ${tokens.vendorRead}`]);
  // the already-installed @acme package is re-read only with @acme's token (or not at all)
  for (const a of authOf('acme')) expect(a).toBe(`Bearer ${tokens.acmeRead}`);
  return r;
}

function lockedNames(dir: string): string[] {
  const lock = JSON.parse(readFileSync(join(dir, 'ctxpkg.lock'), 'utf8')) as { packages: Record<string, unknown> };
  return Object.keys(lock.packages).sort();
}

describe('two namespaces on one registry: one token each', () => {
  it('the second login --scope keeps the first; both private packages install; each request carries its own scope\'s token', async () => {
    const dir = tempDir();
    const acme = await run(dir, ['login', '--registry', R.url, '--scope', '@acme'], `${tokens.acmeRead}\n`);
    expect(acme.code, acme.stderr).toBe(0);
    const first = await run(dir, ['install', '@acme/agents']);
    expect(first.code, first.stderr).toBe(0);

    const vendor = await run(dir, ['login', '--registry', R.url, '--scope', '@vendor', '--json'], `${tokens.vendorRead}\n`);
    expect(vendor.code, vendor.stderr).toBe(0);
    expect(vendor.json).toMatchObject({ scope: '@vendor', replaced: false, other_tokens: ['@acme'] });
    const text = await run(dir, ['login', '--registry', R.url, '--scope', '@vendor'], `${tokens.vendorRead}\n`);
    expect(text.stdout).toContain(`kept the other tokens saved for ${R.url}: @acme`);
    expect(text.stdout).toContain(`the token of @vendor saved for ${R.url} was already this token`);
    expect(userConfig()).toMatchObject({ registries: { '@acme': R.url, '@vendor': R.url }, tokens: {}, scoped_tokens: { [R.url]: { '@acme': tokens.acmeRead, '@vendor': tokens.vendorRead } } });
    expect(statSync(join(home, 'config.json')).mode & 0o777).toBe(0o600);

    const second = await installVendorBesideAcme(dir);
    expectNoToken([acme, first, vendor, text, second]);
  });

  it('one resolution over both scopes (a dependency from @acme to @vendor) sends each index and download its own token', async () => {
    const dir = tempDir();
    expect((await run(dir, ['login', '--registry', R.url, '--scope', '@acme'], tokens.acmeRead)).code).toBe(0);
    expect((await run(dir, ['login', '--registry', R.url, '--scope', '@vendor'], tokens.vendorRead)).code).toBe(0);
    world.log.length = 0;
    const inst = await run(dir, ['install', '@acme/kit', '@acme/agents']);
    expect(inst.code, inst.stderr).toBe(0);
    expect(lockedNames(dir)).toEqual(['@acme/agents', '@acme/kit', '@vendor/guide']);
    expect(authOf('acme')).toEqual([`Bearer ${tokens.acmeRead}`]);
    expect(authOf('vendor')).toEqual([`Bearer ${tokens.vendorRead}`]);
    expect(world.log.some((r) => r.path.includes('/download'))).toBe(true);
    expectNoToken([inst]);
  });

  it('logout --scope removes only that scope\'s token; login over the same scope says it replaced it', async () => {
    const dir = tempDir();
    expect((await run(dir, ['login', '--registry', R.url, '--scope', '@acme'], tokens.acmeRead)).code).toBe(0);
    expect((await run(dir, ['login', '--registry', R.url, '--scope', '@vendor'], tokens.vendorRead)).code).toBe(0);
    const out = await run(dir, ['logout', '--registry', R.url, '--scope', '@vendor', '--json']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.json).toMatchObject({ scope: '@vendor', removed: true, remaining: ['@acme'] });
    expect(userConfig().scoped_tokens).toEqual({ [R.url]: { '@acme': tokens.acmeRead } });
    expect(userConfig().registries['@vendor']).toBe(R.url);
    expect(statSync(join(home, 'config.json')).mode & 0o777).toBe(0o600);
    const again = await run(dir, ['logout', '--registry', R.url, '--scope', '@vendor']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`no token of @vendor is saved for ${R.url}; nothing changed`);

    const gone = await run(dir, ['install', '@vendor/guide']);
    expect(gone.code).toBe(4);
    expect(gone.stderr).toContain('E_NOT_FOUND');
    expect(gone.stderr).toContain(`ctxpkg login --registry ${R.url} --scope @vendor`);
    const still = await run(tempDir(), ['install', '@acme/agents']);
    expect(still.code, still.stderr).toBe(0);

    // a second publish token for @acme replaces the read token of @acme, and says so
    const replace = await run(dir, ['login', '--registry', R.url, '--scope', '@acme'], tokens.acmePublish);
    expect(replace.code, replace.stderr).toBe(0);
    expect(replace.stdout).toContain(`replaced the token of @acme saved for ${R.url}`);
    expect(userConfig().scoped_tokens).toEqual({ [R.url]: { '@acme': tokens.acmePublish } });
    expectNoToken([out, again, gone, still, replace]);
  });

  it('search with only scoped tokens of several scopes searches once per scope and merges; without a token it says the answer is public only (new-user trial 2, item 2)', async () => {
    // a public package: in every scope's answer, listed once
    await putPackage(R, tokens.vendorPublish, '@vendor/open', '1.0.0', makePackage('@vendor/open', '1.0.0', SEED_VENDOR, { nodes: ['The open vendor guide'] }));
    const dir = tempDir();
    const anon = await run(dir, ['search', 'kit', '--registry', R.url]);
    expect(anon.code, anon.stderr).toBe(0);
    expect(anon.stdout).toContain(`no packages match "kit" on ${R.url}`);
    expect(anon.stdout).toContain(`(public packages only: no token is saved for ${R.url}; to search private packages too: ctxpkg login --registry ${R.url} [--scope @ns])`);
    expect((await run(dir, ['login', '--registry', R.url, '--scope', '@acme'], tokens.acmeRead)).code).toBe(0);
    expect((await run(dir, ['login', '--registry', R.url, '--scope', '@vendor'], tokens.vendorRead)).code).toBe(0);
    world.log.length = 0;
    const both = await run(dir, ['search', 'vendor', '--json']);
    expect(both.code, both.stderr).toBe(0);
    expect(both.json).toMatchObject({ registry: R.url, public_only: false, scopes: ['@acme', '@vendor'] });
    expect(both.json.results.map((r: { name: string }) => r.name).sort()).toEqual(['@acme/kit', '@vendor/guide', '@vendor/open']);
    expect(world.log.filter((r) => r.path === '/api/v1/search').map((r) => r.authorization).sort()).toEqual([`Bearer ${tokens.acmeRead}`, `Bearer ${tokens.vendorRead}`].sort());
    const text = await run(dir, ['search', 'guide']);
    expect(text.stdout).toContain('(searched with the tokens of @acme, @vendor: public packages and the private packages of each)');
    expect(text.stdout.match(/^@vendor\/open@/gm)).toHaveLength(1);
    expect(text.stdout.match(/^@vendor\/guide@/gm)).toHaveLength(1);
    expectNoToken([anon, both, text]);
  });

  it('logout without --registry uses the scope\'s or the default registry; with only scoped tokens it names --scope and --all, and --all removes them (new-user trial 2, item 5)', async () => {
    const dir = tempDir();
    expect((await run(dir, ['login', '--registry', R.url, '--scope', '@acme'], tokens.acmeRead)).code).toBe(0);
    expect((await run(dir, ['login', '--registry', R.url, '--scope', '@vendor'], tokens.vendorRead)).code).toBe(0);
    const before = readFileSync(join(home, 'config.json'), 'utf8');
    const none = await run(dir, ['logout']);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout.split('\n')).toEqual([
      `registry: ${R.url} (your default registry; pass --registry URL for another)`,
      `no registry-wide token is saved for ${R.url}; nothing changed`,
      `still saved for ${R.url}: @acme, @vendor`,
      `to remove them: ctxpkg logout --registry ${R.url} --scope @acme (one scope at a time), or ctxpkg logout --registry ${R.url} --all (every token saved for it)`,
      '',
    ]);
    expect(readFileSync(join(home, 'config.json'), 'utf8')).toBe(before);
    const one = await run(dir, ['logout', '--scope', '@vendor', '--json']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.json).toMatchObject({ registry: R.url, scope: '@vendor', removed: true, remaining: ['@acme'] });
    expect((await run(dir, ['logout', '--all', '--scope', '@acme'])).code).toBe(2);
    expect((await run(dir, ['login', '--registry', R.url], tokens.acmePublish)).code).toBe(0);
    const all = await run(dir, ['logout', '--all', '--json']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.json).toMatchObject({ registry: R.url, all: true, removed: true, remaining: [] });
    expect(userConfig()).toMatchObject({ tokens: {}, registries: { '@acme': R.url, '@vendor': R.url } });
    expect(userConfig().scoped_tokens ?? {}).toEqual({});
    // nothing configured at all: still the usage error naming --registry
    const bare = await cli(['logout'], { cwd: dir, fetch: world.fetch, home: tempDir('ctxpkg-home-'), env: {} });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('error E_USAGE: logout needs --registry URL: no registry configured');
    expectNoToken([none, one, all]);
  });

  it('a config written before scoped tokens keeps its token as the registry-wide one; a scoped login goes beside it', async () => {
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'config.json'), JSON.stringify({ registries: { '@acme': R.url }, tokens: { [R.url]: tokens.acmeRead } }, null, 2) + '\n', { mode: 0o600 });
    const dir = tempDir();
    const first = await run(dir, ['install', '@acme/agents']);
    expect(first.code, first.stderr).toBe(0);
    const vendor = await run(dir, ['login', '--registry', R.url, '--scope', '@vendor'], tokens.vendorRead);
    expect(vendor.code, vendor.stderr).toBe(0);
    expect(vendor.stdout).toContain(`kept the other tokens saved for ${R.url}: registry-wide`);
    expect(userConfig()).toMatchObject({ tokens: { [R.url]: tokens.acmeRead }, scoped_tokens: { [R.url]: { '@vendor': tokens.vendorRead } } });
    const second = await installVendorBesideAcme(dir);
    // search is about no one package: it sends the registry-wide token
    world.log.length = 0;
    expect((await run(dir, ['search', 'guide'])).code).toBe(0);
    expect(world.log.filter((r) => r.path === '/api/v1/search').map((r) => r.authorization)).toEqual([`Bearer ${tokens.acmeRead}`]);
    // logout without --scope removes the registry-wide token only
    const out = await run(dir, ['logout', '--registry', R.url.replace(/\/api$/, ''), '--json']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.json).toMatchObject({ scope: null, removed: true, remaining: ['@vendor'] });
    expect(userConfig()).toMatchObject({ tokens: {}, scoped_tokens: { [R.url]: { '@vendor': tokens.vendorRead } } });
    expectNoToken([first, vendor, second, out]);
  });
});
