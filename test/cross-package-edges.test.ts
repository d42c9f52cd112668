/**
 * Cross-package edges end to end (spec/merge.md §2, §4; spec/format.md "JSON source"): two
 * packages built with `ctxpkg create` from JSON sources, the second `contradicts` a node of the
 * first by qualified id `@acme/m1#tabs` (and names one node that does not exist). Published and
 * installed in both orders: the merged graph is byte-identical, `graph.conflicts` has the entry,
 * both nodes are disputed, the dangling reference is dropped and reported, and `render` flags or
 * omits the disputed nodes per policy.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, createWorld, tempDir, type World } from './support/cli.js';

const M1 = `{
  "format": "ctxpkg-source-v1",
  "title": "Style (m1)",
  "nodes": [
    { "id": "tabs", "type": "convention", "content": "Indent with tabs." },
    { "id": "width", "type": "fact", "content": "Lines wrap at 100 columns." }
  ]
}
`;

const M2 = `{
  "format": "ctxpkg-source-v1",
  "title": "Style (m2)",
  "nodes": [
    { "id": "spaces", "type": "convention", "content": "Indent with two spaces." }
  ],
  "edges": [
    { "from": "spaces", "to": "@acme/m1#tabs", "type": "contradicts", "weight": 1.0 },
    { "from": "spaces", "to": "@acme/m1#gone", "type": "relates_to", "weight": 0.5 }
  ]
}
`;

describe('cross-package edges from ctxpkg create (JSON sources)', () => {
  let world: World;
  let home: string;
  let env: Record<string, string>;
  const files: Record<string, string> = {};
  const projects: Record<'ab' | 'ba', string> = { ab: '', ba: '' };
  const run = (cwd: string, args: string[]) => cli(args, { cwd, fetch: world.fetch, env });

  beforeAll(async () => {
    world = createWorld();
    const reg = await world.addRegistry('xpkg.test');
    const token = await reg.namespace('acme');
    home = tempDir();
    env = { CTXPKG_HOME: join(home, '.home'), CTXPKG_REGISTRY: reg.url, CTXPKG_TOKEN: token };
    writeFileSync(join(home, 'm1.json'), M1);
    writeFileSync(join(home, 'm2.json'), M2);
    for (const [name, src] of [['m1', 'm1.json'], ['m2', 'm2.json']] as const) {
      const out = join(home, `${name}.ctxpkg`);
      const c = await run(home, ['create', '--name', `@acme/${name}`, '--from', src, '--out', out, '--json']);
      expect(c.code, c.stderr).toBe(0);
      files[name] = out;
      const p = await run(home, ['publish', out, '--json']);
      expect(p.code, p.stderr).toBe(0);
    }
    for (const [key, order] of [['ab', ['@acme/m1', '@acme/m2']], ['ba', ['@acme/m2', '@acme/m1']]] as const) {
      const dir = tempDir();
      expect((await run(dir, ['init'])).code).toBe(0);
      for (const name of order) {
        const r = await run(dir, ['install', name, '--json']);
        expect(r.code, r.stderr + r.stdout).toBe(0);
      }
      projects[key] = dir;
    }
  });

  it('create keeps the qualified edge, infers conformance level 2+ and warns that @acme/m1 is not a declared dependency', async () => {
    const pkg = JSON.parse(readFileSync(files.m2!, 'utf8'));
    expect(pkg.content.context_graph.edges).toContainEqual({ from: 'spaces', to: '@acme/m1#tabs', type: 'contradicts', weight: 1.0 });
    expect(pkg.manifest.conformance_level).toBeGreaterThanOrEqual(2);
    const dry = await run(home, ['create', '--name', '@acme/m2', '--from', 'm2.json', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain('m2.json:8: edges[0].to names @acme/m1#tabs, but @acme/m1 is not a declared dependency');
    const declared = await run(home, ['create', '--name', '@acme/m2', '--from', 'm2.json', '--dep', '@acme/m1@^1', '--dry-run']);
    expect(declared.code).toBe(0);
    expect(declared.stderr).not.toContain('not a declared dependency');
    const self = await run(home, ['create', '--name', '@acme/m1', '--from', 'm2.json', '--dry-run']);
    expect(self.code).not.toBe(0);
    expect(self.stderr).toContain('error E_SOURCE: m2.json:8: edges[0].to "@acme/m1#tabs" names this package (@acme/m1): use the local id "tabs"');
  });

  it('the merged graph has the conflict, both nodes disputed, and is byte-identical in both install orders', () => {
    const ab = readFileSync(join(projects.ab, '.ctxpkg/graph/merged.json'), 'utf8');
    const ba = readFileSync(join(projects.ba, '.ctxpkg/graph/merged.json'), 'utf8');
    expect(ab).toBe(ba);
    const g = JSON.parse(ab);
    const graph = g.graph ?? g;
    expect(graph.conflicts).toEqual([{ from: '@acme/m2#spaces', to: '@acme/m1#tabs', package: '@acme/m2' }]);
    const byId = new Map<string, { disputed?: boolean }>(graph.nodes.map((n: { id: string }) => [n.id, n]));
    expect(byId.get('@acme/m1#tabs')?.disputed).toBe(true);
    expect(byId.get('@acme/m2#spaces')?.disputed).toBe(true);
    expect(byId.get('@acme/m1#width')?.disputed).toBeUndefined();
    // The reference to a node m1 does not have is dangling: no edge, no node.
    expect(graph.edges.filter((e: { to: string }) => e.to === '@acme/m1#gone')).toEqual([]);
    expect(byId.has('@acme/m1#gone')).toBe(false);
  });

  it('render flags both disputed nodes by default and omits them under disputed: "omit"', async () => {
    const dir = projects.ab;
    const flagged = await run(dir, ['render', '--out', 'pack.md']);
    expect(flagged.code, flagged.stderr).toBe(0);
    const pack = readFileSync(join(dir, 'pack.md'), 'utf8');
    expect(pack).toContain('Indent with tabs.');
    expect(pack).toContain('Indent with two spaces.');
    expect(pack.match(/\(ctxpkg: DISPUTED/g)).toHaveLength(2);
    expect(pack).toContain('@acme/m1#tabs');

    const cfgPath = join(dir, 'ctxpkg.json');
    const cfg = JSON.parse(readFileSync(cfgPath, 'utf8'));
    cfg.context = { ...(cfg.context ?? {}), disputed: 'omit' };
    writeFileSync(cfgPath, JSON.stringify(cfg, null, 2) + '\n');
    const omitted = await run(dir, ['render', '--out', 'pack2.md']);
    expect(omitted.code, omitted.stderr).toBe(0);
    const pack2 = readFileSync(join(dir, 'pack2.md'), 'utf8');
    expect(pack2).not.toContain('Indent with tabs.');
    expect(pack2).not.toContain('Indent with two spaces.');
    expect(pack2).toContain('Lines wrap at 100 columns.');
    expect(pack2).toMatch(/not shown: 2 \(2 disputed by another item\)/);
  });
});
