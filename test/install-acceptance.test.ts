/**
 * Defects from the acceptance check (issue 5, issue 3 item 3), the CLI driven in process against
 * registry apps: `update` with no names re-resolves indirect dependencies; checksum mismatches
 * name the source of each value (lockfile, registry index, header, downloaded bytes); the
 * yanked status comes from the current registry index; hints for refused tokens match the
 * token's scope and the operation.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cli, createWorld, makePackage, putPackage, tempDir, type TestRegistry, type World } from './support/cli.js';

const SEED = new Uint8Array(32).fill(0x2b);
const T = '2026-01-02T03:04:05Z';

let world: World;
let P: TestRegistry;
let token: string;
let project: string;

const run = (args: string[], cwd = project) => cli(args, { cwd, fetch: world.fetch, env: { CTXPKG_REGISTRY: P.url } });
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const lockPath = () => join(project, 'ctxpkg.lock');

beforeEach(async () => {
  world = createWorld();
  P = await world.addRegistry('p.test');
  token = await P.namespace('acme');
  await putPackage(P, token, '@acme/base', '1.2.0', makePackage('@acme/base', '1.2.0', SEED, { nodes: ['base 1.2.0'] }));
  await putPackage(P, token, '@acme/agents', '1.2.0', makePackage('@acme/agents', '1.2.0', SEED, { deps: { '@acme/base': '^1.0.0' }, nodes: ['agents rule'] }));
  project = tempDir();
  expect((await run(['init'])).code).toBe(0);
  const r = await run(['install', '@acme/agents@^1.2.0']);
  expect(r.code, r.stderr).toBe(0);
});

describe('update re-resolves indirect dependencies', () => {
  it('`update` with no names moves an indirect dependency to its newest allowed version', async () => {
    await putPackage(P, token, '@acme/base', '1.3.0', makePackage('@acme/base', '1.3.0', SEED, { nodes: ['base 1.3.0'] }));
    const up = await run(['update', '--json']);
    expect(up.code, up.stderr).toBe(0);
    expect(up.json.changed).toEqual([{ name: '@acme/base', from: '1.2.0', to: '1.3.0' }]);
    expect(readJson(lockPath()).packages['@acme/base'].version).toBe('1.3.0');
    expect(readJson(join(project, 'ctxpkg.json')).dependencies).toEqual({ '@acme/agents': '^1.2.0' }); // ranges untouched
  });

  it('`update <name>` frees only that package; the others stay locked (cargo update -p)', async () => {
    await putPackage(P, token, '@acme/base', '1.3.0', makePackage('@acme/base', '1.3.0', SEED));
    await putPackage(P, token, '@acme/agents', '1.3.0', makePackage('@acme/agents', '1.3.0', SEED, { deps: { '@acme/base': '^1.0.0' } }));
    const up = await run(['update', '@acme/agents', '--json']);
    expect(up.code, up.stderr).toBe(0);
    expect(up.json.changed).toEqual([{ name: '@acme/agents', from: '1.2.0', to: '1.3.0' }]);
    expect(readJson(lockPath()).packages['@acme/base'].version).toBe('1.2.0');
    const base = await run(['update', '@acme/base', '--json']);
    expect(base.json.changed).toEqual([{ name: '@acme/base', from: '1.2.0', to: '1.3.0' }]);
  });

  it('`update` with no names keeps a locked yanked indirect version when nothing newer is allowed', async () => {
    await putPackage(P, token, '@acme/base', '1.1.0', makePackage('@acme/base', '1.1.0', SEED));
    await P.store.setYanked('acme', 'base', '1.2.0', true, T, 'test');
    const up = await run(['update', '--json']);
    expect(up.code, up.stderr).toBe(0);
    expect(up.json.changed).toEqual([]);
    expect(up.json.yanked).toEqual([{ name: '@acme/base', version: '1.2.0', kept: true, olderAllowed: '1.1.0' }]);
  });
});
