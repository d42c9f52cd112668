/**
 * `trust.instructions` (spec/pack.md §11 "Trust"): init --trust, trust add|rm|ls, validation,
 * and that a listed package without a pinned, verified signature stays fenced with the reason.
 */
import { describe, expect, it } from 'vitest';
import { parseManifest, serializeManifest, trustListed } from '../project.js';
import { makeProject, mgraph, mnode, readFile, run, writeFile } from '../targets/__tests__/harness.js';

describe('trust.instructions', () => {
  it('parses scopes and package names, sorted; refuses anything else; omitted when empty', () => {
    const m = parseManifest('{"trust":{"require_signature":true,"instructions":["@zeta/rules","@acme","@acme"]}}');
    expect(m.trust.instructions).toEqual(['@acme', '@zeta/rules']);
    expect(JSON.parse(serializeManifest(m)).trust).toEqual({ require_signature: true, instructions: ['@acme', '@zeta/rules'] });
    expect(JSON.parse(serializeManifest(parseManifest('{}'))).trust).toEqual({ require_signature: true });
    for (const bad of ['"acme"', '["acme"]', '["@Acme"]', '["@acme/rules/x"]', '[1]']) expect(() => parseManifest(`{"trust":{"instructions":${bad}}}`)).toThrow(/trust\.instructions/);
    expect(trustListed(['@acme'], '@acme/rules')).toBe(true);
    expect(trustListed(['@acme'], '@acmex/rules')).toBe(false);
    expect(trustListed(['@acme/rules'], '@acme/rules')).toBe(true);
    expect(trustListed(['@acme/rules'], '@acme/other')).toBe(false);
  });

  it('init --trust writes it; trust add/rm edit it; ls explains why a listed package stays fenced', async () => {
    const root = makeProject({ graph: mgraph([mnode('@acme/rules', 'n', { content: 'Never push to main.' }), mnode('@vendor/x', 'v', { content: 'Vendor text.' })]) });
    const init = await run(['init', '--trust', '@acme'], root);
    expect(init.code, init.stderr).toBe(0);
    expect(JSON.parse(readFile(root, 'ctxpkg.json') as string).trust.instructions).toEqual(['@acme']);
    expect((await run(['trust', 'add', '@zeta'], root)).stdout).toContain('trusted @zeta');
    expect((await run(['trust', 'rm', '@zeta'], root)).stdout).toContain('no longer trusted: @zeta');
    // a package neither installed nor declared is a typo until proven otherwise (test/cli-typos.test.ts)
    expect((await run(['trust', 'add', '@zeta/x'], root)).stderr).toContain('error E_NOT_FOUND: @zeta/x is neither installed nor declared in ctxpkg.json');
    expect((await run(['trust', 'add', 'acme'], root)).stderr).toMatch(/E_USAGE: "acme" is neither a scope/);
    const ls = await run(['trust', 'ls', '--json'], root);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.json.packages).toEqual([
      { package: '@acme/rules', version: '1.0.0', listed: true, trusted: false, reason: 'not in ctxpkg.lock' },
      { package: '@vendor/x', version: '1.0.0', listed: false, trusted: false },
    ]);
    // every installed package has its line, an unlisted one too (new-user trial 2, item 3)
    const text = await run(['trust', 'ls'], root);
    expect(text.stdout.split('\n')).toEqual(['trusted: @acme', '  @acme/rules@1.0.0: stays fenced — not in ctxpkg.lock', '  @vendor/x@1.0.0: fenced (not in "trust.instructions")', '']);
    // Not signed, verified and pinned: the text stays inside the fence, with a warning.
    const s = await run(['sync'], root);
    expect(s.stderr).toContain('warning: @acme/rules@1.0.0 is listed in "trust.instructions" but stays inside the untrusted fence: not in ctxpkg.lock');
    const agents = readFile(root, 'AGENTS.md') as string;
    expect(agents.indexOf('Never push to main.')).toBeGreaterThan(agents.indexOf('--- BEGIN UNTRUSTED CONTEXT'));
  });

  it('install/sync say how to trust fenced packages of a scope the user publishes to or the project binds (new-user 2 item 10)', async () => {
    const graph = mgraph([mnode('@acme/rules', 'n', { content: 'Do not run npm run build.' }), mnode('@other/x', 'm', { content: 'Other text.' })]);
    const hint = "note: the packages of @acme reach your agents as reference data inside the untrusted fence, not as instructions; if they are your team's rules, run `ctxpkg trust add @acme`";
    // A user with a publish token for the registry @acme is bound to.
    const root = makeProject({ graph });
    const tok = 'ctxp_' + 'a'.repeat(43);
    writeFile(root, '.home/config.json', JSON.stringify({ registries: { '@acme': 'https://r.example/api' }, tokens: { 'https://r.example/api': tok } }));
    const s = await run(['sync'], root);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toContain(hint);
    // Exactly one line, and only the own scope is named.
    expect(s.stdout.split('\n').filter((l) => l.includes('trust add'))).toHaveLength(1);
    // A read token is a consumer, not the team: no line.
    writeFile(root, '.home/config.json', JSON.stringify({ registries: { '@acme': 'https://r.example/api' }, tokens: { 'https://r.example/api': 'ctxr_' + 'a'.repeat(43) } }));
    expect((await run(['sync'], root)).stdout).not.toContain('trust add');
    // A scope ctxpkg.json binds counts too; once the scope is trusted (even if still fenced for a reason) the line is gone.
    const bound = makeProject({ graph });
    const m = JSON.parse(readFile(bound, 'ctxpkg.json') as string);
    m.registries = { '@acme': 'https://r.example/api' };
    writeFile(bound, 'ctxpkg.json', JSON.stringify(m));
    expect((await run(['sync'], bound)).stdout).toContain(hint);
    expect((await run(['trust', 'add', '@acme'], bound)).code).toBe(0);
    expect((await run(['sync'], bound)).stdout).not.toContain('trust add');
  });
});
