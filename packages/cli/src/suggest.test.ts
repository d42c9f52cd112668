import { describe, expect, it } from 'vitest';
import { closeBoundScopes, closest, editDistance, scopeSuggestion } from './suggest.js';

describe('editDistance (optimal string alignment)', () => {
  it.each([
    ['acme', 'acme', 0],
    ['acmee', 'acme', 1],
    ['agnets', 'agents', 1],
    ['acme', 'amce', 1],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
    ['ca', 'abc', 3],
  ] as const)('%j → %j is %d', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
  it('texts over 128 code units are never close', () => {
    expect(editDistance('a'.repeat(129), 'a'.repeat(128))).toBe(Infinity);
  });
});

describe('closest (cargo threshold: max(len, 3) / 3)', () => {
  it('keeps close candidates, closest first then by text, at most 3, never the word itself', () => {
    expect(closest('agnets', ['agents', 'agent', 'rules', 'agnets', 'other'])).toEqual(['agents', 'agent']);
    expect(closest('@acme/agnets', ['@acme/agents', '@acme/rules'], 3, 2)).toEqual(['@acme/agents']);
    expect(closest('kb', ['kc', 'ab', 'xy'])).toEqual(['ab', 'kc']);
    expect(closest('a', ['b', 'c', 'd', 'e'])).toEqual(['b', 'c', 'd']);
    expect(closest('acme', ['zzzz'])).toEqual([]);
  });
});

describe('scope suggestions', () => {
  const bound = { '@acme': 'http://a.test/api', '@beta': 'http://b.test/api' };
  it('names the close bound scope and its registry', () => {
    expect(closeBoundScopes('@acmee/agents', bound)).toEqual([{ scope: '@acme', registry: 'http://a.test/api' }]);
    expect(scopeSuggestion('@acmee/agents', bound)).toBe('did you mean @acme/agents? (scope @acme is bound to http://a.test/api)');
    expect(scopeSuggestion('@zzzz/agents', bound)).toBeUndefined();
    expect(scopeSuggestion('agents', bound)).toBeUndefined();
  });
});
