/**
 * Defects from the acceptance check (issue 5, issue 3 item 3), the CLI driven in process against
 * registry apps: `update` with no names re-resolves indirect dependencies; checksum mismatches
 * name the source of each value (lockfile, registry index, header, downloaded bytes); the
 * yanked status comes from the current registry index; hints for refused tokens match the
 * token's scope and the operation.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cli, createWorld, makePackage, putPackage, tempDir, type TestRegistry, type World } from './support/cli.js';

const SEED = new Uint8Array(32).fill(0x2b);
const T = '2026-01-02T03:04:05Z';

let world: World;
let P: TestRegistry;
let token: string;
let project: string;

const run = (args: string[], cwd = project) => cli(args, { cwd, fetch: world.fetch, env: { CTXPKG_REGISTRY: P.url } });
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const lockPath = () => join(project, 'ctxpkg.lock');

beforeEach(async () => {
  world = createWorld();
  P = await world.addRegistry('p.test');
  token = await P.namespace('acme');
  await putPackage(P, token, '@acme/base', '1.2.0', makePackage('@acme/base', '1.2.0', SEED, { nodes: ['base 1.2.0'] }));
  await putPackage(P, token, '@acme/agents', '1.2.0', makePackage('@acme/agents', '1.2.0', SEED, { deps: { '@acme/base': '^1.0.0' }, nodes: ['agents rule'] }));
  project = tempDir();
  expect((await run(['init'])).code).toBe(0);
  const r = await run(['install', '@acme/agents@^1.2.0']);
  expect(r.code, r.stderr).toBe(0);
});

describe('update re-resolves indirect dependencies', () => {
  it('`update` with no names moves an indirect dependency to its newest allowed version', async () => {
    await putPackage(P, token, '@acme/base', '1.3.0', makePackage('@acme/base', '1.3.0', SEED, { nodes: ['base 1.3.0'] }));
    const up = await run(['update', '--json']);
    expect(up.code, up.stderr).toBe(0);
    expect(up.json.changed).toEqual([{ name: '@acme/base', from: '1.2.0', to: '1.3.0' }]);
    expect(readJson(lockPath()).packages['@acme/base'].version).toBe('1.3.0');
    expect(readJson(join(project, 'ctxpkg.json')).dependencies).toEqual({ '@acme/agents': '^1.2.0' }); // ranges untouched
  });

  it('`update <name>` frees only that package; the others stay locked (cargo update -p)', async () => {
    await putPackage(P, token, '@acme/base', '1.3.0', makePackage('@acme/base', '1.3.0', SEED));
    await putPackage(P, token, '@acme/agents', '1.3.0', makePackage('@acme/agents', '1.3.0', SEED, { deps: { '@acme/base': '^1.0.0' } }));
    const up = await run(['update', '@acme/agents', '--json']);
    expect(up.code, up.stderr).toBe(0);
    expect(up.json.changed).toEqual([{ name: '@acme/agents', from: '1.2.0', to: '1.3.0' }]);
    expect(readJson(lockPath()).packages['@acme/base'].version).toBe('1.2.0');
    const base = await run(['update', '@acme/base', '--json']);
    expect(base.json.changed).toEqual([{ name: '@acme/base', from: '1.2.0', to: '1.3.0' }]);
  });

  it('`update` with no names keeps a locked yanked indirect version when nothing newer is allowed', async () => {
    await putPackage(P, token, '@acme/base', '1.1.0', makePackage('@acme/base', '1.1.0', SEED));
    await P.store.setYanked('acme', 'base', '1.2.0', true, T, 'test');
    const up = await run(['update', '--json']);
    expect(up.code, up.stderr).toBe(0);
    expect(up.json.changed).toEqual([]);
    expect(up.json.yanked).toEqual([{ name: '@acme/base', version: '1.2.0', kept: true, olderAllowed: '1.1.0' }]);
  });
});

describe('checksum mismatches name the source of each value', () => {
  const tamper = (name: string, sha: string) => {
    const l = readJson(lockPath());
    const real = l.packages[name].artifact_sha256 as string;
    l.packages[name].artifact_sha256 = sha;
    writeFileSync(lockPath(), JSON.stringify(l, null, 2) + '\n');
    return real;
  };

  it('a tampered artifact_sha256 in ctxpkg.lock is blamed on ctxpkg.lock, with the registry index and the bytes named; nothing written', async () => {
    const fake = '0ba7' + 'e'.repeat(60);
    const real = tamper('@acme/agents', fake);
    const before = readFileSync(lockPath());
    for (const args of [['install'], ['install', '--frozen-lockfile']]) {
      const r = await run([...args, '--json']);
      expect(r.code).toBe(1);
      expect(r.json.error.code).toBe('E_ARTIFACT_CHECKSUM');
      expect(r.json.error.message).toBe(
        `@acme/agents@1.2.0: ctxpkg.lock records artifact SHA-256 ${fake}, but the registry index lists ${real}, its x-ctxpkg-sha256 response header says ${real}, the downloaded bytes hash to ${real}; refusing to install`,
      );
      expect(r.json.error.message).not.toContain('disagrees with its index');
      expect(r.json.error.hint).toContain('ctxpkg.lock was modified, or the registry changed the bytes of a published version');
      expect(r.json.error.hint).toContain('remove the "@acme/agents" entry from ctxpkg.lock');
      expect(r.json.error.details).toMatchObject({ lockfile: fake, index: real, header: real, downloaded: real });
      expect(readFileSync(lockPath())).toEqual(before);
    }
  });

  it('the recovery the hint names works: without the entry, install locks the registry bytes again', async () => {
    const real = tamper('@acme/agents', 'f'.repeat(64));
    const l = readJson(lockPath());
    delete l.packages['@acme/agents'];
    writeFileSync(lockPath(), JSON.stringify(l, null, 2) + '\n');
    const r = await run(['install']);
    expect(r.code, r.stderr).toBe(0);
    expect(readJson(lockPath()).packages['@acme/agents'].artifact_sha256).toBe(real);
  });

  it('lockfile and index agree but the registry serves other bytes: the registry is blamed', async () => {
    const real = readJson(lockPath()).packages['@acme/agents'].artifact_sha256 as string;
    rmSync(join(project, '.ctxpkg'), { recursive: true, force: true }); // an empty store: install downloads
    const swapped = makePackage('@acme/agents', '1.2.0', SEED, { nodes: ['swapped'] });
    world.intercept = (url) => (url.pathname.endsWith('/acme/agents/1.2.0/download') ? new Response(swapped) : undefined);
    const r = await run(['install', '--json']);
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe('E_ARTIFACT_CHECKSUM');
    expect(r.json.error.message).toContain(`ctxpkg.lock records artifact SHA-256 ${real}, but the registry index lists ${real}`);
    expect(r.json.error.message).toContain('the downloaded bytes hash to ');
    expect(r.json.error.hint).toContain('ctxpkg.lock and the registry index agree, but the registry');
  });

  it('resolving: an x-ctxpkg-sha256 header that disagrees names the registry index as the source of the expected value', async () => {
    await putPackage(P, token, '@acme/base', '1.3.0', makePackage('@acme/base', '1.3.0', SEED));
    world.intercept = async (url, init) => {
      if (!url.pathname.endsWith('/acme/base/1.3.0/download')) return undefined;
      const res = await P.app.request(url.href, init);
      const h = new Headers(res.headers);
      h.set('x-ctxpkg-sha256', 'c'.repeat(64));
      return new Response(await res.arrayBuffer(), { status: 200, headers: h });
    };
    const r = await run(['update', '--json']);
    expect(r.code).toBe(1);
    expect(r.json.error.message).toMatch(/@acme\/base@1\.3\.0: the registry's x-ctxpkg-sha256 response header says c{64}, but the registry index records [0-9a-f]{64}/);
    expect(r.json.error.hint).toContain('report it to the registry operator');
  });
});

describe('yanked status comes from the current registry index', () => {
  const yank = (v: boolean) => P.store.setYanked('acme', 'agents', '1.2.0', v, T, 'test');

  it('after unyank, a later install that contacts the registry does not warn; a run that does not contact it says "when last checked"', async () => {
    await yank(true);
    await putPackage(P, token, '@acme/style', '1.0.0', makePackage('@acme/style', '1.0.0', SEED));
    const a = await run(['install', '@acme/style']);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toContain('! @acme/agents@1.2.0 is yanked by its publisher; kept because ctxpkg.lock pins it');
    await yank(false);
    // No registry contact (lock satisfied, store complete): only the last check is known.
    world.log.length = 0;
    const quiet = await run(['install', '--json']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(world.log).toEqual([]);
    expect(quiet.json.yanked).toEqual([{ name: '@acme/agents', version: '1.2.0', as_of: 'last_check' }]);
    const t = await run(['install']);
    expect(t.stdout).not.toContain('is yanked by its publisher');
    expect(t.stdout).toContain('@acme/agents@1.2.0 was yanked when the registry was last checked');
    // A run that downloads again (empty store) asks the registry: unyanked, no warning.
    rmSync(join(project, '.ctxpkg'), { recursive: true, force: true });
    const refetch = await run(['install', '--json']);
    expect(refetch.code, refetch.stderr).toBe(0);
    expect(refetch.json.yanked).toEqual([]);
    // Resolving (a new package) also asks: no warning.
    await putPackage(P, token, '@acme/extra', '1.0.0', makePackage('@acme/extra', '1.0.0', SEED));
    await yank(true);
    expect((await run(['install', '@acme/extra'])).stdout).toContain('@acme/agents@1.2.0 is yanked by its publisher');
    await yank(false);
    await putPackage(P, token, '@acme/more', '1.0.0', makePackage('@acme/more', '1.0.0', SEED));
    const more = await run(['install', '@acme/more']);
    expect(more.code, more.stderr).toBe(0);
    expect(more.stdout).not.toContain('yanked');
    expect((await run(['ls'])).stdout).not.toContain('(yanked)');
  });
});

describe('a refused token gets a hint for its scope and the operation', () => {
  it('a revoked read token reading a private package: a new read token, never a publish one; a revoked publish token publishing: a publish token', async () => {
    const { createToken, revokeToken, setPackageVisibility } = await import('@ctxpkg/registry');
    await setPackageVisibility({ store: P.store }, '@acme/agents', 'private');
    const read = await createToken({ store: P.store }, { namespace: 'acme', scope: 'read' });
    await revokeToken({ store: P.store }, read.id);
    const d = tempDir();
    const r = await cli(['install', '@acme/agents', '--json'], { cwd: d, fetch: world.fetch, env: { CTXPKG_REGISTRY: P.url, CTXPKG_TOKEN: read.token } });
    expect(r.code).toBe(3);
    expect(r.json.error.code).toBe('E_AUTH');
    expect(r.json.error.message).toContain(`token ${read.id} was revoked`);
    expect(r.json.error.hint).toContain('the read token (ctxr_…) sent to this registry was refused');
    expect(r.json.error.hint).toContain('ctxpkg registry token create --namespace acme --scope read');
    expect(r.json.error.hint).not.toContain('--scope publish');

    const pub = await createToken({ store: P.store }, { namespace: 'acme', scope: 'publish' });
    await revokeToken({ store: P.store }, pub.id);
    writeFileSync(join(d, 'x.ctxpkg'), makePackage('@acme/x', '1.0.0', SEED));
    const p = await cli(['publish', 'x.ctxpkg', '--json'], { cwd: d, fetch: world.fetch, env: { CTXPKG_REGISTRY: P.url, CTXPKG_TOKEN: pub.token } });
    expect(p.code).toBe(3);
    expect(p.json.error.hint).toContain('publish needs a publish token');
    expect(p.json.error.hint).toContain('--scope publish');
  });
});
