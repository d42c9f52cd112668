/**
 * H7: hostile `blobs` members of JSON bundles (spec/archive.md §4.4) through the readers that
 * must agree with each other — `readPackage` (verification, publish gate), `listPackageBlobRefs`
 * and `readPackageBlobs` (install's blob store, the registry's blob re-extraction) — and through
 * publish → install.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeBase64, listPackageBlobRefs, readPackage, readPackageBlobs, writePackage } from '@ctxpkg/format';
import { cli, createWorld, tempDir } from '../support/cli.js';
import { dec, enc, SEED, T } from './support.js';

const BLOB = enc('runbook body kept as a blob');
const REF = `sha256-${createHash('sha256').update(BLOB).digest('hex')}`;

/** A signed bundle whose node references REF, without a blobs member: text up to (not incl.) the final `}`. */
function head(): string {
  const content = { context_graph: { format: 'ctxpkg-graph-v2', nodes: [{ id: 'N1', type: 'fact', content: 'see blob', activation: 1, blob_ref: REF }], edges: [] } };
  const text = dec(writePackage({ manifest: { name: '@acme/kb', version: '1.0.0', description: 'd', created_at: T }, content } as never, { seed: SEED, blobs: new Map([[REF, BLOB]]) } as never));
  return text.slice(0, text.lastIndexOf('}'));
}

async function outcome(f: () => Promise<unknown> | unknown): Promise<string> {
  try {
    const v = await f();
    return `ok:${JSON.stringify(v)}`;
  } catch (e) {
    return `err:${(e as { code?: string }).code}`;
  }
}

/** What each of the three readers makes of `bytes`: blob names or the error code. */
async function readers(bytes: Uint8Array): Promise<[string, string, string]> {
  return [
    await outcome(async () => [...((await readPackage(bytes)).blobs?.keys() ?? [])]),
    await outcome(() => listPackageBlobRefs(bytes)),
    await outcome(async () => [...(await readPackageBlobs(bytes)).keys()]),
  ];
}

describe('H7: the blobs member is seen the same way by every reader', () => {
  const b64 = encodeBase64(BLOB);
  const spellings: Array<[string, string]> = [
    ['"blobs"', '"blobs"'],
    ['"\\u0062lobs" (escaped first letter)', '"\\u0062lobs"'],
    ['"bl\\u006fbs" (escaped middle letter)', '"bl\\u006fbs"'],
    ['"\\u0062\\u006C\\u006F\\u0062\\u0073" (all escaped, uppercase hex)', '"\\u0062\\u006C\\u006F\\u0062\\u0073"'],
  ];
  for (const [label, key] of spellings) {
    it(`member key ${label}: all three readers find the one blob`, async () => {
      const bytes = enc(`${head()},${key}:{"${REF}":"${b64}"}}`);
      const r = await readers(bytes);
      expect(r).toEqual([`ok:["${REF}"]`, `ok:["${REF}"]`, `ok:["${REF}"]`]);
    });
  }

  it('a key that only looks like blobs ("blobs " with a space, "Blobs") is an unexpected member, refused', async () => {
    for (const key of ['"blobs "', '"Blobs"', '"\\u0042lobs"']) {
      const r = await readers(enc(`${head()},${key}:{"${REF}":"${b64}"}}`));
      expect(r[0]).toBe('err:E_STRUCTURE');
    }
  });

  it('publish → install of a bundle whose member key is escaped stores the blob', async () => {
    const world = createWorld();
    const reg = await world.addRegistry('blobs-escaped.test');
    const token = await reg.namespace('acme');
    const home = tempDir();
    const env = { CTXPKG_HOME: join(home, '.home'), CTXPKG_REGISTRY: reg.url, CTXPKG_TOKEN: token };
    const run = (cwd: string, args: string[]) => cli(args, { cwd, fetch: world.fetch, env });
    writeFileSync(join(home, 'kb.ctxpkg'), `${head()},"\\u0062lobs":{"${REF}":"${b64}"}}`);
    const p = await run(home, ['publish', 'kb.ctxpkg', '--json']);
    expect(p.code, p.stderr + p.stdout).toBe(0);
    const project = tempDir();
    expect((await run(project, ['init'])).code).toBe(0);
    const r = await run(project, ['install', '@acme/kb', '--json']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const stored = join(project, '.ctxpkg/store/blobs/sha256', REF.slice(7));
    expect(existsSync(stored)).toBe(true);
    expect(new Uint8Array(readFileSync(stored))).toEqual(BLOB);
  });
});
