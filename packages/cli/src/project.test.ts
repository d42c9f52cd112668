import { describe, expect, it } from 'vitest';
import { parseManifest, serializeManifest } from './project.js';

describe('ctxpkg.json', () => {
  it('preserves members owned by others (context) verbatim and in order', () => {
    const text = '{"context":{"budget":1000,"targets":["claude"]},"dependencies":{"@z/b":"^1","@a/c":"2"},"zeta":1}';
    const m = parseManifest(text);
    expect(m.trust.require_signature).toBe(true);
    const out = serializeManifest(m);
    expect(JSON.parse(out)).toEqual({
      dependencies: { '@a/c': '2', '@z/b': '^1' },
      registries: {},
      trust: { require_signature: true },
      context: { budget: 1000, targets: ['claude'] },
      zeta: 1,
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
