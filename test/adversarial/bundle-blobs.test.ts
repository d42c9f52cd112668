/**
 * H7: hostile `blobs` members of JSON bundles (spec/archive.md §4.4) through the readers that
 * must agree with each other — `readPackage` (verification, publish gate), `listPackageBlobRefs`
 * and `readPackageBlobs` (install's blob store, the registry's blob re-extraction) — and through
 * publish → install.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64, listPackageBlobRefs, readPackage, readPackageBlobs, writePackage } from '@ctxpkg/format';
import { cli, createWorld, tempDir, type RunResult } from '../support/cli.js';
import { dec, enc, liveRegistry, projectSnapshot, putHttp, SEED, T, temp, treeSnapshot, type LiveRegistry } from './support.js';

const BLOB = enc('runbook body kept as a blob!'); // 28 bytes: base64 ends in "=="
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

describe('H7: hostile blobs members are refused everywhere and write nothing', () => {
  let R: LiveRegistry;
  let home: string;
  beforeAll(async () => {
    home = temp('ctxpkg-h7-home-');
    R = await liveRegistry();
  });
  afterAll(async () => {
    await R.close();
  });
  const run = (args: string[], cwd: string): Promise<RunResult> => cli(args, { cwd, home, fetch: globalThis.fetch, env: { CTXPKG_REGISTRY: R.api } });
  const b64 = encodeBase64(BLOB);
  const other = enc('a blob the graph never names');
  const otherRef = `sha256-${createHash('sha256').update(other).digest('hex')}`;
  const upper = `sha256-${REF.slice(7).toUpperCase()}`;
  const cases: Array<[string, string, string[]]> = [
    ['blobs twice at top level', `,"blobs":{"${REF}":"${b64}"},"blobs":{"${REF}":"${b64}"}`, ['E_DUPLICATE_KEY']],
    ['content twice (blobs between: the reference reads the first content)', `,"blobs":{"${REF}":"${b64}"},"content":{}`, ['E_DUPLICATE_KEY']],
    ['one name twice', `,"blobs":{"${REF}":"${b64}","${REF}":"${b64}"}`, ['E_DUPLICATE_KEY']],
    ['sha256-X next to sha256-x', `,"blobs":{"${REF}":"${b64}","${upper}":"${b64}"}`, ['E_BLOB']],
    ['blobs an array', `,"blobs":["${b64}"]`, ['E_STRUCTURE']],
    ['blobs a string', `,"blobs":"${b64}"`, ['E_STRUCTURE']],
    ['blobs null', `,"blobs":null`, ['E_STRUCTURE']],
    ['a value not a string', `,"blobs":{"${REF}":42}`, ['E_STRUCTURE']],
    ['referenced blob missing (empty member)', `,"blobs":{}`, ['E_BLOB']],
    ['a blob the graph does not reference', `,"blobs":{"${REF}":"${b64}","${otherRef}":"${encodeBase64(other)}"}`, ['E_BLOB']],
    ['unpadded base64', `,"blobs":{"${REF}":"${b64.replace(/=+$/, '')}"}`, ['E_BLOB']],
    ['base64 with a line break', `,"blobs":{"${REF}":"${b64.slice(0, 8)}\\n${b64.slice(8)}"}`, ['E_BLOB']],
    ['URL-safe alphabet', `,"blobs":{"${REF}":"${b64.replace(/\+/g, '-').replace(/\//g, '_')}_"}`, ['E_BLOB']],
    ['bytes that hash to another name', `,"blobs":{"${REF}":"${encodeBase64(other)}"}`, ['E_BLOB']],
    ['__proto__ as a blob name', `,"blobs":{"__proto__":"${b64}"}`, ['E_FORBIDDEN_KEY']],
  ];
  for (const [label, member, codes] of cases) {
    it(`${label} → ${codes.join('/')}: PUT 400 storage unchanged; install/convert/verify/info exit 1, nothing written`, async () => {
      const bytes = enc(`${head()}${member}}`);
      const before = R.snapshot();
      const put = await putHttp(R.api, R.publish, '@acme/kb', '1.0.0', bytes);
      expect([label, put.status, codes.includes(put.body.code)], JSON.stringify(put.body)).toEqual([label, 400, true]);
      expect(R.snapshot()).toBe(before);
      const sandbox = temp('ctxpkg-h7-sandbox-');
      const p = join(sandbox, 'project');
      mkdirSync(p);
      await run(['init'], p);
      writeFileSync(join(p, 'hostile.ctxpkg'), bytes);
      const snap = projectSnapshot(p);
      const sandSnap = treeSnapshot(sandbox);
      const inst = await run(['install', './hostile.ctxpkg'], p);
      expect(inst.code).toBe(1);
      expect(codes.some((c) => inst.stderr.includes(c)), inst.stderr).toBe(true);
      expect((await run(['convert', 'hostile.ctxpkg', 'out.ctxpkg', '--to', 'zip'], p)).code).toBe(1);
      const v = await run(['verify', 'hostile.ctxpkg'], p);
      expect(v.code).toBe(1);
      const info = await run(['info', 'hostile.ctxpkg'], p);
      expect(info.code).toBe(1);
      expect(codes.some((c) => (info.stdout + info.stderr).includes(c)), info.stdout + info.stderr).toBe(true);
      expect(projectSnapshot(p)).toEqual(snap);
      const after = treeSnapshot(sandbox);
      delete after['project/.ctxpkg'];
      delete sandSnap['project/.ctxpkg'];
      expect(after).toEqual(sandSnap);
    });
  }

  it('registry: a lost blob of a bundle whose member key is escaped ("\\u0062lobs") is re-extracted, not a 500', async () => {
    const bytes = enc(`${head()},"\\u0062lobs":{"${REF}":"${b64}"}}`);
    const put = await putHttp(R.api, R.publish, '@acme/kb', '1.0.0', bytes);
    expect(put.status, JSON.stringify(put.body)).toBe(201);
    const store = R.reg.store as unknown as { blobs: { pathOf(hex: string): string } };
    rmSync(store.blobs.pathOf(REF.slice(7)));
    const res = await fetch(`${R.api}/v1/blobs/sha256/${REF.slice(7)}`);
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(BLOB);
  });

  it('a 10 MiB base64 bomb and 16k+ members are refused before decoding, in bounded time', async () => {
    const h = head();
    const bomb = enc(`${h},"blobs":{"${REF}":"${'A'.repeat(10 * 1024 * 1024 - h.length - 200)}"}}`);
    const many = enc(`${h},"blobs":{${Array.from({ length: 20000 }, (_, i) => `"sha256-${i.toString(16).padStart(64, '0')}":""`).join(',')}}}`);
    const over = enc(`${h},"blobs":{"${REF}":"${'A'.repeat(10 * 1024 * 1024)}"}}`);
    expect(await readers(bomb)).toEqual(['err:E_BLOB', `ok:["${REF}"]`, 'err:E_BLOB']);
    expect((await readers(many))[0]).toBe('err:E_TOO_LARGE');
    expect((await readers(many))[2]).toBe('err:E_TOO_LARGE');
    expect((await readers(over))[0]).toBe('err:E_TOO_LARGE');
    const put = await putHttp(R.api, R.publish, '@acme/kb', '2.0.0', over);
    expect([put.status, put.body.code]).toEqual([413, 'E_TOO_LARGE']);
  });
});
