import { describe, expect, it } from 'vitest';
import { parseManifest, serializeManifest } from './project.js';

describe('ctxpkg.json', () => {
  it('preserves members owned by others (context) verbatim and in order', () => {
    const text = '{"context":{"max_bytes":1000,"sync":{"targets":["claude-md"]}},"dependencies":{"@z/b":"^1","@a/c":"2"}}';
    const m = parseManifest(text);
    expect(m.trust.require_signature).toBe(true);
    const out = serializeManifest(m);
    expect(JSON.parse(out)).toEqual({
      dependencies: { '@a/c': '2', '@z/b': '^1' },
      registries: {},
      trust: { require_signature: true },
      context: { max_bytes: 1000, sync: { targets: ['claude-md'] } },
    });
    expect(Object.keys(JSON.parse(out).dependencies)).toEqual(['@a/c', '@z/b']);
    expect(serializeManifest(parseManifest(out))).toBe(out);
  });
  it('refuses prototype keys and wrong shapes', () => {
    expect(() => parseManifest('{"dependencies":{"__proto__":{"@evil/x":"*"}}}')).toThrow(/forbidden key/);
    expect(() => parseManifest('{"dependencies":{"@a/b":1}}')).toThrow(/must be a string/);
    expect(() => parseManifest('{"trust":{"require_signature":"yes"}}')).toThrow(/true or false/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('ctxpkg.json is parsed strictly (a reviewed file must mean what it shows)', () => {
  it('a repeated member (a second "registries" rebinding a scope) is E_DUPLICATE_KEY, not "last one wins"', () => {
    const text = '{"registries":{"@acme":"https://p.example/api"},"dependencies":{},"registries":{"@acme":"https://evil.example/api"}}';
    expect(() => parseManifest(text)).toThrow(expect.objectContaining({ code: 'E_DUPLICATE_KEY' }));
    expect(() => parseManifest('{"dependencies":{"@acme/a":"^1","@acme/a":"^2"}}')).toThrow(expect.objectContaining({ code: 'E_DUPLICATE_KEY' }));
  });
  it('forbidden keys, lone surrogates and deep nesting are refused; a BOM is tolerated', () => {
    expect(() => parseManifest('{"dependencies":{"__proto__":{"@evil/x":"*"}}}')).toThrow(expect.objectContaining({ code: 'E_FORBIDDEN_KEY' }));
    expect(() => parseManifest('{"context":{"x":"\\ud800"}}')).toThrow(expect.objectContaining({ code: 'E_INVALID_JSON' }));
    expect(() => parseManifest('{"x":' + '['.repeat(100) + ']'.repeat(100) + '}')).toThrow(expect.objectContaining({ code: 'E_JSON_DEPTH' }));
    expect(parseManifest('\ufeff{"dependencies":{"@acme/a":"^1"}}').dependencies).toEqual({ '@acme/a': '^1' });
  });
});


describe('ctxpkg.json members are checked by name (a typo never falls back to a default)', () => {
  const codeOf = (text: string): unknown => {
    try {
      parseManifest(text, '/p/ctxpkg.json');
    } catch (e) {
      return e;
    }
    return undefined;
  };
  it('an unknown top-level member is E_MANIFEST naming it and the file, with the valid names', () => {
    expect(codeOf('{"dependencies":{},"contexts":{}}')).toMatchObject({
      code: 'E_MANIFEST',
      message: '/p/ctxpkg.json: unknown member "contexts"',
      hint: expect.stringContaining('dependencies, registry, registries, trust, context'),
    });
  });
  it('trust.require_signatures (plural) is refused instead of leaving signatures required silently', () => {
    expect(codeOf('{"trust":{"require_signatures":false}}')).toMatchObject({
      code: 'E_MANIFEST',
      message: '/p/ctxpkg.json: unknown member "trust.require_signatures"',
      hint: expect.stringContaining('require_signature'),
    });
  });
  it('context members are checked by the pack policy parser on load: context.pinz is refused naming it', () => {
    const e = codeOf('{"context":{"pinz":["@acme/x"]}}') as { code: string; message: string };
    expect(e.code).toBe('E_INVALID_JSON');
    expect(e.message).toBe('ctxpkg.json: context: pinz unknown member');
    expect(parseManifest('{"context":{"pins":["@acme/x#AGENTS.md:rules~0a1b2c3d"]}}').extra.context).toEqual({ pins: ['@acme/x#AGENTS.md:rules~0a1b2c3d'] });
  });
});
