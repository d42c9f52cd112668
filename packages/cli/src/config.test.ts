import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadUserConfig, normalizeRegistryUrl, redactUrlText, registryFor, savedTokensOf, saveUserConfig, tokenFor, type RegistrySettings, type UserConfig } from './config.js';

function settings(over: Partial<RegistrySettings> = {}): RegistrySettings {
  return { project: { registries: {} }, user: { registries: {}, tokens: {} }, env: {}, ...over };
}

describe('registry URLs', () => {
  it('normalizes case, default ports and trailing slashes', () => {
    expect(normalizeRegistryUrl('HTTPS://R.Example.COM:443/api/')).toBe('https://r.example.com/api');
    expect(normalizeRegistryUrl('http://127.0.0.1:4873')).toBe('http://127.0.0.1:4873');
  });
  it('refuses credentials, queries and other schemes', () => {
    expect(() => normalizeRegistryUrl('https://u:p@r.example/api')).toThrow(/credentials/);
    expect(() => normalizeRegistryUrl('ftp://r.example')).toThrow(/http/);
    expect(() => normalizeRegistryUrl('not a url')).toThrow(/not a registry URL/);
  });
  it('never echoes credentials or a query from a refused URL', () => {
    for (const raw of ['ftp://u:s3cret@r.example/api', 'http://u:s3cret@[::1/api', 'gopher://r.example/?token=s3cret', 'https://u:s3cret@r.example/api']) {
      expect(() => normalizeRegistryUrl(raw)).toThrow();
      try {
        normalizeRegistryUrl(raw);
      } catch (e) {
        expect((e as Error).message).not.toContain('s3cret');
      }
    }
    expect(redactUrlText('ftp://user:pw@host/x?t=1')).toBe('ftp://…@host/x?…');
    expect(redactUrlText('http://host/api')).toBe('http://host/api');
  });
});

describe('registryFor (HB-28 precedence)', () => {
  it('a scope binding wins over --registry and the environment', () => {
    const s = settings({ flag: 'http://q', env: { CTXPKG_REGISTRY: 'http://e' }, project: { registries: { '@acme': 'http://p' } } });
    expect(registryFor('@acme/internal-kb', s)).toBe('http://p');
    expect(registryFor('@other/x', s)).toBe('http://q');
  });
  it('falls back flag → env → project → user, and errors when nothing is set', () => {
    expect(registryFor('@a/b', settings({ env: { CTXPKG_REGISTRY: 'http://e/' } }))).toBe('http://e');
    expect(registryFor('@a/b', settings({ project: { registry: 'http://p', registries: {} } }))).toBe('http://p');
    expect(() => registryFor('@a/b', settings())).toThrow(expect.objectContaining({ code: 'E_CONFIG', message: 'no registry configured for @a/b' }));
  });
});

describe('tokenFor: a token goes only to its registry', () => {
  it('CTXPKG_TOKEN is bound to CTXPKG_REGISTRY', () => {
    const s = settings({ env: { CTXPKG_TOKEN: 'ctxp_x', CTXPKG_REGISTRY: 'http://good/api' } });
    expect(tokenFor('http://good/api', s)).toBe('ctxp_x');
    expect(tokenFor('http://evil/api', s)).toBeUndefined();
    expect(tokenFor('http://good/api2', s)).toBeUndefined();
  });
  it('CTXPKG_TOKEN without a named registry is sent nowhere', () => {
    expect(tokenFor('http://good/api', settings({ env: { CTXPKG_TOKEN: 'ctxp_x' } }))).toBeUndefined();
  });
  it('saved tokens match the spellings of their registry only (with or without /api: one registry, spec/registry.md §2)', () => {
    const s = settings({ user: { registries: {}, tokens: { 'http://good/api': 't1' } } });
    expect(tokenFor('HTTP://GOOD/api/', s)).toBe('t1');
    expect(tokenFor('http://good', s)).toBe('t1');
    for (const other of ['http://good/api2', 'http://good/API', 'https://good/api', 'http://good:8080/api', 'http://evil/api', 'http://good/x/api']) {
      expect([other, tokenFor(other, s)]).toEqual([other, undefined]);
    }
  });
  it('CTXPKG_TOKEN follows --registry across the /api spelling too', () => {
    const s = settings({ flag: 'http://good', env: { CTXPKG_TOKEN: 'ctxp_x' } });
    expect(tokenFor('http://good/api', s)).toBe('ctxp_x');
    expect(tokenFor('http://evil/api', s)).toBeUndefined();
  });
});

describe('user config file', () => {
  it('round-trips with mode 0600', () => {
    const home = mkdtempSync(join(tmpdir(), 'ctxpkg-cfg-'));
    const deps = { env: { CTXPKG_HOME: join(home, 'u') }, homeDir: home };
    const path = saveUserConfig(deps, { registries: { '@acme': 'http://p' }, tokens: { 'http://p': 'ctxp_1' } });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(loadUserConfig(deps)).toEqual({ registries: { '@acme': 'http://p' }, tokens: { 'http://p': 'ctxp_1' }, scopedTokens: {} });
    // no scoped tokens: the file keeps the layout older versions read
    expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')))).toEqual(['registries', 'tokens']);
  });
});

describe('tokenFor with scoped tokens (new-user trial: a second login --scope replaced the first token)', () => {
  const R = 'http://r.test/api';
  const user = (over: Partial<UserConfig>): UserConfig => ({ registries: {}, tokens: {}, ...over });
  it("a package request sends its scope's token, else the registry-wide one; never another scope's", () => {
    const s = settings({ user: user({ tokens: { [R]: 'ctxr_wide' }, scopedTokens: { [R]: { '@acme': 'ctxr_acme', '@vendor': 'ctxr_vendor' } } }) });
    expect(tokenFor(R, s, '@acme')).toBe('ctxr_acme');
    expect(tokenFor(R, s, '@vendor')).toBe('ctxr_vendor');
    expect(tokenFor(R, s, '@other')).toBe('ctxr_wide');
    expect(tokenFor(R, s)).toBe('ctxr_wide');
    const only = settings({ user: user({ scopedTokens: { [R]: { '@acme': 'ctxr_acme', '@vendor': 'ctxr_vendor' } } }) });
    expect(tokenFor(R, only, '@other')).toBeUndefined();
    expect(tokenFor('http://evil.test/api', only, '@acme')).toBeUndefined();
  });
  it('requests about no package: the registry-wide token, else the one scoped token, else none', () => {
    expect(tokenFor(R, settings({ user: user({ scopedTokens: { [R]: { '@acme': 'ctxr_acme' } } }) }))).toBe('ctxr_acme');
    expect(tokenFor(R, settings({ user: user({ scopedTokens: { [R]: { '@acme': 'ctxr_acme', '@vendor': 'ctxr_vendor' } } }) }))).toBeUndefined();
  });
  it('scoped tokens match every spelling of their registry (with or without /api), the exact one first', () => {
    const s = settings({ user: user({ scopedTokens: { 'http://r.test': { '@acme': 'ctxr_root' }, [R]: { '@vendor': 'ctxr_vendor' } } }) });
    expect(tokenFor(R, s, '@acme')).toBe('ctxr_root');
    expect(tokenFor('http://r.test', s, '@vendor')).toBe('ctxr_vendor');
    const both = settings({ user: user({ scopedTokens: { 'http://r.test': { '@acme': 'ctxr_root' }, [R]: { '@acme': 'ctxr_api' } } }) });
    expect(tokenFor(R, both, '@acme')).toBe('ctxr_api');
    expect(tokenFor('http://r.test', both, '@acme')).toBe('ctxr_root');
  });
  it('CTXPKG_TOKEN, bound to its registry, wins for every scope', () => {
    const s = settings({ env: { CTXPKG_TOKEN: 'ctxp_env', CTXPKG_REGISTRY: R }, user: user({ scopedTokens: { [R]: { '@acme': 'ctxr_acme' } } }) });
    expect(tokenFor(R, s, '@acme')).toBe('ctxp_env');
  });
  it('a saved scoped token that is not printable ASCII is refused (E_AUTH) without showing it, naming the scope', () => {
    const s = settings({ user: user({ scopedTokens: { [R]: { '@acme': 'ctxr_bad\r\nX-Evil: 1' } } }) });
    expect(() => tokenFor(R, s, '@acme')).toThrow(expect.objectContaining({ code: 'E_AUTH', message: expect.stringContaining('the token saved for @acme on http://r.test/api') }));
    try {
      tokenFor(R, s, '@acme');
    } catch (e) {
      expect(JSON.stringify(e)).not.toContain('X-Evil');
      expect((e as Error).message).not.toContain('X-Evil');
    }
  });
  it('savedTokensOf lists the registry-wide token first, then scopes, across spellings', () => {
    const u = user({ tokens: { R: 'x', [R]: 'ctxr_wide' }, scopedTokens: { 'http://r.test': { '@vendor': 'v' }, [R]: { '@acme': 'a' }, 'http://other.test': { '@acme': 'o' } } });
    expect(savedTokensOf(u, R).map((t) => [t.url, t.scope ?? null])).toEqual([[R, null], [R, '@acme'], ['http://r.test', '@vendor']]);
  });
});

describe('user config migration: a file written before scoped tokens', () => {
  const R = 'http://r.test/api';
  const homeWith = (text: string) => {
    const home = mkdtempSync(join(tmpdir(), 'ctxpkg-cfg-'));
    const deps = { env: { CTXPKG_HOME: join(home, 'u') }, homeDir: home };
    saveUserConfig(deps, { registries: {}, tokens: {} });
    writeFileSync(join(home, 'u', 'config.json'), text, { mode: 0o600 });
    return deps;
  };
  it("keeps its one token per registry as the registry-wide token: every scope's requests still send it", () => {
    const deps = homeWith(JSON.stringify({ registries: { '@acme': R }, tokens: { [R]: 'ctxr_old' } }));
    const cfg = loadUserConfig(deps);
    expect(cfg).toEqual({ registries: { '@acme': R }, tokens: { [R]: 'ctxr_old' }, scopedTokens: {} });
    const s = settings({ user: cfg });
    expect(tokenFor(R, s, '@acme')).toBe('ctxr_old');
    expect(tokenFor(R, s)).toBe('ctxr_old');
  });
  it('round-trips scoped tokens next to the registry-wide ones, sorted, mode 0600', () => {
    const deps = homeWith('{}');
    const path = saveUserConfig(deps, { registries: { '@vendor': R, '@acme': R }, tokens: { [R]: 'ctxr_old' }, scopedTokens: { [R]: { '@vendor': 'ctxr_v', '@acme': 'ctxr_a' }, 'http://empty.test': {} } });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe(
      JSON.stringify({ registries: { '@acme': R, '@vendor': R }, tokens: { [R]: 'ctxr_old' }, scoped_tokens: { [R]: { '@acme': 'ctxr_a', '@vendor': 'ctxr_v' } } }, null, 2) + '\n',
    );
    expect(loadUserConfig(deps).scopedTokens).toEqual({ [R]: { '@acme': 'ctxr_a', '@vendor': 'ctxr_v' } });
  });
  it('refuses a scoped_tokens member of the wrong shape, naming the file and key', () => {
    expect(() => loadUserConfig(homeWith(JSON.stringify({ scoped_tokens: { [R]: 'ctxr_x' } })))).toThrow(expect.objectContaining({ code: 'E_INVALID_JSON', message: expect.stringContaining('scoped_tokens["http://r.test/api"] must be an object of strings') }));
    expect(() => loadUserConfig(homeWith(JSON.stringify({ scoped_tokens: { [R]: { acme: 'ctxr_x' } } })))).toThrow(expect.objectContaining({ code: 'E_CONFIG', message: expect.stringContaining('not a scope') }));
    expect(() => loadUserConfig(homeWith(JSON.stringify({ scoped_tokens: [] })))).toThrow(expect.objectContaining({ code: 'E_INVALID_JSON' }));
  });
});
