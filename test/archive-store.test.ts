/**
 * The project blob store across packages (spec/archive.md §4.3): a blob two installed packages
 * carry is stored once and stays while either is installed; blobs leave with the last package
 * that names them; a binary blob is pointed to, never shown, in merged.json.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { jsonBundleToArchive, writePackage, type ContextNode } from '@ctxpkg/format';
import { cli, createWorld, tempDir, type World } from './support/cli.js';

const SEED = new Uint8Array(32).fill(0x2a);
const hex = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const enc = new TextEncoder();

async function zipPackage(name: string, blobs: Uint8Array[]): Promise<Uint8Array> {
  const nodes: ContextNode[] = blobs.map((b, i) => ({ id: `n${i}`, type: 'fact', content: `object ${i} of ${name}`, activation: 1, blob_ref: `sha256-${hex(b)}` }));
  const json = writePackage(
    { manifest: { name, version: '1.0.0', description: 'blob store test', created_at: '2026-01-02T03:04:05Z' }, content: { context_graph: { format: 'ctxpkg-graph-v2', nodes, edges: [] } } },
    { seed: SEED },
  );
  return jsonBundleToArchive(json, { blobs: new Map(blobs.map((b) => [`sha256-${hex(b)}`, b])) });
}

describe('blob store shared across packages', () => {
  let world: World;
  let project: string;
  const run = (args: string[]) => cli(args, { cwd: project, fetch: world.fetch });
  const SHARED = enc.encode('shared runbook text\n'.repeat(30));
  const ONLY_A = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x00, 0x0d, 0x0a, 0xff); // binary
  const ONLY_B = enc.encode('only in b\n');
  const dir = () => join(project, '.ctxpkg', 'store', 'blobs', 'sha256');

  beforeAll(async () => {
    world = createWorld();
    project = tempDir('ctxpkg-archive-store-');
    writeFileSync(join(project, 'a.ctxpkg'), await zipPackage('@acme/a', [SHARED, ONLY_A]));
    writeFileSync(join(project, 'b.ctxpkg'), await zipPackage('@acme/b', [SHARED, ONLY_B]));
    expect((await run(['init'])).code).toBe(0);
  });

  it('stores a shared blob once, keeps it while a package names it, removes it with the last one', async () => {
    expect((await run(['install', './a.ctxpkg', './b.ctxpkg'])).code).toBe(0);
    expect(readdirSync(dir()).sort()).toEqual([hex(SHARED), hex(ONLY_A), hex(ONLY_B)].sort());
    const merged = JSON.parse(readFileSync(join(project, '.ctxpkg', 'graph', 'merged.json'), 'utf8'));
    const byId = new Map((merged.nodes as Array<{ id: string; content: string }>).map((n) => [n.id, n.content]));
    expect(byId.get('@acme/a#n1')).toBe(
      `object 1 of @acme/a\n\n[blob sha256-${hex(ONLY_A)}: 8 bytes of binary data, not shown; file: .ctxpkg/store/blobs/sha256/${hex(ONLY_A)}]`,
    );
    expect(byId.get('@acme/b#n0')).toContain(`shared runbook text\n[blob sha256-${hex(SHARED)}: ${SHARED.length} bytes of text, shown in full;`);

    expect((await run(['uninstall', '@acme/a'])).code).toBe(0);
    expect(readdirSync(dir()).sort()).toEqual([hex(SHARED), hex(ONLY_B)].sort());
    expect((await run(['uninstall', '@acme/b'])).code).toBe(0);
    expect(readdirSync(dir())).toEqual([]);
  });
});
