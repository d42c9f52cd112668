/**
 * Issue 11 — hostile YAML frontmatter in rule files (.mdc, *.instructions.md, .claude/rules).
 *
 * Before: an alias gave a plain ReferenceError (undefined anchor, or the parser's own alias-bomb
 * guard) or was silently dropped — `globs: *a` left the rule unscoped; 20,000 `[` (40 KB) killed
 * the process with a fatal V8 out-of-memory (not catchable); deep block nesting surfaced the
 * parser's stack overflow. Now every failure is an E_SOURCE CtxpkgError naming file:line, deep
 * nesting is refused by a linear pre-scan before the parser runs, and nothing is printed.
 */
import { describe, expect, it, vi } from 'vitest';
import { CtxpkgError } from '@ctxpkg/format';
import { buildGraph } from '../../packages/cli/src/importers/index.js';
import { MAX_YAML_NESTING, parseFrontmatter } from '../../packages/cli/src/importers/frontmatter.js';
import { splitLines } from '../../packages/cli/src/importers/provenance.js';

const PATHS = [
  ['.cursor/rules/x.mdc', 'cursor-rule'],
  ['.github/instructions/x.instructions.md', 'copilot-scoped'],
  ['.claude/rules/x.md', 'claude-md'],
] as const;

function refused(front: string, path = '.cursor/rules/x.mdc', kind: (typeof PATHS)[number][1] = 'cursor-rule'): CtxpkgError {
  try {
    buildGraph([{ path, kind, text: `---\n${front}\n---\n# Rules\n\n- Use x.\n` }]);
  } catch (e) {
    expect(e, String(e)).toBeInstanceOf(CtxpkgError);
    return e as CtxpkgError;
  }
  throw new Error(`not refused: ${front.slice(0, 60)}`);
}

const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...'bcdefghi'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill('*' + 'abcdefghi'[i]).join(',')}]`), 'paths: *i'].join('\n');

/** Hostile frontmatter and the file line each one must be refused at (frontmatter starts at line 2). */
const CASES: Array<[string, string, number]> = [
  ['alias as the scope', 'a: &a "src/**"\nglobs: *a', 3],
  ['alias in a scope list', 'a: &a "src/**"\napplyTo: [*a, "b/**"]', 3],
  ['undefined alias', 'description: x\npaths: *nope', 3],
  ['alias as a key', 'a: &a globs\n*a : "src/**"', 3],
  ['merge key with alias', 'b: &b {globs: "a/**"}\n<<: *b', 3],
  ['alias as the description', 'd: &d hi\ndescription: *d', 3],
  ['billion laughs (the first alias)', bomb, 3],
  ['duplicate keys', 'globs: a\nglobs: b', 3],
  ['unclosed flow list', 'globs: [a', 3],
  ['directive without document', '%YAML 1.2', 3],
  ['deep flow lists', 'globs: ' + '['.repeat(20_000) + ']'.repeat(20_000), 2],
  ['deep flow maps, unclosed', 'globs: ' + '{a: '.repeat(20_000), 2],
  ['deep flow across lines', 'globs:\n' + '[\n'.repeat(100), 3 + MAX_YAML_NESTING],
  ['deep block maps', Array.from({ length: 3_000 }, (_, i) => ' '.repeat(i) + 'a:').join('\n'), 2 + MAX_YAML_NESTING],
  ['deep compact sequences', 'globs:\n  ' + '- '.repeat(5_000) + 'x', 3],
  ['brackets behind an apostrophe', "description: it's\nglobs: " + '['.repeat(5_000), 3],
  ['deep flow, CR line ends (one provenance line)', 'globs:\r' + '[\r'.repeat(100), 2],
];

describe('issue 11: hostile frontmatter is E_SOURCE naming file:line', () => {
  for (const [name, front, line] of CASES) {
    it(name, () => {
      const warn = vi.spyOn(process, 'emitWarning');
      for (const [path, kind] of PATHS) {
        const e = refused(front, path, kind);
        expect(e.code).toBe('E_SOURCE');
        expect(e.message.startsWith(`${path}:${line}: invalid YAML frontmatter: `), e.message).toBe(true);
      }
      expect(warn).not.toHaveBeenCalled();
      warn.mockRestore();
    });
  }
});

describe('issue 11: frontmatter that only looks hostile is read', () => {
  it('brackets inside quoted scalars, comments and block scalars, nesting up to the limit', () => {
    const front = [
      `description: "${'['.repeat(40)} see below"`,
      `# ${'{'.repeat(40)}`,
      'notes: |',
      `  ${'['.repeat(40)}`,
      ...Array.from({ length: 40 }, (_, i) => '  ' + ' '.repeat(i) + 'step'),
      `nested: ${'['.repeat(MAX_YAML_NESTING - 1)}${']'.repeat(MAX_YAML_NESTING - 1)}`,
      "globs: ['src/**', \"lib/it's/**\"]",
    ].join('\n');
    const fm = parseFrontmatter(splitLines(`---\n${front}\n---\nx\n`), 'x.mdc');
    expect(fm.globs).toEqual([{ glob: 'src/**', line: 2 + 45 }, { glob: "lib/it's/**", line: 2 + 45 }]);
    expect(fm.description).toBe(`${'['.repeat(40)} see below`);
  });

  it('collection keys and tags print nothing (toJS warned on the process)', () => {
    const warn = vi.spyOn(process, 'emitWarning');
    const fm = parseFrontmatter(splitLines('---\n? [a, b]\n: c\n? {a: 1}\n: d\nx: !!set {a, b}\nglobs: src/**\n---\nx\n'), 'x.mdc');
    expect(fm.globs).toEqual([{ glob: 'src/**', line: 7 }]);
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });

  it('a long comma list of globs gets the line of its value (no scan from the start per glob)', () => {
    const front = 'description: x\n'.repeat(1) + '# filler\n'.repeat(20_000) + 'globs: ' + Array.from({ length: 20_000 }, (_, i) => `d${i}/**`).join(',');
    const fm = parseFrontmatter(splitLines(`---\n${front}\n---\nx\n`), 'x.mdc');
    expect(fm.globs.length).toBe(20_000);
    expect(new Set(fm.globs.map((g) => g.line))).toEqual(new Set([2 + 1 + 20_000]));
  });
});
