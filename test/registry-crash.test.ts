/**
 * Crash safety (issue 4 items 5 and 7): a registry process is SIGKILLed at random moments while
 * 200 publishes run against it (4 in flight), restarted, and finally checked:
 * - every acknowledged (201) publish is listed with the acknowledged hash;
 * - every listed version downloads, hashes to its index entry and verifies with `readPackage`;
 * - nothing half-written is visible: every listed version was actually sent, no temp files remain,
 *   and the only stored blobs are those of listed versions (orphans collected at restart);
 * - an interrupted version can be resolved by publishing it again (201 if absent, 409 if present).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readPackage } from '@ctxpkg/format';
import { createNamespace, createToken } from '@ctxpkg/registry';
import { makePackage } from '../packages/registry/src/__tests__/support.js';
import { mulberry32 } from './support/rng.js';
import { REPO_ROOT } from './support/shared.js';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const TOTAL = 200;

/** Deterministic delays (mulberry32), so a failing schedule can be replayed. */
const prng = mulberry32;

let dir = '';
let child: ChildProcess | undefined;

afterAll(async () => {
  child?.kill('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

function startChild(): Promise<{ proc: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', join('test', 'registry-child.ts'), dir], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout!.on('data', (d) => {
      out += String(d);
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ proc, url: m[1] });
    });
    proc.stderr!.on('data', (d) => (err += String(d)));
    proc.on('exit', (code, signal) => reject(new Error(`server exited early (${code ?? signal}): ${err}`)));
  });
}

async function blobFiles(): Promise<string[]> {
  const entries = await readdir(join(dir, 'blobs', 'sha256'), { recursive: true });
  return entries.map(String).filter((p) => /[0-9a-f]{64}$/.test(p)).map((p) => p.slice(-64)).sort();
}

describe('registry crash safety', () => {
  // Each restart costs a few seconds (the child runs from TypeScript sources through tsx).
  it('survives SIGKILL at random moments during 200 publishes', async () => {
    dir = await mkdtemp(join(tmpdir(), 'ctxpkg-crash-'));
    await createNamespace({ dataDir: dir }, 'acme');
    const token = (await createToken({ dataDir: dir }, { namespace: 'acme', scope: 'publish' })).token;
    const versions = Array.from({ length: TOTAL }, (_, i) => `1.0.${i}`);
    const bodies = new Map(versions.map((v) => [v, makePackage({ name: '@acme/crash', version: v, description: `build ${v}` })]));
    const acknowledged = new Map<string, string>();
    const interrupted = new Set<string>();
    const rand = prng(20260102);
    let next = 0;
    let kills = 0;

    while (next < TOTAL) {
      const started = await startChild();
      child = started.proc;
      const exited = new Promise<void>((r) => started.proc.once('exit', () => r()));
      let alive = true;
      const killAfter = 300 + Math.floor(rand() * 1500);
      const timer = setTimeout(() => {
        alive = false;
        kills++;
        started.proc.kill('SIGKILL');
      }, killAfter);
      const worker = async () => {
        while (alive && next < TOTAL) {
          const v = versions[next++];
          try {
            const res = await fetch(`${started.url}/v1/packages/acme/crash/${v}`, {
              method: 'PUT',
              body: bodies.get(v),
              headers: { 'x-ctxpkg-visibility': 'public', authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
            });
            expect(res.status).toBe(201);
            acknowledged.set(v, ((await res.json()) as { artifact_sha256: string }).artifact_sha256);
          } catch (err) {
            if (alive) throw err;
            interrupted.add(v);
          }
        }
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
      clearTimeout(timer);
      if (alive) started.proc.kill('SIGKILL');
      await exited;
    }
    expect(kills).toBeGreaterThan(0);

    const final = await startChild();
    child = final.proc;
    const idx = (await (await fetch(`${final.url}/v1/packages/acme/crash/index.json`)).json()) as {
      versions: Array<{ version: string; artifact_sha256: string; size_bytes: number }>;
    };
    const listed = new Map(idx.versions.map((v) => [v.version, v]));
    for (const [v, hash] of acknowledged) expect(listed.get(v)?.artifact_sha256).toBe(hash);
    for (const entry of idx.versions) {
      expect(acknowledged.has(entry.version) || interrupted.has(entry.version)).toBe(true);
      const res = await fetch(`${final.url}/v1/packages/acme/crash/${entry.version}/download`);
      expect(res.status).toBe(200);
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(bytes.length).toBe(entry.size_bytes);
      expect(sha(bytes)).toBe(entry.artifact_sha256);
      expect(sha(bytes)).toBe(sha(bodies.get(entry.version)!));
      const pkg = await readPackage(bytes, { requireSignature: true });
      expect(pkg.manifest.version).toBe(entry.version);
    }
    expect(await blobFiles()).toEqual(idx.versions.map((v) => v.artifact_sha256).sort());
    expect(await readdir(join(dir, 'blobs', 'tmp'))).toEqual([]);

    for (const v of interrupted) {
      const res = await fetch(`${final.url}/v1/packages/acme/crash/${v}`, {
        method: 'PUT',
        body: bodies.get(v),
        headers: { 'x-ctxpkg-visibility': 'public', authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(listed.has(v) ? 409 : 201);
    }
    console.log(`crash test: ${kills} kills, ${acknowledged.size} acknowledged, ${interrupted.size} interrupted, ${listed.size} listed before re-publish`);
    final.proc.kill('SIGTERM');
    await new Promise<void>((r) => final.proc.once('exit', () => r()));
  }, 300_000);
});
