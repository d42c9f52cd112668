import { describe, expect, it } from 'vitest';
import { parseQualifiedRef } from './qualified-ref.js';

describe('parseQualifiedRef (spec/merge.md §2)', () => {
  it('splits at the first # a scoped name and a non-empty local id', () => {
    expect(parseQualifiedRef('@acme/m1#a')).toEqual({ package: '@acme/m1', localId: 'a' });
    expect(parseQualifiedRef('@acme/m1#AGENTS.md:testing~3f2a9c1d')).toEqual({ package: '@acme/m1', localId: 'AGENTS.md:testing~3f2a9c1d' });
    expect(parseQualifiedRef('@acme/m1#a#b')).toEqual({ package: '@acme/m1', localId: 'a#b' });
  });
  it('refuses everything else', () => {
    for (const r of ['a', '#a', '@acme/m1', '@acme/m1#', 'acme/m1#a', '@Acme/m1#a', '@acme/m_1#a', '@a/m1#a', '@acme/m1/x#a', '@acme/m1#a\u0000', 'legacy#a']) {
      expect(parseQualifiedRef(r), r).toBeUndefined();
    }
  });
});
