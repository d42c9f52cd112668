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
});
