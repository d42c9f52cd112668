/**
 * A local Verdaccio 6.8.0 for the install bench: installed into a scratch directory outside the
 * repository at bench time (never a project dependency), started on a free loopback port with
 * no uplinks, and fed tiny npm packages through the npm publish protocol (PUT with attachments).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const VERDACCIO_VERSION = '6.8.0';

/** A free TCP port on 127.0.0.1 (bound and released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Install Verdaccio into `scratch` (kept between runs). Returns its bin path. */
export function installVerdaccio(scratch: string): string {
  const bin = join(scratch, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  if (existsSync(bin)) return bin;
  mkdirSync(scratch, { recursive: true });
  writeFileSync(
    join(scratch, 'package.json'),
    JSON.stringify({ name: 'ctxpkg-bench-verdaccio', private: true, dependencies: { verdaccio: VERDACCIO_VERSION }, overrides: { 'node-fetch': '2.7.0' } }, null, 2),
  );
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: scratch, encoding: 'utf8' });
  if (r.status !== 0 || !existsSync(bin)) throw new Error(`installing verdaccio@${VERDACCIO_VERSION} failed:\n${r.stderr}`);
  return bin;
}

export interface Verdaccio {
  url: string;
  token: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

/** Start Verdaccio with storage in `dir`, wait until it answers, register a user. */
export async function startVerdaccio(bin: string, dir: string): Promise<Verdaccio> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  mkdirSync(join(dir, 'storage'), { recursive: true });
  const cfg = join(dir, 'config.yaml');
  writeFileSync(
    cfg,
    [
      `storage: ${join(dir, 'storage')}`,
      'auth:',
      '  htpasswd:',
      `    file: ${join(dir, 'htpasswd')}`,
      '    max_users: 10',
      'uplinks: {}',
      'packages:',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      'log: { type: stdout, format: pretty, level: error }',
      '',
    ].join('\n'),
  );
  const proc = spawn(process.execPath, [bin, '--config', cfg, '--listen', `127.0.0.1:${port}`], { stdio: 'ignore' });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const r = await fetch(`${url}/-/ping`);
      if (r.ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error('verdaccio did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
  const res = await fetch(`${url}/-/user/org.couchdb.user:bench`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', password: 'bench-password-1', type: 'user', roles: [], date: new Date().toISOString() }),
  });
  const j = (await res.json()) as { token?: string };
  if (!j.token) throw new Error(`verdaccio adduser failed: ${res.status}`);
  return {
    url,
    token: j.token,
    proc,
    stop: () => new Promise((r) => {
      proc.once('exit', () => r());
      proc.kill('SIGTERM');
    }),
  };
}

/** Publish a tiny npm package (package.json, index.js, context.md) through the publish API. */
export async function publishNpm(v: Verdaccio, work: string, name: string, deps: Record<string, string>, body: string): Promise<void> {
  const pkgDir = join(work, name, 'package');
  mkdirSync(pkgDir, { recursive: true });
  const manifest = { name, version: '1.0.0', main: 'index.js', license: 'MIT', dependencies: deps };
  writeFileSync(join(pkgDir, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(pkgDir, 'index.js'), `module.exports = ${JSON.stringify(name)};\n`);
  writeFileSync(join(pkgDir, 'context.md'), body);
  const tgz = join(work, name, `${name}-1.0.0.tgz`);
  const t = spawnSync('tar', ['-czf', tgz, '-C', join(work, name), 'package']);
  if (t.status !== 0) throw new Error(`tar failed for ${name}`);
  const data = readFileSync(tgz);
  const shasum = createHash('sha1').update(data).digest('hex');
  const integrity = 'sha512-' + createHash('sha512').update(data).digest('base64');
  const doc = {
    _id: name,
    name,
    'dist-tags': { latest: '1.0.0' },
    versions: {
      '1.0.0': { ...manifest, _id: `${name}@1.0.0`, dist: { shasum, integrity, tarball: `${v.url}/${name}/-/${name}-1.0.0.tgz` } },
    },
    _attachments: { [`${name}-1.0.0.tgz`]: { content_type: 'application/octet-stream', data: data.toString('base64'), length: data.length } },
  };
  const res = await fetch(`${v.url}/${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${v.token}` },
    body: JSON.stringify(doc),
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`verdaccio publish of ${name} failed: ${res.status} ${await res.text()}`);
}
