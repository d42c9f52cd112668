/**
 * The main job over every real instruction file in ../shared/corpus (issue 5 item 7): create a
 * signed pack, publish it to an in-process registry, install it into a fresh project, and check
 * node counts, that every node's line range really contains its text, and that no secret passes.
 * Also installs the reference-written package from ../shared/vectors through the registry.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { scanSecrets, type MergedGraph } from '@ctxpkg/format';
import { describeShared, SHARED_DIR, sharedBytes } from './support/shared.js';
import { cli, createWorld, makePackage, putPackage, tempDir, type TestRegistry, type World } from './support/cli.js';

const CORPUS = join(SHARED_DIR, 'corpus');

function corpusFiles(): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const f of readdirSync(d).sort()) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (f !== 'SOURCES.md') out.push(relative(CORPUS, p));
    }
  };
  walk(CORPUS);
  return out;
}

/** Whitespace-collapsed text, for "the range contains the node's text". */
const norm = (s: string): string => s.replace(/\s+/g, ' ').trim();

describeShared('corpus: create → publish → install on real instruction files', () => {
  let world: World;
  let reg: TestRegistry;
  let token: string;
  let home: string;
  beforeAll(async () => {
    home = tempDir();
    world = createWorld();
    reg = await world.addRegistry('corpus.test');
    token = await reg.namespace('corpus');
  });

  const files = corpusFiles();
  it('finds the corpus', () => {
    expect(files.length).toBeGreaterThanOrEqual(6);
  });

  files.forEach((file, i) => {
    it(`${file}`, async () => {
      const env = { CTXPKG_HOME: home, CTXPKG_REGISTRY: reg.url, CTXPKG_TOKEN: token };
      const out = join(home, `p${i}.ctxpkg`);
      const name = `@corpus/file-${i}`;
      const created = await cli(['create', '--name', name, '--from', file, '--out', out, '--json'], { cwd: CORPUS, fetch: world.fetch, env, home });
      expect(created.code, created.stderr + created.stdout).toBe(0);
      const text = readFileSync(join(CORPUS, file), 'utf8');
      const lines = text.replace(/^\ufeff/, '').split('\n').map((l) => l.replace(/\r$/, ''));
      const nonEmpty = lines.filter((l) => l.trim() !== '').length;
      expect(created.json.nodes).toBeGreaterThanOrEqual(Math.min(5, nonEmpty));
      const published = await cli(['publish', out, '--json'], { cwd: home, fetch: world.fetch, env, home });
      expect(published.code, published.stdout).toBe(0);
      const project = tempDir();
      const installed = await cli(['install', name, '--json'], { cwd: project, fetch: world.fetch, env, home });
      expect(installed.code, installed.stdout).toBe(0);
      const merged = JSON.parse(readFileSync(join(project, '.ctxpkg', 'graph', 'merged.json'), 'utf8')) as MergedGraph;
      expect(merged.nodes.length).toBe(created.json.nodes);
      for (const n of merged.nodes) {
        expect(scanSecrets(n.content), n.id).toEqual([]);
        if (n.line_start === undefined) continue;
        expect(n.file_path).toBe(file);
        expect(n.line_start).toBeGreaterThanOrEqual(1);
        expect(n.line_end!).toBeLessThanOrEqual(lines.length);
        const range = norm(lines.slice(n.line_start - 1, n.line_end).join('\n'));
        const isSyntheticRoot = n.type === 'section' && n.content === file;
        if (!isSyntheticRoot) expect(range, `${n.id} ${n.content}`).toContain(norm(n.content).replace(/^#+ /, ''));
      }
    });
  });

  it('installs the reference-written package through the registry', async () => {
    const golden = sharedBytes('vectors/acme-auth-context-2.0.0.ctxpkg');
    const acme = await reg.namespace('acme');
    await putPackage(reg, acme, '@acme/auth-context', '2.0.0', golden);
    // The golden package depends on @acme/base ^1.2 (same signer: the test seed 0x2a).
    await putPackage(reg, acme, '@acme/base', '1.2.0', makePackage('@acme/base', '1.2.0', new Uint8Array(32).fill(0x2a)));
    const project = tempDir();
    const r = await cli(['install', '@acme/auth-context', '--json'], { cwd: project, fetch: world.fetch, env: { CTXPKG_REGISTRY: reg.url } });
    expect(r.code, r.stdout).toBe(0);
    expect(r.json.packages[0]).toMatchObject({ name: '@acme/auth-context', version: '2.0.0', signer: '197f6b23e16c8532c6abc838facd5ea789be0c76b2920334039bfa8b3d368d61' });
    const { sha256Hex } = await import('@ctxpkg/format');
    expect(readFileSync(join(project, '.ctxpkg', 'store', 'sha256', `${sha256Hex(golden)}.ctxpkg`))).toEqual(Buffer.from(golden));
    const merged = JSON.parse(readFileSync(join(project, '.ctxpkg', 'graph', 'merged.json'), 'utf8')) as MergedGraph;
    expect(merged.nodes.filter((n) => n.package === '@acme/auth-context').map((n) => n.local_id).sort()).toEqual(['N1', 'N2', 'N3']);
  });
});
