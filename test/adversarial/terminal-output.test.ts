/**
 * H7: node ids, names and messages that reach the terminal come from packages; a package may
 * hold ids with C0/C1 controls or bidi overrides (the format accepts any id without U+0000). The
 * human output (report lines, warnings, errors) shows them as visible `\u{XXXX}` escapes; JSON
 * output and a pack printed to stdout (its receipt hashes those bytes) stay byte-exact.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writePackage } from '@ctxpkg/format';
import { terminalSafe } from '../../packages/cli/src/output.js';
import { cli, createWorld, tempDir } from '../support/cli.js';
import { SEED, T } from './support.js';

const EVIL = 'x\u001b]0;pwned\u0007\u001b[2J\u202eegassem';

describe('H7: package text on the terminal', () => {
  it('terminalSafe escapes C0/C1 controls, DEL and bidi controls; keeps tab, LF and ordinary text', () => {
    expect(terminalSafe('a\tb\nc')).toBe('a\tb\nc');
    expect(terminalSafe('\u001b[31mred\r\u0085\u007f\u202e\u2066')).toBe('\\u{001b}[31mred\\u{000d}\\u{0085}\\u{007f}\\u{202e}\\u{2066}');
    expect(terminalSafe('café — 東京 ✓')).toBe('café — 東京 ✓');
  });

  it('install of a package whose node ids carry escape sequences prints them escaped; --json and render to stdout are exact', async () => {
    const world = createWorld();
    await world.addRegistry('term.test');
    const home = tempDir();
    const env = { CTXPKG_HOME: join(home, '.home') };
    const run = (cwd: string, args: string[]) => cli(args, { cwd, fetch: world.fetch, env });
    const content = {
      context_graph: {
        format: 'ctxpkg-graph-v2',
        nodes: [
          { id: EVIL, type: 'fact', content: 'c \u001b[31m body', activation: 1 },
          { id: 'n2', type: 'fact', content: 'd', activation: 1 },
        ],
        edges: [{ from: EVIL, to: '@acme/good#g', type: 'contradicts', weight: 1 }],
      },
    };
    const dir = tempDir();
    writeFileSync(join(dir, 'evil.ctxpkg'), writePackage({ manifest: { name: '@acme/evil', version: '1.0.0', description: 'd', created_at: T }, content } as never, { seed: SEED }));
    const good = { context_graph: { format: 'ctxpkg-graph-v2', nodes: [{ id: 'g', type: 'fact', content: 'good', activation: 1 }], edges: [] } };
    writeFileSync(join(dir, 'good.ctxpkg'), writePackage({ manifest: { name: '@acme/good', version: '1.0.0', description: 'd', created_at: T }, content: good } as never, { seed: SEED }));
    expect((await run(dir, ['init'])).code).toBe(0);
    expect((await run(dir, ['install', './good.ctxpkg'])).code).toBe(0);
    const i = await run(dir, ['install', './evil.ctxpkg']);
    expect(i.code, i.stderr).toBe(0);
    expect(i.stdout).toContain('conflict: @acme/evil#x\\u{001b}]0;pwned\\u{0007}\\u{001b}[2J\\u{202e}egassem contradicts @acme/good#g (declared by @acme/evil)');
    expect(i.stdout + i.stderr).not.toMatch(/[\u001b\u0007\u202e]/);
    const j = await run(dir, ['install', '--json']);
    expect(j.json.merged.conflicts[0].from).toBe(`@acme/evil#${EVIL}`);
    const r = await run(dir, ['render']);
    expect(r.code, r.stderr).toBe(0);
    // The pack compiler escapes controls itself (spec/pack.md); stdout carries its bytes unchanged.
    expect(r.stdout).toContain('c \\u001b[31m body');
    const f = await run(dir, ['render', '--out', 'pack.md']);
    expect(f.code, f.stderr).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(dir, 'pack.md'), 'utf8'));
  });
});
