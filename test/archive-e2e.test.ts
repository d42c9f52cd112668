/**
 * Large packages travel as archives end to end (issue 7, "Done when"), in process against a
 * registry app: `create` picks the ZIP form by itself for a package above the automatic threshold
 * — here one whose content (11 MiB) is above even the 10 MiB JSON bundle limit — and moves large
 * node content into blobs; `publish` stores the artifact and its blobs content-addressed at the
 * registry; `install` verifies, keeps the exact bytes and each blob once, read-only, in
 * `.ctxpkg/store/blobs/sha256/`; `render` and MCP `get_node` show a bounded preview of a blob and
 * point to its file; a deleted blob store is rebuilt from the stored artifact; `uninstall` removes
 * artifact and blobs. Hostile archives (rebuilt from the valid one with one defect each) are
 * refused at publish (4xx, registry storage unchanged) and at install (nothing written).
 */
import { publicUnlessDeclared } from '../packages/registry/src/__tests__/support.js';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { isZipBytes, listArchiveBlobRefs, readArchive } from '@ctxpkg/format';
import type { SqliteStore } from '@ctxpkg/registry';
import { buildZip, fileEntry, parseZip, type RawEntry } from '../packages/format/src/archive/__tests__/zip-builder.js';
import { getNode } from '../packages/cli/src/mcp/tools.js';
import { stateLoader } from '../packages/cli/src/mcp/state.js';
import { cli, createWorld, tempDir, type TestRegistry, type World } from './support/cli.js';

const MiB = 1024 * 1024;
const WORDS = 'queue drain rotate key service deploy rollback check health probe cache warm shard replica index rebuild config flag release canary metric alert page owner escalate window backup restore verify migrate schema table column lock retry timeout budget'.split(' ');
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Six JSON sources of ~1.85 MiB each: runbook nodes of ~50 KiB (deterministic text, no secrets). */
function writeSources(dir: string): string[] {
  let x = 12345;
  const rnd = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
  const files: string[] = [];
  for (let f = 1; f <= 6; f++) {
    const nodes = [];
    let size = 0;
    for (let k = 1; size < 1.85 * MiB; k++) {
      const lines = [`Runbook ${f}.${k}`];
      for (let l = 0; l < 600; l++) lines.push(`Step ${l + 1}: ` + Array.from({ length: 8 + (rnd() % 8) }, () => WORDS[rnd() % WORDS.length]).join(' ') + '.');
      const content = lines.join('\n');
      size += content.length;
      nodes.push({ id: `runbook-${f}-${k}`, type: 'procedure', content });
    }
    const file = `docs/part-${f}.json`;
    writeFileSync(join(dir, file), JSON.stringify({ format: 'ctxpkg-source-v1', title: `Handbook part ${f}`, nodes }, null, 1));
    files.push(file);
  }
  return files;
}

/** Every file under `dir` (except `.home`) with its SHA-256: "nothing written" compares these. */
function tree(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (relative(dir, p) === '.home') continue;
      if (statSync(p).isDirectory()) walk(p);
      else out.push(`${relative(dir, p)} ${sha(readFileSync(p))}`);
    }
  };
  walk(dir);
  return out.join('\n');
}

/** Registry rows and blob files: a refused publish must leave them exactly as they were. */
async function storage(reg: TestRegistry): Promise<string> {
  const store = reg.store as SqliteStore;
  const rows = ['packages', 'versions', 'version_blobs', 'signer_keys'].map((t) => JSON.stringify(store.db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all()));
  return JSON.stringify({ rows, blobs: (await store.blobs.list()).map((b) => b.sha256) });
}

/** The valid archive with exactly one defect each (ADVERSARIAL HB-13, HB-14, HB-16; spec/archive.md §4). */
function hostileVariants(zip: Uint8Array): Array<{ what: string; code: string; status: number; bytes: Uint8Array }> {
  const enc = new TextEncoder();
  const base = () => parseZip(zip);
  const afterManifest = (e: RawEntry): Uint8Array => {
    const entries = base();
    entries.splice(1, 0, e);
    return buildZip(entries);
  };
  const blobIndex = (entries: RawEntry[]) => entries.findIndex((e) => new TextDecoder().decode(e.name).startsWith('blobs/'));
  const swapped = base();
  const i = blobIndex(swapped);
  const other = swapped[i + 1]!;
  swapped[i] = { ...swapped[i]!, data: other.data, crc: other.crc, uncompressedSize: other.uncompressedSize };
  const extra = base();
  const stray = enc.encode('a blob no node references\n');
  extra.push(fileEntry(`blobs/sha256-${sha(stray)}`, stray));
  const liar = base();
  const j = blobIndex(liar);
  liar[j] = { ...liar[j]!, uncompressedSize: 100 };
  const bomb = base();
  bomb.push(fileEntry('rebuild.json', new Uint8Array(64 * MiB)));
  return [
    { what: 'zip slip entry ../../evil.txt', code: 'E_ARCHIVE_UNSAFE_PATH', status: 400, bytes: afterManifest(fileEntry('../../evil.txt', enc.encode('pwned'))) },
    { what: 'symlink entry blobs/link', code: 'E_ARCHIVE_ENTRY_TYPE', status: 400, bytes: afterManifest(fileEntry('blobs/link', enc.encode('../../../../etc/passwd'), { mode: 0o120777 })) },
    { what: 'case-folded duplicate CTXPKG.JSON', code: 'E_ARCHIVE_DUPLICATE_ENTRY', status: 400, bytes: afterManifest({ ...base()[0]!, name: enc.encode('CTXPKG.JSON') }) },
    { what: 'a blob whose bytes are another blob\'s', code: 'E_BLOB', status: 400, bytes: buildZip(swapped) },
    { what: 'an extra blob no node references', code: 'E_BLOB', status: 400, bytes: buildZip(extra) },
    { what: 'a blob declaring fewer bytes than it inflates to', code: 'E_ARCHIVE_SIZE_MISMATCH', status: 400, bytes: buildZip(liar) },
    { what: 'honest 64 MiB bomb in rebuild.json', code: 'E_TOO_LARGE', status: 413, bytes: buildZip(bomb) },
  ];
}

describe('large packages as archives: create → publish → install → render → uninstall', () => {
  let world: World;
  let reg: TestRegistry;
  let env: Record<string, string>;
  let project: string;
  let zip: Uint8Array;
  let refs: string[];
  const file = () => join(project, '.home', 'handbook.ctxpkg');
  const run = (args: string[]) => cli(args, { cwd: project, fetch: world.fetch, env });

  beforeAll(async () => {
    world = createWorld();
    reg = await world.addRegistry('archive.test');
    const token = await reg.namespace('acme');
    project = tempDir('ctxpkg-archive-e2e-');
    env = { CTXPKG_HOME: join(project, '.home'), CTXPKG_REGISTRY: reg.url, CTXPKG_TOKEN: token };
    writeFileSync(join(project, 'AGENTS.md'), '# Handbook\n\n- Never deploy on Fridays.\n- Keys rotate every 90 days.\n');
    (await import('node:fs')).mkdirSync(join(project, 'docs'));
    const sources = writeSources(project);
    expect((await run(['init'])).code).toBe(0);
    const created = await run(['create', '--name', '@acme/handbook', '--from', 'AGENTS.md', ...sources, '--out', file(), '--json']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.json).toMatchObject({ form: 'zip', blobs: expect.any(Number) });
    zip = new Uint8Array(readFileSync(file()));
    refs = listArchiveBlobRefs(zip);
    expect(refs.length).toBe(created.json.blobs);
  }, 180_000);

  it('create chose the ZIP form by itself and put every node above 16 KiB into a blob', async () => {
    expect(isZipBytes(zip)).toBe(true);
    expect(zip.length).toBeLessThan(8 * MiB); // within the registry's default cap
    const parts = await readArchive(zip, { keepBlobs: false });
    const decoded = [...parts.blobSizes.values()].reduce((a, b) => a + b, 0) + parts.contentText.length;
    expect(decoded).toBeGreaterThan(10 * MiB); // more than a JSON bundle may hold
    const nodes = JSON.parse(parts.contentText).context_graph.nodes as Array<{ content: string; blob_ref?: string }>;
    const withBlob = nodes.filter((n) => n.blob_ref);
    expect(withBlob.length).toBe(refs.length);
    for (const n of nodes) expect(Buffer.byteLength(n.content)).toBeLessThanOrEqual(n.blob_ref ? 1024 : 16 * 1024);
    const v = await run(['verify', file(), '--json']);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const info = await run(['info', file(), '--json']);
    expect(info.code, info.stderr).toBe(0);
    // Converting to the JSON bundle is refused: 11 MiB of blobs in base64 pass the 10 MiB package
    // limit (spec/archive.md §4.4; smaller blob sets convert), and nothing is written.
    const c = await run(['convert', file(), 'out.ctxpkg', '--to', 'json']);
    expect(c.code).not.toBe(0);
    expect(c.stderr).toMatch(/E_TOO_LARGE: as a JSON bundle the package would be \d+ bytes \(222 blob\(s\)/);
    expect(existsSync(join(project, 'out.ctxpkg'))).toBe(false);
  });

  it('publish keeps the artifact bytes and stores its blobs content-addressed; GET /v1/blobs serves them', async () => {
    const p = await run(['publish', file(), '--public', '--json']);
    expect(p.code, p.stderr).toBe(0);
    const dl = await reg.app.request(`${reg.url}/v1/packages/acme/handbook/1.0.0/download`);
    expect(sha(new Uint8Array(await dl.arrayBuffer()))).toBe(sha(zip));
    const stored = new Set((await (reg.store as SqliteStore).blobs.list()).map((b) => b.sha256));
    for (const ref of refs) expect(stored.has(ref.slice(7))).toBe(true);
    const parts = await readArchive(zip);
    const [first] = refs;
    const res = await reg.app.request(`${reg.url}/v1/blobs/sha256/${first!.slice(7)}`);
    expect(res.status).toBe(200);
    expect(sha(new Uint8Array(await res.arrayBuffer()))).toBe(sha(parts.blobs.get(first!)!));
  });

  it('install verifies, keeps the exact bytes, and stores each blob once, read-only, under its hash', async () => {
    const i = await run(['install', '@acme/handbook', '--json']);
    expect(i.code, i.stderr + i.stdout).toBe(0);
    const lock = JSON.parse(readFileSync(join(project, 'ctxpkg.lock'), 'utf8'));
    expect(lock.packages['@acme/handbook'].artifact_sha256).toBe(sha(zip));
    const artifact = join(project, '.ctxpkg', 'store', 'sha256', `${sha(zip)}.ctxpkg`);
    expect(sha(readFileSync(artifact))).toBe(sha(zip));
    const dir = join(project, '.ctxpkg', 'store', 'blobs', 'sha256');
    expect(readdirSync(dir).sort()).toEqual(refs.map((r) => r.slice(7)).sort());
    for (const name of readdirSync(dir)) {
      expect(sha(readFileSync(join(dir, name)))).toBe(name);
      expect(statSync(join(dir, name)).mode & 0o222).toBe(0);
    }
    const v = await run(['verify', artifact, '--require-signature']);
    expect(v.code, v.stdout + v.stderr).toBe(0);
  });

  it('render and MCP get_node show a bounded preview of the blob and point to its file', async () => {
    const r = await run(['render', '--max-bytes', '32768', '--out', 'pack.md']);
    expect(r.code, r.stderr).toBe(0);
    const pack = readFileSync(join(project, 'pack.md'), 'utf8');
    expect(Buffer.byteLength(pack)).toBeLessThanOrEqual(32768);
    const m = /\[blob (sha256-([0-9a-f]{64})): (\d+) bytes of text, the first (\d+) shown; the rest is in (\.ctxpkg\/store\/blobs\/sha256\/[0-9a-f]{64})\]/.exec(pack);
    expect(m, 'a blob pointer in the pack').not.toBeNull();
    expect(refs).toContain(m![1]);
    expect(Number(m![4])).toBeLessThanOrEqual(4096);
    const blob = readFileSync(join(project, m![5]!), 'utf8');
    expect(pack).toContain(blob.slice(0, Number(m![4])).trimEnd()); // the preview is the blob's beginning
    expect(pack).toContain('Never deploy on Fridays.');

    const state = stateLoader({ cwd: project, clock: () => new Date('2026-01-02T03:04:05Z'), env, homeDir: project })();
    const answer = getNode(state, '@acme/handbook#runbook-1-1').text;
    expect(answer).toContain('Runbook 1.1');
    expect(answer).toMatch(/\[blob sha256-[0-9a-f]{64}: \d+ bytes of text, the first \d+ shown; the rest is in \.ctxpkg\/store\/blobs\/sha256\/[0-9a-f]{64}\]/);
  });

  it('a deleted or damaged blob store is rebuilt from the stored artifact, without the network', async () => {
    const dir = join(project, '.ctxpkg', 'store', 'blobs', 'sha256');
    const victim = join(dir, refs[0]!.slice(7));
    chmodSync(victim, 0o644);
    writeFileSync(victim, 'damaged');
    rmSync(join(dir, refs[1]!.slice(7)));
    const requests = world.log.length;
    const i = await run(['install']);
    expect(i.code, i.stderr).toBe(0);
    expect(world.log.length).toBe(requests);
    expect(readdirSync(dir).sort()).toEqual(refs.map((r) => r.slice(7)).sort());
    expect(sha(readFileSync(victim))).toBe(refs[0]!.slice(7));
    rmSync(join(project, '.ctxpkg', 'store', 'blobs'), { recursive: true, force: true });
    expect((await run(['install'])).code).toBe(0);
    expect(readdirSync(dir)).toHaveLength(refs.length);
  });

  it('hostile archives are refused at publish: 4xx with the archive code, registry storage unchanged', async () => {
    const hostile = await world.addRegistry('hostile.test');
    const token = await hostile.namespace('acme');
    const before = await storage(hostile);
    for (const h of hostileVariants(zip)) {
      const res = await hostile.app.request(`${hostile.url}/v1/packages/acme/handbook/1.0.0`, {
        method: 'PUT',
        headers: { ...(await publicUnlessDeclared(h.bytes)), authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
        body: h.bytes,
      });
      const body = (await res.json()) as { code: string };
      expect([h.what, res.status, body.code]).toEqual([h.what, h.status, h.code]);
      expect(await storage(hostile)).toBe(before);
    }
  }, 60_000);

  it('hostile archives are refused at install — from a file or from a registry — and nothing is written', async () => {
    const before = tree(project);
    for (const h of hostileVariants(zip)) {
      writeFileSync(join(project, '.home', 'bad.ctxpkg'), h.bytes);
      const r = await run(['install', join(project, '.home', 'bad.ctxpkg')]);
      expect([h.what, r.code !== 0, r.stderr.includes(h.code)]).toEqual([h.what, true, true]);
      expect(tree(project)).toBe(before);
    }
    // A registry whose index and download agree on hostile bytes (a compromised registry).
    const evil = hostileVariants(zip)[3]!; // blob bytes swapped: only the blob check can see it
    world.intercept = async (url) => {
      if (!url.pathname.includes('/acme/evil/')) return undefined;
      if (url.pathname.endsWith('/index.json')) {
        return Response.json({
          schema: 'ctxpkg-registry-package-v1', name: '@acme/evil', latest: '1.0.0', visibility: 'public',
          versions: [{ version: '1.0.0', artifact_sha256: sha(evil.bytes), size_bytes: evil.bytes.length, signer_public_key: '', yanked: false, published_at: '2026-01-02T03:04:05Z' }],
        });
      }
      return new Response(evil.bytes, { status: 200, headers: { 'content-type': 'application/octet-stream' } });
    };
    try {
      const r = await run(['install', '@acme/evil@1.0.0']);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('E_BLOB');
      expect(tree(project)).toBe(before);
    } finally {
      world.intercept = undefined;
    }
  }, 60_000);

  it('uninstall removes the artifact and every blob', async () => {
    const u = await run(['uninstall', '@acme/handbook']);
    expect(u.code, u.stderr).toBe(0);
    expect(readdirSync(join(project, '.ctxpkg', 'store', 'sha256'))).toEqual([]);
    expect(readdirSync(join(project, '.ctxpkg', 'store', 'blobs', 'sha256'))).toEqual([]);
  });
});
