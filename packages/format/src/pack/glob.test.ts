/**
 * The one glob matcher (issue 11 item 3): the dialect as a table, the bounds (E_GLOB), and
 * linearity — the compiled program grows linearly with the glob (no brace expansion, no nested
 * quantifiers) and the pathological inputs of the issue complete (a backtracking matcher takes
 * hours on them; the test timeout is the only clock here, bench/glob measures time).
 */
import { describe, expect, it, vi } from 'vitest';
import { compileGlob, escapeGlob, globProblem, GLOB_ENGINE_LOADING, GLOB_LIMITS, matchesOnlyEmptyPath, tryCompileGlob } from './glob.js';

const T: Array<[string, string[], string[]]> = [
  // glob, matching paths, non-matching paths
  ['src/**', ['src', 'src/a', 'src/a/b.ts', 'src/.env'], ['srcx', 'lib/src/a', 'sr']],
  ['**/*.ts', ['a.ts', 'src/a.ts', 'x/y/z.ts', '.hidden/a.ts', 'src/.a.ts'], ['a.tsx', 'a.ts/b', 'ts']],
  ['**', ['a', 'a/b/c', '.git/x'], []],
  ['*', ['a', '.env'], ['a/b']],
  ['*.md', ['README.md', '.x.md'], ['docs/a.md', 'a.mdx']],
  ['src/*.ts', ['src/a.ts'], ['src/a/b.ts', 'src/a.tsx']],
  ['src/**/*.ts', ['src/a.ts', 'src/a/b/c.ts'], ['lib/a.ts', 'src/a.js']],
  ['a/**/b', ['a/b', 'a/x/b', 'a/x/y/b'], ['a/xb', 'ab', 'a/b/c']],
  ['src/?.ts', ['src/a.ts', 'src/é.ts', 'src/😀.ts'], ['src/ab.ts', 'src/.ts', 'src//.ts']],
  ['src/{a,b}/*.{ts,tsx}', ['src/a/x.ts', 'src/b/y.tsx'], ['src/c/x.ts', 'src/a/x.js']],
  ['{src,lib}/**', ['src/a', 'lib', 'lib/x/y'], ['test/a']],
  ['{**/a,b}', ['a', 'x/y/a', 'b'], ['x/b']],
  ['x{a,{b,c}}y', ['xay', 'xby', 'xcy'], ['xy', 'xdy']],
  ['docs/[a-c]*.md', ['docs/a.md', 'docs/cat.md'], ['docs/d.md', 'docs/.md']],
  ['docs/[!a-c]*.md', ['docs/d.md', 'docs/zz.md'], ['docs/a.md', 'docs/c.md']],
  ['docs/[^a]?.md', ['docs/bx.md'], ['docs/ax.md']],
  ['[[:digit:]]*', ['1a', '9'], ['a1']],
  ['a[]]b', ['a]b'], ['ab']],
  ['a\\*b', ['a*b'], ['axb']],
  ['{a}', ['{a}'], ['a']],
  ['a{b', ['a{b'], ['ab']],
  ['[abc', ['[abc'], ['a']],
  ['src/**.ts', ['src/a.ts'], ['src/a/b.ts']],
  ['a.(b|c)+', ['a.(b|c)+'], ['a.b']],
  ['./docs/*.md', ['docs/a.md'], ['./docs/a.md']],
  ['café/*', ['café/x'], ['cafe/x']],
];

describe('compileGlob: the dialect', () => {
  it.each(T)('%s', (glob, yes, no) => {
    const g = compileGlob(glob);
    for (const p of yes) expect(g.test(p), `${glob} ~ ${p}`).toBe(true);
    for (const p of no) expect(g.test(p), `${glob} !~ ${p}`).toBe(false);
  });

  it('knows literal globs and their literal prefix', () => {
    expect(compileGlob('docs/a.md').literal).toBe(true);
    expect(compileGlob('a\\*b').literal).toBe(true);
    expect(compileGlob('src/api/*.ts').literal).toBe(false);
    expect(compileGlob('src/api/*.ts').prefix).toBe('src/api/');
    expect(compileGlob('{a,b}/x').prefix).toBe('');
  });

  it('escapeGlob makes any directory name literal', () => {
    for (const dir of ['src/[x]', 'a{b,c}', 'we*ird?', 'back\\slash', 'plain']) {
      const g = compileGlob(`${escapeGlob(dir)}/**`);
      expect(g.test(dir), dir).toBe(true);
      expect(g.test(`${dir}/f.md`), dir).toBe(true);
      expect(g.test('src/x/f.md'), dir).toBe(false);
    }
  });

  it('answers the same whichever way the engine is loaded: on first use (Node) or with the module (no synchronous require)', async () => {
    expect(GLOB_ENGINE_LOADING).toBe('lazy');
    const proc = process as { getBuiltinModule?: unknown };
    const saved = proc.getBuiltinModule;
    proc.getBuiltinModule = undefined;
    let eager: typeof import('./glob.js');
    try {
      vi.resetModules();
      eager = await import('./glob.js');
    } finally {
      proc.getBuiltinModule = saved;
      vi.resetModules();
    }
    expect(eager.GLOB_ENGINE_LOADING).toBe('eager');
    for (const [glob, yes, no] of T) {
      const a = compileGlob(glob);
      const b = eager.compileGlob(glob);
      expect([glob, b.literal, b.prefix, b.programSize]).toEqual([glob, a.literal, a.prefix, a.programSize]);
      for (const p of [...yes, ...no]) expect([glob, p, b.test(p)]).toEqual([glob, p, a.test(p)]);
    }
  });

  it('never matches a path over the path bound', () => {
    const long = 'src/' + 'a/'.repeat(GLOB_LIMITS.maxPathLength);
    expect(compileGlob('**').test(long)).toBe(false);
    expect(compileGlob('**').test('src/a')).toBe(true);
  });
});

describe('matchesOnlyEmptyPath: a glob that can match no file', () => {
  it('is true when every alternative is empty once braces are read, and false whenever a file can match', () => {
    const paths = ['a', 'web', 'web/x', '{}', '{,}', ',', '.', 'src/a.ts'];
    for (const g of ['{,}', '{,{,}}', '{{,},}', './', './{,}', '']) {
      expect(matchesOnlyEmptyPath(g), g).toBe(true);
      if (globProblem(g) === undefined) for (const p of paths) expect(compileGlob(g).test(p), `${g} !~ ${p}`).toBe(false);
    }
    // A glob that can match a file, with one file it matches.
    const files: Array<[string, string]> = [['{,web/**}', 'web/x'], ['{,a}', 'a'], ['{a}', '{a}'], ['{}', '{}'], ['\\{,\\}', '{,}'], ['a', 'a'], ['*', 'x'], ['**', 'x/y'], ['?', 'x'], ['[a]', 'a'], ['{,*}', 'x'], ['src/{,}', 'src/'], [',', ','], ['{,[,]}', ',']];
    for (const [g, file] of files) {
      expect(matchesOnlyEmptyPath(g), g).toBe(false);
      expect(compileGlob(g).test(file), `${g} ~ ${file}`).toBe(true);
    }
  });
});

describe('bounds: E_GLOB with a clear message', () => {
  const bad: Array<[string, RegExp]> = [
    ['', /empty/],
    ['   ', /empty/],
    ['a'.repeat(GLOB_LIMITS.maxLength + 1), /longer than 512/],
    ['{'.repeat(GLOB_LIMITS.maxBraceDepth + 1) + 'a,b' + '}'.repeat(GLOB_LIMITS.maxBraceDepth + 1), /nest/],
    ['a\u0000b', /control/],
    ['a\nb', /control/],
    ['/etc/*', /absolute/],
    ['src/../x', /\.\./],
  ];
  it.each(bad)('%j', (glob, why) => {
    expect(globProblem(glob)).toMatch(why);
    expect(tryCompileGlob(glob)).toBeUndefined();
    expect(() => compileGlob(glob)).toThrow(expect.objectContaining({ code: 'E_GLOB' }));
  });
  it('accepts the longest allowed glob', () => {
    expect(globProblem('a'.repeat(GLOB_LIMITS.maxLength))).toBeUndefined();
  });
});

describe('linear: program size and pathological inputs', () => {
  // Each family grows by `k`; a matcher that expands braces or backtracks grows exponentially.
  const families: Array<[string, (k: number) => string]> = [
    ['star-qmark pairs', (k) => 'src/' + '*?'.repeat(k)],
    ['globstar chains', (k) => '**/a/'.repeat(k) + '*.ts'],
    ['brace products', (k) => '{a,b}'.repeat(k)],
    ['nested braces', (k) => '{a,'.repeat(Math.min(k, 15)) + 'b' + '}'.repeat(Math.min(k, 15))],
    ['class stars', (k) => '[a-z]*'.repeat(k)],
  ];
  it.each(families)('%s: the compiled program grows linearly with the glob', (_name, make) => {
    const size = (k: number): number => compileGlob(make(k)).programSize;
    const s10 = size(10);
    const s40 = size(40);
    expect(s40).toBeLessThanOrEqual(4 * s10 + 16);
    expect(s40 / make(40).length).toBeLessThanOrEqual(16);
  });

  it.each(families)('%s: a failing match on a long path completes', (_name, make) => {
    const g = compileGlob(make(60).slice(0, GLOB_LIMITS.maxLength));
    for (const path of ['src/' + 'a'.repeat(3000) + '/', 'a/'.repeat(1500) + 'x.tsx', 'ab'.repeat(1500) + '/!']) expect(g.test(path)).toBe(false);
  });
});
