/**
 * init, login, create, publish, info (remote), search, yank/unyank through the CLI in process
 * against a registry app.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
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
  writeFileSync(join(dir, 'AGENTS.md'), '# Rules\n\n- Never log tokens.\n- Run `npm test` before pushing.\n');
});

const run = (args: string[], env: Record<string, string | undefined> = {}) => cli(args, { cwd: dir, fetch: world.fetch, env: { CTXPKG_REGISTRY: P.url, ...env } });

describe('init', () => {
  it('writes ctxpkg.json with signatures required and ignores .ctxpkg/ once', async () => {
    writeFileSync(join(dir, '.gitignore'), 'node_modules/');
    expect((await run(['init'])).code).toBe(0);
    expect((await run(['init'])).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'ctxpkg.json'), 'utf8'))).toEqual({ dependencies: {}, registries: {}, trust: { require_signature: true } });
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('node_modules/\n.ctxpkg/\n');
  });
});

describe('create → publish → info → search → yank', () => {
  it('runs the publisher flow with clear errors', async () => {
    const created = await run(['create', '--name', '@acme/rules', '--from', 'AGENTS.md', '--json']);
    expect(created.code, created.stdout).toBe(0);
    expect(created.json.file).toBe(join(dir, 'acme-rules-1.0.0.ctxpkg'));
    expect(created.json.signer.key_created).toBe(true);
    expect(statSync(join(dir, '.home', 'keys', 'ctxpkg-ed25519.key')).mode & 0o777).toBe(0o600);

    const dry = await run(['publish', '--dry-run', '--json']);
    expect(dry.code, dry.stdout).toBe(0);
    expect(world.log.filter((l) => l.method === 'PUT')).toEqual([]);

    const noToken = await run(['publish']);
    expect(noToken.code).toBe(3);
    expect(noToken.stderr).toContain('E_AUTH');

    const bad = await run(['publish'], { CTXPKG_TOKEN: 'ctxp_' + 'x'.repeat(43) });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/E_AUTH: registry http:\/\/p\.test\/api needs valid credentials/);

    const ok = await run(['publish', '--public', '--json'], { CTXPKG_TOKEN: token });
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.json.artifact_sha256).toBe(created.json.artifact_sha256);

    const again = await run(['publish'], { CTXPKG_TOKEN: token });
    expect(again.code).toBe(5);
    expect(again.stderr).toContain('already exists');

    const info = await run(['info', '@acme/rules', '--json']);
    expect(info.code, info.stdout).toBe(0);
    expect(info.json).toMatchObject({ valid: true, registry: P.url, yanked: false, versions: [{ version: '1.0.0', yanked: false }] });

    const search = await run(['search', 'tokens', '--json']);
    expect(search.code, search.stdout).toBe(0);
    expect(search.json.results.map((r: { name: string }) => r.name)).toContain('@acme/rules');

    expect((await run(['yank', '@acme/rules@1.0.0'], { CTXPKG_TOKEN: token })).code).toBe(0);
    const proj = tempDir();
    const inst = await cli(['install', '@acme/rules'], { cwd: proj, fetch: world.fetch, env: { CTXPKG_REGISTRY: P.url } });
    expect(inst.code).toBe(6);
    expect(inst.stderr).toContain('E_NO_MATCH');
    expect((await run(['unyank', '@acme/rules@1.0.0'], { CTXPKG_TOKEN: token })).code).toBe(0);
    expect((await cli(['install', '@acme/rules'], { cwd: proj, fetch: world.fetch, env: { CTXPKG_REGISTRY: P.url } })).code).toBe(0);
  });

  it('refuses secrets with file:line and kind, never the value; --redact replaces them', async () => {
    const secret = 'AKIA' + 'Q3EGRZ7VNXK2LM4P';
    writeFileSync(join(dir, 'AGENTS.md'), `# Rules\n\n- Deploy with key ${secret} from CI.\n`);
    const r = await run(['create', '--name', '@acme/rules', '--from', 'AGENTS.md']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/E_SECRET: .*AGENTS\.md:3 aws_access_key_id/);
    expect(r.stderr + r.stdout).not.toContain(secret);
    expect(existsSync(join(dir, 'acme-rules-1.0.0.ctxpkg'))).toBe(false);
    const red = await run(['create', '--name', '@acme/rules', '--from', 'AGENTS.md', '--redact']);
    expect(red.code, red.stderr).toBe(0);
    const text = readFileSync(join(dir, 'acme-rules-1.0.0.ctxpkg'), 'utf8');
    expect(text).not.toContain(secret);
    expect(text).toContain('[REDACTED:aws_access_key_id]');
  });

  it('create --version sets the package version (not the CLI version)', async () => {
    const r = await run(['create', '--name', '@acme/rules', '--version', '2.1.0', '--from', 'AGENTS.md', '--json']);
    expect(r.code, r.stdout).toBe(0);
    expect(r.json).toMatchObject({ name: '@acme/rules', version: '2.1.0', file: join(dir, 'acme-rules-2.1.0.ctxpkg') });
  });

  it('--dry-run writes nothing and creates no key', async () => {
    const r = await run(['create', '--name', '@acme/rules', '--from', 'AGENTS.md', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('[gotcha] - Never log tokens.');
    expect(r.stdout).toContain('[procedure] - Run `npm test` before pushing.');
    expect(existsSync(join(dir, 'acme-rules-1.0.0.ctxpkg'))).toBe(false);
    expect(existsSync(join(dir, '.home'))).toBe(false);
  });
});

describe('login', () => {
  it('saves a token from stdin for one registry with mode 0600 and uses it only there', async () => {
    const login = await cli(['login', '--registry', P.url, '--scope', '@acme'], { cwd: dir, fetch: world.fetch, stdin: `${token}\n` });
    expect(login.code).toBe(0);
    const cfgPath = join(dir, '.home', 'config.json');
    expect(statSync(cfgPath).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(cfgPath, 'utf8'))).toEqual({ registries: { '@acme': P.url }, tokens: {}, scoped_tokens: { [P.url]: { '@acme': token } } });
    expect(login.stdout).not.toContain(token);
    await putPackage(P, token, '@acme/base', '1.0.0', makePackage('@acme/base', '1.0.0', SEED));
    const Q = await world.addRegistry('q.test');
    const qt = await Q.namespace('other');
    await putPackage(Q, qt, '@other/x', '1.0.0', makePackage('@other/x', '1.0.0', SEED));
    world.log.length = 0;
    const r = await cli(['install', '@acme/base', '@other/x'], { cwd: dir, fetch: world.fetch, env: { CTXPKG_REGISTRY: Q.url } });
    expect(r.code, r.stderr).toBe(0);
    expect(world.log.filter((l) => l.host === 'p.test').every((l) => l.authorization === `Bearer ${token}`)).toBe(true);
    expect(world.log.filter((l) => l.host === 'q.test').every((l) => l.authorization === null)).toBe(true);
  });
});
