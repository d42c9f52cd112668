/**
 * `registry token list`, `events` and `namespace list --registry URL` against a hostile registry
 * (or one that stored labels before they were checked): a label, owner, actor or detail holding
 * line breaks, tabs, terminal escapes or bidi controls never forges a row, shifts a column or
 * reaches the terminal raw; each record stays exactly one printed line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';

const TOKEN = 'ctxa_' + 'A'.repeat(43);
const HOSTILE = [
  'ci\ntok_ffffffffffffffff  acme       admin  active  never',
  'a\rb',
  'a\tb\tc',
  'x\u0085y',
  'x\u2028y\u2029z',
  '\u001b]0;pwned\u0007\u001b[2J',
  'a\u009b31mb',
  'safe\u202eevil',
  'v\u000bw\u000cx',
];

function hostileFetch(): typeof fetch {
  return (async (input: string | URL | Request) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const reply = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    if (url.pathname.endsWith('/v1/admin/tokens')) {
      return reply({ tokens: HOSTILE.map((label, i) => ({ id: `tok_${String(i).padStart(16, '0')}`, namespace: 'acme', scope: 'read', label, created_at: '2026-01-01T00:00:00Z', expires_at: null, revoked_at: null })) });
    }
    if (url.pathname.endsWith('/v1/admin/events')) {
      return reply({ events: HOSTILE.map((detail, i) => ({ at: '2026-01-01T00:00:00Z', action: 'namespace:create', namespace: 'acme', name: null, version: null, actor: i % 2 ? detail : 'local admin', detail })) });
    }
    if (url.pathname.endsWith('/v1/admin/namespaces')) {
      return reply({ namespaces: HOSTILE.map((owner, i) => ({ name: `ns${i}`, owner, created_at: '2026-01-01T00:00:00Z' })) });
    }
    return new Response('{"error":"no such route","code":"E_NOT_FOUND"}', { status: 404 });
  }) as typeof fetch;
}

describe('admin listings from a hostile registry', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ctxpkg-admin-out-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const [what, args, header] of [
    ['token list', ['registry', 'token', 'list'], 1],
    ['events', ['registry', 'events'], 1],
    ['namespace list', ['registry', 'namespace', 'list'], 0],
  ] as const) {
    it(`${what}: one line per record, no raw control, separator, tab inside a cell or bidi control`, async () => {
      const r = await cli([...args, '--registry', 'http://evil.test/api'], { cwd: dir, env: { CTXPKG_TOKEN: TOKEN }, fetch: hostileFetch() });
      expect([r.code, r.stderr]).toEqual([0, '']);
      const lines = r.stdout.replace(/\n$/, '').split('\n');
      expect(lines).toHaveLength(HOSTILE.length + header);
      expect(r.stdout).not.toMatch(/[\r\u000b\u000c\u001b\u0085\u009b\u2028\u2029\u202e]/);
      // The forged row's text is visible, escaped, inside the first record's line.
      expect(lines[header]).toContain('ci\\u{000a}tok_ffffffffffffffff');
      expect(lines.filter((l) => l.startsWith('tok_ffffffffffffffff'))).toEqual([]);
      if (what === 'namespace list') {
        // Tab-separated: exactly three tabs per line whatever the owner holds.
        for (const l of lines) expect([l, l.split('\t').length]).toEqual([l, 3]);
      } else {
        expect(r.stdout).not.toContain('\t');
      }
    });
  }

  it('a record whose label is not a string is printed, not a crash', async () => {
    const f = (async () => new Response(JSON.stringify({ tokens: [{ id: 'tok_0000000000000001', namespace: 'acme', scope: 'read', label: 42, created_at: 'x', expires_at: null, revoked_at: null }] }), { status: 200, headers: { 'content-type': 'application/json' } })) as unknown as typeof fetch;
    const r = await cli(['registry', 'token', 'list', '--registry', 'http://evil.test/api'], { cwd: dir, env: { CTXPKG_TOKEN: TOKEN }, fetch: f });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain('42');
  });
});
