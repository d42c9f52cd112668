/**
 * The CLI driven in process against registry apps (injected fetch): install/update/uninstall,
 * lockfile, store, merged graph, offline installs, signer pinning, and the store/CLI/lockfile
 * cases of ADVERSARIAL.md (HB-26, HB-27, HB-28, HB-08, HB-22, token leaks).
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { keyFingerprint, publicKeyFromSeed } from '@ctxpkg/format';
import { createToken } from '@ctxpkg/registry';
import { cli, createWorld, makePackage, putPackage, tempDir, type TestRegistry, type World } from './support/cli.js';

const SEED_A = new Uint8Array(32).fill(0x2a);
const SEED_B = new Uint8Array(32).fill(0x07);

let world: World;
let P: TestRegistry;
let token: string;
let project: string;

const run = (args: string[], env: Record<string, string | undefined> = {}, cwd = project) =>
  cli(args, { cwd, fetch: world.fetch, env: { CTXPKG_REGISTRY: P.url, ...env } });

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string): void => {
    if (!existsSync(d)) return;
    for (const f of readdirSync(d, { withFileTypes: true })) {
      if (f.name === '.home') continue;
      const p = join(d, f.name);
      if (f.isDirectory()) walk(p, `${rel}${f.name}/`);
      else out[`${rel}${f.name}`] = readFileSync(p).toString('base64');
    }
  };
  walk(dir, '');
  return out;
}

beforeEach(async () => {
  world = createWorld();
  P = await world.addRegistry('p.test');
  token = await P.namespace('acme');
  await putPackage(P, token, '@acme/base', '1.0.0', makePackage('@acme/base', '1.0.0', SEED_A, { nodes: ['Never commit secrets', 'Use ESM'] }));
  await putPackage(P, token, '@acme/base', '1.1.0', makePackage('@acme/base', '1.1.0', SEED_A, { nodes: ['Never commit secrets', 'Use ESM only'] }));
  await putPackage(P, token, '@acme/auth', '1.2.0', makePackage('@acme/auth', '1.2.0', SEED_A, { deps: { '@acme/base': '^1.0.0' } }));
  await putPackage(P, token, '@acme/auth', '2.0.0', makePackage('@acme/auth', '2.0.0', SEED_A, { deps: { '@acme/base': '^1.0.0' } }));
  project = tempDir();
  expect((await run(['init'])).code).toBe(0);
});

describe('install → ls → why → outdated → uninstall', () => {
  it('installs transitively, writes ctxpkg.json, ctxpkg.lock, the store and the merged graph', async () => {
    const r = await run(['install', '@acme/auth@^1.0.0', '--json']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.json.added).toEqual([{ name: '@acme/auth', version: '1.2.0' }, { name: '@acme/base', version: '1.1.0' }]);
    const manifest = JSON.parse(readFileSync(join(project, 'ctxpkg.json'), 'utf8'));
    expect(manifest.dependencies).toEqual({ '@acme/auth': '^1.0.0' });
    const lock = JSON.parse(readFileSync(join(project, 'ctxpkg.lock'), 'utf8'));
    expect(lock.packages['@acme/auth']).toMatchObject({ version: '1.2.0', registry: P.url, signer_public_key: publicKeyFromSeed(SEED_A), dependencies: { '@acme/base': '1.1.0' } });
    expect(readdirSync(join(project, '.ctxpkg', 'store', 'sha256'))).toHaveLength(2);
    const merged = JSON.parse(readFileSync(join(project, '.ctxpkg', 'graph', 'merged.json'), 'utf8'));
    expect(merged.inputs.map((i: { package: string }) => i.package)).toEqual(['@acme/auth', '@acme/base']);
    expect(merged.nodes.length).toBe(3);
    expect(r.json.merged.nodes_added).toBe(3);
    // Auto-sync (context.sync.auto, default on) delivered the merged graph to AGENTS.md.
    expect(r.json.sync.join('\n')).toContain('AGENTS.md');
    const agentsMd = readFileSync(join(project, 'AGENTS.md'), 'utf8');
    expect(agentsMd).toContain('## @acme/auth@1.2.0\n\nNever do the wrong thing in `@acme/auth@1.2.0`'); // an @name Claude Code could read as an import is in a code span (pack/imports.ts)
    expect(agentsMd).toContain('## @acme/base@1.1.0');

    const ls = await run(['ls']);
    expect(ls.stdout).toContain('└── @acme/auth@1.2.0\n    └── @acme/base@1.1.0');
    expect((await run(['ls', '--depth', '0', '--json'])).json.dependencies[0].dependencies).toEqual([]);
    const why = await run(['why', '@acme/base']);
    expect(why.stdout).toContain('ctxpkg.json → @acme/auth@1.2.0 → @acme/base@1.1.0');
    const out = await run(['outdated', '--json']);
    expect(out.json.packages).toEqual([{ name: '@acme/auth', range: '^1.0.0', current: '1.2.0', current_yanked: false, wanted: '1.2.0', wanted_yanked: false, latest: '2.0.0', outdated: true, note: null }]);

    world.log.length = 0;
    const un = await run(['uninstall', '@acme/auth', '--json']);
    expect(world.log).toEqual([]);
    expect(un.code, un.stderr).toBe(0);
    expect(un.json.removed.map((x: { name: string }) => x.name)).toEqual(['@acme/auth', '@acme/base']);
    expect(readdirSync(join(project, '.ctxpkg', 'store', 'sha256'))).toHaveLength(0);
    expect(JSON.parse(readFileSync(join(project, 'ctxpkg.lock'), 'utf8')).packages).toEqual({});
    expect(existsSync(join(project, 'AGENTS.md')) ? readFileSync(join(project, 'AGENTS.md'), 'utf8') : '').not.toContain('@acme/auth');
  });

  it('a bare name gets a caret range on the resolved version; a satisfied lockfile installs offline', async () => {
    expect((await run(['install', '@acme/auth'])).code).toBe(0);
    expect(JSON.parse(readFileSync(join(project, 'ctxpkg.json'), 'utf8')).dependencies).toEqual({ '@acme/auth': '^2.0.0' });
    world.log.length = 0;
    const again = await run(['install', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json.requests).toBe(0);
    expect(world.log).toEqual([]);
    const frozen = await run(['install', '--frozen-lockfile']);
    expect(frozen.code).toBe(0);
    expect(world.log).toEqual([]);
  });

  it('rebuilds .ctxpkg/ from the lockfile alone (fresh clone)', async () => {
    await run(['install', '@acme/auth@^1']);
    const lock = readFileSync(join(project, 'ctxpkg.lock'));
    const clone = tempDir();
    writeFileSync(join(clone, 'ctxpkg.json'), readFileSync(join(project, 'ctxpkg.json')));
    writeFileSync(join(clone, 'ctxpkg.lock'), lock);
    const r = await run(['install', '--frozen-lockfile', '--json'], {}, clone);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.downloaded).toBe(2);
    expect(readFileSync(join(clone, 'ctxpkg.lock'))).toEqual(lock);
    expect(readFileSync(join(clone, '.ctxpkg', 'graph', 'merged.json'), 'utf8')).toBe(readFileSync(join(project, '.ctxpkg', 'graph', 'merged.json'), 'utf8'));
  });

  it('update moves to the newest allowed versions; two clean installs give byte-identical lockfiles', async () => {
    await run(['install', '@acme/auth@^1']);
    const first = readFileSync(join(project, 'ctxpkg.lock'), 'utf8');
    const other = tempDir();
    await run(['init'], {}, other);
    await run(['install', '@acme/auth@^1'], {}, other);
    expect(readFileSync(join(other, 'ctxpkg.lock'), 'utf8')).toBe(first);
    await putPackage(P, token, '@acme/auth', '1.3.0', makePackage('@acme/auth', '1.3.0', SEED_A, { deps: { '@acme/base': '^1.0.0' } }));
    const up = await run(['update', '--json']);
    expect(up.code, up.stderr).toBe(0);
    expect(up.json.changed).toEqual([{ name: '@acme/auth', from: '1.2.0', to: '1.3.0' }]);
  });

  it('two concurrent installs in one project keep both changes', async () => {
    await putPackage(P, token, '@acme/style', '1.0.0', makePackage('@acme/style', '1.0.0', SEED_A));
    const [a, b] = await Promise.all([run(['install', '@acme/auth@^1']), run(['install', '@acme/style'])]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const m = JSON.parse(readFileSync(join(project, 'ctxpkg.json'), 'utf8'));
    expect(Object.keys(m.dependencies)).toEqual(['@acme/auth', '@acme/style']);
    const lock = JSON.parse(readFileSync(join(project, 'ctxpkg.lock'), 'utf8'));
    expect(Object.keys(lock.packages)).toEqual(['@acme/auth', '@acme/base', '@acme/style']);
    expect((await run(['install', '--frozen-lockfile'])).code).toBe(0);
  });
});

describe('signer key pinning', () => {
  it('on a registry without a transparency log: refuses a package signed by another key, showing both fingerprints, unless --accept-new-key', async () => {
    // A registry that serves no log (the reference's, a plain file server): no /v1/log, no log
    // members in its index. With a log, an owner-added key is accepted (test/transparency-install.test.ts).
    world.intercept = async (url, init) => {
      if (url.pathname.endsWith('/v1/log')) return new Response('{"error":"no such route","code":"E_NOT_FOUND"}', { status: 404 });
      if (!url.pathname.endsWith('/index.json')) return undefined;
      const res = await world.registries.get(url.host)!.app.request(url.href, init);
      const doc = (await res.json()) as { log?: unknown; versions: Array<{ log?: unknown }> };
      delete doc.log;
      for (const v of doc.versions) delete v.log;
      return new Response(JSON.stringify(doc), { status: res.status, headers: { 'content-type': 'application/json' } });
    };
    await run(['install', '@acme/base@^1']);
    await P.addKey('acme', SEED_B);
    await putPackage(P, token, '@acme/base', '1.2.0', makePackage('@acme/base', '1.2.0', SEED_B));
    const before = snapshot(project);
    const r = await run(['update']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('E_SIGNER_CHANGED');
    expect(r.stderr).toContain(keyFingerprint(publicKeyFromSeed(SEED_A)));
    expect(r.stderr).toContain(keyFingerprint(publicKeyFromSeed(SEED_B)));
    expect(snapshot(project)).toEqual(before);
    const ok = await run(['update', '--accept-new-key']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(project, 'ctxpkg.lock'), 'utf8')).packages['@acme/base'].signer_public_key).toBe(publicKeyFromSeed(SEED_B));
  });
});

describe('HB-26 lockfile tampering and drift', () => {
  beforeEach(async () => {
    expect((await run(['install', '@acme/auth@^1.0.0'])).code).toBe(0);
  });
  const lockPath = () => join(project, 'ctxpkg.lock');

  it('(a) a lock pointing at another registry is refused before any request to it', async () => {
    const evil = await world.addRegistry('evil.test');
    const lock = JSON.parse(readFileSync(lockPath(), 'utf8'));
    lock.packages['@acme/auth'].registry = evil.url;
    lock.packages['@acme/auth'].artifact_sha256 = 'e'.repeat(64);
    writeFileSync(lockPath(), JSON.stringify(lock, null, 2) + '\n');
    const fresh = tempDir();
    writeFileSync(join(fresh, 'ctxpkg.json'), readFileSync(join(project, 'ctxpkg.json')));
    writeFileSync(join(fresh, 'ctxpkg.lock'), readFileSync(lockPath()));
    world.log.length = 0;
    const r = await run(['install', '--frozen-lockfile'], {}, fresh);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('E_LOCK_REGISTRY_MISMATCH');
    expect(world.log.filter((l) => l.host === 'evil.test')).toEqual([]);
    expect(existsSync(join(fresh, '.ctxpkg', 'store'))).toBe(false);
  });

  it('(b) a registry serving another validly signed package under the name is refused', async () => {
    const other = makePackage('@acme/other', '1.2.0', SEED_A);
    const { sha256Hex } = await import('@ctxpkg/format');
    const lock = JSON.parse(readFileSync(lockPath(), 'utf8'));
    lock.packages['@acme/auth'].artifact_sha256 = sha256Hex(other);
    writeFileSync(lockPath(), JSON.stringify(lock, null, 2) + '\n');
    const fresh = tempDir();
    writeFileSync(join(fresh, 'ctxpkg.json'), readFileSync(join(project, 'ctxpkg.json')));
    writeFileSync(join(fresh, 'ctxpkg.lock'), readFileSync(lockPath()));
    world.intercept = (url) => (url.pathname.endsWith('/acme/auth/1.2.0/download') ? new Response(other) : undefined);
    const r = await run(['install', '--frozen-lockfile'], {}, fresh);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/E_NAME_MISMATCH|E_LOCK_MISMATCH/);
    expect(existsSync(join(fresh, '.ctxpkg', 'store', 'sha256'))).toBe(false);
  });

  it('(c) a changed range: frozen fails with the lock untouched; non-frozen rewrites only that entry', async () => {
    const m = JSON.parse(readFileSync(join(project, 'ctxpkg.json'), 'utf8'));
    m.dependencies['@acme/auth'] = '^2.0.0';
    writeFileSync(join(project, 'ctxpkg.json'), JSON.stringify(m, null, 2) + '\n');
    const before = readFileSync(lockPath());
    const r = await run(['install', '--frozen-lockfile']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('E_LOCKFILE_OUT_OF_SYNC');
    expect(readFileSync(lockPath())).toEqual(before);
    const ok = await run(['install', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json.changed).toEqual([{ name: '@acme/auth', from: '1.2.0', to: '2.0.0' }]);
    const oldLock = JSON.parse(before.toString());
    const newLock = JSON.parse(readFileSync(lockPath(), 'utf8'));
    expect(newLock.packages['@acme/base']).toEqual(oldLock.packages['@acme/base']);
  });

  it('(d) a deleted lock entry fails a frozen install', async () => {
    const lock = JSON.parse(readFileSync(lockPath(), 'utf8'));
    delete lock.packages['@acme/auth'];
    writeFileSync(lockPath(), JSON.stringify(lock, null, 2) + '\n');
    const r = await run(['install', '--frozen-lockfile']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/E_LOCKFILE_OUT_OF_SYNC|E_LOCKFILE/);
  });

  it('a hostile artifact hash in the lock never becomes a path', async () => {
    const lock = JSON.parse(readFileSync(lockPath(), 'utf8'));
    lock.packages['@acme/auth'].artifact_sha256 = '../../../../tmp/evil';
    writeFileSync(lockPath(), JSON.stringify(lock, null, 2) + '\n');
    const r = await run(['install', '--frozen-lockfile']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('E_LOCKFILE');
  });
});

describe('HB-27 transport integrity', () => {
  it('(a) downloaded bytes that differ from the index hash are refused, naming the package and both hashes', async () => {
    const swapped = makePackage('@acme/auth', '1.2.0', SEED_B);
    world.intercept = (url) => (url.pathname.endsWith('/acme/auth/1.2.0/download') ? new Response(swapped) : undefined);
    const before = snapshot(project);
    const r = await run(['install', '@acme/auth@1.2.0']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('E_ARTIFACT_CHECKSUM');
    expect(r.stderr).toContain('@acme/auth@1.2.0');
    expect(r.stderr).toMatch(/[0-9a-f]{64}.*[0-9a-f]{64}/);
    expect(snapshot(project)).toEqual(before);
  });
  it('(b) an x-ctxpkg-sha256 header that disagrees with the index is refused', async () => {
    world.intercept = async (url, init) => {
      if (!url.pathname.endsWith('/acme/base/1.1.0/download')) return undefined;
      const res = await P.app.request(url.href, init);
      const h = new Headers(res.headers);
      h.set('x-ctxpkg-sha256', 'f'.repeat(64));
      return new Response(await res.arrayBuffer(), { status: 200, headers: h });
    };
    const r = await run(['install', '@acme/base']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('E_ARTIFACT_CHECKSUM');
  });
});

describe('HB-28 dependency confusion and token binding', () => {
  it('a scope bound to one registry never falls back to another', async () => {
    const Q = await world.addRegistry('q.test');
    const qTok = await Q.namespace('acme');
    await putPackage(P, token, '@acme/internal-kb', '1.0.0', makePackage('@acme/internal-kb', '1.0.0', SEED_A));
    await putPackage(Q, qTok, '@acme/internal-kb', '99.0.0', makePackage('@acme/internal-kb', '99.0.0', SEED_B));
    await putPackage(Q, qTok, '@acme/ghost', '1.0.0', makePackage('@acme/ghost', '1.0.0', SEED_B));
    const m = JSON.parse(readFileSync(join(project, 'ctxpkg.json'), 'utf8'));
    m.registries = { '@acme': P.url };
    m.dependencies = { '@acme/internal-kb': '*' };
    writeFileSync(join(project, 'ctxpkg.json'), JSON.stringify(m));
    world.log.length = 0;
    const ok = await run(['install', '--json'], { CTXPKG_REGISTRY: Q.url });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json.packages).toEqual([{ name: '@acme/internal-kb', version: '1.0.0', registry: P.url, signer: publicKeyFromSeed(SEED_A) }]);
    const ghost = await run(['install', '@acme/ghost@^1'], { CTXPKG_REGISTRY: Q.url });
    expect(ghost.code).toBe(4);
    expect(ghost.stderr).toContain('E_NOT_FOUND');
    expect(ghost.stderr).toContain(P.url);
    expect(world.log.filter((l) => l.host === 'q.test')).toEqual([]);
  });

  it('CTXPKG_TOKEN goes only to CTXPKG_REGISTRY; saved tokens only to their registry', async () => {
    const Q = await world.addRegistry('q.test');
    const qTok = await Q.namespace('other');
    await putPackage(Q, qTok, '@other/kb', '1.0.0', makePackage('@other/kb', '1.0.0', SEED_B));
    const m = JSON.parse(readFileSync(join(project, 'ctxpkg.json'), 'utf8'));
    m.registries = { '@other': Q.url };
    writeFileSync(join(project, 'ctxpkg.json'), JSON.stringify(m));
    const readTok = (await createToken({ store: P.store }, { namespace: 'acme', scope: 'read' })).token;
    world.log.length = 0;
    const r = await run(['install', '@acme/base', '@other/kb'], { CTXPKG_TOKEN: readTok });
    expect(r.code, r.stderr).toBe(0);
    expect(world.log.filter((l) => l.host === 'q.test').length).toBeGreaterThan(0);
    expect(world.log.filter((l) => l.host === 'q.test' && l.authorization !== null)).toEqual([]);
    expect(world.log.filter((l) => l.host === 'p.test').every((l) => l.authorization === `Bearer ${readTok}`)).toBe(true);
  });

  it('a redirect to another host loses the token', async () => {
    const seen: Array<string | null> = [];
    world.intercept = (url, init) => {
      if (url.host === 'cdn.test') {
        seen.push(new Headers(init?.headers).get('authorization'));
        return new Response('{"versions":[]}', { headers: { 'content-type': 'application/json' } });
      }
      if (url.pathname.endsWith('/acme/moved/index.json')) return new Response(null, { status: 302, headers: { location: 'http://cdn.test/idx.json' } });
      return undefined;
    };
    const r = await run(['install', '@acme/moved'], { CTXPKG_TOKEN: 'ctxp_tok' });
    expect(r.code).not.toBe(0);
    expect(seen).toEqual([null]);
  });
});

describe('hostile names and project files', () => {
  it('HB-08: a ctxpkg.json with __proto__ is refused and nothing is requested', async () => {
    writeFileSync(join(project, 'ctxpkg.json'), '{"dependencies":{"__proto__":{"@evil/x":"*"}}}');
    world.log.length = 0;
    const r = await run(['install']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/E_FORBIDDEN_KEY|E_INVALID_NAME/);
    expect(world.log).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  it('names that could traverse paths are refused before any request', async () => {
    world.log.length = 0;
    for (const bad of ['@acme/../../x', '@acme/a/b', '@ACME/x', '@acme/аuth-context', '/tmp/x', '../../x']) {
      const r = await run(['install', bad]);
      expect(r.code, bad).not.toBe(0);
    }
    expect(world.log).toEqual([]);
    expect(existsSync(join(project, '.ctxpkg', 'store'))).toBe(false);
  });
  it('HB-22: a local install of a re-signed file named @acme/аuth-context (Cyrillic а) writes nothing', async () => {
    const { packageSha256, signManifest } = await import('@ctxpkg/format');
    const doc = JSON.parse(new TextDecoder().decode(makePackage('@acme/auth-context', '1.0.0', SEED_A)));
    const name = '@acme/\u0430uth-context';
    doc.manifest.name = name;
    doc.manifest.integrity.sha256 = packageSha256(name, '1.0.0', doc.manifest.integrity.content_hash);
    doc.manifest.signature = signManifest({ name, version: '1.0.0', integrity: { sha256: doc.manifest.integrity.sha256 } }, SEED_A);
    writeFileSync(join(project, 'evil.ctxpkg'), JSON.stringify(doc, null, 2));
    const before = snapshot(project);
    world.log.length = 0;
    const r = await run(['install', './evil.ctxpkg']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('E_INVALID_NAME');
    expect(snapshot(project)).toEqual(before);
    expect(world.log).toEqual([]);
  });
  it('a local file installs, is pinned by hash in the lockfile and survives a frozen reinstall', async () => {
    writeFileSync(join(project, 'kb.ctxpkg'), makePackage('@acme/local-kb', '1.0.0', SEED_A, { deps: { '@acme/base': '^1.0.0' } }));
    const r = await run(['install', './kb.ctxpkg', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.packages.map((p: { name: string; registry: string }) => [p.name, p.registry])).toEqual([
      ['@acme/base', P.url],
      ['@acme/local-kb', 'file:kb.ctxpkg'],
    ]);
    expect(JSON.parse(readFileSync(join(project, 'ctxpkg.json'), 'utf8')).dependencies).toEqual({ '@acme/local-kb': 'file:kb.ctxpkg' });
    expect((await run(['install', '--frozen-lockfile'])).code).toBe(0);
  });
  it('HB-05: invalid ranges are refused with E_INVALID_RANGE and nothing is installed', async () => {
    for (const range of ['latest', '1.2.3' + ' '.repeat(290) + '<2']) {
      const r = await run(['install', `@acme/base@${range}`]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/E_INVALID_RANGE|E_RANGE/);
    }
    expect(existsSync(join(project, 'ctxpkg.lock'))).toBe(false);
  });
  it('a dist-tag (@latest, @next) says ctxpkg has none and how to get the newest; in ctxpkg.json too (new-user trial 2, item 4)', async () => {
    for (const tag of ['latest', 'next']) {
      const r = await run(['install', `@acme/base@${tag}`]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`error E_INVALID_RANGE: @acme/base@${tag}: "${tag}" is not a version range; ctxpkg has no dist-tags (such as npm's "latest")`);
      expect(r.stderr).toContain('hint: leave the version out to get the newest (`ctxpkg install @acme/base`)');
    }
    // a wildcard is a range, not a tag
    expect((await run(['install', '@acme/base@x'])).code, 'x is a wildcard').toBe(0);
    const m = JSON.parse(readFileSync(join(project, 'ctxpkg.json'), 'utf8'));
    m.dependencies['@acme/base'] = 'latest';
    writeFileSync(join(project, 'ctxpkg.json'), JSON.stringify(m));
    const declared = await run(['install']);
    expect(declared.code).toBe(1);
    expect(declared.stderr).toContain('error E_INVALID_RANGE: ctxpkg.json dependency "@acme/base": "latest" is not a version range; ctxpkg has no dist-tags');
    // update takes names: a version or tag after one says so, with the two commands that do it
    const u = await run(['update', '@acme/base@latest']);
    expect(u.code).toBe(2);
    expect(u.stderr).toContain('error E_USAGE: update takes package names, not versions: "@acme/base@latest"');
    expect(u.stderr).toContain('`ctxpkg update @acme/base` moves it to the newest version its range in ctxpkg.json allows');
  });
});
