/**
 * `ctxpkg registry …`: the admin subcommands in process (runCli against a data directory), the
 * serve configuration, and the real binary — `registry serve` printing `listening on`, logging
 * JSON, accepting a publish from curl, finishing an in-flight upload on SIGTERM — plus a check
 * that ordinary commands never load the registry package.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliDeps } from 'ctxpkg';
import { serveConfig } from '../packages/cli/src/commands/registry.js';
import { makePackage, TEST_PUBLIC_KEY } from '../packages/registry/src/__tests__/support.js';
import { openSqliteStore, startRegistry } from '@ctxpkg/registry';
import { createPgDatabase, dropPgDatabase, pgUnavailable, pgUrl } from '../packages/registry/src/__tests__/backends.js';
import { REPO_ROOT } from './support/shared.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ctxpkg-regcli-'));
  // Admin commands work on an existing registry only (`serve` creates one): make `reg` one.
  await (await openSqliteStore({ dataDir: join(dir, 'reg') })).close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const deps: CliDeps = {
    fetch: globalThis.fetch,
    env,
    cwd: dir,
    homeDir: dir,
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin: new PassThrough(),
    clock: () => new Date(),
  };
  const code = await runCli(args, deps);
  return { code, out, err };
}

describe('ctxpkg registry admin commands (in process)', () => {
  const data = ['--data', 'reg'];

  it('claims namespaces and refuses reserved or malformed ones (HB-22)', async () => {
    const ok = await cli(['registry', 'namespace', 'create', 'acme', '--owner', 'platform', ...data]);
    expect(ok).toMatchObject({ code: 0 });
    expect(ok.out).toContain('created namespace acme (owner platform)');
    expect((await cli(['registry', 'namespace', 'create', 'acme', ...data])).err).toContain('E_EXISTS');
    for (const ns of ['official', 'verified', 'ctxpkg', 'admin']) {
      const r = await cli(['registry', 'namespace', 'create', ns, ...data]);
      expect([ns, r.code, r.err.split('\n')[0]]).toEqual([ns, 1, expect.stringContaining('E_RESERVED_NAMESPACE')]);
    }
    for (const ns of ['-acme', 'acme-', 'a', 'a'.repeat(33), 'ACME']) {
      const r = await cli(['registry', 'namespace', 'create', ...data, '--', ns]);
      expect([ns, r.code, r.err.split('\n')[0]]).toEqual([ns, 1, expect.stringContaining('E_INVALID_NAME')]);
    }
    const list = await cli(['registry', 'namespace', 'list', '--json', ...data]);
    expect(JSON.parse(list.out).map((n: { name: string }) => n.name)).toEqual(['acme']);
  });

  it('prints a new token once on stdout, lists tokens without secrets, and revokes', async () => {
    const made = await cli(['registry', 'token', 'create', '--namespace', 'acme', '--scope', 'publish', '--expires', '30d', ...data]);
    expect(made.code).toBe(0);
    const token = made.out.trim();
    expect(token).toMatch(/^ctxp_[A-Za-z0-9_-]{43}$/);
    expect(made.err).toMatch(/warning: token tok_[0-9a-f]{16} \(publish, namespace acme, expires 20\d\d-/);
    const read = await cli(['registry', 'token', 'create', '--namespace', 'acme', '--scope', 'read', '--json', ...data]);
    expect(JSON.parse(read.out).token).toMatch(/^ctxr_/);
    const list = await cli(['registry', 'token', 'list', '--json', ...data]);
    expect(list.out).not.toContain(token);
    expect(list.out).not.toContain('token_sha256');
    expect(JSON.parse(list.out)).toHaveLength(2);
    const id = /tok_[0-9a-f]{16}/.exec(made.err)![0];
    // npm token list's layout: a header, STATE apart from EXPIRES (new-user 2 item 15).
    const text = (await cli(['registry', 'token', 'list', ...data])).out.trimEnd().split('\n');
    expect(text[0]).toMatch(/^ID +NAMESPACE +SCOPE +STATE +EXPIRES +LABEL$/);
    expect(text.find((l) => l.startsWith(id))).toMatch(new RegExp(`^${id} +acme +publish +active +20\\d\\d-\\S+Z$`));
    expect(text.find((l) => l.includes(' read '))).toMatch(/ read +active +never$/);
    const events = (await cli(['registry', 'events', ...data])).out.trimEnd().split('\n');
    expect(events[0]).toMatch(/^WHEN +ACTION +NAMESPACE +BY +TARGET$/);
    expect(events.find((l) => l.includes('token:create:publish'))).toMatch(new RegExp(`token:create:publish +acme +local admin +${id}$`));
    const revoked = await cli(['registry', 'token', 'revoke', id, ...data]);
    expect(revoked.out).toContain(`revoked ${id}`);
    expect((await cli(['registry', 'token', 'revoke', 'tok_0000000000000000', ...data])).code).toBe(4);
    expect((await cli(['registry', 'token', 'create', '--namespace', 'acme', '--scope', 'admin', ...data])).code).toBe(2);
    expect((await cli(['registry', 'token', 'create', '--namespace', 'nope', '--scope', 'read', ...data])).code).toBe(4);
    expect((await cli(['registry', 'token', 'create', '--namespace', 'acme', '--scope', 'read', '--expires', 'soon', ...data])).code).toBe(2);
  });

  it('adds, lists and revokes signer keys, refusing malformed ones', async () => {
    expect((await cli(['registry', 'key', 'add', 'acme', TEST_PUBLIC_KEY, ...data])).code).toBe(0);
    const list = JSON.parse((await cli(['registry', 'key', 'list', 'acme', '--json', ...data])).out);
    expect(list).toMatchObject([{ public_key: TEST_PUBLIC_KEY, added_by: 'admin', revoked_at: null }]);
    expect((await cli(['registry', 'key', 'revoke', 'acme', TEST_PUBLIC_KEY, ...data])).out).toContain('revoked key');
    const bad = await cli(['registry', 'key', 'add', 'acme', TEST_PUBLIC_KEY.toUpperCase(), ...data]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('E_KEY');
  });

  it('needs a data directory, takes it from the environment, and reports unknown packages', async () => {
    const none = await cli(['registry', 'namespace', 'list']);
    expect(none.code).toBe(2);
    expect(none.err).toContain('--data');
    // The server-side commands name both stores (new-user 2 item 21).
    const verify = await cli(['registry', 'verify']);
    expect(verify.code).toBe(2);
    expect(verify.err).toContain('pass --data <dir> (SQLite data directory) or --db <postgres-url>');
    expect((await cli(['registry', 'namespace', 'list'], { CTXPKG_REGISTRY_DATA: 'reg' })).out).toContain('acme');
    expect((await cli(['registry', 'visibility', '@acme/nothing', 'private', ...data])).code).toBe(4);
    expect((await cli(['registry', 'visibility', '@acme/nothing', 'secret', ...data])).code).toBe(2);
    expect((await cli(['registry', 'gc', ...data])).out).toContain('removed 0');
    const events = JSON.parse((await cli(['registry', 'events', '--namespace', 'acme', '--json', ...data])).out) as Array<{ action: string }>;
    expect(events.map((e) => e.action).slice(-2)).toEqual(['token:create:publish', 'namespace:create']);
    expect(events.map((e) => e.action)).toContain('key:revoke');
    expect(JSON.stringify(events)).not.toMatch(/ctx[pr]_/);
    expect((await cli(['registry', 'events', '--limit', '0', ...data])).code).toBe(2);
  });
});

describe('admin commands need an existing registry and say what to run next', () => {
  it('refuses a missing data directory or one that is not a registry, creating nothing (E_NOT_FOUND, exit 4)', async () => {
    const { existsSync, mkdirSync, readdirSync } = await import('node:fs');
    for (const args of [['namespace', 'list'], ['namespace', 'create', 'acme'], ['token', 'list'], ['key', 'list', 'acme'], ['events'], ['gc']]) {
      const r = await cli(['registry', ...args, '--data', 'nonexistent']);
      expect([args.join(' '), r.code]).toEqual([args.join(' '), 4]);
      expect(r.err).toContain('error E_NOT_FOUND: no registry data directory at');
      expect(r.err).toContain('hint: create a registry there by starting `ctxpkg registry serve --data nonexistent` once');
    }
    expect(existsSync(join(dir, 'nonexistent'))).toBe(false);
    mkdirSync(join(dir, 'plain'));
    const plain = await cli(['registry', 'namespace', 'list', '--data', 'plain', '--json']);
    expect(plain.code).toBe(4);
    expect(JSON.parse(plain.out).error.message).toContain('is not a registry data directory (no registry.sqlite)');
    expect(readdirSync(join(dir, 'plain'))).toEqual([]);
  });
  it('adds hints to E_EXISTS, E_RESERVED_NAMESPACE and E_NOT_FOUND', async () => {
    const data = ['--data', 'reg'];
    await cli(['registry', 'namespace', 'create', 'hinted', ...data]);
    expect((await cli(['registry', 'namespace', 'create', 'hinted', ...data])).err).toContain('hint: a namespace is created once; see the existing ones with `ctxpkg registry namespace list --data reg`');
    expect((await cli(['registry', 'namespace', 'create', 'official', ...data])).err).toMatch(/hint: reserved names \(.*\) cannot be created/);
    const noNs = await cli(['registry', 'token', 'create', '--namespace', 'ghost', '--scope', 'read', ...data]);
    expect(noNs.code).toBe(4);
    expect(noNs.err).toContain('hint: create it first: `ctxpkg registry namespace create ghost --data reg`');
    expect((await cli(['registry', 'visibility', '@hinted/nothing', 'private', ...data])).err).toContain('hint: nothing of that name was published');
    expect((await cli(['registry', 'key', 'revoke', 'hinted', TEST_PUBLIC_KEY, ...data])).err).toContain('hint: see the registered keys with `ctxpkg registry key list hinted --data reg`');
  });
});

describe('registry serve configuration', () => {
  it('takes flags over environment over defaults', () => {
    const deps = { cwd: '/srv', env: { CTXPKG_REGISTRY_DATA: 'd', CTXPKG_REGISTRY_PORT: '5000', CTXPKG_REGISTRY_MAX_PACKAGE_BYTES: '1024', CTXPKG_REGISTRY_CORS_ORIGINS: 'https://a.example, https://b.example' } };
    expect(serveConfig({}, deps)).toMatchObject({
      dataDir: '/srv/d', host: '127.0.0.1', port: 5000, limits: { maxPackageBytes: 1024 }, corsOrigins: ['https://a.example', 'https://b.example'],
    });
    expect(serveConfig({ port: '0', host: '0.0.0.0', data: '/x' }, deps)).toMatchObject({ dataDir: '/x', host: '0.0.0.0', port: 0 });
    expect(serveConfig({ data: 'x' }, { cwd: '/', env: {} }).port).toBe(4873);
    for (const port of ['-1', '65536', 'http', '']) {
      if (port === '') continue;
      expect(() => serveConfig({ data: 'x', port }, { cwd: '/', env: {} })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    }
    expect(() => serveConfig({ data: 'x', maxPackageBytes: '12abc' }, { cwd: '/', env: {} })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    expect(serveConfig({ data: 'x', publicUrl: 'https://ctx.example.com/api/' }, { cwd: '/', env: {} }).publicUrl).toBe('https://ctx.example.com/api');
    for (const bad of ['ctx.example.com', 'ftp://x', 'https://x/?a=1']) {
      expect(() => serveConfig({ data: 'x', publicUrl: bad }, { cwd: '/', env: {} })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    }
  });
});

describe('registry serve: config file, environment errors (issue 12 item 5, issue 13 item 4)', () => {
  it('reads every serve option from a --config file, below flags and environment', async () => {
    const file = join(dir, 'registry.json');
    await writeFile(file, JSON.stringify({ data: 'srv-data', port: 4999, host: '0.0.0.0', 'public-url': 'https://ctx.example.com', 'cors-origin': ['https://a.example'], 'request-timeout': 30, 'tls-cert': 'c.pem', 'tls-key': 'k.pem' }));
    expect(serveConfig({ config: file }, { cwd: '/', env: {} })).toMatchObject({
      dataDir: join(dir, 'srv-data'), port: 4999, host: '0.0.0.0', publicUrl: 'https://ctx.example.com', corsOrigins: ['https://a.example'],
      timeouts: { requestMs: 30_000 }, tlsFiles: { cert: join(dir, 'c.pem'), key: join(dir, 'k.pem') },
    });
    expect(serveConfig({ config: file, port: '5001' }, { cwd: '/', env: { CTXPKG_REGISTRY_HOST: '127.0.0.2' } })).toMatchObject({ port: 5001, host: '127.0.0.2' });
    await writeFile(file, JSON.stringify({ data: 'x', prot: 1 }));
    expect(() => serveConfig({ config: file }, { cwd: '/', env: {} })).toThrow(expect.objectContaining({ code: 'E_USAGE', message: expect.stringContaining('"prot"') }));
    expect(() => serveConfig({ data: 'x', tlsCert: 'c.pem' }, { cwd: '/', env: {} })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });

  it('a busy port is an environment error (exit 9) with a hint, not a bug (exit 70)', async () => {
    const busy = await startRegistry({ dataDir: join(dir, 'busy') });
    try {
      const r = await cli(['registry', 'serve', '--data', join(dir, 'busy2'), '--port', String(busy.port)]);
      expect(r.code).toBe(9);
      expect(r.err).toContain('error E_ENVIRONMENT: cannot listen on 127.0.0.1');
      expect(r.err).toMatch(/hint: another process is listening on .*pick another --port/);
    } finally {
      await busy.close();
    }
  });

  it('an unreachable database is an environment error (exit 9) with a hint', async () => {
    const r = await cli(['registry', 'namespace', 'list', '--db', 'postgres://nobody@127.0.0.1:1/none']);
    expect(r.code).toBe(9);
    expect(r.err).toContain('error E_ENVIRONMENT: cannot reach the PostgreSQL database postgres://nobody@127.0.0.1:1/none');
    expect(r.err).toContain('hint: check that PostgreSQL runs');
  });

  it.skipIf(pgUnavailable !== null)('a --db naming a database that does not exist gets the createdb command (issue 12 item 4)', async () => {
    const missing = `ctxpkg_missing_${process.pid}`;
    const url = pgUrl(missing);
    const r = await cli(['registry', 'namespace', 'list', '--db', url]);
    expect(r.code).toBe(9);
    expect(r.err).toContain(`error E_ENVIRONMENT: cannot use the PostgreSQL database`);
    expect(r.err).toContain(`database "${missing}" does not exist`);
    const u = new URL(url);
    expect(r.err).toContain(`hint: create it once, as a PostgreSQL superuser: \`createdb -h ${u.hostname} -p ${u.port || '5432'} -O ${u.username} ${missing}\``);
  });

  it('namespace create @team / Acme: refused before anything is opened, with the spelling to use (issue 13 item 5)', async () => {
    const at = await cli(['registry', 'namespace', 'create', '@team', '--data', 'nowhere']);
    expect(at.code).toBe(1);
    expect(at.err).toContain('error E_INVALID_NAME: invalid namespace "@team": a namespace is written without the @');
    expect(at.err).toContain('hint: use `team`, e.g. `ctxpkg registry namespace create team`');
    const upper = await cli(['registry', 'namespace', 'create', 'Acme', '--data', 'nowhere']);
    expect(upper.err).toContain('namespaces are lower case');
    expect(upper.err).toContain('hint: use `acme`');
    expect((await cli(['registry', 'namespace', '--help'])).out).not.toContain('claim');
  });

  it('backup, verify and restore from the command line; a damaged backup is refused (exit 1) and writes nothing', async () => {
    const src = join(dir, 'bk-src');
    await (await openSqliteStore({ dataDir: src })).close();
    expect((await cli(['registry', 'namespace', 'create', 'acme', '--data', src])).code).toBe(0);
    const b = await cli(['registry', 'backup', '--data', src, '--out', 'bk.backup']);
    expect(b.code).toBe(0);
    expect(b.out).toMatch(/^wrote .*bk\.backup: \d+ rows, 0 blobs/);
    expect((await cli(['registry', 'verify', '--data', src])).out).toContain('all intact');
    const r = await cli(['registry', 'restore', 'bk.backup', '--data', 'bk-restored']);
    expect([r.code, r.err]).toEqual([0, '']);
    // What happens next: how old the backup is, the command that serves it, and what clients that
    // saw a later log will say (README "Restoring an older backup").
    const [, age, next, later] = r.out.split('\n');
    expect(age).toMatch(/^the backup's last change: \d{4}-\d\d-\d\dT[\d:.]+Z; its transparency log ctxpkg-registry\/[0-9a-f]{16} ends at tree size 0$/);
    expect(next).toBe('next: stop every server of the old store, then serve this one: `ctxpkg registry serve --data bk-restored` (with your usual --host, --port, --public-url)');
    expect(later).toContain('clients that saw a log larger than 0 entries refuse this registry (E_LOG_INCONSISTENT, a rollback) until those changes are made again in the same order — see "Restoring an older backup" in the README');
    expect((await cli(['registry', 'namespace', 'list', '--data', 'bk-restored'])).out).toContain('acme');
    await writeFile(join(dir, 'bad.backup'), (await import('node:fs')).readFileSync(join(dir, 'bk.backup'), 'utf8').replace('"acme"', '"acmf"'));
    const bad = await cli(['registry', 'restore', 'bad.backup', '--data', 'bk-never']);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('error E_INTEGRITY');
    expect((await import('node:fs')).existsSync(join(dir, 'bk-never'))).toBe(false);
  });

  it('verify names the versions a damaged blob breaks and how to put the bytes back (exit 1)', async () => {
    const src = join(dir, 'rot-src');
    const { createApp, createNamespace, createToken } = await import('@ctxpkg/registry');
    const store = await openSqliteStore({ dataDir: src });
    const bytes = makePackage({ version: '1.0.0' });
    const sha = createHash('sha256').update(bytes).digest('hex');
    try {
      await createNamespace({ store }, 'acme');
      const token = (await createToken({ store }, { namespace: 'acme', scope: 'publish' })).token;
      const put = await createApp({ store }).request('http://r/v1/packages/acme/kb/1.0.0', { method: 'PUT', body: bytes, headers: { authorization: `Bearer ${token}` } });
      expect(put.status).toBe(201);
      await rm(store.blobs.pathOf(sha), { force: true });
      await writeFile(store.blobs.pathOf(sha), 'rot');
    } finally {
      await store.close();
    }
    const v = await cli(['registry', 'verify', '--data', 'rot-src']);
    expect(v.code).toBe(1);
    const lines = v.out.trimEnd().split('\n');
    expect(lines[1]).toBe(`corrupt artifact ${sha} of @acme/kb@1.0.0`);
    expect(lines[2]).toMatch(/^clients cannot install these versions .*`ctxpkg registry restore FILE --data <scratch dir>`.* replace each damaged file, blobs\/sha256\/<first 2 hex>\/<next 2 hex>\/<hash>/);
    expect(store.blobs.pathOf(sha)).toContain(`blobs/sha256/${sha.slice(0, 2)}/${sha.slice(2, 4)}/${sha}`);
  });

  it('a registry serving a self-signed certificate: the client names the certificate and NODE_EXTRA_CA_CERTS, not "unreachable"', async () => {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost', '-days', '2', '-keyout', join(dir, 'tls-key.pem'), '-out', join(dir, 'tls-cert.pem')], { stdio: 'ignore' });
    const { readFile } = await import('node:fs/promises');
    const reg = await startRegistry({ dataDir: join(dir, 'tls-data'), port: 0, tls: { cert: await readFile(join(dir, 'tls-cert.pem')), key: await readFile(join(dir, 'tls-key.pem')) } });
    try {
      const url = `https://localhost:${reg.port}/api`;
      const r = await cli(['search', 'x', '--registry', url]);
      expect(r.code).toBe(7);
      expect(r.err).toContain(`error E_NETWORK: registry ${url} answered with a TLS certificate this machine does not accept: fetch failed (DEPTH_ZERO_SELF_SIGNED_CERT)`);
      expect(r.err).toContain('hint: this machine does not trust the registry\'s TLS certificate (self-signed or from a private CA): give Node the CA certificate with NODE_EXTRA_CA_CERTS=/path/to/ca.pem');
    } finally {
      await reg.close();
    }
  });

  it('serve --help names the default host and the /api suffix login needs', async () => {
    const out = (await cli(['registry', 'serve', '--help'])).out.replace(/\s+/g, ' ');
    expect(out).toContain('default 127.0.0.1, this machine only');
    expect(out).toContain('ctxpkg login --registry http://127.0.0.1:4873/api');
  });

  it.skipIf(pgUnavailable !== null)('runs every admin command on PostgreSQL with --db', async () => {
    const database = await createPgDatabase();
    const db = pgUrl(database);
    try {
      const serveOnce = await startRegistry({ db }); // creates the schema, as `serve` does
      await serveOnce.close();
      expect((await cli(['registry', 'namespace', 'create', 'acme', '--db', db])).code).toBe(0);
      expect((await cli(['registry', 'namespace', 'list'], { CTXPKG_REGISTRY_DB: db })).out).toContain('acme');
      const created = await cli(['registry', 'token', 'create', '--namespace', 'acme', '--scope', 'read', '--db', db]);
      expect(created.out).toMatch(/^ctxr_/);
      expect((await cli(['registry', 'key', 'add', 'acme', TEST_PUBLIC_KEY, '--db', db])).code).toBe(0);
      expect((await cli(['registry', 'key', 'list', 'acme', '--db', db])).out).toContain('admin');
      const events = await cli(['registry', 'events', '--db', db, '--json']);
      expect((JSON.parse(events.out) as Array<{ action: string }>).map((e) => e.action)).toEqual(['key:add', 'token:create:read', 'namespace:create']);
      expect((await cli(['registry', 'gc', '--db', db])).code).toBe(0);
    } finally {
      await dropPgDatabase(database);
    }
  });
});

function spawnCli(args: string[], extra: string[] = []): ChildProcess {
  return spawn(process.execPath, ['--conditions=source', '--import', 'tsx', ...extra, join('packages', 'cli', 'src', 'bin.ts'), ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
}

function hasCurl(): boolean {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('ctxpkg registry serve (spawned binary)', () => {
  it('prints listening on, logs JSON, accepts a curl publish and drains an in-flight upload on SIGTERM', async () => {
    const data = join(dir, 'served');
    const proc = spawnCli(['registry', 'serve', '--data', data, '--port', '0']);
    let out = '';
    let err = '';
    proc.stderr!.on('data', (d) => (err += String(d)));
    const url = await new Promise<string>((resolve, reject) => {
      proc.stdout!.on('data', (d) => {
        out += String(d);
        const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
        if (m) resolve(m[1]);
      });
      proc.once('exit', (c) => reject(new Error(`exited ${c}: ${err}`)));
    });
    const exited = new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
    try {
      expect((await cli(['registry', 'namespace', 'create', 'acme', '--data', data])).code).toBe(0);
      const token = (await cli(['registry', 'token', 'create', '--namespace', 'acme', '--scope', 'publish', '--data', data])).out.trim();
      const file = join(dir, 'kb.ctxpkg');
      await writeFile(file, makePackage({ version: '1.0.0' }));
      if (hasCurl()) {
        const status = execFileSync('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-X', 'PUT', '-H', `Authorization: Bearer ${token}`, '-H', 'X-Ctxpkg-Visibility: public', '--data-binary', `@${file}`, `${url}/api/v1/packages/acme/kb/1.0.0`]).toString();
        expect(status).toBe('201');
      } else {
        console.warn('[skip] curl is not installed: publishing with fetch instead');
        expect((await fetch(`${url}/api/v1/packages/acme/kb/1.0.0`, { method: 'PUT', body: makePackage({ version: '1.0.0' }), headers: { authorization: `Bearer ${token}`, 'x-ctxpkg-visibility': 'public' } })).status).toBe(201);
      }
      expect((await fetch(`${url}/v1/packages/acme/kb/index.json`)).status).toBe(200);

      // An upload in flight when SIGTERM arrives still completes.
      const body = makePackage({ version: '1.1.0' });
      const u = new URL(url);
      const inflight = new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: u.hostname, port: u.port, method: 'PUT', path: '/v1/packages/acme/kb/1.1.0', headers: { authorization: `Bearer ${token}`, 'content-length': body.length } });
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.write(body.subarray(0, 100));
        setTimeout(() => {
          proc.kill('SIGTERM');
          setTimeout(() => req.end(body.subarray(100)), 300);
        }, 200);
      });
      expect(await inflight).toBe(201);
      expect(await exited).toBe(0);
      const lines = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(out.trimEnd().split('\n').at(-1)).toBe(`registry on ${url} stopped`);
      expect(out.split('\n')[1]).toBe(`clients log in with: ctxpkg login --registry ${url}/api --scope @<namespace>`);
      expect(lines.filter((l) => l.msg === 'request').map((l) => [l.method, l.route, l.status])).toEqual([
        ['PUT', 'publish', 201], ['GET', 'index', 200], ['PUT', 'publish', 201],
      ]);
      expect(lines.some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM')).toBe(true);
      expect(out).not.toContain(token);
    } finally {
      proc.kill('SIGKILL');
    }
  }, 60_000);

  it('does not load @ctxpkg/registry for ordinary commands', async () => {
    const hook = join(dir, 'trace-hook.mjs');
    await writeFile(
      hook,
      `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`export async function resolve(s, c, next) { const r = await next(s, c); if (r.url.includes('/packages/registry/')) process.stderr.write('LOADED ' + r.url + '\\\\n'); return r; }\`));`,
    );
    for (const args of [['--version'], ['--help'], ['search', '--help']]) {
      const proc = spawnCli(args, ['--import', hook]);
      let err = '';
      proc.stderr!.on('data', (d) => (err += String(d)));
      const code = await new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
      expect([args.join(' '), code, err]).toEqual([args.join(' '), 0, '']);
    }
    const proc = spawnCli(['registry', 'namespace', 'list', '--data', join(dir, 'served')], ['--import', hook]);
    let err = '';
    proc.stderr!.on('data', (d) => (err += String(d)));
    await new Promise((r) => proc.once('exit', r));
    expect(err).toContain('LOADED');
  }, 60_000);
});
