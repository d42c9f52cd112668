import { describe, expect, it } from 'vitest';
import { registryFor, type RegistrySettings } from '../config.js';
import { registryKey, registryOrigin, sameRegistry } from './registry-url.js';

describe('registry URL equivalence (spec/registry.md §2)', () => {
  it.each([
    ['http://h.example/api', 'http://h.example'],
    ['http://h.example/api', 'http://h.example/api/'],
    ['http://h.example/api', 'HTTP://H.EXAMPLE/api'],
    ['http://h.example:80/api', 'http://h.example/api'],
    ['https://h.example:443', 'https://h.example/api//'],
    ['http://h.example:4873/base/api', 'http://h.example:4873/base'],
  ])('%s ≡ %s', (a, b) => {
    expect(sameRegistry(a, b)).toBe(true);
  });
  it.each([
    ['http://h.example/api', 'https://h.example/api'], // scheme
    ['http://h.example:4873/api', 'http://h.example:4874/api'], // port
    ['http://localhost:4873/api', 'http://127.0.0.1:4873/api'], // host
    ['http://h.example/api', 'http://h.example/API'], // path case
    ['http://h.example/x/api', 'http://h.example/y/api'],
    ['http://h.example/api', 'http://u:p@h.example/api'], // credentials never equal
    ['file:a.ctxpkg', 'file:./a.ctxpkg'],
    ['file:a.ctxpkg', 'http://h.example/api'],
  ])('%s ≠ %s', (a, b) => {
    expect(sameRegistry(a, b)).toBe(false);
  });
  it('keys have no credentials to leak', () => {
    expect(registryKey('http://h.example/api')).toBe('http://h.example');
  });
});

describe('registryOrigin names the setting that registryFor used', () => {
  const base = (over: Partial<RegistrySettings> = {}): RegistrySettings => ({
    project: { registries: {} },
    user: { registries: {}, tokens: {} },
    env: {},
    ...over,
  });
  const cases: Array<[string, RegistrySettings, string]> = [
    ['project-scope', base({ project: { registries: { '@acme': 'http://p/api' } }, user: { registries: { '@acme': 'http://u/api' }, tokens: {} }, flag: 'http://f/api' }), 'ctxpkg.json'],
    ['user-scope', base({ user: { registries: { '@acme': 'http://u/api' }, tokens: {} }, flag: 'http://f/api' }), 'user config'],
    ['flag', base({ flag: 'http://f/api', env: { CTXPKG_REGISTRY: 'http://e/api' } }), '--registry'],
    ['env', base({ env: { CTXPKG_REGISTRY: 'http://e/api' }, project: { registry: 'http://pd/api', registries: {} } }), 'CTXPKG_REGISTRY'],
    ['project-default', base({ project: { registry: 'http://pd/api', registries: {} }, user: { registry: 'http://ud/api', registries: {}, tokens: {} } }), '"registry" in ctxpkg.json'],
    ['user-default', base({ user: { registry: 'http://ud/api', registries: {}, tokens: {} } }), '"registry" in your user config'],
  ];
  it.each(cases)('%s', (kind, s, where) => {
    const o = registryOrigin('@acme/kb', s);
    expect(o.kind).toBe(kind);
    expect(o.url).toBe(registryFor('@acme/kb', s));
    expect(o.where).toContain(where);
  });
  it('throws E_CONFIG like registryFor when nothing is configured', () => {
    expect(() => registryOrigin('@acme/kb', base())).toThrow(expect.objectContaining({ code: 'E_CONFIG' }));
  });
});
