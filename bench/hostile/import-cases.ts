/**
 * `ctxpkg create`'s importers on hostile sources (issue 11): the pure half of create
 * (`buildGraph`: frontmatter, Markdown parse, node ids), worst case vs. an honest file of the same
 * size. A refused input (E_SOURCE) counts as done: the time is what it took to refuse.
 *
 * - identical bullets / headings: every node has the same base id (was quadratic in the id
 *   allocator: 20,000 bullets, 106 s);
 * - nested lists and quotes on one line, step-indented items (were quadratic in the Markdown
 *   parser, then a RangeError: now refused by the nesting pre-scan);
 * - YAML frontmatter: deep flow brackets (20,000 killed the process), an alias bomb, deep block
 *   maps (now refused before the YAML parser runs).
 */
import { buildGraph, type SourceFile } from '../../packages/cli/src/importers/index.js';
import { sized } from '../smoke.js';
import type { Measure } from './run.js';

type Measurer = (fn: () => unknown) => Promise<Measure>;
type Liner = (section: string, label: string, worst: Measure, honest: Measure) => void;

/** Run the importer on `text` as `path`; a CtxpkgError (refusal) is a result, anything else is rethrown. */
function importOnce(path: string, kind: SourceFile['kind'], text: string): () => void {
  return () => {
    try {
      buildGraph([{ path, kind, text }]);
    } catch (e) {
      if ((e as { code?: string }).code !== 'E_SOURCE') throw e;
    }
  };
}

const fill = (unit: (i: number) => string, n: number): string => {
  let t = '';
  for (let i = 0; t.length < n; i++) t += unit(i);
  return t.slice(0, n);
};

/** Print the importer cases at two sizes (characters). */
export async function importCases(measure: Measurer, line: Liner): Promise<void> {
  const sizes = sized([20_000, 80_000], [2_000, 4_000]);
  for (const n of sizes) {
    const honestList = fill((i) => `- Rule ${i}: use the ${i % 7 === 0 ? 'fast' : 'safe'} path for module ${i}.\n`, n);
    const honestHeadings = fill((i) => `## Section ${i}\n\nText of section ${i}.\n\n`, n);
    const md: Array<[string, string, string]> = [
      ['identical bullets', fill(() => '- Same rule.\n', n), honestList],
      ['identical headings', fill(() => '## Same\n\nSame text.\n\n', n), honestHeadings],
      ['nested bullets on one line (- - - … x)', '- '.repeat(n / 2 - 1) + 'x\n', honestList],
      ['nested quotes on one line (> > > … x)', '> '.repeat(n / 2 - 1) + 'x\n', honestList],
      ['step-indented items (one level per line)', fill((i) => '  '.repeat(i) + '- x\n', n), honestList],
    ];
    for (const [label, worst, honest] of md) {
      line('import', `${label}, ${worst.length} chars`, await measure(importOnce('AGENTS.md', 'agents-md', worst)), await measure(importOnce('AGENTS.md', 'agents-md', honest)));
    }
    const body = '\n# Rules\n\n- Use the typed client.\n';
    const honestFront = '---\ndescription: Rules for the API\nglobs:\n' + fill((i) => `  - "src/api/module${i}/**/*.ts"\n`, n - 60) + '---' + body;
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...'bcdefghi'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill('*' + 'abcdefghi'[i]).join(',')}]`), 'globs: *i'].join('\n');
    const front: Array<[string, string]> = [
      ['frontmatter [[[ … (flow depth)', '---\nglobs: ' + '['.repeat(n - 60) + '\n---' + body],
      ['frontmatter deep block maps', '---\n' + fill((i) => ' '.repeat(i % 2_000) + 'a:\n', n - 60) + '---' + body],
      ['frontmatter alias bomb + padding', '---\n' + bomb + '\n' + fill((i) => `# ${i}\n`, n - 60 - bomb.length) + '---' + body],
    ];
    for (const [label, worst] of front) {
      line('import', `${label}, ${worst.length} chars`, await measure(importOnce('.cursor/rules/x.mdc', 'cursor-rule', worst)), await measure(importOnce('.cursor/rules/x.mdc', 'cursor-rule', honestFront)));
    }
  }
}
