/**
 * Private by default (issue 12 item 6): `ctxpkg publish` of a new package makes it private unless
 * `--public` (npm's rule for scoped packages); later versions keep the package's visibility; an
 * anonymous `install` of a private package gets the 404 that says it may be private and how to log
 * in, and installs once logged in with a read token of the namespace.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliDeps } from 'ctxpkg';
import { createNamespace, createToken, startRegistry, type RunningRegistry } from '@ctxpkg/registry';
import { makePackage } from '../packages/registry/src/__tests__/support.js';

let dir: string;
let server: RunningRegistry;
let api: string;
let publishToken: string;
let readToken: string;

async function cli(args: string[], opts: { env?: Record<string, string>; stdin?: string; home: string; cwd?: string }): Promise<{ code: number; out: string; err: string; json?: any }> {
  let out = '';
  let err = '';
  const stdin = new PassThrough();
  stdin.end(opts.stdin ?? '');
  const cwd = opts.cwd ?? dir;
  mkdirSync(cwd, { recursive: true });
  const deps: CliDeps = {
    fetch: globalThis.fetch,
    env: opts.env ?? {},
    cwd,
    homeDir: opts.home,
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin,
    clock: () => new Date(),
  };
  const code = await runCli(args, deps);
  let json: unknown;
  try {
    json = JSON.parse(out);
  } catch {
    json = undefined;
  }
  return { code, out, err, json };
}

function file(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ctxpkg-private-'));
  server = await startRegistry({ dataDir: join(dir, 'reg'), port: 0 });
  api = `${server.url}/api`;
  await createNamespace({ store: server.store }, 'acme');
  publishToken = (await createToken({ store: server.store }, { namespace: 'acme', scope: 'publish' })).token;
  readToken = (await createToken({ store: server.store }, { namespace: 'acme', scope: 'read' })).token;
}, 60_000);
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('ctxpkg publish: private by default', () => {
  const publisher = () => ({ home: join(dir, 'publisher'), env: { CTXPKG_REGISTRY: api, CTXPKG_TOKEN: publishToken } });

  it('publishes a new package private, says so, and an anonymous install is told it may be private and how to log in', async () => {
    const pub = await cli(['publish', file('kb-1.0.0.ctxpkg', makePackage({ name: '@acme/kb', version: '1.0.0' }))], publisher());
    expect(pub.code).toBe(0);
    expect(pub.out).toContain('private: only tokens of @acme can see and install it (new packages are private unless `ctxpkg publish --public`)');
    // The read-token command it names runs as printed for an owner on a laptop (new-user trial: it
    // had no --registry and stopped with E_USAGE "no registry to administer").
    const tokenCmd = /`(ctxpkg registry token create [^`]*)`/.exec(pub.out)?.[1];
    expect(tokenCmd).toBe(`ctxpkg registry token create --namespace acme --scope read --registry ${api}`);
    const ownerToken = (await createToken({ store: server.store }, { namespace: 'acme', scope: 'owner' })).token;
    const made = await cli((tokenCmd as string).split(' ').slice(1), { home: join(dir, 'owner'), env: { CTXPKG_TOKEN: ownerToken } });
    expect(made.code, made.err).toBe(0);
    expect(made.out).toMatch(/^ctxr_/);
    expect((await fetch(`${api}/v1/packages/acme/kb/index.json`)).status).toBe(404);

    const project = join(dir, 'anon-project');
    const anon = await cli(['install', '@acme/kb', '--registry', api], { home: join(dir, 'anon'), cwd: project });
    expect(anon.code).toBe(4);
    expect(anon.err).toContain('E_NOT_FOUND');
    expect(anon.err).toContain(`if @acme/kb is private, it answers 404 until you log in with a read token of @acme: \`ctxpkg login --registry ${api} --scope @acme\``);

    const teammate = join(dir, 'teammate');
    expect((await cli(['login', '--registry', api, '--scope', '@acme'], { home: teammate, stdin: readToken })).code).toBe(0);
    const ok = await cli(['install', '@acme/kb', '--json'], { home: teammate, cwd: join(dir, 'team-project') });
    expect(ok.code).toBe(0);

    // CI in a clone with only CTXPKG_TOKEN set: the token is not sent (it belongs to the registry of
    // --registry/CTXPKG_REGISTRY), and the 404 says so first (new-user trial: it only said "log in").
    const ci = join(dir, 'ci-clone');
    mkdirSync(ci, { recursive: true });
    for (const f of ['ctxpkg.json', 'ctxpkg.lock']) writeFileSync(join(ci, f), readFileSync(join(dir, 'team-project', f)));
    const tokenOnly = await cli(['install', '--frozen-lockfile'], { home: join(dir, 'ci'), cwd: ci, env: { CTXPKG_TOKEN: readToken } });
    expect(tokenOnly.code).toBe(4);
    expect(tokenOnly.err).toContain(`hint: CTXPKG_TOKEN is set but was not sent: it belongs only to the registry named by --registry or CTXPKG_REGISTRY, and neither is set (add CTXPKG_REGISTRY=${api}); check the name;`);
    const elsewhere = await cli(['install', '--frozen-lockfile'], { home: join(dir, 'ci'), cwd: ci, env: { CTXPKG_TOKEN: readToken, CTXPKG_REGISTRY: 'http://other.example/api' } });
    expect(elsewhere.err).toContain(`CTXPKG_TOKEN was not sent: it belongs to http://other.example/api (CTXPKG_REGISTRY), not to ${api}`);
    const both = await cli(['install', '--frozen-lockfile'], { home: join(dir, 'ci'), cwd: ci, env: { CTXPKG_TOKEN: readToken, CTXPKG_REGISTRY: api } });
    expect(both.code, both.err).toBe(0);

    // The next version keeps the package's visibility; asking for the other one is refused.
    const next = await cli(['publish', file('kb-1.1.0.ctxpkg', makePackage({ name: '@acme/kb', version: '1.1.0' })), '--json'], publisher());
    expect([next.code, next.json.visibility]).toEqual([0, 'private']);
    const open = await cli(['publish', file('kb-1.2.0.ctxpkg', makePackage({ name: '@acme/kb', version: '1.2.0' })), '--public'], publisher());
    expect(open.code).toBe(5);
    expect(open.err).toContain('E_VISIBILITY');
    expect(open.err).toContain('ctxpkg registry visibility @acme/kb public');
    expect((await fetch(`${api}/v1/packages/acme/kb/index.json`)).status).toBe(404);
  });

  it('--public makes a new package public; a flag contradicting the manifest is refused before anything is sent', async () => {
    const pub = await cli(['publish', file('open-1.0.0.ctxpkg', makePackage({ name: '@acme/open', version: '1.0.0' })), '--public', '--json'], publisher());
    expect([pub.code, pub.json.visibility]).toEqual([0, 'public']);
    expect((await fetch(`${api}/v1/packages/acme/open/index.json`)).status).toBe(200);
    const later = await cli(['publish', file('open-1.1.0.ctxpkg', makePackage({ name: '@acme/open', version: '1.1.0' }))], publisher());
    expect([later.code, later.out]).toEqual([0, expect.stringContaining('public: anyone who can reach the registry can install it')]);

    const declared = file('secret-1.0.0.ctxpkg', makePackage({ name: '@acme/secret', version: '1.0.0', visibility: 'private' }));
    const clash = await cli(['publish', declared, '--public'], publisher());
    expect([clash.code, clash.err]).toEqual([2, expect.stringContaining('--public contradicts the package: its manifest declares visibility private')]);
    expect((await fetch(`${api}/v1/packages/acme/secret/index.json`, { headers: { authorization: `Bearer ${readToken}` } })).status).toBe(404);
    expect((await cli(['publish', declared, '--public', '--private'], publisher())).code).toBe(2);
  });
});
