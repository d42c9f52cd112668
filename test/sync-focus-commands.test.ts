/**
 * The command the AGENTS.md block names for each rule set prints that rule set and nothing else
 * (spec/pack.md §7 "Focus", §11 "Tiers"). New-user trial: the block said
 * `` - `**\/*.ts`, `**\/*.tsx`: run `ctxpkg render --focus '**\/*.ts'` `` and that command printed
 * the TypeScript rules, the `### API endpoints` rules scoped to `src/api/**\/*.py` and, for
 * `--focus '**\/*.md'`, 140 of 244 items (every item of a source file ending in .md): a glob focus
 * took every scope whose literal prefix the glob's (empty) one extended, and every item whose
 * source file it matched. Here the commands are taken from the synced block itself.
 */
import { describe, expect, it } from 'vitest';
import type { MergedNode } from '@ctxpkg/format';
import { makeProject, mgraph, mnode, readFile, run } from '../packages/cli/src/targets/__tests__/harness.js';

const TS = ['Prefer `unknown` to `any` in exported signatures.', 'Components take one props object, typed by an interface.'];
const API = ['Every endpoint validates its body with pydantic.', 'Return 404, never 403, for a resource the caller may not see.'];
const GENERAL = ['Run the whole test suite before you push.', 'Keep markdown lines under 100 characters.'];

function graph() {
  const P = '@acme/rules';
  const nodes: MergedNode[] = [
    mnode(P, 'guide', { type: 'section', content: 'Guide', file_path: 'AGENTS.md', line_start: 1, line_end: 4 }),
    mnode(P, 'ts', { type: 'section', content: 'TypeScript', file_path: '.cursor/rules/typescript.mdc', line_start: 5, line_end: 8 }),
    mnode(P, 'api', { type: 'section', content: 'API endpoints', file_path: '.cursor/rules/python-api.mdc', line_start: 5, line_end: 8 }),
    mnode(P, 's-ts', { type: 'scope', content: '**/*.ts' }),
    mnode(P, 's-tsx', { type: 'scope', content: '**/*.tsx' }),
    mnode(P, 's-api', { type: 'scope', content: 'src/api/**/*.py' }),
    mnode(P, 's-tapi', { type: 'scope', content: 'tests/api/**/*.py' }),
  ];
  const edges: Array<{ from: string; to: string; type: 'contains' | 'applies_to' }> = [
    { from: `${P}#ts`, to: `${P}#s-ts`, type: 'applies_to' },
    { from: `${P}#ts`, to: `${P}#s-tsx`, type: 'applies_to' },
    { from: `${P}#api`, to: `${P}#s-api`, type: 'applies_to' },
    { from: `${P}#api`, to: `${P}#s-tapi`, type: 'applies_to' },
  ];
  const add = (section: string, prefix: string, texts: string[], file: string) =>
    texts.forEach((content, i) => {
      nodes.push(mnode(P, `${prefix}${i}`, { type: 'convention', content, file_path: file, line_start: 6 + i, line_end: 6 + i }));
      edges.push({ from: `${P}#${section}`, to: `${P}#${prefix}${i}`, type: 'contains' });
    });
  add('ts', 't', TS, '.cursor/rules/typescript.mdc');
  add('api', 'a', API, '.cursor/rules/python-api.mdc');
  add('guide', 'g', GENERAL, 'AGENTS.md');
  return mgraph(nodes, edges);
}

/** Which of the three groups of rules `text` holds. */
const holds = (text: string) => ({ ts: TS.filter((t) => text.includes(t)).length, api: API.filter((t) => text.includes(t)).length, general: GENERAL.filter((t) => text.includes(t)).length });

describe('the command the AGENTS.md block names for a rule set prints that set only', () => {
  it('two rule sets: each command from the synced block prints its own rules, none of the other set and no unscoped rule', async () => {
    const root = makeProject({ files: { 'AGENTS.md': '# Project\n' }, graph: graph(), context: { sync: { targets: ['agents-md'] } } });
    const s = await run(['sync'], root);
    expect(s.code, s.stderr).toBe(0);
    const agents = readFile(root, 'AGENTS.md') as string;
    const lines = [...agents.matchAll(/^- (`[^\n]*`): run `ctxpkg render --focus '([^']+)'`$/gm)].map((m) => ({ patterns: m[1] as string, focus: m[2] as string }));
    expect(lines, agents).toEqual([
      { patterns: '`**/*.ts`, `**/*.tsx`', focus: '**/*.ts' },
      { patterns: '`src/api/**/*.py`, `tests/api/**/*.py`', focus: 'src/api/**/*.py' },
    ]);
    const want = { '**/*.ts': { ts: 2, api: 0, general: 0 }, 'src/api/**/*.py': { ts: 0, api: 2, general: 0 } } as const;
    for (const { focus } of lines) {
      const r = await run(['render', '--focus', focus], root);
      expect(r.code, r.stderr).toBe(0);
      expect(holds(r.stdout), focus).toEqual(want[focus as keyof typeof want]);
      expect(r.stdout).toMatch(/\nselection: the 2 of 6 items the focus names; the other 4 are not in this pack/);
    }
  });

  it('every pattern of a set selects that set; concrete paths select by scope; a glob of source files selects nothing', async () => {
    const root = makeProject({ graph: graph() });
    const cases: Array<[string, { ts: number; api: number; general: number }]> = [
      ['**/*.tsx', { ts: 2, api: 0, general: 0 }],
      ['src/**/*.ts', { ts: 2, api: 0, general: 0 }], // `**/*.ts` applies to every file it names
      ['tests/api/**/*.py', { ts: 0, api: 2, general: 0 }],
      ['src/x.tsx', { ts: 2, api: 0, general: 0 }],
      ['src/api/users/x.py', { ts: 0, api: 2, general: 0 }],
    ];
    for (const [focus, want] of cases) {
      const r = await run(['render', '--focus', focus], root);
      expect(r.code, `${focus}: ${r.stderr}`).toBe(0);
      expect(holds(r.stdout), focus).toEqual(want);
    }
    // The items come from AGENTS.md and .mdc files; no rule is scoped to markdown or Python in
    // general: E_NOT_FOUND (exit 4) naming the installed patterns, never the rules of those files.
    for (const focus of ['**/*.md', '**/*.mdc', 'AGENTS.md', '**/*.py', 'src/**']) {
      const r = await run(['render', '--focus', focus], root);
      expect(r.code, `${focus}: ${r.stdout.slice(0, 400)}`).toBe(4);
      expect(r.stderr).toContain(`E_NOT_FOUND: no installed item is scoped to ${JSON.stringify(focus)} or to a pattern that covers it`);
      expect(r.stderr).toContain("installed rules are scoped to '**/*.ts', '**/*.tsx', 'src/api/**/*.py', 'tests/api/**/*.py'");
    }
  });
});

describe('the commands the AGENTS.md block names are safe to run as written (attack pass 2, finding 1)', () => {
  it("a scope pattern that would end the shell quoting is never put in a command: the next pattern, or a path to fill in", async () => {
    const P = '@evil/x';
    const evil = "src/'$(touch /tmp/ctxpkg-pwned)'/**";
    const nodes: MergedNode[] = [
      mnode(P, 'one', { type: 'section', content: 'One', file_path: 'ONE.md', line_start: 1, line_end: 3 }),
      mnode(P, 'two', { type: 'section', content: 'Two', file_path: 'TWO.md', line_start: 1, line_end: 3 }),
      mnode(P, 's1', { type: 'scope', content: evil }),
      mnode(P, 's2', { type: 'scope', content: 'lib/**' }),
      mnode(P, 's3', { type: 'scope', content: `${evil}x` }),
      mnode(P, 'r1', { type: 'convention', content: 'Rule one.', file_path: 'ONE.md', line_start: 2, line_end: 2 }),
      mnode(P, 'r2', { type: 'convention', content: 'Rule two.', file_path: 'TWO.md', line_start: 2, line_end: 2 }),
    ];
    const edges: Array<{ from: string; to: string; type: 'contains' | 'applies_to' }> = [
      { from: `${P}#one`, to: `${P}#s1`, type: 'applies_to' },
      { from: `${P}#one`, to: `${P}#s2`, type: 'applies_to' },
      { from: `${P}#two`, to: `${P}#s3`, type: 'applies_to' },
      { from: `${P}#one`, to: `${P}#r1`, type: 'contains' },
      { from: `${P}#two`, to: `${P}#r2`, type: 'contains' },
    ];
    const root = makeProject({ files: { 'AGENTS.md': '# Project\n' }, graph: mgraph(nodes, edges), context: { sync: { targets: ['agents-md'] } } });
    const s = await run(['sync'], root);
    expect(s.code, s.stderr).toBe(0);
    const agents = readFile(root, 'AGENTS.md') as string;
    const commands = [...agents.matchAll(/`(ctxpkg render --focus [^`]*)`/g)].map((m) => m[1] as string);
    expect(commands).toContain("ctxpkg render --focus 'lib/**'");
    expect(commands).toContain('ctxpkg render --focus <the path of the file>');
    for (const c of commands) expect(c, c).not.toContain('$(touch');
  });
});
