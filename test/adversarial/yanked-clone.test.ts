/**
 * Issue 11 item 9 — the yanked status survives a fresh clone.
 *
 * Restoring a yanked version from ctxpkg.lock in a fresh clone downloads it; the registry says
 * `x-ctxpkg-yanked: true` on that download (and its index lists it yanked). The install must warn,
 * record it in the sealed `verified.json` (so `ls` marks it "(yanked)"), and a later install that
 * makes no request must say "was yanked when the registry was last checked". Varied: frozen and
 * plain installs, a registry that sends the header, one that does not (the index is read instead),
 * and a version unyanked since (the mark goes away at the next contact).
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, createWorld, makePackage, putPackage, tempDir, type World } from '../support/cli.js';
import { SEED } from './support.js';

const NAME = '@acme/base';

async function setup(stripHeader: boolean): Promise<{ world: World; url: string; p: string; home: string }> {
  const world = createWorld();
  const reg = await world.addRegistry('reg.test');
  const tok = await reg.namespace('acme');
  await putPackage(reg, tok, NAME, '1.1.0', makePackage(NAME, '1.1.0', SEED));
  if (stripHeader) {
    world.intercept = async (url, init) => {
      if (!url.pathname.endsWith('/download')) return undefined;
      const res = await reg.app.request(url.href, init);
      const headers = new Headers(res.headers);
      headers.delete('x-ctxpkg-yanked');
      return new Response(res.body, { status: res.status, headers });
    };
  }
  const home = tempDir('ctxpkg-yk-home-');
  const p = tempDir('ctxpkg-yk-proj-');
  const run = (args: string[]) => cli(args, { cwd: p, home, fetch: world.fetch, env: { CTXPKG_REGISTRY: reg.url } });
  expect((await run(['init'])).code).toBe(0);
  expect((await run(['install', `${NAME}@^1.0.0`])).code).toBe(0);
  // The publisher yanks it after the lock was committed.
  const del = await reg.app.request(`${reg.url}/v1/packages/acme/base/1.1.0`, { method: 'DELETE', headers: { authorization: `Bearer ${tok}` } });
  expect(del.status).toBeLessThan(300);
  return { world, url: reg.url, p, home };
}

function clone(p: string): string {
  const c = tempDir('ctxpkg-yk-clone-');
  writeFileSync(join(c, 'ctxpkg.json'), readFileSync(join(p, 'ctxpkg.json')));
  writeFileSync(join(c, 'ctxpkg.lock'), readFileSync(join(p, 'ctxpkg.lock')));
  return c;
}

describe('issue 11.9: yanked status in a fresh clone', () => {
  for (const stripHeader of [false, true]) {
    for (const frozen of [true, false]) {
      it(`${frozen ? 'install --frozen-lockfile' : 'install'} (${stripHeader ? 'no x-ctxpkg-yanked header: the index is read' : 'the download says yanked'}): warns, ls marks it, a no-network install says "last checked"`, async () => {
        const { world, url, p } = await setup(stripHeader);
        const c = clone(p);
        const home = tempDir('ctxpkg-yk-victim-');
        const run = (args: string[]) => cli(args, { cwd: c, home, fetch: world.fetch, env: { CTXPKG_REGISTRY: url } });
        const first = await run(['install', ...(frozen ? ['--frozen-lockfile'] : []), '--json']);
        expect(first.code, first.stderr).toBe(0);
        expect(first.json.yanked).toEqual([{ name: NAME, version: '1.1.0' }]);
        const text = await run(['install', ...(frozen ? ['--frozen-lockfile'] : [])]);
        expect(text.stdout + text.stderr).toMatch(/@acme\/base@1\.1\.0 (is yanked by its publisher|was yanked when the registry was last checked)/);
        const ls = await run(['ls']);
        expect(ls.stdout).toContain(`${NAME}@1.1.0 (yanked)`);
        // No registry request at all now: the record is the only witness, and says so.
        const before = world.log.length;
        const quiet = await run(['install', '--json']);
        expect(quiet.code, quiet.stderr).toBe(0);
        expect(world.log.length).toBe(before);
        expect(quiet.json.yanked).toEqual([{ name: NAME, version: '1.1.0', as_of: 'last_check' }]);
      });
    }
  }

  it('a version unyanked since loses the mark at the next registry contact', async () => {
    const { world, url, p } = await setup(false);
    const c = clone(p);
    const home = tempDir('ctxpkg-yk-victim-');
    const run = (args: string[]) => cli(args, { cwd: c, home, fetch: world.fetch, env: { CTXPKG_REGISTRY: url } });
    expect((await run(['install', '--frozen-lockfile', '--json'])).json.yanked).toHaveLength(1);
    const reg = world.registries.get('reg.test')!;
    const tok = await reg.namespace('acme').catch(async () => (await import('@ctxpkg/registry')).createToken({ store: reg.store }, { namespace: 'acme', scope: 'publish' }).then((t) => t.token));
    const un = await reg.app.request(`${reg.url}/v1/packages/acme/base/1.1.0/unyank`, { method: 'POST', headers: { authorization: `Bearer ${tok}` } });
    expect(un.status).toBeLessThan(300);
    // Force a contact: the store file is gone, so the artifact is downloaded again.
    const store = join(c, '.ctxpkg', 'store');
    cpSync(store, tempDir('ctxpkg-yk-bak-'), { recursive: true });
    for (const f of (await import('node:fs')).readdirSync(store, { recursive: true }) as string[]) {
      if (/^[0-9a-f]{64}/.test(f.split('/').pop() ?? '')) (await import('node:fs')).rmSync(join(store, f), { force: true });
    }
    mkdirSync(store, { recursive: true });
    const again = await run(['install', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json.yanked).toEqual([]);
    expect((await run(['ls'])).stdout).not.toContain('(yanked)');
  });
});
