import { describe, expect, it } from 'vitest';
import { arrayElementRanges, importJsonSource } from './json-source.js';

const SRC = `{
  "format": "ctxpkg-source-v1",
  "title": "Auth",
  "nodes": [
    { "id": "jwt", "type": "gotcha", "content": "JWT secrets rotate every 24h",
      "confidence": 0.9, "scope": ["src/auth/**"] },
    {
      "id": "mutex",
      "type": "convention",
      "content": "Use a mutex around token refresh"
    }
  ],
  "edges": [ { "from": "jwt", "to": "mutex", "type": "relates_to", "weight": 0.5 } ]
}
`;

describe('JSON source format', () => {
  it('finds element ranges', () => {
    const r = arrayElementRanges(SRC, 'nodes');
    expect(r).toHaveLength(2);
    expect(SRC.slice(r[1][0], r[1][1]).trim().startsWith('{')).toBe(true);
    expect(SRC.slice(r[1][0], r[1][1]).endsWith('}')).toBe(true);
  });
  it('imports nodes with line ranges, scope and edges', () => {
    const g = importJsonSource({ path: 'kb.json', kind: 'json-source', text: SRC });
    const jwt = g.nodes.find((n) => n.id === 'jwt')!;
    expect(jwt).toMatchObject({ type: 'gotcha', line_start: 5, line_end: 6, confidence: 0.9, file_path: 'kb.json' });
    expect(g.nodes.find((n) => n.id === 'mutex')).toMatchObject({ line_start: 7, line_end: 11 });
    expect(g.nodes.find((n) => n.type === 'scope')).toMatchObject({ content: 'src/auth/**', line_start: 5 });
    expect(g.edges).toContainEqual({ from: 'jwt', to: 'mutex', type: 'relates_to', weight: 0.5 });
    expect(g.edges).toContainEqual({ from: 'kb.json', to: 'jwt', type: 'contains', weight: 1.0 });
  });
  it('rejects bad input with file:line', () => {
    const dup = SRC.replace('"id": "mutex"', '"id": "jwt"');
    expect(() => importJsonSource({ path: 'kb.json', kind: 'json-source', text: dup })).toThrow(/kb\.json:7: duplicate node id/);
    expect(() => importJsonSource({ path: 'kb.json', kind: 'json-source', text: '{"format":"x","nodes":[]}' })).toThrow(/format/);
    const dangling = SRC.replace('"to": "mutex"', '"to": "nope"');
    expect(() => importJsonSource({ path: 'kb.json', kind: 'json-source', text: dangling })).toThrow(/kb\.json:13/);
    expect(() => importJsonSource({ path: 'kb.json', kind: 'json-source', text: '{"__proto__":{}}' })).toThrow(/forbidden/);
  });

  it('accepts qualified ids of other packages in edge ends and supersedes, and reports them', () => {
    const text = SRC.replace('"to": "mutex"', '"to": "@acme/m1#a"').replace('"confidence": 0.9,', '"confidence": 0.9, "supersedes": "@acme/old#jwt",');
    const g = importJsonSource({ path: 'kb.json', kind: 'json-source', text }, { package: '@acme/m2' });
    expect(g.edges).toContainEqual({ from: 'jwt', to: '@acme/m1#a', type: 'relates_to', weight: 0.5 });
    expect(g.nodes.find((n) => n.id === 'jwt')!.supersedes).toBe('@acme/old#jwt');
    expect(g.crossRefs).toEqual([
      { file: 'kb.json', line: 5, field: 'nodes[0].supersedes', ref: '@acme/old#jwt', package: '@acme/old' },
      { file: 'kb.json', line: 13, field: 'edges[0].to', ref: '@acme/m1#a', package: '@acme/m1' },
    ]);
    const fromOther = SRC.replace('"from": "jwt"', '"from": "@acme/m1#a"');
    expect(importJsonSource({ path: 'kb.json', kind: 'json-source', text: fromOther }).edges).toContainEqual({ from: '@acme/m1#a', to: 'mutex', type: 'relates_to', weight: 0.5 });
  });
  it('refuses malformed, self-naming and both-ends-foreign qualified ids with file:line', () => {
    const imp = (text: string) => () => importJsonSource({ path: 'kb.json', kind: 'json-source', text }, { package: '@acme/m2' });
    expect(imp(SRC.replace('"to": "mutex"', '"to": "@Acme/m1#a"'))).toThrow(/kb\.json:13: edges\[0\]\.to "@Acme\/m1#a" is not a qualified id/);
    expect(imp(SRC.replace('"to": "mutex"', '"to": "@acme/m1#"'))).toThrow(/kb\.json:13: edges\[0\]\.to .* is not a qualified id/);
    expect(imp(SRC.replace('"to": "mutex"', '"to": "@acme/m2#mutex"'))).toThrow(/kb\.json:13: edges\[0\]\.to "@acme\/m2#mutex" names this package \(@acme\/m2\): use the local id "mutex"/);
    expect(imp(SRC.replace('"from": "jwt", "to": "mutex"', '"from": "@acme/x#1", "to": "@acme/y#2"'))).toThrow(/kb\.json:13: edges\[0\] has no end in this file/);
    expect(imp(SRC.replace('"confidence": 0.9,', '"confidence": 0.9, "supersedes": "@acme/m2#mutex",'))).toThrow(/kb\.json:5: nodes\[0\]\.supersedes .* names this package/);
    expect(imp(SRC.replace('"to": "mutex"', '"to": 7'))).toThrow(/kb\.json:13: edges\[0\]\.to must be a node id/);
  });
});
