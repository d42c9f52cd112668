import { describe, expect, it } from 'vitest';
import { undeclaredRefWarnings } from './create.js';

describe('create: cross-package references against --dep', () => {
  const refs = [
    { file: 'b.json', line: 9, field: 'edges[1].to', ref: '@acme/m1#b', package: '@acme/m1' },
    { file: 'a.json', line: 4, field: 'edges[0].to', ref: '@acme/rival#x', package: '@acme/rival' },
    { file: 'a.json', line: 3, field: 'nodes[0].supersedes', ref: '@acme/m1#a', package: '@acme/m1' },
  ];
  it('warns (sorted by file and line) only for packages that are not declared dependencies', () => {
    expect(undeclaredRefWarnings(refs, ['@acme/m1@^1'])).toEqual([
      'a.json:4: edges[0].to names @acme/rival#x, but @acme/rival is not a declared dependency (--dep @acme/rival@<range>); the reference takes effect only in projects that install @acme/rival too, and is dropped elsewhere (spec/merge.md §2)',
    ]);
    expect(undeclaredRefWarnings(refs, []).map((w) => w.slice(0, 8))).toEqual(['a.json:3', 'a.json:4', 'b.json:9']);
    expect(undeclaredRefWarnings(refs, ['@acme/m1', '@acme/rival@1.2.0'])).toEqual([]);
  });
});
