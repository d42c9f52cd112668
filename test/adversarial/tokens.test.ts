/**
 * Issue 11 item 8 — a token is validated before use and never printed.
 *
 * A `CTXPKG_TOKEN` (or a saved token) with CR/LF used to reach `Headers.set`, whose TypeError
 * (`E_INTERNAL`) printed the whole value. Now every token, from every source, must be printable
 * ASCII without spaces (`E_AUTH` naming the source, before any request), and the error boundary
 * (output.ts `emitError`) removes every known token — and every long piece of one — from what it
 * prints, in text, JSON and `--debug` stacks. Varied: CR, LF, CRLF header injection, NUL, tab,
 * DEL, non-ASCII, surrounding spaces (trimmed, still valid), in the environment and in config.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from '../support/cli.js';

const GOOD = 'ctxr_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v';
const REGISTRY = 'http://reg.test/api';
let requests = 0;
const fetchSpy = (async () => {
  requests++;
  return new Response('{"results":[]}', { status: 200, headers: { 'content-type': 'application/json' } });
}) as unknown as typeof fetch;

const BAD: Array<[string, string]> = [
  ['CR', `${GOOD}\rX`],
  ['LF', `${GOOD}\nsecond-line-${GOOD}`],
  ['CRLF header injection', `${GOOD}\r\nX-Injected: evil-${GOOD}`],
  ['NUL', `${GOOD}\u0000tail`],
  ['tab inside', `ctxr_${'a'.repeat(20)}\t${'b'.repeat(22)}`],
  ['DEL', `${GOOD}\u007f`],
  ['non-ASCII', `${GOOD}é€`],
  ['space inside', `${GOOD} ${GOOD}`],
];

/** No output may contain the token or any 8-character piece of its printable parts. */
function expectNoLeak(out: string, token: string): void {
  for (const piece of token.split(/[^\x21-\x7e]+/)) {
    for (let i = 0; i + 8 <= piece.length; i += 4) expect(out, `leaked ${JSON.stringify(piece.slice(i, i + 8))}`).not.toContain(piece.slice(i, i + 8));
  }
}

describe('issue 11.8: tokens are validated and never printed', () => {
  for (const [label, token] of BAD) {
    it(`CTXPKG_TOKEN with ${label}: E_AUTH naming the variable, no request, nothing printed of it (text, --json, --debug)`, async () => {
      const cwd = tempDir('ctxpkg-tok-');
      for (const extra of [[], ['--json'], ['--debug']]) {
        const before = requests;
        const r = await cli(['search', 'auth', ...extra], { cwd, fetch: fetchSpy, env: { CTXPKG_REGISTRY: REGISTRY, CTXPKG_TOKEN: token } });
        expect(r.code, r.stdout + r.stderr).toBe(3);
        expect(r.stdout + r.stderr).toMatch(/E_AUTH/);
        expect(r.stdout + r.stderr).toMatch(/CTXPKG_TOKEN/);
        expect(r.stdout + r.stderr).not.toMatch(/E_INTERNAL/);
        expectNoLeak(r.stdout + r.stderr, token);
        expect(requests).toBe(before);
      }
    });
  }

  it('a saved token with a line break in config.json: E_AUTH naming the file, nothing printed of it', async () => {
    const cwd = tempDir('ctxpkg-tok-');
    const home = tempDir('ctxpkg-tok-home-');
    const token = `${GOOD}\r\nX-Evil: ${GOOD}`;
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'config.json'), JSON.stringify({ registries: { '@acme': REGISTRY }, tokens: { [REGISTRY]: token } }));
    const r = await cli(['search', 'auth', '--registry', REGISTRY, '--debug'], { cwd, home, fetch: fetchSpy });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/E_AUTH: .*config\.json/);
    expectNoLeak(r.stdout + r.stderr, token);
  });

  it('surrounding whitespace is trimmed and the token works', async () => {
    const cwd = tempDir('ctxpkg-tok-');
    const before = requests;
    const r = await cli(['search', 'auth'], { cwd, fetch: fetchSpy, env: { CTXPKG_REGISTRY: REGISTRY, CTXPKG_TOKEN: `  ${GOOD}\n` } });
    expect(r.code, r.stderr).toBe(0);
    expect(requests).toBe(before + 1);
  });

  it('the error boundary redacts a known token from any error, even one ctxpkg did not expect', async () => {
    const cwd = tempDir('ctxpkg-tok-');
    const leaky = (async () => {
      throw new Error(`socket hang up while sending Bearer ${GOOD}`);
    }) as unknown as typeof fetch;
    for (const extra of [[], ['--json'], ['--debug']]) {
      const r = await cli(['search', 'auth', ...extra], { cwd, fetch: leaky, env: { CTXPKG_REGISTRY: REGISTRY, CTXPKG_TOKEN: GOOD } });
      expect(r.code).not.toBe(0);
      expectNoLeak(r.stdout + r.stderr, GOOD);
      expect(r.stdout + r.stderr).toContain('[REDACTED:token]');
    }
  });

  it('the error boundary also redacts tokens saved per scope (scoped_tokens in config.json)', async () => {
    const cwd = tempDir('ctxpkg-tok-');
    const home = tempDir('ctxpkg-tok-home-');
    const scoped = 'not-token-shaped-scoped-secret-42';
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'config.json'), JSON.stringify({ registries: { '@acme': REGISTRY }, tokens: {}, scoped_tokens: { [REGISTRY]: { '@acme': scoped } } }));
    const leaky = (async (_url: unknown, init?: RequestInit) => {
      throw new Error(`socket hang up while sending ${new Headers(init?.headers).get('authorization')}`);
    }) as unknown as typeof fetch;
    for (const extra of [[], ['--json'], ['--debug']]) {
      const r = await cli(['info', '@acme/x', ...extra], { cwd, home, fetch: leaky });
      expect(r.code).not.toBe(0);
      expectNoLeak(r.stdout + r.stderr, scoped);
      expect(r.stdout + r.stderr).toContain('[REDACTED:token]');
    }
  });
});
