import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOCK_FILE } from './server-lock.js';
import { loginLine, startRegistry } from './server.js';
import { openSqliteStore } from './store/sqlite.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ctxpkg-srv-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('startRegistry', () => {
  it('listens on a free port, answers, and closes idempotently', async () => {
    const reg = await startRegistry({ dataDir: dir });
    expect(reg.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(reg.port).toBeGreaterThan(0);
    expect(reg.publicUrl).toBe(reg.url);
    expect((await fetch(`${reg.url}/api/healthz`)).status).toBe(200);
    await Promise.all([reg.close(), reg.close()]);
    await expect(fetch(`${reg.url}/healthz`)).rejects.toThrow();
    expect(await readdir(dir)).not.toContain(LOCK_FILE);
  });

  it('refuses a second server on the same data directory, and takes over a stale lock', async () => {
    const first = await startRegistry({ dataDir: dir });
    try {
      await expect(startRegistry({ dataDir: dir })).rejects.toMatchObject({ code: 'E_LOCKED' });
    } finally {
      await first.close();
    }
    await writeFile(join(dir, LOCK_FILE), '2147483646'); // a pid that does not exist
    const second = await startRegistry({ dataDir: dir });
    await second.close();
  });

  it('takes over a lock copied with the data directory (its pid serves the original), saying so; a lock of this directory still refuses (new-user 2 item 13)', async () => {
    const first = await startRegistry({ dataDir: dir });
    const copy = await mkdtemp(join(tmpdir(), 'ctxpkg-srv-copy-'));
    try {
      const lockText = await readFile(join(dir, LOCK_FILE), 'utf8');
      expect(JSON.parse(lockText)).toMatchObject({ pid: process.pid, dir: expect.any(String), dev: expect.any(String), ino: expect.any(String) });
      await cp(dir, copy, { recursive: true }); // `cp -a data data2` while the original runs
      expect(await readFile(join(copy, LOCK_FILE), 'utf8')).toBe(lockText);
      const logged: string[] = [];
      const second = await startRegistry({ dataDir: copy, log: (e) => logged.push(e.msg) });
      expect(logged.join('\n')).toContain(`was copied from ${dir} (pid ${process.pid} serves that directory, not this one): taken over`);
      expect((await fetch(`${second.url}/api/healthz`)).status).toBe(200);
      await second.close();
      // The original's own lock still refuses a second server there.
      await expect(startRegistry({ dataDir: dir })).rejects.toMatchObject({ code: 'E_LOCKED' });
    } finally {
      await first.close();
      await rm(copy, { recursive: true, force: true });
    }
  });

  it('collects orphan blobs and temp files left by a crash at startup', async () => {
    const store = await openSqliteStore({ dataDir: dir });
    await store.blobs.put(new TextEncoder().encode('orphan from an interrupted publish'));
    await writeFile(join(dir, 'blobs', 'tmp', 'half-written.tmp'), 'partial');
    await store.close();
    const reg = await startRegistry({ dataDir: dir });
    await reg.close();
    const files = await readdir(join(dir, 'blobs'), { recursive: true });
    expect(files.filter((f) => /[0-9a-f]{64}$/.test(String(f)) || String(f).endsWith('.tmp'))).toEqual([]);
  });

  it('reports a busy port and invalid options as errors', async () => {
    const first = await startRegistry({ dataDir: dir });
    const other = await mkdtemp(join(tmpdir(), 'ctxpkg-srv2-'));
    try {
      await expect(startRegistry({ dataDir: other, port: first.port })).rejects.toMatchObject({ code: 'E_ENVIRONMENT', hint: expect.stringContaining('another process is listening') });
      await expect(startRegistry({ dataDir: other, port: 70000 })).rejects.toMatchObject({ code: 'E_USAGE' });
      // The failed starts released the lock of `other`.
      const ok = await startRegistry({ dataDir: other });
      await ok.close();
    } finally {
      await first.close();
      await rm(other, { recursive: true, force: true });
    }
  });
});

describe('deployment: timeouts, health, TLS, drain (issue 11 item 11, issue 12 item 5)', () => {
  it('cuts off a PUT that trickles one byte at a time past the request timeout', async () => {
    const { request } = await import('node:http');
    const reg = await startRegistry({ dataDir: dir, timeouts: { requestMs: 1500, headersMs: 1000 } });
    try {
      const u = new URL(`${reg.url}/v1/packages/acme/kb/1.0.0`);
      const started = Date.now();
      const ended = await new Promise<string>((resolve) => {
        const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'PUT', headers: { 'content-length': '1000000', authorization: 'Bearer x' } });
        const timer = setInterval(() => req.write('x'), 200);
        req.on('response', (res) => {
          clearInterval(timer);
          res.resume();
          resolve(`status ${res.statusCode}`);
        });
        req.on('error', (err) => {
          clearInterval(timer);
          resolve(`error ${(err as NodeJS.ErrnoException).code}`);
        });
        setTimeout(() => {
          clearInterval(timer);
          req.destroy();
          resolve('still open after 20 s');
        }, 20_000);
      });
      expect(ended).not.toBe('still open after 20 s');
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      await reg.close();
    }
  });

  it('answers /-/ping, /-/ready, and /healthz 503 once the store cannot write', async () => {
    const reg = await startRegistry({ dataDir: dir });
    try {
      expect(await (await fetch(`${reg.url}/-/ping`)).json()).toEqual({ status: 'alive' });
      expect(await (await fetch(`${reg.url}/api/-/ready`)).json()).toEqual({ status: 'ready', backend: 'sqlite', writable: true });
      expect((await fetch(`${reg.url}/healthz`)).status).toBe(200);
      // The blob directory can no longer take files (root ignores permission bits, so replace it by a file).
      await rm(join(dir, 'blobs', 'tmp'), { recursive: true });
      await writeFile(join(dir, 'blobs', 'tmp'), 'not a directory');
      const h = await fetch(`${reg.url}/healthz`);
      expect(h.status).toBe(503);
      expect(await h.json()).toMatchObject({ status: 'read-only', backend: 'sqlite' });
      expect((await fetch(`${reg.url}/-/ready`)).status).toBe(200); // still serving reads
    } finally {
      await reg.close();
    }
  });

  it('drains: readiness turns 503 while an in-flight request still finishes', async () => {
    const reg = await startRegistry({ dataDir: dir, shutdownTimeoutMs: 5000 });
    const { request } = await import('node:http');
    const u = new URL(reg.url);
    // A slow in-flight request: headers sent, body still coming.
    const inflight = new Promise<number>((resolve, reject) => {
      const req = request({ host: u.hostname, port: u.port, path: '/v1/packages/acme/kb/1.0.0', method: 'PUT', headers: { 'content-length': '3' } });
      req.write('a');
      setTimeout(() => req.end('bc'), 300);
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode as number);
      });
      req.on('error', reject);
    });
    await new Promise((r) => setTimeout(r, 100));
    const closing = reg.close();
    expect((reg.app.request('http://x/-/ready') as Response).status ?? (await reg.app.request('http://x/-/ready')).status).toBe(503);
    expect(await inflight).toBe(401); // answered, not cut off
    await closing;
  });

  it('serves HTTPS with --tls-cert/--tls-key', async () => {
    const { execFileSync } = await import('node:child_process');
    const { readFile } = await import('node:fs/promises');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-days', '1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    const cert = await readFile(join(dir, 'cert.pem'));
    const reg = await startRegistry({ dataDir: join(dir, 'data'), tls: { cert, key: await readFile(join(dir, 'key.pem')) } });
    try {
      expect(reg.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const { get } = await import('node:https');
      const body = await new Promise<string>((resolve, reject) => {
        get(`${reg.url}/-/ping`, { ca: cert }, (res) => {
          let t = '';
          res.on('data', (d) => (t += String(d)));
          res.on('end', () => resolve(t));
        }).on('error', reject);
      });
      expect(JSON.parse(body)).toEqual({ status: 'alive' });
    } finally {
      await reg.close();
    }
  });
});

describe('the login line serve prints', () => {
  it('names the public URL, or says that a server on every interface needs --public-url', () => {
    expect(loginLine({ publicUrl: 'http://127.0.0.1:4873', host: '127.0.0.1', port: 4873 }, {})).toBe('clients log in with: ctxpkg login --registry http://127.0.0.1:4873/api --scope @<namespace>');
    expect(loginLine({ publicUrl: 'https://ctx.example.com/', host: '0.0.0.0', port: 4873 }, { publicUrl: 'https://ctx.example.com/' })).toBe(
      'clients log in with: ctxpkg login --registry https://ctx.example.com/api --scope @<namespace>',
    );
    // http://0.0.0.0:4873/api reaches nothing from a laptop.
    for (const host of ['0.0.0.0', '::']) {
      const line = loginLine({ publicUrl: `http://${host === '::' ? '[::]' : host}:4873`, host, port: 4873 }, { tls: {} });
      expect(line).not.toContain('0.0.0.0');
      expect(line).toMatch(/^clients log in with: ctxpkg login --registry https:\/\/<this server's address>:4873\/api --scope @<namespace> {2}\(set --public-url to the URL clients reach/);
    }
  });
});
