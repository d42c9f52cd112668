/**
 * A JSON bundle that carries blobs (spec/archive.md §4.4) through publish and install: created
 * as an archive (`create --archive`), converted to JSON, published; the registry records the
 * blob, install puts it in the project's content-addressed blob store and delivers its preview
 * in the merged graph exactly as for the ZIP form.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { isZipBytes, readPackage } from '@ctxpkg/format';
import { cli, createWorld, tempDir, type World } from './support/cli.js';

const BIG = Array.from({ length: 600 }, (_, i) => `Step ${i + 1}: check the replica lag before failing over shard ${i % 17}.`).join('\n');

describe('JSON bundle with blobs: publish → install', () => {
  let world: World;
  let home: string;
  let env: Record<string, string>;
  let bundle: Uint8Array;
  const run = (cwd: string, args: string[]) => cli(args, { cwd, fetch: world.fetch, env });

  beforeAll(async () => {
    world = createWorld();
    const reg = await world.addRegistry('blobs.test');
    const token = await reg.namespace('acme');
    home = tempDir();
    env = { CTXPKG_HOME: join(home, '.home'), CTXPKG_REGISTRY: reg.url, CTXPKG_TOKEN: token };
    writeFileSync(join(home, 'kb.json'), JSON.stringify({ format: 'ctxpkg-source-v1', nodes: [{ id: 'failover', type: 'procedure', content: BIG }] }, null, 2));
    const c = await run(home, ['create', '--name', '@acme/runbook', '--from', 'kb.json', '--archive', '--out', 'r.zip.ctxpkg']);
    expect(c.code, c.stderr).toBe(0);
    const v = await run(home, ['convert', 'r.zip.ctxpkg', 'r.ctxpkg']);
    expect(v.code, v.stderr).toBe(0);
    bundle = new Uint8Array(readFileSync(join(home, 'r.ctxpkg')));
    const p = await run(home, ['publish', 'r.ctxpkg', '--json']);
    expect(p.code, p.stderr + p.stdout).toBe(0);
  });

  it('the published bundle is JSON and carries the blob', async () => {
    expect(isZipBytes(bundle)).toBe(false);
    const pkg = await readPackage(bundle, { requireSignature: true });
    const hex = createHash('sha256').update(BIG).digest('hex');
    expect([...(pkg.blobs?.keys() ?? [])]).toEqual([`sha256-${hex}`]);
    const info = await run(home, ['info', 'r.ctxpkg', '--json']);
    expect(info.code, info.stderr).toBe(0);
    expect(info.json.blobs).toEqual([{ ref: `sha256-${hex}`, bytes: Buffer.byteLength(BIG) }]);
    const text = await run(home, ['info', 'r.ctxpkg']);
    expect(text.stdout).toMatch(new RegExp(`\\(JSON bundle, \\d+ bytes, 1 blob of ${Buffer.byteLength(BIG)} bytes\\): VALID`));
  });

  it('install stores the blob content-addressed and delivers its preview', async () => {
    const project = tempDir();
    expect((await run(project, ['init'])).code).toBe(0);
    const r = await run(project, ['install', '@acme/runbook', '--json']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const hex = createHash('sha256').update(BIG).digest('hex');
    const stored = join(project, '.ctxpkg/store/blobs/sha256', hex);
    expect(existsSync(stored)).toBe(true);
    expect(readFileSync(stored, 'utf8')).toBe(BIG);
    const merged = readFileSync(join(project, '.ctxpkg/graph/merged.json'), 'utf8');
    expect(merged).toContain(`[blob sha256-${hex}: ${Buffer.byteLength(BIG)} bytes of text, the first`);
  });
});
