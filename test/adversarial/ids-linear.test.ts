/**
 * Issue 11 — unique node-id allocation in the importers is linear in the number of nodes.
 *
 * Before: every copy of a base id probed `<base>`, `<base>.2`, `<base>.3`, … from the start, so a
 * Markdown file of n identical bullets (or headings) checked n²/2 ids: 20,000 bullets, 100 s.
 * Now each base remembers its next suffix. The ids themselves are unchanged (spec/format.md §16):
 * checked against the former probing allocator on random base sequences.
 *
 * No time is asserted: the allocator's probe count, and the number of `Set#has` calls a whole
 * import makes as its input grows 4×.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdAllocator } from '../../packages/cli/src/importers/ids.js';
import { importMarkdown } from '../../packages/cli/src/importers/markdown.js';
import { buildGraph } from '../../packages/cli/src/importers/index.js';
import { toGraphView, type PackageContent } from '@ctxpkg/format';

/** The former allocator: probes from `.2` on every take (the oracle for the ids). */
function naiveIds(bases: string[]): string[] {
  const used = new Set<string>();
  return bases.map((base) => {
    let id = base;
    for (let k = 2; used.has(id); k++) id = `${base}.${k}`;
    used.add(id);
    return id;
  });
}

/** `Set#has` calls made while `fn` runs (every id probe is one; other users are linear). */
function setHasCalls(fn: () => void): number {
  const has = Set.prototype.has;
  let calls = 0;
  Set.prototype.has = function (this: Set<unknown>, v: unknown): boolean {
    calls++;
    return has.call(this, v);
  };
  try {
    fn();
  } finally {
    Set.prototype.has = has;
  }
  return calls;
}

describe('issue 11: IdAllocator', () => {
  it('takes n copies of one base with at most 2 probes each', () => {
    for (const n of [1_000, 50_000]) {
      const a = new IdAllocator();
      let last = '';
      for (let i = 0; i < n; i++) last = a.take('AGENTS.md:~3f2a9c1d');
      expect(last).toBe(`AGENTS.md:~3f2a9c1d.${n}`);
      expect(a.probes).toBeLessThanOrEqual(2 * n);
    }
  });

  it('gives the same ids as the former allocator, also when a suffixed id is another base', () => {
    const base = fc.constantFrom('a', 'a.2', 'a.3', 'a.2.2', 'b', 'b.2', 'a.10', 'x:~1', 'x:~1.2');
    fc.assert(
      fc.property(fc.array(base, { maxLength: 60 }), (bases) => {
        const a = new IdAllocator();
        expect(bases.map((b) => a.take(b))).toEqual(naiveIds(bases));
      }),
      { numRuns: 500 },
    );
  });
});

describe('issue 11: importing many identical blocks is linear', () => {
  const CASES: Record<string, (n: number) => string> = {
    'identical bullets': (n) => '- Same rule.\n'.repeat(n),
    'identical headings': (n) => '## Same\n\nSame text.\n\n'.repeat(n),
    'identical paragraphs under identical nested headings': (n) => '# A\n\n## B\n\nSame.\n\n'.repeat(n),
    'identical quotes and code': (n) => '> Same.\n\n```sh\nnpm test\n```\n\n'.repeat(n),
  };
  for (const [name, make] of Object.entries(CASES)) {
    it(`${name}: 4× the blocks make at most 6× the set probes`, () => {
      const work = (n: number): number =>
        setHasCalls(() => {
          const r = importMarkdown({ path: 'AGENTS.md', kind: 'agents-md', text: make(n) });
          expect(new Set(r.nodes.map((x) => x.id)).size).toBe(r.nodes.length);
        });
      const small = work(500);
      const large = work(2_000);
      expect(large / small, `${small} → ${large}`).toBeLessThan(6);
    });
  }

  it('ids of duplicates stay those of spec/format.md §16 (document order, .2, .3, …)', () => {
    const g = buildGraph([{ path: 'AGENTS.md', kind: 'agents-md', text: '## A\n\n- Same.\n- Same.\n\n## A\n\n- Same.\n- Same.\n' }]);
    expect(g.nodes.map((x) => x.id)).toEqual([
      'AGENTS.md',
      'AGENTS.md:a',
      expect.stringMatching(/^AGENTS\.md:a~[0-9a-f]{8}$/),
      expect.stringMatching(/^AGENTS\.md:a~[0-9a-f]{8}\.2$/),
      'AGENTS.md:a.2',
      expect.stringMatching(/^AGENTS\.md:a\.2~[0-9a-f]{8}$/),
      expect.stringMatching(/^AGENTS\.md:a\.2~[0-9a-f]{8}\.2$/),
    ]);
  });
});

describe('issue 11: the v1 → v2 view of a package with many identical keys is linear', () => {
  const fact = (i: number) => ({ category: 'arch', key: 'db', value: `v${i}`, source_session: 's', created_at: '2026-01-01T00:00:00Z', confidence: 1 });
  it('4× the identical facts make at most 6× the set probes; ids are <base>, <base>~2, …', () => {
    const work = (n: number): number =>
      setHasCalls(() => {
        const g = toGraphView({ knowledge: { facts: Array.from({ length: n }, (_, i) => fact(i)) } } as unknown as PackageContent);
        expect(g.nodes[n - 1]?.id).toBe(`fact:arch/db~${n}`);
      });
    const small = work(1_000);
    const large = work(4_000);
    expect(large / small, `${small} → ${large}`).toBeLessThan(6);
  });
});
