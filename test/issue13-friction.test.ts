/**
 * What a new team trips over (issue 13): each test drives the CLI in process against registry
 * apps and fails without its fix. Login (item 1) is in new-user-trial.test.ts; the range dialect
 * (items 12–16) in packages/format/src/versions*.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cli, createWorld, tempDir, type TestRegistry, type World } from './support/cli.js';

let world: World;
let P: TestRegistry;
let dir: string;

beforeEach(async () => {
  world = createWorld();
  P = await world.addRegistry('p.test');
  await P.namespace('acme');
  dir = tempDir();
  writeFileSync(join(dir, 'AGENTS.md'), '# Rules\n\n- Never log tokens.\n');
});

const run = (args: string[], env: Record<string, string | undefined> = {}) => cli(args, { cwd: dir, fetch: world.fetch, env: { CTXPKG_REGISTRY: P.url, ...env } });

describe('item 13: create --dep never writes a range the reference refuses', () => {
  it.each(['x.x.x', '*.*', '*.*.*', '\uFEFF^1.2'])('--dep @acme/base@%j is refused and nothing is written', async (range) => {
    const r = await run(['create', '--name', '@acme/rules', '--from', 'AGENTS.md', '--dep', `@acme/base@${range}`]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/error E_(INVALID_)?RANGE: /);
    expect(readdirSync(dir).filter((f) => f.endsWith('.ctxpkg'))).toEqual([]);
  });
  it('"*" and a comma range are written', async () => {
    const r = await run(['create', '--name', '@acme/rules', '--from', 'AGENTS.md', '--dep', '@acme/base@*', '--dep', '@acme/style@>=1.2, <2']);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(dir, 'acme-rules-1.0.0.ctxpkg'))).toBe(true);
  });
});

describe('item 6: E_RANGE in the user\'s terms', () => {
  it('install @acme/x@^x says what is wrong and what to write, without naming another tool', async () => {
    expect((await run(['init'])).code).toBe(0);
    const r = await run(['install', '@acme/x@^x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error E_RANGE: version range "^x" cannot be written into a package: it uses a wildcard after an operator or next to other comparators ("*" must stand alone); write "*"');
    expect(r.stderr).not.toContain('lean-ctx');
    expect(world.log).toEqual([]);
  });
});
