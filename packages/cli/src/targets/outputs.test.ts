/**
 * What sync writes and how it refuses (spec/pack.md §8, §11): the always-on block delivers pins
 * first, then the rest by priority within its cap, and counts what it left out; cap errors name
 * the ctxpkg.json setting, its value and the size needed; a pin whose node id changed after a
 * re-publish does not stop the delivery: a short warning names its likely successor and the fix.
 */
import { describe, expect, it } from 'vitest';
import { makeProject, mgraph, mnode, readFile, run, writeGraph } from './__tests__/harness.js';

function graph() {
  return mgraph([
    mnode('@acme/auth', 'AGENTS.md:rules', { type: 'section', content: 'Rules' }),
    mnode('@acme/auth', 'AGENTS.md:rules~1111aaaa', { type: 'gotcha', content: 'Never log session tokens.' }),
    mnode('@acme/auth', 'AGENTS.md:rules~2222bbbb', { type: 'convention', content: 'Validate the JWT audience.' }),
    mnode('@acme/auth', 'AGENTS.md:setup~3333cccc', { type: 'procedure', content: 'Run make db first.' }),
    mnode('@acme/style', 'f1', { type: 'fact', content: 'Two-space indentation.' }),
  ]);
}

describe('the always-on block (one selection for every agent)', () => {
  it('nothing pinned: delivers the unscoped items by priority and says what it left out and where it is', async () => {
    const root = makeProject({ graph: graph() });
    const r = await run(['sync'], root);
    expect(r.code, r.stderr).toBe(0);
    const text = readFile(root, 'AGENTS.md') as string;
    for (const t of ['Never log session tokens.', 'Validate the JWT audience.', 'Run make db first.', 'Two-space indentation.']) expect(text).toContain(t);
    // Everything fit: no omission line, no counts an agent cannot use.
    expect(text).not.toMatch(/^(omitted|not shown): /m);
    expect(text).not.toContain('did not fit in this file');
    expect(r.stdout).toContain('delivered: 4 always-on, 0 path-scoped in 0 rule sets; 0 on demand');
  });

  it('over the cap: pins first, then gotchas and conventions before facts; the rest counted and in the receipt', async () => {
    const nodes = [mnode('@acme/a', 'pin', { type: 'fact', content: 'PINNED FACT' })];
    for (let i = 0; i < 40; i++) nodes.push(mnode('@acme/a', `g${i}`, { type: 'gotcha', content: `gotcha ${i} ${'g'.repeat(300)}` }));
    for (let i = 0; i < 40; i++) nodes.push(mnode('@acme/a', `f${i}`, { type: 'fact', content: `fact ${i} ${'f'.repeat(300)}` }));
    const root = makeProject({ graph: mgraph(nodes), context: { pins: ['@acme/a#pin'], sync: { max_bytes: 4096 } } });
    const r = await run(['sync', '--json'], root);
    expect(r.code, r.stderr).toBe(0);
    const text = readFile(root, 'AGENTS.md') as string;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096 + 1);
    expect(text.indexOf('PINNED FACT')).toBeGreaterThan(0);
    // Pins and gotchas are selected first; the text is in source order (spec/pack.md §8).
    expect((text.match(/^gotcha \d+ /gm) ?? []).length).toBeGreaterThan((text.match(/^fact \d+ /gm) ?? []).length);
    const omitted = /^(\d+) more installed items did not fit in this file: find them with the `search_context` tool of the ctxpkg MCP server \(`ctxpkg mcp`\), or run `ctxpkg render --focus <path or topic>`\.$/m.exec(text);
    expect(omitted).not.toBeNull();
    const receipt = JSON.parse(readFile(root, '.ctxpkg/receipts/sync.json') as string);
    expect(receipt.always_on.omissions).toHaveLength(Number(omitted?.[1]));
    expect(r.json.tiers.on_demand).toBe(Number(omitted?.[1]));
  });
});

describe('a package agents never see is named (new-user trial 3 of 2026-12-07, finding 2)', () => {
  it('sync notes the installed packages of which no item reached any agent file', async () => {
    const big = 'Never do this one thing without reading the whole design document first. '.repeat(60);
    const g = mgraph([mnode('@acme/a', 'g', { type: 'gotcha', content: 'Never log tokens.' }), mnode('@zeta/big', 'n', { type: 'gotcha', content: big })]);
    const root = makeProject({ graph: g, context: { sync: { targets: ['agents-md'], max_bytes: 2048 } } });
    const r = await run(['sync'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(readFile(root, 'AGENTS.md')).toContain('Never log tokens.');
    expect(r.stdout).toContain('note: no item of @zeta/big@1.0.0 (1 item) fit the agent files: agents reach it only on demand');
    expect(r.stdout).not.toContain('@acme/a@1.0.0 (');
    // Everything delivered: no such note.
    const fits = makeProject({ graph: mgraph([mnode('@acme/a', 'g', { type: 'gotcha', content: 'Never log tokens.' })]), context: { sync: { targets: ['agents-md'] } } });
    expect((await run(['sync'], fits)).stdout).not.toContain('fit the agent files');
  });
});

describe('cap errors name the setting to change', () => {
  const big = (size = 9000) => mgraph([mnode('@acme/big', 'n', { content: 'x'.repeat(size) }), mnode('@acme/big', 'm')]);

  it('context.sync.max_bytes: current value and the size needed, which then works', async () => {
    const root = makeProject({ graph: big(), context: { pins: ['@acme/big#n'] } });
    const r = await run(['sync', '--json'], root);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout || r.stderr);
    const err = out.error ?? out;
    expect(err.code).toBe('E_BUDGET');
    expect(err.message).toMatch(/^the always-on block \(AGENTS\.md and the other agents' always-loaded files\): its 1 pinned node and header need \d+ bytes, more than "context\.sync\.max_bytes" in ctxpkg\.json allows \(currently 8192\)$/);
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
    expect(r.stderr).toMatch(/the always-on block .*: its header alone need \d+ bytes, more than "context\.sync\.max_bytes" in ctxpkg\.json allows \(currently 300\)/);
  });

  it('context.sync.file_max_bytes for the path-scoped rule files', async () => {
    const g = mgraph(
      [mnode('@acme/big', 'root', { type: 'section', content: 'R' }), mnode('@acme/big', 'n', { content: 'scoped' }), mnode('@acme/big', 's', { type: 'scope', content: 'src/**' })],
      [
        { from: '@acme/big#root', to: '@acme/big#n', type: 'contains' },
        { from: '@acme/big#root', to: '@acme/big#s', type: 'applies_to' },
      ],
    );
    const root = makeProject({ graph: g, context: { sync: { targets: ['copilot'], file_max_bytes: 200 } } });
    const r = await run(['sync', '--json'], root);
    // A rule set that does not fit is a warning, not a stop: it goes on demand (listed in the
    // always-on block with its command, no rule file), and everything else is delivered.
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: path-scoped rules src\/\*\* \(@acme\/big: scoped rules\): its header alone need \d+ bytes, more than "context\.sync\.file_max_bytes" in ctxpkg\.json allows \(currently 200\); its rules are delivered on demand instead \(run `ctxpkg render --focus 'src\/\*\*'`\), no rule file is written; set "context\.sync\.file_max_bytes" in ctxpkg\.json to at least \d+/);
    expect(readFile(root, '.github/copilot-instructions.md')).toContain("- `src/**`: run `ctxpkg render --focus 'src/**'` (every agent: too large for a rule file)");
    expect(readFile(root, '.github/instructions/ctxpkg-acme__big--scoped.instructions.md')).toBeUndefined();
    expect(r.json.tiers).toMatchObject({ path_scoped: 0, rule_sets: 0, on_demand: 1 });
    const receipt = JSON.parse(readFile(root, '.ctxpkg/receipts/sync.json') as string);
    expect(receipt.rule_sets).toEqual([]);
    expect(receipt.on_demand_rule_sets).toEqual([{ package: '@acme/big', version: '1.0.0', patterns: ['src/**'], sources: [] }]);
  });

  it('one package whose scoped rule has a 10 KB file path stops nothing (its title and comments are cut)', async () => {
    const fp = `rules/a${'-'.repeat(10_000)}b.md`;
    const g = mgraph(
      [
        mnode('@acme/good', 'A', { type: 'gotcha', content: 'Never push to main.' }),
        mnode('@acme/slug', 'S', { type: 'section', content: 'API rules', file_path: fp, line_start: 1, line_end: 5 }),
        mnode('@acme/slug', 'N', { type: 'fact', content: 'Validate input.', file_path: fp, line_start: 3, line_end: 3 }),
        mnode('@acme/slug', 'G', { type: 'scope', content: 'src/api/**', file_path: fp, line_start: 1, line_end: 1 }),
      ],
      [
        { from: '@acme/slug#S', to: '@acme/slug#N', type: 'contains' },
        { from: '@acme/slug#S', to: '@acme/slug#G', type: 'applies_to' },
      ],
    );
    const root = makeProject({ graph: g, context: { sync: { targets: ['agents-md', 'cursor'] } } });
    const r = await run(['sync'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(readFile(root, 'AGENTS.md')).toContain('Never push to main.');
    const rule = readFile(root, `.cursor/rules/ctxpkg-acme__slug--a${'-'.repeat(47)}.mdc`) as string;
    expect(rule).toContain('Validate input.');
    expect(Buffer.byteLength(rule)).toBeLessThan(2_000);
  });
});

describe('a pin whose node id changed (text edited, package re-published)', () => {
  it('warns with one short, actionable line naming the likely successor, and delivers everything else', async () => {
    const g = graph();
    const root = makeProject({ graph: g, context: { pins: ['@acme/auth#AGENTS.md:rules~1111aaaa', '@acme/style'] } });
    expect((await run(['sync'], root)).code).toBe(0);
    // The publisher edits the pinned gotcha: its id changes; another node gets similar words.
    const edited = mgraph([
      ...g.nodes.filter((n) => !n.id.endsWith('~1111aaaa')),
      mnode('@acme/auth', 'AGENTS.md:rules~5555eeee', { type: 'gotcha', content: 'Never log session tokens or cookies.' }),
      mnode('@acme/auth', 'AGENTS.md:other~6666ffff', { type: 'fact', content: 'Session cookies expire after one hour.' }),
    ]);
    writeGraph(root, edited);
    const r = await run(['sync'], root);
    expect(r.code, r.stderr).toBe(0);
    const warning = r.stderr.split('\n').find((l) => l.includes('a pin no longer resolves')) as string;
    expect(warning).toContain("(its text changed in @acme/auth@1.0.0): ctxpkg unpin '@acme/auth#AGENTS.md:rules~1111aaaa' && ctxpkg pin '@acme/auth#AGENTS.md:rules~5555eeee'");
    expect(warning.length).toBeLessThan(250);
    // The rest is delivered: the other pin, the other nodes, the successor by priority.
    const agents = readFile(root, 'AGENTS.md') as string;
    for (const t of ['Two-space indentation.', 'Validate the JWT audience.', 'Run make db first.', 'Never log session tokens or cookies.']) expect(agents).toContain(t);
    const receipt = JSON.parse(readFile(root, '.ctxpkg/receipts/sync.json') as string);
    expect(receipt.always_on.policy.pins_broken).toEqual(['@acme/auth#AGENTS.md:rules~1111aaaa']);
    // render says the same, and `ctxpkg pin <old id>` lists the successors in the same order
    // (similar to the text the pin delivered; the already pinned @acme/style excluded).
    const rendered = await run(['render'], root);
    expect(rendered.code).toBe(0);
    expect(rendered.stderr).toContain(warning.replace(/^warning: /, ''));
    const asked = await run(['pin', '@acme/auth#AGENTS.md:rules~1111aaaa', '--json'], root);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.json.pinned).toBeNull();
    expect(asked.json.matches.map((m: { id: string }) => m.id)).toEqual(['@acme/auth#AGENTS.md:rules~5555eeee', '@acme/auth#AGENTS.md:other~6666ffff', '@acme/auth#AGENTS.md:rules~2222bbbb']);
    // Listing ids works while the pin is broken, and so does following the fix.
    const ls = await run(['ls', '--nodes', '--json'], root);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.json.nodes.map((n: { id: string }) => n.id)).toContain('@acme/auth#AGENTS.md:rules~5555eeee');
    expect((await run(['pin', '@acme/auth#AGENTS.md:rules~5555eeee', '--no-sync'], root)).code).toBe(0); // before the unpin: the broken pin does not block it
    expect((await run(['unpin', '@acme/auth#AGENTS.md:rules~1111aaaa'], root)).stderr).not.toContain('no longer resolves');
  });

  it('without the text it pinned, a node under the pin\'s own heading ranks first', async () => {
    const root = makeProject({ graph: graph(), context: { pins: ['@acme/auth#AGENTS.md:rules~9999ffff'] } });
    const r = await run(['sync'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/a pin no longer resolves \(its text changed in @acme\/auth@1\.0\.0\): ctxpkg unpin '@acme\/auth#AGENTS\.md:rules~9999ffff' && ctxpkg pin '@acme\/auth#AGENTS\.md:rules~(1111aaaa|2222bbbb)'/);
  });

  it('a heading pin survives the publisher editing the text under it', async () => {
    const root = makeProject({ graph: graph(), context: { pins: ['@acme/auth#AGENTS.md:rules'] } });
    expect((await run(['sync'], root)).code).toBe(0);
    writeGraph(root, mgraph([...graph().nodes.filter((n) => !n.id.endsWith('~1111aaaa')), mnode('@acme/auth', 'AGENTS.md:rules~7777abcd', { type: 'gotcha', content: 'Rotated text.' })]));
    const r = await run(['sync'], root);
    expect(r.code, r.stderr).toBe(0);
    const receipt = JSON.parse(readFile(root, '.ctxpkg/receipts/sync.json') as string);
    expect(receipt.always_on.delivered.filter((d: { section: string }) => d.section === 'pinned').map((d: { id: string }) => d.id).sort()).toEqual(['@acme/auth#AGENTS.md:rules~2222bbbb', '@acme/auth#AGENTS.md:rules~7777abcd']);
  });

  it('pin with a query lists matches and changes nothing; a pin that does not fit is refused', async () => {
    const root = makeProject({ graph: graph() });
    const q = await run(['pin', 'jwt audience', '--json'], root);
    expect(q.code, q.stderr).toBe(0);
    expect(q.json.pinned).toBeNull();
    expect(q.json.matches[0].id).toBe('@acme/auth#AGENTS.md:rules~2222bbbb');
    expect(JSON.parse(readFile(root, 'ctxpkg.json') as string).context).toBeUndefined();
    const big = makeProject({ graph: mgraph([mnode('@acme/big', 'n', { content: 'x'.repeat(9000) })]) });
    const refused = await run(['pin', '@acme/big#n'], big);
    expect(refused.stderr).toMatch(/E_BUDGET: the always-on block .* "context\.sync\.max_bytes"/);
    expect(JSON.parse(readFile(big, 'ctxpkg.json') as string).context).toBeUndefined();
  });

  it('a pin of a package that is not installed says so', async () => {
    const root = makeProject({ graph: graph(), context: { pins: ['@acme/gone#AGENTS.md:x~12345678'] } });
    const r = await run(['sync'], root);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("a pin names package @acme/gone, which is not installed: `ctxpkg install @acme/gone`, or ctxpkg unpin '@acme/gone#AGENTS.md:x~12345678'");
  });
});
