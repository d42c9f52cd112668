/**
 * ADVERSARIAL resolver cases through the real CLI against a registry on a real port: HB-01
 * (prereleases are opt-in, numeric prerelease ordering), HB-02 (caret/tilde below 1.0.0), HB-05
 * (range grammar, pathological ranges; the reference dialect `>=1.0, <2.0` is accepted by team
 * decision). Each range is written into a fresh project's ctxpkg.json and installed with
 * `ctxpkg install --json`; refusals must leave the project byte-identical and (for grammar
 * errors) make no registry request at all. Variants: ranges inside a dependency's manifest,
 * control/non-ASCII whitespace, megabyte-long ranges, `outdated` never offering a prerelease.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HB02_PICKS, HB02_VERSIONS } from '../../packages/format/src/__tests__/hb02.js';
import { cli, makePackage, type RunResult } from '../support/cli.js';
import { liveRegistry, projectSnapshot, putHttp, SEED, temp, type LiveRegistry } from './support.js';

let R: LiveRegistry;
let home: string;

const HB01 = ['1.0.0', '1.2.0', '1.3.0-rc.1', '1.3.0-rc.2', '1.3.0-rc.10', '2.0.0-alpha.1'];
const HB05 = ['1.2.3', '1.5.0', '2.0.0'];

beforeAll(async () => {
  home = temp('ctxpkg-adv-home-');
  R = await liveRegistry();
  const pub = async (name: string, v: string, deps?: Record<string, string>) => expect((await putHttp(R.api, R.publish, name, v, makePackage(name, v, SEED, { deps }))).status).toBe(201);
  // Published in a shuffled order so that no ordering can come from insertion order.
  for (const v of ['1.3.0-rc.10', '1.0.0', '2.0.0-alpha.1', '1.3.0-rc.2', '1.2.0', '1.3.0-rc.1']) await pub('@acme/hb01', v);
  for (const v of [...HB02_VERSIONS].reverse()) await pub('@acme/hb02', v);
  for (const v of HB05) await pub('@acme/hb05', v);
  await pub('@acme/sib', '1.0.0');
  // Our registry's publish gate refuses a range like "latest" (gate.ts checkDependencies); a registry
  // without that gate (the reference's) still serves one. That registry is simulated below by
  // rewriting the index of @acme/uses-latest, published here with a valid range.
  await pub('@acme/uses-latest', '1.0.0', { '@acme/hb05': '^1.0.0' });
});
afterAll(async () => {
  await R.close();
});

function project(deps: Record<string, string>): string {
  const p = temp('ctxpkg-adv-proj-');
  writeFileSync(join(p, 'ctxpkg.json'), JSON.stringify({ dependencies: deps }, null, 2) + '\n');
  return p;
}
const run = (args: string[], cwd: string): Promise<RunResult> => cli(args, { cwd, home, fetch: globalThis.fetch, env: { CTXPKG_REGISTRY: R.api } });

async function picks(name: string, range: string): Promise<string> {
  const r = await run(['install', '--json'], project({ [name]: range }));
  expect(r.code, `${range}: ${r.stderr}`).toBe(0);
  return (r.json.packages as Array<{ name: string; version: string }>).find((p) => p.name === name)!.version;
}

describe('HB-01 prereleases are opt-in; prerelease identifiers compare numerically', () => {
  for (const range of ['^1.0.0', '*', '', '1.x', '^1', '>=1.0.0 <2.0.0', '<2.0.0']) {
    it(`${JSON.stringify(range)} → 1.2.0`, async () => {
      expect(await picks('@acme/hb01', range)).toBe('1.2.0');
    });
  }
  for (const range of ['>=1.3.0-rc.0', '^1.3.0-rc.0', '~1.3.0-rc.2']) {
    it(`${JSON.stringify(range)} → 1.3.0-rc.10 (numeric, not lexical: rc.10 > rc.2)`, async () => {
      expect(await picks('@acme/hb01', range)).toBe('1.3.0-rc.10');
    });
  }
  it('the registry index orders by precedence: latest 1.2.0 first, then 2.0.0-alpha.1 > rc.10 > rc.2 > rc.1 > 1.0.0', async () => {
    const idx = (await (await fetch(`${R.api}/v1/packages/acme/hb01/index.json`)).json()) as { latest: string; versions: Array<{ version: string }> };
    expect(idx.latest).toBe('1.2.0');
    expect(idx.versions.map((v) => v.version)).toEqual(['1.2.0', '2.0.0-alpha.1', '1.3.0-rc.10', '1.3.0-rc.2', '1.3.0-rc.1', '1.0.0']);
  });
  it('`outdated` and `update` never offer 2.0.0-alpha.1 or an rc to a project on ^1.0.0', async () => {
    const p = project({ '@acme/hb01': '^1.0.0' });
    expect((await run(['install'], p)).code).toBe(0);
    const o = await run(['outdated', '--json'], p);
    expect(o.code, o.stderr).toBe(0);
    expect(JSON.stringify(o.json)).not.toMatch(/alpha|rc\./);
    const u = await run(['update', '--json'], p);
    expect(u.code, u.stderr).toBe(0);
    expect(JSON.stringify(u.json.changed ?? [])).not.toMatch(/alpha|rc\./);
  });
});

describe('HB-02 caret and tilde below 1.0.0', () => {
  for (const [range, v] of HB02_PICKS) {
    it(`${range} → ${v}`, async () => {
      expect(await picks('@acme/hb02', range)).toBe(v);
    });
  }
  it('^0.0.0 → E_NO_MATCH (exit 6) listing the available versions; nothing installed', async () => {
    const p = project({ '@acme/hb02': '^0.0.0' });
    const before = projectSnapshot(p);
    const r = await run(['install'], p);
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('E_NO_MATCH');
    for (const v of HB02_VERSIONS) expect(r.stderr).toContain(v);
    expect(projectSnapshot(p)).toEqual(before);
  });
});

describe('HB-05 range grammar interop and pathological ranges', () => {
  for (const [range, v] of [
    ['^1.2.3 || ^2', '2.0.0'],
    ['', '2.0.0'],
    ['*', '2.0.0'],
    ['>=1.0, <2.0', '1.5.0'], // accepted: the reference dialect (team decision; HB-05 suggested refusing it)
    ['1.2.3', '1.5.0'], // decision point: bare version = caret, as in lean-ctx (spec/format.md §17)
  ] as const) {
    it(`${JSON.stringify(range)} → ${v}`, async () => {
      expect(await picks('@acme/hb05', range)).toBe(v);
    });
  }

  const invalid: Array<[string, string]> = [
    ['latest', 'latest'],
    ['300 characters: 1.2.3 + 290 spaces + <2', '1.2.3' + ' '.repeat(290) + '<2'],
    ['4 MiB of spaces', '1.2.3' + ' '.repeat(4 * 1024 * 1024) + '<2'],
    ['a NUL byte', '^1.2.3\u0000'],
    ['a newline between comparators', '>=1.0.0\n<2.0.0'],
    ['a no-break space (U+00A0)', '>=1.0.0\u00a0<2.0.0'],
    ['fullwidth digits', '^１.2.3'],
    ['a "v" prefix with garbage', 'v1.2.3.4'],
    ['leading zeros', '^01.2.3'],
    ['a number above 2^53-1', '^9007199254740992.0.0'],
    ['a dangling "||"', '^1.2.3 ||'],
    ['unbalanced operators', '>>1.2.3'],
  ];
  for (const [what, range] of invalid) {
    it(`${what} → E_INVALID_RANGE naming the dependency; nothing installed, sibling included; no registry request`, async () => {
      const p = project({ '@acme/sib': '^1.0.0', '@acme/hb05': range });
      const before = projectSnapshot(p);
      const seen = R.requests.length;
      const r = await run(['install'], p);
      expect([what, r.code]).toEqual([what, 1]);
      expect(r.stderr).toContain('E_INVALID_RANGE');
      expect(r.stderr).toContain('@acme/hb05');
      expect(r.stderr).not.toContain('E_NO_MATCH');
      expect(R.requests.length - seen, what).toBe(0);
      expect(projectSnapshot(p)).toEqual(before);
    });
  }

  it('the same on the command line: `install @acme/hb05@latest` and the 300-character range', async () => {
    for (const range of ['latest', '1.2.3' + ' '.repeat(290) + '<2']) {
      const p = project({});
      const before = projectSnapshot(p);
      const r = await run(['install', `@acme/hb05@${range}`], p);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/E_INVALID_RANGE/);
      expect(projectSnapshot(p)).toEqual(before);
    }
  });

  it('"latest" inside a dependency\'s own manifest makes that version unusable: the failure names the invalid range and the dependency; nothing installed (no partial install)', async () => {
    const p = project({ '@acme/sib': '^1.0.0', '@acme/uses-latest': '^1.0.0' });
    const before = projectSnapshot(p);
    const ungated = (async (input: string | URL | Request, init?: RequestInit) => {
      const res = await globalThis.fetch(input, init);
      if (!String(input instanceof Request ? input.url : input).endsWith('/acme/uses-latest/index.json')) return res;
      const text = (await res.text()).replaceAll('"version_req":"^1.0.0"', '"version_req":"latest"');
      expect(text).toContain('"version_req":"latest"');
      return new Response(text, { status: res.status, headers: res.headers });
    }) as typeof fetch;
    const r = await cli(['install'], { cwd: p, home, fetch: ungated, env: { CTXPKG_REGISTRY: R.api } });
    expect([1, 6]).toContain(r.code);
    expect(r.stderr).toMatch(/E_INVALID_RANGE|E_RESOLVE/);
    expect(r.stderr).toMatch(/"latest" for @acme\/hb05 is invalid|E_INVALID_RANGE[^\n]*@acme\/hb05/);
    expect(r.stderr).not.toContain('E_NO_MATCH');
    expect(projectSnapshot(p)).toEqual(before);
  });
});
