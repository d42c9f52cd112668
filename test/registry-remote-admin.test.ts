/**
 * `ctxpkg registry … --registry URL` (issue 12 item 3): every admin subcommand run from a
 * "laptop" (runCli in process, its own home directory) against a running registry, with an admin
 * token in CTXPKG_TOKEN and a namespace-owner token saved by `ctxpkg login` — on both backends.
 * The same commands with `--data`/`--db` act as `local admin`; both land in the events log.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { publicKeyFromSeed } from '@ctxpkg/format';
import { runCli, type CliDeps } from 'ctxpkg';
import { startRegistry, type RunningRegistry } from '@ctxpkg/registry';
import { describeBackends, makePackage, OTHER_SEED } from '../packages/registry/src/__tests__/support.js';
import { freshPgUrl } from '../packages/registry/src/__tests__/backends.js';

const OTHER_KEY = publicKeyFromSeed(OTHER_SEED);

describeBackends('ctxpkg registry admin commands with --registry', (backend) => {
  let dir: string;
  let server: RunningRegistry;
  let api: string;
  let local: string[];

  async function cli(args: string[], opts: { env?: Record<string, string>; stdin?: string; home?: string } = {}): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const stdin = new PassThrough();
    stdin.end(opts.stdin ?? '');
    const deps: CliDeps = {
      fetch: globalThis.fetch,
      env: opts.env ?? {},
      cwd: dir,
      homeDir: opts.home ?? join(dir, 'laptop'),
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (err += s) },
      stdin,
      clock: () => new Date(),
    };
    return { code: await runCli(args, deps), out, err };
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ctxpkg-remote-admin-'));
    if (backend === 'sqlite') {
      server = await startRegistry({ dataDir: join(dir, 'reg'), port: 0 });
      local = ['--data', join(dir, 'reg')];
    } else {
      const db = await freshPgUrl();
      server = await startRegistry({ db, port: 0 });
      local = ['--db', db];
    }
    api = `${server.url}/api`;
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('an operator bootstraps an admin token on the server, then administers from a laptop', async () => {
    // On the server (local admin): the one admin token.
    const boot = await cli(['registry', 'token', 'create', '--scope', 'admin', '--label', 'laptop', ...local], { home: join(dir, 'server') });
    expect(boot.code).toBe(0);
    const admin = boot.out.trim();
    expect(admin).toMatch(/^ctxa_[A-Za-z0-9_-]{43}$/);
    expect(boot.err).toMatch(/token tok_[0-9a-f]{16} \(admin, whole registry, expires never\) is shown only this once/);

    const env = { CTXPKG_TOKEN: admin };
    const ns = await cli(['registry', 'namespace', 'create', 'acme', '--owner', 'team-a', '--registry', api], { env });
    expect(ns).toMatchObject({ code: 0, out: 'created namespace acme (owner team-a)\n' });
    expect((await cli(['registry', 'namespace', 'create', 'acme', '--registry', api], { env })).err).toContain('E_EXISTS');
    expect((await cli(['registry', 'namespace', 'create', 'beta', '--registry', api], { env })).code).toBe(0);
    const list = await cli(['registry', 'namespace', 'list', '--json', '--registry', api], { env });
    expect(JSON.parse(list.out).map((n: { name: string }) => n.name)).toEqual(['acme', 'beta']);

    const ownerMade = await cli(['registry', 'token', 'create', '--namespace', 'acme', '--scope', 'owner', '--expires', '30d', '--registry', api], { env });
    expect(ownerMade.code).toBe(0);
    const owner = ownerMade.out.trim();
    expect(owner).toMatch(/^ctxo_/);
    for (const r of [ns, list, ownerMade]) expect(r.err + r.out).not.toContain(admin);

    // The owner saves the token with login and works on its namespace without --data or the admin.
    const home = join(dir, 'owner-laptop');
    const login = await cli(['login', '--registry', api, '--scope', '@acme'], { stdin: owner, home });
    expect(login.code).toBe(0);
    expect(login.out).toContain('the registry accepted the token (owner token of @acme)');
    const asOwner = (args: string[]) => cli([...args, '--registry', api], { home });
    // The command a publish prints for teammates, run as written (no --registry): the hint names the
    // registry the owner's saved token belongs to, ready to paste.
    const bare = await cli(['registry', 'token', 'create', '--namespace', 'acme', '--scope', 'read'], { home });
    expect([bare.code, bare.err]).toEqual([2, expect.stringContaining(`hint: your config holds an owner token (@acme) for ${api}: add \`--registry ${api}\``)]);
    expect(bare.err).not.toContain(owner);
    const pub = await asOwner(['registry', 'token', 'create', '--namespace', 'acme', '--scope', 'publish', '--label', 'ci']);
    expect(pub.code).toBe(0);
    const publishToken = pub.out.trim();
    expect(publishToken).toMatch(/^ctxp_/);
    const foreign = await asOwner(['registry', 'token', 'create', '--namespace', 'beta', '--scope', 'read']);
    expect(foreign.code).toBe(3);
    expect(foreign.err).toContain('E_FORBIDDEN');
    const mintAdmin = await asOwner(['registry', 'token', 'create', '--scope', 'admin']);
    expect([mintAdmin.code, mintAdmin.err]).toEqual([3, expect.stringContaining('needs an admin token')]);
    expect(mintAdmin.err).toContain(`registry ${api} does not allow you to create an admin token:`);
    expect((await asOwner(['registry', 'token', 'create', '--namespace', 'beta', '--scope', 'owner'])).err).toContain('to create an owner token:');
    expect((await asOwner(['registry', 'gc'])).code).toBe(3);

    const tokens = await asOwner(['registry', 'token', 'list', '--json']);
    const listed = JSON.parse(tokens.out) as Array<{ id: string; namespace: string; scope: string; label: string | null }>;
    expect(listed.map((t) => [t.namespace, t.scope]).sort()).toEqual([['acme', 'owner'], ['acme', 'publish']]);
    expect(tokens.out).not.toContain('token_sha256');
    expect(tokens.out).not.toContain(publishToken);

    // Publishing with the owner's new publish token, then keys, visibility, revocation.
    const put = await fetch(`${api}/v1/packages/acme/kb/1.0.0`, { method: 'PUT', body: makePackage({ visibility: 'private' }), headers: { authorization: `Bearer ${publishToken}` } });
    expect(put.status).toBe(201);
    expect((await asOwner(['registry', 'key', 'add', 'acme', OTHER_KEY])).out).toContain('added key');
    const keys = await asOwner(['registry', 'key', 'list', 'acme', '--json']);
    // the key the owner added is recorded as the owner's, not the admin's
    expect(JSON.parse(keys.out).map((k: { added_by: string }) => k.added_by)).toEqual(['first-publish', 'owner']);
    expect((await asOwner(['registry', 'key', 'list', 'acme'])).out).toContain(`${OTHER_KEY})\towner\tactive`);
    expect((await asOwner(['registry', 'key', 'revoke', 'acme', OTHER_KEY])).out).toContain('revoked key');
    expect((await asOwner(['registry', 'visibility', '@acme/kb', 'public'])).out).toBe('@acme/kb is now public\n');
    expect((await fetch(`${api}/v1/packages/acme/kb/index.json`)).status).toBe(200);
    const vis = await asOwner(['registry', 'visibility', '@beta/kb', 'public']);
    expect(vis.code).toBe(3);
    const revoked = await asOwner(['registry', 'token', 'revoke', publishToken]);
    expect(revoked.code).toBe(0);
    expect(revoked.out).toMatch(/^revoked tok_[0-9a-f]{16} \(publish, namespace acme\) at /);
    expect(revoked.out + revoked.err).not.toContain(publishToken);
    expect((await fetch(`${api}/v1/index.json`, { headers: { authorization: `Bearer ${publishToken}` } })).status).toBe(401);

    // The events log: remote actions under their token ids, the bootstrap as local admin.
    const ownerId = listed.find((t) => t.scope === 'owner')!.id;
    const ev = await asOwner(['registry', 'events', '--json']);
    const events = JSON.parse(ev.out) as Array<{ action: string; actor: string; namespace: string | null }>;
    expect(events.every((e) => e.namespace === 'acme')).toBe(true);
    expect(events.filter((e) => e.actor === ownerId).map((e) => e.action)).toEqual([
      'token:revoke', 'visibility:public', 'key:revoke', 'key:add', 'token:create:publish',
    ]);
    const all = JSON.parse((await cli(['registry', 'events', '--limit', '100', '--json', ...local], { home: join(dir, 'server') })).out) as Array<{ action: string; actor: string; namespace: string | null; detail: string | null }>;
    const adminId = /^(tok_[0-9a-f]{16})/.exec(boot.err.replace(/^.*token /s, ''))![1];
    expect(all.find((e) => e.action === 'token:create:admin')).toMatchObject({ namespace: null, actor: 'local admin', detail: adminId });
    expect(all.find((e) => e.action === 'namespace:create' && e.namespace === 'acme')).toMatchObject({ actor: adminId, detail: 'team-a' });
    const remoteAll = await cli(['registry', 'events', '--limit', '100', '--json', '--registry', api], { env });
    expect(JSON.parse(remoteAll.out)).toEqual(JSON.parse((await cli(['registry', 'events', '--limit', '100', '--json', ...local], { home: join(dir, 'server') })).out));
    const gc = await cli(['registry', 'gc', '--grace', '0m', '--registry', api], { env });
    expect(gc).toMatchObject({ code: 0, out: 'removed 0 unreferenced file(s)\n' });
  });

  it('a namespace that does not exist: a token for it, its keys, tokens and events are E_NOT_FOUND with the command that creates it', async () => {
    const admin = (await cli(['registry', 'token', 'create', '--scope', 'admin', ...local])).out.trim();
    const env = { CTXPKG_TOKEN: admin };
    const create = `ctxpkg registry namespace create nowhere --registry ${api}`;
    for (const args of [
      ['token', 'create', '--namespace', 'nowhere', '--scope', 'owner'],
      ['key', 'list', 'nowhere'],
      ['token', 'list', '--namespace', 'nowhere'],
      ['events', '--namespace', 'nowhere'],
    ]) {
      const r = await cli(['registry', ...args, '--registry', api], { env });
      expect([r.code, r.out], args.join(' ')).toEqual([4, '']);
      expect(r.err, args.join(' ')).toContain('error E_NOT_FOUND: ');
      expect(r.err, args.join(' ')).toContain('namespace nowhere does not exist');
      expect(r.err, args.join(' ')).toContain(`hint: create it first: \`${create}\``);
      const here = await cli(['registry', ...args, ...local]);
      expect([here.code, here.err], args.join(' ')).toEqual([4, expect.stringContaining('hint: create it first: `ctxpkg registry namespace create nowhere --')]);
    }
    // an existing namespace without keys still lists none
    expect((await cli(['registry', 'namespace', 'create', 'empty', '--registry', api], { env })).code).toBe(0);
    expect((await cli(['registry', 'key', 'list', 'empty', '--registry', api], { env })).out).toBe('no keys (the first publish records one)\n');
    // a namespace created twice names the list command, remotely too
    const twice = await cli(['registry', 'namespace', 'create', 'empty', '--registry', api], { env });
    expect([twice.code, twice.err]).toEqual([5, expect.stringContaining(`hint: a namespace is created once; see the existing ones with \`ctxpkg registry namespace list --registry ${api}\``)]);
  });

  it('refuses to run without a token, with both --registry and --data, and with a read or publish token', async () => {
    const none = await cli(['registry', 'namespace', 'list', '--registry', api], { home: join(dir, 'empty') });
    expect([none.code, none.err]).toEqual([3, expect.stringContaining('E_AUTH')]);
    expect(none.err).toContain('ctxpkg login --registry');
    const both = await cli(['registry', 'namespace', 'list', '--registry', api, ...local]);
    expect([both.code, both.err]).toEqual([2, expect.stringContaining('not both')]);
    const neither = await cli(['registry', 'token', 'list'], { home: join(dir, 'empty') });
    expect([neither.code, neither.err]).toEqual([2, expect.stringContaining('--registry URL')]);
    const read = (await cli(['registry', 'token', 'create', '--namespace', 'acme', '--scope', 'read', ...local])).out.trim();
    const refused = await cli(['registry', 'token', 'list', '--namespace', 'acme', '--registry', api], { env: { CTXPKG_TOKEN: read } });
    expect([refused.code, refused.err]).toEqual([3, expect.stringContaining('needs an owner token of acme or an admin token; this is a read token of acme')]);
    expect(refused.err).not.toContain(read);
  });
});
