/**
 * Issue 11 — the importers' small text rules are linear (also JSON sources' line numbers: each node
 * counted the newlines from the start, quadratic), and odd line endings never crash.
 *
 * Before: four end-anchored RegExps were quadratic in a long inner run (100 k characters each):
 * a table's delimiter row `^\s*\|?\s*…$` 35 s, an ATX heading's closing `\s+#+\s*$` 12 s, a
 * CLAUDE.md import's trailing punctuation `[.,;:)]+$` 18 s, and the managed block body's `\n+$`
 * (sync, package text). A CR-only file (or a stray CR) crashed create with a TypeError: the parser
 * counted CR as a line break, provenance does not. Each rule is checked against its former RegExp
 * on random short texts (the oracle) and run once on its worst case at 1 M characters (50–60 s each at 200 k before) (a
 * super-linear rule shows as a test timeout; no time is asserted).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findClaudeImports } from '../../packages/cli/src/importers/collect.js';
import { buildGraph } from '../../packages/cli/src/importers/index.js';
import { importMarkdown, looksLikeTable } from '../../packages/cli/src/importers/markdown.js';
import { blockHash } from '../../packages/cli/src/targets/blocks.js';
import { lineIndex } from '../../packages/cli/src/importers/json-source.js';
import crypto, { createHash } from 'node:crypto';

const N = 1_000_000;
const chars = (alphabet: string[], maxLength = 40) => fc.array(fc.constantFrom(...alphabet), { maxLength }).map((a) => a.join(''));

describe('issue 11: table delimiter rows', () => {
  const oldRow = (row: string): boolean => /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/.test(row) && row.includes('-');
  it('agree with the former RegExp', () => {
    fc.assert(fc.property(chars(['|', '-', ':', ' ', '\t', 'a', '--', ' | ']), (row) => {
      expect(looksLikeTable(`a | b\n${row}`)).toBe(oldRow(row));
    }), { numRuns: 3_000 });
  });
  it('a long run of white space in the second row', () => {
    expect(looksLikeTable('a|b\n' + ' '.repeat(N) + 'x')).toBe(false);
    expect(looksLikeTable('a|b\n|' + ' '.repeat(N) + '---|')).toBe(true);
  });
});

describe('issue 11: ATX heading text', () => {
  const oldHeading = (line: string): string => line.replace(/^\s{0,3}#+\s*/, '').replace(/\s+#+\s*$/, '').trim();
  const section = (line: string): string | undefined => importMarkdown({ path: 'x.md', kind: 'markdown', text: `intro\n\n${line}\n` }).nodes.find((n) => n.type === 'section' && n.id !== 'x.md')?.content;
  it('agrees with the former RegExp', () => {
    fc.assert(fc.property(chars(['#', ' ', '\t', 'a', 'b', '\\']), (rest) => {
      const line = `## ${rest}`;
      const got = section(line);
      if (got !== undefined) expect(got).toBe(oldHeading(line));
    }), { numRuns: 1_000 });
  });
  it('a long run of white space inside a heading', () => {
    expect(section('# a' + ' '.repeat(N) + 'x #')).toBe('a' + ' '.repeat(N) + 'x');
  });
});

describe('issue 11: CLAUDE.md import punctuation', () => {
  it('agrees with the former RegExp', () => {
    fc.assert(fc.property(chars(['a', '.', '/', '-', '_', 'md', ',', ')', ';', ':']), (ref) => {
      const got = findClaudeImports(`see @${ref}`);
      const m = /(?:^|[\s(])@((?:~\/|\/|(?:\.{1,2}\/)+)?[A-Za-z0-9_.][A-Za-z0-9_.\-/]*)/.exec(`see @${ref}`);
      expect(got.map((g) => g.ref)).toEqual(m ? [(m[1] as string).replace(/[.,;:)]+$/, '')] : []);
    }), { numRuns: 2_000 });
  });
  it('a long inner run of dots', () => {
    expect(findClaudeImports('see @a' + '.'.repeat(N) + 'b.md.')).toEqual([{ ref: 'a' + '.'.repeat(N) + 'b.md', line: 1 }]);
  });
});

describe('issue 11: managed block body', () => {
  const oldHash = (body: string): string => createHash('sha256').update(body.replace(/\r\n?/g, '\n').replace(/\n+$/, ''), 'utf8').digest('hex');
  it('hashes as with the former RegExp', () => {
    fc.assert(fc.property(chars(['\n', '\r', 'a', ' ']), (body) => {
      expect(blockHash(body)).toBe(oldHash(body));
    }), { numRuns: 1_000 });
  });
  it('a long inner run of newlines', () => {
    const body = 'a' + '\n'.repeat(N) + 'b\n\n';
    expect(blockHash(body)).toBe(createHash('sha256').update('a' + '\n'.repeat(N) + 'b').digest('hex'));
  });
});

describe('issue 11: CR line ends', () => {
  const doc = ['# A', '', 'Intro text.', '', '## B', '', '- x', '- y', '', '## C', '', 'z', ''];
  it('a CR-only file imports as one line (provenance splits at LF only) instead of crashing', () => {
    const g = buildGraph([{ path: 'AGENTS.md', kind: 'agents-md', text: doc.join('\r') }]);
    expect(g.nodes.every((n) => n.line_start === 1 && n.line_end === 1)).toBe(true);
    expect(g.nodes.some((n) => n.content.includes('\r'))).toBe(false);
  });
  it('stray CRs inside LF lines keep the parser on the provenance line numbers', () => {
    const text = doc.map((l, i) => (i % 3 === 0 ? l + '\r\r' : l)).join('\n').replace('Intro', 'In\rtro');
    const g = buildGraph([{ path: 'AGENTS.md', kind: 'agents-md', text }]);
    const lines = text.split('\n');
    for (const n of g.nodes) expect(n.line_end as number, n.id).toBeLessThanOrEqual(lines.length);
    expect(g.nodes.find((n) => n.content === 'C')?.line_start).toBe(10);
  });
  it('CRLF files read as LF files', () => {
    const lf = buildGraph([{ path: 'AGENTS.md', kind: 'agents-md', text: doc.join('\n') }]);
    const crlf = buildGraph([{ path: 'AGENTS.md', kind: 'agents-md', text: doc.join('\r\n') }]);
    expect(crlf.nodes.map((n) => [n.id, n.content, n.line_start])).toEqual(lf.nodes.map((n) => [n.id, n.content, n.line_start]));
  });
});

describe('issue 11: JSON source line numbers', () => {
  it('lineIndex agrees with counting newlines from the start', () => {
    fc.assert(fc.property(chars(['\n', 'a', '\r', '{']), fc.nat(50), (text, off) => {
      const offset = Math.min(off, text.length);
      expect(lineIndex(text)(offset)).toBe(1 + (text.slice(0, offset).match(/\n/g)?.length ?? 0));
    }), { numRuns: 2_000 });
  });
  it('a source of 40,000 nodes gets every line without rescanning from the start (5,000 took 5.6 s)', () => {
    const n = 40_000;
    const nodes = Array.from({ length: n }, (_, i) => `{"id":"n${i}","type":"fact","content":"fact ${i}"}`).join(',\n');
    const edges = Array.from({ length: n - 1 }, (_, i) => `{"from":"n${i}","to":"n${i + 1}","type":"relates_to"}`).join(',\n');
    const g = buildGraph([{ path: 'kb.json', kind: 'json-source', text: `{"format":"ctxpkg-source-v1","nodes":[\n${nodes}\n],"edges":[\n${edges}\n]}` }]);
    expect(g.nodes.find((x) => x.id === `n${n - 1}`)?.line_start).toBe(n + 1);
  });
});

describe('issue 11: provenance hashes of nodes that share a line', () => {
  /** Characters passed to SHA-256 while `fn` runs. */
  function hashedChars(fn: () => void): number {
    const proto = (crypto as unknown as { Hash: { prototype: { update: (d: unknown, e?: unknown) => unknown } } }).Hash.prototype;
    const update = proto.update;
    let n = 0;
    proto.update = function (this: unknown, d: unknown, e?: unknown) {
      n += typeof d === 'string' ? d.length : (d as Uint8Array).length;
      return update.call(this, d, e);
    };
    try {
      fn();
    } finally {
      proto.update = update;
    }
    return n;
  }
  const CASES: Array<[string, string, 'cursorrules' | 'cursor-rule', (n: number) => string]> = [
    ['pieces of a run-on line', '.cursorrules', 'cursorrules', (n) => 'Rules: - a - b - c  '.repeat(n)],
    ['globs of one frontmatter line', '.cursor/rules/x.mdc', 'cursor-rule', (n) => '---\nglobs: ' + Array.from({ length: n }, (_, i) => `s${i}/**`).join(',') + '\n---\n- x\n'],
  ];
  for (const [name, path, kind, make] of CASES) {
    it(`${name}: each line is hashed a bounded number of times (was once per node)`, () => {
      const text = make(5_000);
      const hashed = hashedChars(() => buildGraph([{ path, kind, text }]));
      expect(hashed, `${hashed} characters hashed for ${text.length}`).toBeLessThan(8 * text.length);
    });
  }
});
