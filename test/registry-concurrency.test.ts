/**
 * Concurrent publishes over a real port (ADVERSARIAL HB-20; issue 4 item 7):
 * - 50 concurrent PUTs of one version with 50 distinct valid packages → exactly one 201, 49 × 409,
 *   no 5xx; the index and every download show the winner's bytes — repeated for 20 versions;
 * - 50 distinct versions in parallel → all 201 and all listed, each download matching its receipt.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace, createToken, startRegistry, type RunningRegistry } from '@ctxpkg/registry';
import { makePackage } from '../packages/registry/src/__tests__/support.js';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

let dir: string;
let reg: RunningRegistry;
let token: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ctxpkg-conc-'));
  reg = await startRegistry({ dataDir: dir, port: 0 });
  await createNamespace({ dataDir: dir }, 'acme');
  token = (await createToken({ dataDir: dir }, { namespace: 'acme', scope: 'publish' })).token;
});

afterAll(async () => {
  await reg?.close();
  await rm(dir, { recursive: true, force: true });
});

function put(name: string, version: string, body: Uint8Array): Promise<Response> {
  return fetch(`${reg.url}/v1/packages/acme/${name}/${version}`, {
    method: 'PUT',
    body,
    headers: { 'x-ctxpkg-visibility': 'public', authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
  });
}

async function download(name: string, version: string): Promise<Uint8Array> {
  return new Uint8Array(await (await fetch(`${reg.url}/v1/packages/acme/${name}/${version}/download`)).arrayBuffer());
}

describe('concurrent publishes of one version (HB-20 b)', () => {
  it('accepts exactly one of 50 distinct packages per version, 20 rounds, and serves only the winner', async () => {
    for (let round = 0; round < 20; round++) {
      const version = `1.${round}.0`;
      const bodies = Array.from({ length: 50 }, (_, i) => makePackage({ name: '@acme/race', version, description: `contender ${i}` }));
      const responses = await Promise.all(bodies.map((b) => put('race', version, b)));
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(49);
      const winner = bodies[statuses.indexOf(201)];
      const receipt = (await responses[statuses.indexOf(201)].json()) as { artifact_sha256: string };
      await Promise.all(responses.filter((r) => r.status !== 201).map((r) => r.arrayBuffer()));
      expect(receipt.artifact_sha256).toBe(sha(winner));
      const idx = (await (await fetch(`${reg.url}/v1/packages/acme/race/index.json`)).json()) as any;
      expect(idx.versions.find((v: { version: string }) => v.version === version).artifact_sha256).toBe(sha(winner));
      const got = await Promise.all(Array.from({ length: round === 0 ? 100 : 5 }, () => download('race', version)));
      for (const g of got) expect(sha(g)).toBe(sha(winner));
    }
    // Refused publishes left no blobs behind: one blob per version.
    const { readdirSync } = await import('node:fs');
    const count = readdirSync(join(dir, 'blobs', 'sha256'), { recursive: true }).filter((p) => /[0-9a-f]{64}$/.test(String(p))).length;
    expect(count).toBe(20);
  });
});

describe('concurrent publishes of distinct versions (HB-20 a)', () => {
  it('accepts and lists all 50, each download matching its receipt', async () => {
    const versions = Array.from({ length: 50 }, (_, i) => `1.0.${i}`);
    const bodies = versions.map((v) => makePackage({ name: '@acme/many', version: v }));
    const responses = await Promise.all(versions.map((v, i) => put('many', v, bodies[i])));
    expect(responses.map((r) => r.status)).toEqual(versions.map(() => 201));
    const receipts = (await Promise.all(responses.map((r) => r.json()))) as Array<{ artifact_sha256: string }>;
    const idx = (await (await fetch(`${reg.url}/v1/packages/acme/many/index.json`)).json()) as any;
    expect(idx.versions.map((v: { version: string }) => v.version).sort()).toEqual([...versions].sort());
    expect(idx.latest).toBe('1.0.49');
    for (let i = 0; i < versions.length; i++) {
      expect(sha(await download('many', versions[i]))).toBe(receipts[i].artifact_sha256);
    }
  });
});
