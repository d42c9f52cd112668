/**
 * The real `ctxpkg` binary (`node packages/cli/bin/ctxpkg.js`, built by `npm install`/`npm ci`
 * through the root `prepare` script) against a real registry server on a free port:
 * the publisher and consumer flow over HTTP, and crash safety — a SIGKILL at a random moment of
 * an install leaves the previous state (or a committed journal that the next run rolls forward),
 * and a re-run completes.
 */
import { publicUnlessDeclared } from '../packages/registry/src/__tests__/support.js';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace, createToken, startRegistry, type RunningRegistry } from '@ctxpkg/registry';
import { REPO_ROOT } from './support/shared.js';
import { makePackage, tempDir } from './support/cli.js';

const BIN = join(REPO_ROOT, 'packages', 'cli', 'bin', 'ctxpkg.js');
const DIST = join(REPO_ROOT, 'packages', 'cli', 'dist', 'bin.js');
const SEED = new Uint8Array(32).fill(0x2a);

function ensureBuilt(): void {
  // A clean clone has dist/ from `npm ci` (prepare); rebuild only when a source is newer.
  const srcNewest = spawnSync('git', ['-C', REPO_ROOT, 'ls-files', 'packages/*/src/*.ts', 'packages/*/src/**/*.ts'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((f) => f && !f.endsWith('.test.ts') && existsSync(join(REPO_ROOT, f)))
    .reduce((m, f) => Math.max(m, statSync(join(REPO_ROOT, f)).mtimeMs), 0);
  if (existsSync(DIST) && statSync(DIST).mtimeMs >= srcNewest) return;
  const r = spawnSync('npm', ['run', 'build'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm run build failed:\n${r.stdout}\n${r.stderr}`);
}

let reg: RunningRegistry;
let api: string;
let token: string;
let home: string;

/** Run the binary asynchronously (the registry lives in this process: never block its loop). */
function ctxpkg(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: home, CTXPKG_HOME: home, CTXPKG_REGISTRY: api, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function put(name: string, version: string, bytes: Uint8Array): Promise<void> {
  const [ns, n] = name.slice(1).split('/');
  const res = await fetch(`${api}/v1/packages/${ns}/${n}/${version}`, { method: 'PUT', headers: { ...(await publicUnlessDeclared(bytes)), authorization: `Bearer ${token}` }, body: bytes });
  if (res.status !== 201) throw new Error(`setup publish failed: ${res.status} ${await res.text()}`);
}

beforeAll(async () => {
  ensureBuilt();
  home = tempDir('ctxpkg-home-');
  const dataDir = tempDir('ctxpkg-data-');
  reg = await startRegistry({ dataDir, port: 0, gcIntervalMs: 0, shutdownTimeoutMs: 200 });
  api = `${reg.url}/api`;
  await createNamespace({ store: reg.store }, 'acme');
  token = (await createToken({ store: reg.store }, { namespace: 'acme', scope: 'publish' })).token;
  await put('@acme/base', '1.0.0', makePackage('@acme/base', '1.0.0', SEED));
  const deps: Record<string, string> = {};
  for (let i = 0; i < 40; i++) {
    const name = `@acme/leaf-${i}`;
    const nodes = Array.from({ length: 50 }, (_, k) => `Never break rule ${k} of leaf ${i}; it is a long and descriptive gotcha text`);
    await put(name, '1.0.0', makePackage(name, '1.0.0', SEED, { nodes }));
    deps[name] = '^1.0.0';
  }
  await put('@acme/big', '1.0.0', makePackage('@acme/big', '1.0.0', SEED, { deps }));
}, 120_000);

afterAll(async () => {
  await reg?.close();
});

describe('spawned binary against a real server', () => {
  it('create → publish → install → ls over HTTP, --version, usage exit 2', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'AGENTS.md'), '# Team rules\n\n- Never push to main.\n- Run `npm test` first.\n');
    expect((await ctxpkg(['--version'], dir)).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect((await ctxpkg(['install', '--no-such-flag'], dir)).code).toBe(2);
    writeFileSync(join(dir, 'team.key'), '2a'.repeat(32), { mode: 0o600 });
    const c = await ctxpkg(['create', '--name', '@acme/team', '--from', 'AGENTS.md', '--key', 'team.key'], dir);
    expect(c.code, c.stderr).toBe(0);
    const p = await ctxpkg(['publish', 'acme-team-1.0.0.ctxpkg', '--public'], dir, { CTXPKG_TOKEN: token });
    expect(p.code, p.stderr).toBe(0);
    const proj = join(dir, 'proj');
    mkdirSync(proj);
    expect((await ctxpkg(['init'], proj)).code).toBe(0);
    const i = await ctxpkg(['install', '@acme/team', '--json'], proj);
    expect(i.code, i.stderr).toBe(0);
    expect(JSON.parse(i.stdout).merged.nodes).toBe(3);
    const noop = await ctxpkg(['install'], proj);
    expect(noop.code, noop.stderr).toBe(0);
    expect(noop.stdout).toBe('up to date\n1 package installed, 0 downloaded, no network\nmerged graph: 3 nodes (0 added), 2 edges, 0 conflicts, 0 superseded\n');
    const ls = await ctxpkg(['ls'], proj);
    expect(ls.stdout).toContain('@acme/team@1.0.0');
    const err = await ctxpkg(['install', '@acme/nope', '--json'], proj);
    expect(err.code).toBe(4);
    expect(JSON.parse(err.stdout).error.code).toBe('E_NOT_FOUND');
  });

  it('a SIGKILL during install leaves the previous state intact and a re-run completes', async () => {
    // The expected end state, from an uninterrupted run.
    const ref = tempDir();
    expect((await ctxpkg(['init'], ref)).code).toBe(0);
    expect((await ctxpkg(['install', '@acme/base'], ref)).code).toBe(0);
    const oldManifest = readFileSync(join(ref, 'ctxpkg.json'), 'utf8');
    const oldLock = readFileSync(join(ref, 'ctxpkg.lock'), 'utf8');
    expect((await ctxpkg(['install', '@acme/big'], ref)).code).toBe(0);
    const newManifest = readFileSync(join(ref, 'ctxpkg.json'), 'utf8');
    const newLock = readFileSync(join(ref, 'ctxpkg.lock'), 'utf8');
    const newMerged = readFileSync(join(ref, '.ctxpkg', 'graph', 'merged.json'), 'utf8');

    const delays = [200, 450, 700, 1000, 1400];
    let interrupted = 0;
    for (const delay of delays) {
      const proj = tempDir();
      writeFileSync(join(proj, 'ctxpkg.json'), oldManifest);
      writeFileSync(join(proj, 'ctxpkg.lock'), oldLock);
      expect((await ctxpkg(['install', '--frozen-lockfile'], proj)).code).toBe(0);
      const child = spawn(process.execPath, [BIN, 'install', '@acme/big'], {
        cwd: proj,
        env: { PATH: process.env.PATH ?? '', HOME: home, CTXPKG_HOME: home, CTXPKG_REGISTRY: api },
        stdio: 'ignore',
      });
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      await new Promise((r) => setTimeout(r, delay));
      const killed = child.kill('SIGKILL');
      const code = await exited;
      if (killed && code === null) interrupted++;
      const m = readFileSync(join(proj, 'ctxpkg.json'), 'utf8');
      const l = readFileSync(join(proj, 'ctxpkg.lock'), 'utf8');
      const journal = existsSync(join(proj, '.ctxpkg', 'txn.json'));
      const old = m === oldManifest && l === oldLock;
      const done = m === newManifest && l === newLock;
      // Either untouched, fully committed, or committed to the journal (rolled forward next run).
      expect(old || done || journal, `delay ${delay}: torn project files`).toBe(true);
      const again = await ctxpkg(['install'], proj);
      if (old && !journal) {
        // The interrupted install never committed: a plain re-run sees the old declared set.
        expect(again.code, again.stderr).toBe(0);
        expect((await ctxpkg(['install', '@acme/big'], proj)).code).toBe(0);
      } else {
        expect(again.code, again.stderr).toBe(0);
      }
      expect(readFileSync(join(proj, 'ctxpkg.json'), 'utf8')).toBe(newManifest);
      expect(readFileSync(join(proj, 'ctxpkg.lock'), 'utf8')).toBe(newLock);
      expect(readFileSync(join(proj, '.ctxpkg', 'graph', 'merged.json'), 'utf8')).toBe(newMerged);
      expect((await ctxpkg(['install', '--frozen-lockfile'], proj)).code).toBe(0);
    }
    expect(interrupted).toBeGreaterThan(0);
  }, 180_000);
});
