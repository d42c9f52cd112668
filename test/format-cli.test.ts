/**
 * `ctxpkg keygen`, `ctxpkg info <file>` and `ctxpkg verify <file…>` driven in process.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyFingerprint, parseKeyFile, publicKeyFromSeed, writePackage, type PackageContent } from '@ctxpkg/format';
import { runCli } from '../packages/cli/src/program.js';
import type { CliDeps } from '../packages/cli/src/deps.js';

let dir: string;
let out: string;
let err: string;

function deps(): CliDeps {
  return {
    fetch: (() => Promise.reject(new Error('no network in tests'))) as unknown as typeof fetch,
    env: { CTXPKG_HOME: join(dir, 'home') },
    cwd: dir,
    homeDir: dir,
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin: process.stdin,
    clock: () => new Date('2026-01-02T03:04:05Z'),
  };
}

async function run(...argv: string[]): Promise<number> {
  out = '';
  err = '';
  return runCli(argv, deps());
}

const content: PackageContent = {
  context_graph: {
    format: 'ctxpkg-graph-v2',
    nodes: [
      { id: 'N1', type: 'fact', content: 'JWT secrets rotate every 24h', activation: 1 },
      { id: 'N2', type: 'gotcha', content: 'races', activation: 0.9 },
    ],
    edges: [{ from: 'N1', to: 'N2', type: 'has_gotcha', weight: 0.9 }],
  },
};
const SEED = new Uint8Array(32).fill(0x2a);

function writeFixture(name: string, signed = true): string {
  const bytes = writePackage({ manifest: { name: '@acme/auth-context', version: '1.2.0', description: 'auth', created_at: '2026-01-02T03:04:05Z', tags: ['security'] }, content }, signed ? { seed: SEED } : {});
  writeFileSync(join(dir, name), bytes);
  return name;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxpkg-format-cli-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('ctxpkg keygen', () => {
  it('writes a 0600 key at the default path, prints public key and fingerprint, refuses to overwrite', async () => {
    expect(await run('keygen', '--json')).toBe(0);
    const res = JSON.parse(out) as { path: string; public_key: string; fingerprint: string };
    expect(res.path).toBe(join(dir, 'home', 'keys', 'ctxpkg-ed25519.key'));
    const text = readFileSync(res.path, 'utf8');
    expect(text).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(res.path).mode & 0o777).toBe(0o600);
    expect(res.public_key).toBe(publicKeyFromSeed(parseKeyFile(text)));
    expect(res.fingerprint).toBe(keyFingerprint(res.public_key));
    expect(out).not.toContain(text);

    expect(await run('keygen')).toBe(5);
    expect(err).toContain('E_EXISTS');
    expect(err).toContain(`${res.fingerprint} (public key ${res.public_key})`);
    expect(err).not.toContain(text);
    expect(readFileSync(res.path, 'utf8')).toBe(text);

    expect(await run('keygen', '--force')).toBe(0);
    expect(readFileSync(res.path, 'utf8')).not.toBe(text);
    expect(out).toMatch(/public key: {2}[0-9a-f]{64}\nfingerprint: [0-9a-f]{4}(:[0-9a-f]{4}){3}/);
    expect(err).toContain('warning: the previous key was replaced');
  });

  it('--out writes where asked', async () => {
    expect(await run('keygen', '--out', 'ci.key')).toBe(0);
    expect(existsSync(join(dir, 'ci.key'))).toBe(true);
  });
});

describe('ctxpkg verify', () => {
  it('prints every check and exits 0 for a valid package', async () => {
    const f = writeFixture('good.ctxpkg');
    expect(await run('verify', f)).toBe(0);
    expect(out).toContain('good.ctxpkg: VALID');
    for (const c of ['structure', 'content_hash', 'sha256', 'byte_size', 'signature']) expect(out).toMatch(new RegExp(`  ${c} +pass`));
  });

  it('exits 1 when any file is invalid, printing FAIL; --json gives one object per file', async () => {
    const good = writeFixture('good.ctxpkg');
    const text = readFileSync(join(dir, good), 'utf8').replace('JWT secrets rotate every 24h', 'JWT secrets never rotate');
    writeFileSync(join(dir, 'tampered.ctxpkg'), text);
    expect(await run('verify', good, 'tampered.ctxpkg', 'missing.ctxpkg')).toBe(1);
    expect(out).toMatch(/tampered.ctxpkg: INVALID\n {2}structure +pass[^\n]*\n {2}content_hash +FAIL +expected /);
    expect(out).toContain('1 invalid, 1 missing of 3 packages');

    expect(await run('verify', good, 'tampered.ctxpkg', 'missing.ctxpkg', '--json')).toBe(1);
    const res = JSON.parse(out) as Array<{ file: string; valid: boolean; checks: Record<string, { status: string }>; errors: Array<{ code: string }> }>;
    expect(res.map((r) => [r.file, r.valid])).toEqual([['good.ctxpkg', true], ['tampered.ctxpkg', false], ['missing.ctxpkg', false]]);
    expect(res[1]!.checks.content_hash!.status).toBe('fail');
    expect(res[1]!.checks.signature!.status).toBe('pass');
    expect(res[1]!.errors.map((e) => e.code)).toEqual(['E_INTEGRITY', 'E_INTEGRITY', 'E_INTEGRITY']);
    // The signature covers the manifest, not this content: no "signed by" for changed content
    // (new-user trial 22), and no signer in --json; the untouched file keeps both.
    const key = '197f6b23e16c8532c6abc838facd5ea789be0c76b2920334039bfa8b3d368d61';
    expect((res[1] as unknown as { signer: string | null }).signer).toBeNull();
    expect((res[0] as unknown as { signer: string | null }).signer).toBe(key);
    expect(await run('verify', 'tampered.ctxpkg')).toBe(1);
    expect(out).not.toContain('signed by');
    expect(out).toMatch(/signature +pass +the signature by \S+ \(public key 197f6b23e16c8532…\) is valid for the manifest, but the content does not match the manifest's hashes: this content is not what it signed/);
    expect(await run('info', 'tampered.ctxpkg')).toBe(1);
    expect(out).toContain('signer: none for this content (the manifest carries a valid signature, but the content does not match it)');
    expect(out).not.toContain('signed by');
    expect(res[2]!.errors[0]!.code).toBe('E_NOT_FOUND');
  });

  it('a missing file is a per-file failure (structure FAIL, E_NOT_FOUND, exit 1; issue 2 item 8); names the signer by fingerprint and key', async () => {
    const good = writeFixture('good.ctxpkg');
    expect(await run('verify', 'missing.ctxpkg')).toBe(1);
    expect(out).toContain('missing.ctxpkg: MISSING');
    expect(out).toMatch(/structure +FAIL +E_NOT_FOUND/);
    expect(await run('verify', good, 'missing.ctxpkg')).toBe(1);
    expect(out).toContain('good.ctxpkg: VALID');
    expect(out).toContain('1 missing of 2 packages');
    expect(await run('verify', good, 'missing.ctxpkg', '--json')).toBe(1);
    const both = JSON.parse(out) as Array<{ valid: boolean; missing: boolean; checks: Record<string, { status: string }>; errors: Array<{ code: string }> }>;
    expect(both.map((v) => v.valid)).toEqual([true, false]);
    expect(both[1]).toMatchObject({ missing: true, checks: { structure: { status: 'fail' } }, errors: [{ code: 'E_NOT_FOUND' }] });
    const key = '197f6b23e16c8532c6abc838facd5ea789be0c76b2920334039bfa8b3d368d61';
    expect(out).toContain(`signed by ${keyFingerprint(key)} (public key ${key.slice(0, 16)}…)`);
    expect(await run('verify', good, '--json')).toBe(0);
    expect(JSON.parse(out)[0]).toMatchObject({ valid: true, missing: false, signer: key });
    mkdirSync(join(dir, 'adir.ctxpkg'));
    expect(await run('verify', 'adir.ctxpkg')).toBe(1);
    expect(out).toContain('adir.ctxpkg is a directory');
  });

  it('unsigned is skipped (valid) unless --require-signature', async () => {
    const f = writeFixture('unsigned.ctxpkg', false);
    expect(await run('verify', f)).toBe(0);
    expect(out).toMatch(/signature +skipped/);
    expect(await run('verify', f, '--require-signature')).toBe(1);
    expect(out).toMatch(/signature +FAIL/);
  });

  it('exits 2 on a usage error', async () => {
    expect(await run('verify')).toBe(2);
    expect(await run('verify', 'x', '--bogus')).toBe(2);
  });
});

describe('ctxpkg info', () => {
  it('shows manifest, layers, counts, signer and checks', async () => {
    const f = writeFixture('good.ctxpkg');
    expect(await run('info', f)).toBe(0);
    expect(out).toContain('@acme/auth-context@1.2.0');
    expect(out).toContain('graph: 2 nodes, 1 edges; node types: fact, gotcha');
    expect(out).toContain('conformance level: 3');
    expect(out).toContain(`signer: ${keyFingerprint('197f6b23e16c8532c6abc838facd5ea789be0c76b2920334039bfa8b3d368d61')} (public key 197f6b23e16c8532c6abc838facd5ea789be0c76b2920334039bfa8b3d368d61)`);
    expect(await run('info', f, '--json')).toBe(0);
    const res = JSON.parse(out);
    expect(res).toMatchObject({ file: f, valid: true, form: 'json', layers: ['context_graph'], counts: { graph_nodes: 2, graph_edges: 1 }, manifest: { name: '@acme/auth-context', tags: ['security'] } });
  });

  it('shows what it can of an invalid package and exits 1; a missing file is E_NOT_FOUND', async () => {
    writeFileSync(join(dir, 'bad.ctxpkg'), '{"manifest":{},"content":{}}');
    expect(await run('info', 'bad.ctxpkg')).toBe(1);
    expect(out).toContain('INVALID');
    expect(out).toMatch(/structure +FAIL/);
    expect(await run('info', 'nope.ctxpkg')).toBe(4);
    expect(err).toContain('E_NOT_FOUND');
  });

  it('does not call an unreadable file unsigned, and points a Markdown file at create', async () => {
    writeFileSync(join(dir, 'AGENTS.md'), '# Rules\n\n- Never log tokens.\n');
    expect(await run('info', 'AGENTS.md')).toBe(1);
    expect(out).toContain('signer: unknown (the package could not be read)');
    expect(out).not.toContain('signer: unsigned');
    expect(out).toContain('hint: this looks like a source file, not a package; run `ctxpkg create --name @ns/name --from AGENTS.md`');
    writeFileSync(join(dir, 'notapkg.ctxpkg'), 'garbage\n');
    expect(await run('info', 'notapkg.ctxpkg', '--json')).toBe(1);
    expect(JSON.parse(out)).toMatchObject({ valid: false, signer: null, hint: expect.stringContaining('ctxpkg create') });
  });
});
