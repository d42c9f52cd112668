import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadUserConfig, normalizeRegistryUrl, redactUrlText, registryFor, saveUserConfig, tokenFor, type RegistrySettings } from './config.js';

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
    expect(loadUserConfig(deps)).toEqual({ registries: { '@acme': 'http://p' }, tokens: { 'http://p': 'ctxp_1' } });
  });
});
