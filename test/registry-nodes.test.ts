/**
 * Several registry nodes on one PostgreSQL database (issue 12 item 2), with three real
 * `startRegistry` processes:
 * - 50 concurrent publishes of one version with distinct bytes, spread over the three nodes:
 *   exactly one 201 and 49 × 409, no 5xx, and every node serves bytes equal to the index hash —
 *   20 rounds;
 * - a publish, yank, visibility change, token revocation or signer-key change through one node (or
 *   the admin functions) is seen by the very next request to every other node;
 * - SIGKILL of one node during 200 publishes: the other nodes keep serving, no version is torn
 *   (every listed version downloads, hashes to its index entry and verifies), and an interrupted
 *   version can be published again.
 * Skipped with a printed reason without PostgreSQL (a failure under CTXPKG_REQUIRE_POSTGRES=1).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicKeyFromSeed, readPackage } from '@ctxpkg/format';
import { addSignerKey, createNamespace, createToken, revokeSignerKey, revokeToken, setPackageVisibility } from '@ctxpkg/registry';
import { createPgDatabase, dropPgDatabase, pgUnavailable, pgUrl } from '../packages/registry/src/__tests__/backends.js';
import { makePackage, OTHER_SEED } from '../packages/registry/src/__tests__/support.js';
import { REPO_ROOT } from './support/shared.js';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');


interface Node {
  proc: ChildProcess;
  url: string;
}

let database = '';
let db = '';
let token = '';
const nodes: Node[] = [];

function startNode(): Promise<Node> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'test/registry-child.ts', db], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout!.on('data', (d) => {
      out += String(d);
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ proc, url: m[1] as string });
    });
    proc.stderr!.on('data', (d) => (err += String(d)));
    proc.on('exit', (code, signal) => reject(new Error(`node exited early (${code ?? signal}): ${err}`)));
  });
}

async function stopNode(n: Node): Promise<void> {
  if (n.proc.exitCode !== null || n.proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => n.proc.once('exit', () => r()));
  n.proc.kill('SIGTERM');
  await exited;
}

function put(node: Node, name: string, version: string, body: Uint8Array, tok = token): Promise<Response> {
  return fetch(`${node.url}/v1/packages/acme/${name}/${version}`, {
    method: 'PUT',
    body,
    headers: { 'x-ctxpkg-visibility': 'public', authorization: `Bearer ${tok}`, 'content-type': 'application/octet-stream' },
  });
}

async function index(node: Node, name: string, tok?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${node.url}/v1/packages/acme/${name}/index.json`, { headers: tok ? { authorization: `Bearer ${tok}` } : {} });
  return { status: res.status, body: res.status === 200 ? await res.json() : await res.text() };
}

const describePg = pgUnavailable ? describe.skip : describe;

describePg('three registry nodes on one PostgreSQL database', () => {
  beforeAll(async () => {
    database = await createPgDatabase();
    db = pgUrl(database);
    await createNamespace({ db }, 'acme');
    token = (await createToken({ db }, { namespace: 'acme', scope: 'publish' })).token;
    nodes.push(...(await Promise.all([startNode(), startNode(), startNode()])));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(nodes.map(stopNode));
    if (database) await dropPgDatabase(database);
  }, 60_000);

  it('50 concurrent publishes of one version over three nodes: one 201, 49 × 409, no 5xx, bytes equal the index hash (20 of 20 runs)', async () => {
    for (let round = 0; round < 20; round++) {
      const version = `1.${round}.0`;
      const bodies = Array.from({ length: 50 }, (_, i) => makePackage({ name: '@acme/race', version, description: `contender ${round}.${i}` }));
      const responses = await Promise.all(bodies.map((b, i) => put(nodes[i % 3]!, 'race', version, b)));
      const statuses = responses.map((r) => r.status);
      await Promise.all(responses.map((r) => r.arrayBuffer()));
      expect(statuses.filter((s) => s >= 500)).toEqual([]);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(49);
      const winner = bodies[statuses.indexOf(201)] as Uint8Array;
      for (const node of nodes) {
        const idx = await index(node, 'race');
        const entry = idx.body.versions.find((v: { version: string }) => v.version === version);
        expect(entry.artifact_sha256).toBe(sha(winner));
        const dl = new Uint8Array(await (await fetch(`${node.url}/v1/packages/acme/race/${version}/download`)).arrayBuffer());
        expect(sha(dl)).toBe(entry.artifact_sha256);
      }
    }
  }, 300_000);

  it('a change through one node is seen by the next request to every other node', async () => {
    const [a, b, c] = nodes as [Node, Node, Node];
    // Publish on A: B and C list it on their next request (their index caches are keyed by revision).
    expect((await index(b, 'fresh')).status).toBe(404);
    expect((await put(a, 'fresh', '1.0.0', makePackage({ name: '@acme/fresh', version: '1.0.0' }))).status).toBe(201);
    for (const n of [b, c]) expect((await index(n, 'fresh')).body.latest).toBe('1.0.0');
    expect((await put(b, 'fresh', '1.1.0', makePackage({ name: '@acme/fresh', version: '1.1.0' }))).status).toBe(201);
    for (const n of [a, c]) expect((await index(n, 'fresh')).body.latest).toBe('1.1.0');
    // Yank on B: A and C answer with the new latest at once.
    const y = await fetch(`${b.url}/v1/packages/acme/fresh/1.1.0`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    expect(y.status).toBe(200);
    for (const n of [a, c]) {
      const idx = await index(n, 'fresh');
      expect(idx.body.latest).toBe('1.0.0');
      expect(idx.body.versions.find((v: { version: string }) => v.version === '1.1.0').yanked).toBe(true);
    }
    // Visibility changed by an owner (admin functions on the database): hidden on every node.
    await setPackageVisibility({ db }, '@acme/fresh', 'private');
    for (const n of nodes) expect((await index(n, 'fresh')).status).toBe(404);
    await setPackageVisibility({ db }, '@acme/fresh', 'public');
    for (const n of nodes) expect((await index(n, 'fresh')).status).toBe(200);
    // A token revoked: refused by every node on the next request.
    const t = await createToken({ db }, { namespace: 'acme', scope: 'read' });
    for (const n of nodes) expect((await index(n, 'fresh', t.token)).status).toBe(200);
    await revokeToken({ db }, t.id);
    for (const n of nodes) expect((await index(n, 'fresh', t.token)).status).toBe(401);
    // A signer key added, then revoked: accepted, then refused, by every node.
    await addSignerKey({ db }, 'acme', publicKeyFromSeed(OTHER_SEED));
    expect((await put(c, 'fresh', '2.0.0', makePackage({ name: '@acme/fresh', version: '2.0.0', seed: OTHER_SEED }))).status).toBe(201);
    await revokeSignerKey({ db }, 'acme', publicKeyFromSeed(OTHER_SEED));
    for (const [i, n] of nodes.entries()) {
      const res = await put(n, 'fresh', `2.0.${i + 1}`, makePackage({ name: '@acme/fresh', version: `2.0.${i + 1}`, seed: OTHER_SEED }));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('E_SIGNER_CHANGED');
    }
  }, 120_000);

  it('an admin change through one node\'s admin routes is seen by the next request to every other node', async () => {
    const [a, b, c] = nodes as [Node, Node, Node];
    const owner = (await createToken({ db }, { namespace: 'acme', scope: 'owner' })).token;
    const admin = async (n: Node, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${n.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${owner}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    // A new package is private by default: hidden everywhere until an owner opens it on node A.
    const res = await fetch(`${b.url}/v1/packages/acme/admin-kb/1.0.0`, {
      method: 'PUT', body: makePackage({ name: '@acme/admin-kb', version: '1.0.0' }), headers: { authorization: `Bearer ${token}` },
    });
    expect([res.status, ((await res.json()) as { visibility: string }).visibility]).toEqual([201, 'private']);
    for (const n of nodes) expect((await index(n, 'admin-kb')).status).toBe(404);
    expect((await admin(a, 'PUT', '/v1/admin/packages/acme/admin-kb/visibility', { visibility: 'public' })).status).toBe(200);
    for (const n of [b, c]) expect((await index(n, 'admin-kb')).status).toBe(200);
    // A read token minted on B works on C; revoked on C, it is refused by A and B.
    const made = await admin(b, 'POST', '/v1/admin/tokens', { namespace: 'acme', scope: 'read' });
    expect(made.status).toBe(201);
    expect((await index(c, 'admin-kb', made.body.token)).status).toBe(200);
    expect((await admin(c, 'DELETE', `/v1/admin/tokens/${made.body.id}`)).status).toBe(200);
    for (const n of [a, b]) expect((await index(n, 'admin-kb', made.body.token)).status).toBe(401);
    // A key added on A signs a publish accepted by B; revoked on B, refused by C.
    expect((await admin(a, 'POST', '/v1/admin/namespaces/acme/keys', { public_key: publicKeyFromSeed(OTHER_SEED) })).status).toBe(200);
    expect((await put(b, 'admin-kb', '1.1.0', makePackage({ name: '@acme/admin-kb', version: '1.1.0', seed: OTHER_SEED }))).status).toBe(201);
    expect((await admin(b, 'DELETE', `/v1/admin/namespaces/acme/keys/${publicKeyFromSeed(OTHER_SEED)}`)).status).toBe(200);
    const refused = await put(c, 'admin-kb', '1.2.0', makePackage({ name: '@acme/admin-kb', version: '1.2.0', seed: OTHER_SEED }));
    expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([400, 'E_SIGNER_CHANGED']);
    // Every one of these landed in the one events log, readable from any node.
    const ev = await admin(c, 'GET', '/v1/admin/events?limit=10');
    expect(ev.body.events.slice(0, 5).map((e: { action: string }) => e.action)).toEqual(['key:revoke', 'publish', 'key:add', 'token:revoke', 'token:create:read']);
  }, 120_000);

  it('SIGKILL of one node during 200 publishes: the others keep serving and no version is torn', async () => {
    const TOTAL = 200;
    const versions = Array.from({ length: TOTAL }, (_, i) => `1.0.${i}`);
    const bodies = new Map(versions.map((v) => [v, makePackage({ name: '@acme/crash', version: v, description: `build ${v}` })]));
    const victim = nodes[0] as Node;
    const acknowledged = new Map<string, string>();
    const interrupted = new Set<string>();
    let next = 0;
    let killed = false;
    const worker = async (w: number) => {
      while (next < TOTAL) {
        const i = next++;
        const v = versions[i] as string;
        const node = nodes[(i + w) % 3] as Node;
        if (i === 60 && !killed) {
          killed = true;
          victim.proc.kill('SIGKILL');
        }
        try {
          const res = await put(node, 'crash', v, bodies.get(v) as Uint8Array);
          if (node !== victim || !killed) expect(res.status).toBe(201);
          if (res.status === 201) acknowledged.set(v, ((await res.json()) as { artifact_sha256: string }).artifact_sha256);
          else await res.arrayBuffer();
        } catch (err) {
          // Only requests to the killed node may fail.
          if (node !== victim || !killed) throw err;
          interrupted.add(v);
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map(worker));
    expect(killed).toBe(true);
    const survivors = nodes.slice(1);
    for (const node of survivors) {
      const idx = await index(node, 'crash');
      expect(idx.status).toBe(200);
      const listed = new Map<string, { artifact_sha256: string; size_bytes: number }>(idx.body.versions.map((e: any) => [e.version, e]));
      for (const [v, hash] of acknowledged) expect(listed.get(v)?.artifact_sha256).toBe(hash);
      for (const [v, entry] of listed) {
        expect(acknowledged.has(v) || interrupted.has(v)).toBe(true);
        const bytes = new Uint8Array(await (await fetch(`${node.url}/v1/packages/acme/crash/${v}/download`)).arrayBuffer());
        expect(bytes.length).toBe(entry.size_bytes);
        expect(sha(bytes)).toBe(entry.artifact_sha256);
        expect((await readPackage(bytes, { requireSignature: true })).manifest.version).toBe(v);
      }
    }
    const listed = new Set((await index(survivors[0] as Node, 'crash')).body.versions.map((e: any) => e.version));
    for (const v of interrupted) {
      const res = await put(survivors[1] as Node, 'crash', v, bodies.get(v) as Uint8Array);
      expect(res.status).toBe(listed.has(v) ? 409 : 201);
    }
    console.log(`nodes SIGKILL test: ${acknowledged.size} acknowledged, ${interrupted.size} interrupted by the kill`);
    nodes[0] = await startNode();
    expect((await index(nodes[0], 'crash')).body.versions).toHaveLength(TOTAL);
  }, 300_000);
});
