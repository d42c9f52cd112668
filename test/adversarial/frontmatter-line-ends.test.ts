/**
 * Issue 11 — rule files with odd line ends: CR only (old Mac), CRLF, or CR/CRLF/LF mixed.
 *
 * Before: frontmatter was found only at LF line ends, so `---\rglobs: src/**\r---\r…` had no
 * frontmatter — its scope (globs / paths / applyTo) and description were silently lost and the
 * rule became always-on, with the YAML read as body text. Now frontmatter lines end at CR, CRLF
 * and LF alike; each form gets the scope of its LF form, and every line number stays a
 * provenance line (split at LF, spec/format.md "Line ends") whose hash matches the node.
 */
import { describe, expect, it } from 'vitest';
import type { ContextGraph } from '@ctxpkg/format';
import { buildGraph } from '../../packages/cli/src/importers/index.js';
import { sourceHash, splitLines } from '../../packages/cli/src/importers/provenance.js';
import type { SourceFile } from '../../packages/cli/src/importers/types.js';

/** Rule files (frontmatter lines, body lines) of the three scoped kinds. */
const RULES: Array<{ path: string; kind: SourceFile['kind']; front: string[]; globs: string[] }> = [
  {
    path: '.cursor/rules/x.mdc',
    kind: 'cursor-rule',
    front: ['description: Database access rules', 'globs: src/**, lib/*.ts', 'alwaysApply: false'],
    globs: ['src/**', 'lib/*.ts'],
  },
  { path: '.claude/rules/x.md', kind: 'claude-md', front: ['paths:', '  - "src/**"', '  - lib/*.ts'], globs: ['src/**', 'lib/*.ts'] },
  {
    path: '.github/instructions/x.instructions.md',
    kind: 'copilot-scoped',
    front: ['applyTo: "src/**,lib/*.ts"', 'description: Database access rules'],
    globs: ['src/**', 'lib/*.ts'],
  },
];
const BODY = ['# Database', '- Use the pool, never a bare connection.', ''];

/** `lines` joined by the line ends `ends` (cycled); a final line end after the last line. */
const join = (lines: string[], ends: string[]): string => lines.map((l, i) => l + ends[i % ends.length]).join('');
const FORMS: Record<string, string[]> = { LF: ['\n'], CRLF: ['\r\n'], CR: ['\r'], mixed: ['\r', '\r\n', '\n'], 'mixed-2': ['\n', '\r'] };

const scopes = (g: ContextGraph): string[] => g.nodes.filter((n) => n.type === 'scope').map((n) => n.content);

/** Every node's lines are lines of the file (split as provenance splits) and its hash is theirs. */
function provenanceHolds(g: ContextGraph, text: string): void {
  const lines = splitLines(text);
  for (const n of g.nodes) {
    expect(n.line_start, n.id).toBeGreaterThanOrEqual(1);
    expect(n.line_end, n.id).toBeLessThanOrEqual(lines.length);
    expect(n.source, n.id).toBe(sourceHash(lines, n.line_start as number, n.line_end as number));
  }
  // A scope node sits on the line that says its glob.
  for (const n of g.nodes.filter((x) => x.type === 'scope')) expect(lines[(n.line_start as number) - 1], n.id).toContain(n.content);
}

describe('frontmatter under CR, CRLF and mixed line ends', () => {
  for (const rule of RULES) {
    const lfText = join(['---', ...rule.front, '---', ...BODY], ['\n']);
    const lf = buildGraph([{ path: rule.path, kind: rule.kind, text: lfText }]);

    it(`${rule.path}: the LF form is scoped (the reference)`, () => {
      expect(scopes(lf)).toEqual(rule.globs);
    });

    for (const [form, ends] of Object.entries(FORMS)) {
      it(`${rule.path} with ${form} line ends keeps its scope and provenance`, () => {
        const text = join(['---', ...rule.front, '---', ...BODY], ends);
        const g = buildGraph([{ path: rule.path, kind: rule.kind, text }]);
        expect(scopes(g)).toEqual(rule.globs);
        expect(g.edges.filter((e) => e.type === 'applies_to')).toHaveLength(rule.globs.length);
        // The frontmatter is not read as body text.
        for (const n of g.nodes) expect(n.content, n.id).not.toMatch(/globs:|paths:|applyTo:|alwaysApply|^---/);
        // The rule itself is still there.
        expect(g.nodes.some((n) => n.content.includes('Use the pool, never a bare connection.'))).toBe(true);
        provenanceHolds(g, text);
        if (form === 'CRLF') expect(g).toEqual(lf);
        if (form === 'CR') for (const n of g.nodes) expect([n.line_start, n.line_end], n.id).toEqual([1, 1]);
      });
    }
  }

  it('a closing fence ended by a CR inside a line: the body starts after that CR, on that line', () => {
    const text = '---\nglobs: src/**\n---\r# Database\n\n- Use the pool.\n';
    const g = buildGraph([{ path: '.cursor/rules/x.mdc', kind: 'cursor-rule', text }]);
    expect(scopes(g)).toEqual(['src/**']);
    const root = g.nodes.find((n) => n.id === '.cursor/rules/x.mdc');
    expect(root?.content).toBe('Database');
    provenanceHolds(g, text);
    expect(g.nodes.find((n) => n.type === 'scope')?.line_start).toBe(2);
  });

  it('frontmatter line numbers count provenance lines: a glob after CR-ended lines is on the LF line it is in', () => {
    const text = '---\ndescription: x\rglobs: a/**\n  \rpaths: b/**\n---\n- Rule.\n';
    const g = buildGraph([{ path: '.cursor/rules/x.mdc', kind: 'cursor-rule', text }]);
    expect(g.nodes.filter((n) => n.type === 'scope').map((n) => [n.content, n.line_start])).toEqual([
      ['a/**', 2],
      ['b/**', 3],
    ]);
    provenanceHolds(g, text);
  });

  it('a YAML error in CR-only frontmatter names its provenance line', () => {
    const text = '---\nglobs: [a\r---\r- r\r';
    expect(() => buildGraph([{ path: '.cursor/rules/x.mdc', kind: 'cursor-rule', text }])).toThrow(/x\.mdc:2: invalid YAML frontmatter/);
  });
});
