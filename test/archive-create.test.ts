/**
 * `ctxpkg create` and the two forms (spec/archive.md §4.2): a small package stays a JSON bundle
 * with its content inline (the form the reference reads); `--archive` writes the ZIP form with
 * node content above 16 KiB moved into blobs, byte-identically on every run; a bundle above the
 * 4 MiB threshold becomes the ZIP form by itself.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { isZipBytes, readArchive, readPackage } from '@ctxpkg/format';
import { cli, createWorld, tempDir, type World } from './support/cli.js';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A JSON source with one node per entry of `sizes` (bytes of content, ASCII lines). */
function source(sizes: number[], prefix = 'node'): string {
  const nodes = sizes.map((size, i) => {
    const lines: string[] = [];
    let n = 0;
    for (let l = 1; n < size; l++) {
      const line = `Line ${l} of ${prefix} ${i}: restart the worker, then check the queue depth and the error rate.`;
      lines.push(line);
      n += line.length + 1;
    }
    return { id: `${prefix}-${i}`, type: 'procedure', content: lines.join('\n').slice(0, size) };
  });
  return JSON.stringify({ format: 'ctxpkg-source-v1', title: 'Runbooks', nodes }, null, 1);
}

describe('create: JSON bundle, --archive, automatic ZIP form', () => {
  let world: World;
  let project: string;
  const run = (args: string[]) => cli(args, { cwd: project, fetch: world.fetch });

  beforeAll(() => {
    world = createWorld();
    project = tempDir('ctxpkg-archive-create-');
    mkdirSync(join(project, 'src'));
    writeFileSync(join(project, 'src', 'small.json'), source([200, 16 * 1024, 40 * 1024]));
    // Source files are limited to 2 MiB each: three of 40 nodes × 40 KiB make a 4.8 MiB bundle.
    for (const f of ['big-1', 'big-2', 'big-3']) writeFileSync(join(project, 'src', `${f}.json`), source(Array(40).fill(40 * 1024), f));
  });

  it('without --archive a small package is a JSON bundle with every content inline', async () => {
    const r = await run(['create', '--name', '@acme/small', '--from', 'src/small.json', '--out', 'small.ctxpkg', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ form: 'json', blobs: 0 });
    const pkg = await readPackage(new Uint8Array(readFileSync(join(project, 'small.ctxpkg'))));
    expect(pkg.graph.nodes.some((n) => n.blob_ref !== undefined)).toBe(false);
    expect(pkg.graph.nodes.find((n) => n.id === 'node-2')!.content.length).toBe(40 * 1024);
  });

  it('--archive moves only content above 16 KiB into blobs, the same bytes on every run', async () => {
    const a = await run(['create', '--name', '@acme/small', '--from', 'src/small.json', '--archive', '--out', 'a.ctxpkg', '--json']);
    const b = await run(['create', '--name', '@acme/small', '--from', 'src/small.json', '--archive', '--out', 'b.ctxpkg', '--json']);
    expect(a.code, a.stderr).toBe(0);
    expect(a.json).toMatchObject({ form: 'zip', blobs: 1 });
    const bytes = new Uint8Array(readFileSync(join(project, 'a.ctxpkg')));
    expect(sha(bytes)).toBe(sha(new Uint8Array(readFileSync(join(project, 'b.ctxpkg')))));
    expect(b.json.artifact_sha256).toBe(a.json.artifact_sha256);
    const pkg = await readPackage(bytes, { requireSignature: true });
    const byId = new Map(pkg.graph.nodes.map((n) => [n.id, n]));
    expect(byId.get('node-0')!.blob_ref).toBeUndefined();
    expect(byId.get('node-1')!.blob_ref).toBeUndefined(); // exactly 16 KiB stays inline
    const big = byId.get('node-2')!;
    const full = JSON.parse(readFileSync(join(project, 'src', 'small.json'), 'utf8')).nodes[2].content as string;
    expect(big.blob_ref).toBe(`sha256-${sha(new TextEncoder().encode(full))}`);
    expect(full.startsWith(big.content)).toBe(true);
    expect(Buffer.byteLength(big.content)).toBeLessThanOrEqual(1024);
    expect(Buffer.from(pkg.blobs!.get(big.blob_ref!)!).toString('utf8')).toBe(full);
    expect([big.file_path, big.line_start]).toEqual(['src/small.json', expect.any(Number)]);
  });

  it('a bundle above 4 MiB is written in the ZIP form by itself', async () => {
    const r = await run(['create', '--name', '@acme/big', '--from', 'src/big-1.json', 'src/big-2.json', 'src/big-3.json', '--out', 'big.ctxpkg', '--json']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.json).toMatchObject({ form: 'zip', blobs: 120 });
    const bytes = new Uint8Array(readFileSync(join(project, 'big.ctxpkg')));
    expect(isZipBytes(bytes)).toBe(true);
    const parts = await readArchive(bytes, { keepBlobs: false });
    expect([...parts.blobSizes.values()].reduce((x, y) => x + y, 0)).toBe(120 * 40 * 1024);
    expect(parts.contentText.length).toBeLessThan(1024 * 1024);
  });
});
