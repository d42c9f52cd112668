/**
 * What sync writes and how it refuses (spec/pack.md §8, §11): the AGENTS.md block says how much
 * of the installed context it selected; cap errors name the ctxpkg.json setting, its value and
 * the size needed; a pin whose node id changed after a re-publish names its likely successor.
 */
import { describe, expect, it } from 'vitest';
import { makeProject, mgraph, mnode, readFile, run } from './__tests__/harness.js';

function graph() {
  return mgraph([
    mnode('@acme/auth', 'AGENTS.md:rules', { type: 'section', content: 'Rules' }),
    mnode('@acme/auth', 'AGENTS.md:rules~1111aaaa', { type: 'gotcha', content: 'Never log session tokens.' }),
    mnode('@acme/auth', 'AGENTS.md:rules~2222bbbb', { type: 'convention', content: 'Validate the JWT audience.' }),
    mnode('@acme/auth', 'AGENTS.md:setup~3333cccc', { type: 'procedure', content: 'Run make db first.' }),
    mnode('@acme/style', 'f1', { type: 'fact', content: 'Two-space indentation.' }),
  ]);
}

describe('the AGENTS.md block is truthful about its selection', () => {
  it('nothing pinned: says 0 of 4 items are pinned and the other 4 are not in the block', async () => {
    const root = makeProject({ graph: graph() });
    const r = await run(['sync'], root);
    expect(r.code, r.stderr).toBe(0);
    const text = readFile(root, 'AGENTS.md') as string;
    expect(text).toContain('\nselection: pinned items only — 0 of 4 items pinned (pin with "context.pins" in ctxpkg.json); the other 4 are not in this block\n');
    expect(text).toContain('\nomitted: none of the 0 pinned items\n');
    expect(text).not.toMatch(/^omitted: none$/m);
    expect(text).toContain('items: @acme/auth 3, @acme/style 1');
  });

  it('one pinned: delivers it and counts the rest as not selected', async () => {
    const root = makeProject({ graph: graph(), context: { pins: ['@acme/auth#AGENTS.md:rules~1111aaaa'] } });
    expect((await run(['sync'], root)).code).toBe(0);
    const text = readFile(root, 'AGENTS.md') as string;
    expect(text).toContain('1 of 4 items pinned');
    expect(text).toContain('the other 3 are not in this block');
    expect(text).toContain('Never log session tokens.');
    expect(text).not.toContain('Validate the JWT audience.');
  });
});

describe('cap errors name the setting to change', () => {
  const big = (size = 5000) => mgraph([mnode('@acme/big', 'n', { content: 'x'.repeat(size) }), mnode('@acme/big', 'm')]);

  it('context.sync.max_bytes: current value and the size needed, which then works', async () => {
    const root = makeProject({ graph: big(), context: { pins: ['@acme/big#n'] } });
    const r = await run(['sync', '--json'], root);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout || r.stderr);
    const err = out.error ?? out;
    expect(err.code).toBe('E_BUDGET');
    expect(err.message).toMatch(/^AGENTS\.md block: its 1 pinned node and header need \d+ bytes, more than "context\.sync\.max_bytes" in ctxpkg\.json allows \(currently 4096\)$/);
    const need = err.details.required_bytes as number;
    expect(err.hint).toContain(`set "context.sync.max_bytes" in ctxpkg.json to at least ${need}`);
    const ok = makeProject({ graph: big(), context: { pins: ['@acme/big#n'], sync: { max_bytes: need } } });
    expect((await run(['sync'], ok)).code).toBe(0);
    expect(Buffer.byteLength(readFile(ok, 'AGENTS.md') as string)).toBeLessThanOrEqual(need);
    const short = makeProject({ graph: big(), context: { pins: ['@acme/big#n'], sync: { max_bytes: need - 1 } } });
    expect((await run(['sync'], short)).stderr).toMatch(/E_BUDGET/);
  });

  it('a cap too small for the header alone also names the setting (no pins)', async () => {
    const root = makeProject({ graph: graph(), context: { sync: { max_bytes: 300 } } });
    const r = await run(['sync'], root);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/AGENTS\.md block: its header alone need \d+ bytes, more than "context\.sync\.max_bytes" in ctxpkg\.json allows \(currently 300\)/);
  });

  it('context.sync.file_max_bytes for the per-package files', async () => {
    const root = makeProject({ graph: big(9000), context: { pins: ['@acme/big#n'], sync: { targets: ['copilot'] } } });
    const r = await run(['sync'], root);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\.github\/instructions\/ctxpkg-acme__big\.instructions\.md: its 1 pinned node and header need \d+ bytes, more than "context\.sync\.file_max_bytes" in ctxpkg\.json allows \(currently 8192\)/);
  });
});

describe('a pin whose node id changed (text edited, package re-published)', () => {
  it('names the pin, the package@version and the likely successor under the same heading, and how to re-pin', async () => {
    const root = makeProject({ graph: graph(), context: { pins: ['@acme/auth#AGENTS.md:rules~9999ffff'] } });
    const r = await run(['sync'], root);
    expect(r.code).toBe(4); // E_NOT_FOUND
    expect(r.stderr).toContain('E_NOT_FOUND');
    expect(r.stderr).toContain('@acme/auth#AGENTS.md:rules~9999ffff (@acme/auth@1.0.0 has no node AGENTS.md:rules~9999ffff; its text probably changed');
    expect(r.stderr).toContain('likely successors under the same heading AGENTS.md:rules: @acme/auth#AGENTS.md:rules~1111aaaa, @acme/auth#AGENTS.md:rules~2222bbbb');
    expect(r.stderr).toContain('replace the pin in "context.pins" in ctxpkg.json');
    expect(readFile(root, 'AGENTS.md')).toBeUndefined();
    // render refuses the same way: never a pack silently missing a pinned node.
    expect((await run(['render'], root)).stderr).toContain('likely successors under the same heading AGENTS.md:rules');
  });

  it('a pin of a package that is not installed says so', async () => {
    const root = makeProject({ graph: graph(), context: { pins: ['@acme/gone#AGENTS.md:x~12345678'] } });
    expect((await run(['sync'], root)).stderr).toContain('@acme/gone#AGENTS.md:x~12345678 (package @acme/gone is not installed)');
  });
});
