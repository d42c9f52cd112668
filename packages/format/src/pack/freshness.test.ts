import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePack } from './compile.js';
import { checkFreshness, freshnessResolver, isSafeRelativePath, isSourceHash } from './freshness.js';
import { graph, node, NOW, srcHash } from './__tests__/graph.js';

const AGENTS = ['# Rules', '', '- Never log tokens.', '- Use pnpm.', '', '## Tests', '- Run `pnpm test`.'].join('\n');

function pkgNodes(pkg = '@acme/own', text = AGENTS) {
  return [
    node(pkg, 'l3', { type: 'gotcha', content: 'Never log tokens.', file_path: 'AGENTS.md', line_start: 3, line_end: 3, source: srcHash(text, 3, 3) }),
    node(pkg, 'l4', { type: 'convention', content: 'Use pnpm.', file_path: 'AGENTS.md', line_start: 4, line_end: 4, source: srcHash(text, 4, 4) }),
    node(pkg, 'l7', { type: 'procedure', content: 'Run `pnpm test`.', file_path: 'AGENTS.md', line_start: 7, line_end: 7, source: srcHash(text, 7, 7) }),
    node(pkg, 'docs', { type: 'fact', content: 'Docs live in docs/.', file_path: 'docs/README.md', line_start: 1, line_end: 1, source: srcHash('Docs live in docs/.', 1, 1) }),
  ];
}

describe('checkFreshness', () => {
  it('is fresh when the source lines match (CRLF and BOM tolerated)', () => {
    const files: Record<string, string> = { 'AGENTS.md': '\ufeff' + AGENTS.replace(/\n/g, '\r\n'), 'docs/README.md': 'Docs live in docs/.\n' };
    const f = checkFreshness(pkgNodes(), (p) => files[p] ?? null, 'auto');
    expect([...f.values()]).toEqual(['fresh', 'fresh', 'fresh', 'fresh']);
  });

  it('reports stale after editing a source line and absent after deleting a file', () => {
    const edited = AGENTS.replace('Use pnpm.', 'Use npm.');
    const files: Record<string, string> = { 'AGENTS.md': edited };
    const f = checkFreshness(pkgNodes(), (p) => files[p] ?? null, 'auto');
    expect(Object.fromEntries(f)).toEqual({ '@acme/own#l3': 'fresh', '@acme/own#l4': 'stale', '@acme/own#l7': 'fresh', '@acme/own#docs': 'absent' });
  });

  it('treats a range past the end of the file as stale', () => {
    const f = checkFreshness(pkgNodes(), (p) => (p === 'AGENTS.md' ? '# Rules\n\n- Never log tokens.' : null), 'all');
    expect(f.get('@acme/own#l7')).toBe('stale');
  });

  it('auto: leaves packages built elsewhere unchecked; all: checks them', () => {
    const foreign = pkgNodes('@other/pkg', AGENTS.replace('Never', 'Always'));
    const files: Record<string, string> = { 'AGENTS.md': 'unrelated\ncontent' };
    expect(checkFreshness(foreign, (p) => files[p] ?? null, 'auto').size).toBe(0);
    expect(checkFreshness(foreign, (p) => files[p] ?? null, 'all').get('@other/pkg#l3')).toBe('stale');
    expect(checkFreshness(foreign, (p) => files[p] ?? null, 'none').size).toBe(0);
    expect(checkFreshness(foreign, (p) => files[p] ?? null, ['@other/pkg']).size).toBe(4);
  });

  it('never asks the reader for unsafe paths and reads each file once', () => {
    const asked: string[] = [];
    const nodes = [...pkgNodes(), node('@acme/own', 'evil', { file_path: '../../etc/passwd', line_start: 1, line_end: 1, source: 'sha256:' + '0'.repeat(64) })];
    checkFreshness(nodes, (p) => {
      asked.push(p);
      return p === 'AGENTS.md' ? AGENTS : null;
    }, 'auto');
    expect(asked).toEqual(['AGENTS.md', 'docs/README.md']);
    for (const bad of ['/etc/passwd', '../x', 'a/../b', 'a//b', 'C:/x', 'a\\b', '']) expect(isSafeRelativePath(bad)).toBe(false);
    expect(isSafeRelativePath('a/b.md')).toBe(true);
  });
});

describe('freshnessResolver (lazy)', () => {
  it('answers exactly like checkFreshness, per node, for every scope', () => {
    const texts = [AGENTS, AGENTS.replace('Use pnpm.', 'Use npm.'), 'unrelated', null] as const;
    fc.assert(
      fc.property(
        fc.array(fc.record({ pkg: fc.constantFrom('@a/one', '@b/two'), line: fc.integer({ min: 1, max: 9 }), file: fc.constantFrom('AGENTS.md', 'docs/README.md', 'x.md', '../bad') }), { maxLength: 12 }),
        fc.constantFrom(...texts),
        fc.constantFrom(...texts),
        fc.constantFrom<'auto' | 'all' | 'none' | string[]>('auto', 'all', 'none', ['@a/one']),
        fc.boolean(),
        (rows, agents, readme, scope, order) => {
          const nodes = rows.map((r, i) => node(r.pkg, `n${i}`, { file_path: r.file, line_start: r.line, line_end: r.line, source: srcHash(AGENTS, r.line, r.line) }));
          const files: Record<string, string | null> = { 'AGENTS.md': agents, 'docs/README.md': readme };
          const read = (p: string): string | null | undefined => {
            // Neither form may ask the reader about a path that is not a safe relative one.
            if (!isSafeRelativePath(p)) throw new Error(`read ${p}`);
            return p in files ? files[p] : p === 'x.md' ? undefined : null;
          };
          const eager = checkFreshness(nodes, read, scope);
          const lazy = freshnessResolver(nodes, read, scope);
          for (const n of order ? nodes : [...nodes].reverse()) expect(lazy(n)).toBe(eager.get(n.id) ?? 'unchecked');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads nothing for a node nobody asks about', () => {
    const asked: string[] = [];
    const resolve = freshnessResolver(pkgNodes(), (p) => (asked.push(p), p === 'AGENTS.md' ? AGENTS : null), 'all');
    expect(asked).toEqual([]);
    expect(resolve(pkgNodes()[0]!)).toBe('fresh');
    expect(asked).toEqual(['AGENTS.md']);
  });
});

describe('pack freshness policy', () => {
  const files: Record<string, string> = { 'AGENTS.md': AGENTS.replace('Use pnpm.', 'Use npm.') };
  const read = (p: string): string | null => files[p] ?? null;

  it('flag (default): stale and absent nodes are delivered with a visible flag', () => {
    const p = compilePack({ graph: graph(pkgNodes()), maxBytes: 64 * 1024, now: NOW, read });
    expect(p.receipt.omissions).toEqual([]);
    expect(p.text).toContain('(ctxpkg: STALE — ');
    expect(p.text).toContain('(ctxpkg: ABSENT — ');
    expect(p.receipt.delivered.find((d) => d.id === '@acme/own#l4')?.flags).toEqual(['stale']);
    expect(p.receipt.counts.flagged).toBe(2);
  });

  it('omit: stale and absent nodes are omitted with their reason', () => {
    const p = compilePack({ graph: graph(pkgNodes()), maxBytes: 64 * 1024, now: NOW, read, policy: { stale: 'omit' } });
    expect(p.receipt.omissions.map((o) => [o.id, o.reason])).toEqual([
      ['@acme/own#docs', 'absent'],
      ['@acme/own#l4', 'stale'],
    ]);
  });

  it('flag: only the files of nodes the budget selection considers are read', () => {
    // Sizes grow along the order (activation falls), so most candidates cannot fit what is left.
    const nodes = Array.from({ length: 400 }, (_, i) => node('@acme/own', `n${i}`, { content: `note ${i} `.repeat(20 + i), activation: 1 - i / 1000, file_path: `f${i}.md`, line_start: 1, line_end: 1, source: srcHash(`note ${i}`, 1, 1) }));
    const asked = new Set<string>();
    const p = compilePack({ graph: graph(nodes), maxBytes: 4096, now: NOW, read: (f) => (asked.add(f), f === 'f0.md' ? 'note 0' : 'changed'), policy: { freshness: 'all' } });
    expect(p.receipt.counts.delivered).toBeGreaterThan(0);
    for (const d of p.receipt.delivered) expect(asked.has(`f${d.id.split('#n')[1]}.md`)).toBe(true);
    expect(asked.size).toBeLessThan(400);
    expect(p.receipt.delivered.every((d) => d.id === '@acme/own#n0' || d.flags.includes('stale'))).toBe(true);
  });
});

describe('isSourceHash (a checkable node\'s `source`)', () => {
  const RULE = /^sha256:[0-9a-f]{64}$/;
  const hexish = fc.string({ unit: fc.constantFrom('0', '9', 'a', 'f', 'g', 'A', 'F', ':', '\n', 'é'), minLength: 60, maxLength: 68 });
  it('is the expression /^sha256:[0-9a-f]{64}$/', () => {
    fc.assert(
      fc.property(fc.constantFrom('sha256:', 'sha256', 'SHA256:', 'sha512:', ''), hexish, fc.constantFrom('', '\n', 'a'), (prefix, body, tail) => {
        const s = prefix + body + tail;
        expect(isSourceHash(s)).toBe(RULE.test(s));
      }),
      { numRuns: 3000 },
    );
    const ok = 'sha256:' + 'a'.repeat(64);
    expect(isSourceHash(ok)).toBe(true);
    for (const bad of [ok + '\n', ok.slice(0, -1), ok.slice(0, -1) + 'A', ok.slice(0, -1) + 'g', 'sha256:' + 'a'.repeat(65), 'Sha256:' + 'a'.repeat(64)]) expect(isSourceHash(bad)).toBe(false);
  });

  it('a node of an unsafe path is not checkable, whatever path was asked about before (the remembered verdict)', () => {
    const text = 'line one';
    const read = (p: string): string | null => (p === 'A.md' || p === '../A.md' ? text : null);
    const src = srcHash(text, 1, 1);
    const nodes = [
      node('@a/b', 'one', { file_path: 'A.md', line_start: 1, line_end: 1, source: src }),
      node('@a/b', 'two', { file_path: '../A.md', line_start: 1, line_end: 1, source: src }),
      node('@a/b', 'three', { file_path: 'A.md', line_start: 1, line_end: 1, source: src }),
    ];
    const f = checkFreshness(nodes, read, 'all');
    expect(f.get('@a/b#one')).toBe('fresh');
    expect(f.get('@a/b#two')).toBeUndefined();
    expect(f.get('@a/b#three')).toBe('fresh');
  });
});
