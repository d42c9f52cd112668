/**
 * `trust.instructions` (spec/pack.md §11 "Trust"): init --trust, trust add|rm|ls, validation,
 * and that a listed package without a pinned, verified signature stays fenced with the reason.
 */
import { describe, expect, it } from 'vitest';
import { parseManifest, serializeManifest, trustListed } from '../project.js';
import { makeProject, mgraph, mnode, readFile, run } from '../targets/__tests__/harness.js';

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
    const root = makeProject({ graph: mgraph([mnode('@acme/rules', 'n', { content: 'Never push to main.' })]) });
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
    expect(ls.json.packages).toEqual([{ package: '@acme/rules', version: '1.0.0', listed: true, trusted: false, reason: 'not in ctxpkg.lock' }]);
    // Not signed, verified and pinned: the text stays inside the fence, with a warning.
    const s = await run(['sync'], root);
    expect(s.stderr).toContain('warning: @acme/rules@1.0.0 is listed in "trust.instructions" but stays inside the untrusted fence: not in ctxpkg.lock');
    const agents = readFile(root, 'AGENTS.md') as string;
    expect(agents.indexOf('Never push to main.')).toBeGreaterThan(agents.indexOf('--- BEGIN UNTRUSTED CONTEXT'));
  });
});
