/**
 * Frontmatter writers: the bare comma-joined `globs:` line of Cursor and Windsurf (written as
 * their docs write it, never quoted) and what it refuses, read back the way those agents read it
 * (the raw rest of the line, split at commas) and, where a YAML reader gets a value, as YAML.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { bareGlobs, barePatternProblem, commaProblem, frontmatter } from './yaml.js';
import { cursor } from './cursor.js';
import { windsurf } from './windsurf.js';
import { copilot } from './copilot.js';
import { patternsFor } from './index.js';

/** The value of `key` as a line reader takes it: the rest of the line after `key: `, verbatim. */
function lineValue(text: string, key: string): string | undefined {
  const fm = /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? '';
  const line = fm.split('\n').find((l) => l.startsWith(`${key}: `));
  return line?.slice(key.length + 2);
}

describe('bare globs (Cursor, Windsurf)', () => {
  it('writes patterns that start with * unquoted and comma-joined, as Cursor and Windsurf document them', () => {
    const fm = cursor.scoped!.frontmatter(['**/*.ts', '**/*.tsx'], '@acme/web: rules.md');
    expect(fm).toContain('\nglobs: **/*.ts,**/*.tsx\n');
    expect(lineValue(fm, 'globs')?.split(',')).toEqual(['**/*.ts', '**/*.tsx']);
    const ws = windsurf.scoped!.frontmatter(['**/*.ts', '**/*.tsx'], '@acme/web: rules.md');
    expect(ws).toBe('---\ntrigger: glob\nglobs: **/*.ts,**/*.tsx\n---\n');
  });

  it('expands {a,b} groups so no comma is left inside a pattern', () => {
    expect(bareGlobs(['{src,lib}/**/*.ts', 'docs/**'])).toBe('src/**/*.ts,lib/**/*.ts,docs/**');
    expect(barePatternProblem('{src,lib}/**/*.ts')).toBeUndefined();
  });

  it('accepts ordinary globs, inner spaces, a "#" inside a name, "---" and non-ASCII letters', () => {
    for (const p of ['**/*.ts', 'src/**', 'docs/my notes/*.md', 'src/#gen/**', 'a---b/**', '---', 'src/ünï/**', '-x/**', 'C:x'])
      expect(barePatternProblem(p), p).toBeUndefined();
  });

  it.each([
    ['a,{b,{c,d}}', /comma/],
    ['a,b', /comma/],
    ['src/**\nalwaysApply: true', /line-break/],
    ['src/**\u2028alwaysApply: true', /line-break/],
    ['src/**\u00a0x', /separator/],
    [' src/**', /space/],
    ['src/** ', /space/],
    ['#src/**', /comment/],
    ['src/** #x', /comment/],
    ['src: x', /key/],
    ['src:', /key/],
    ['"src/**"', /starts with "\\""/],
    ["'src/**'", /starts with "'"/],
    ['[ab]/**', /starts with "\["/],
    ['{a}/**', /starts with "\{"/],
    ['&a x', /starts with "&"/],
    ['!!str x', /starts with "!"/],
    ['|x', /starts with "\|"/],
    ['>x', /starts with ">"/],
    ['- x', /starts with "-"/],
    ['true', /boolean, null, number or date/],
    ['null', /boolean, null, number or date/],
    ['~', /boolean, null, number or date/],
    ['1.5', /boolean, null, number or date/],
    ['0x1F', /boolean, null, number or date/],
    ['-.inf', /boolean, null, number or date/],
    ['yes', /boolean, null, number or date/],
    ['off', /boolean, null, number or date/],
    ['2024-01-31', /boolean, null, number or date/],
    ['1_000', /boolean, null, number or date/],
    ['{,}', /empty/],
    ['{,web/**}', /empty/],
    ['{web/**,}', /empty/],
    ['{,./}', /empty/],
  ])('refuses %j (%s)', (p, why) => {
    expect(barePatternProblem(p)).toMatch(why);
  });

  it('every accepted pattern reads back as itself: from the raw line, and from YAML when YAML reads the line at all', () => {
    const sets = [['**/*.ts', '**/*.tsx'], ['src/**', 'lib/**'], ['src/#gen/**', 'a---b'], ['docs/my notes/*.md', '**/x'], ['-x/**', 'C:x'], ['{a,b}/c', 'd'], ['Makefile', 'package.json'], ['1.ts', 'v1.2.3/**'], ['truest', 'no-such/**']];
    for (const set of sets) {
      for (const p of set) expect(barePatternProblem(p), p).toBeUndefined();
      const fm = cursor.scoped!.frontmatter(set, 't');
      const value = lineValue(fm, 'globs') as string;
      expect(value.split(','), fm).toEqual(bareGlobs(set).split(','));
      // No line of the frontmatter but the three keys: nothing was injected.
      expect(fm.split('\n').map((l) => l.split(':')[0])).toEqual(['---', 'description', 'globs', 'alwaysApply', '---', '']);
      let yamlValue: unknown = 'unreadable';
      try {
        yamlValue = (parse(fm.split('\n').slice(1, -2).join('\n')) as { globs: unknown }).globs;
      } catch {
        /* a leading `*` is no YAML: the agent's line reader takes the raw text */
      }
      if (yamlValue !== 'unreadable') expect(yamlValue).toBe(value);
    }
  });
});

describe('comma-joined fields never carry an empty pattern (attack pass 2, finding 5)', () => {
  it('an empty {a,b} alternative is refused for Cursor, Windsurf and Copilot, with the reason; a group without one is written', () => {
    for (const t of [cursor, windsurf, copilot]) {
      const { usable, refused } = patternsFor(t, ['{,}', '{,web/**}', '{api,web}/**']);
      expect(usable, t.id).toEqual(['{api,web}/**']);
      expect(refused.map((r) => r.why).every((w) => /empty/.test(w)), t.id).toBe(true);
      const fm = t.scoped!.frontmatter(usable, '@acme/web: rules.md');
      const value = lineValue(fm, t.id === 'copilot' ? 'applyTo' : 'globs') as string;
      expect(value.replace(/^"|"$/g, '').split(','), t.id).toEqual(['api/**', 'web/**']);
    }
    expect(commaProblem('{,web/**}')).toMatch(/empty/);
    expect(commaProblem('src/{,x}/**')).toBeUndefined();
  });
});

describe('patternsFor', () => {
  it('leaves out, per target, what its frontmatter cannot carry, with the reason', () => {
    const patterns = ['**/*.ts', 'true', 'a,{b,{c,d}}'];
    const c = patternsFor(cursor, patterns);
    expect(c.usable).toEqual(['**/*.ts']);
    expect(c.refused.map((r) => r.pattern)).toEqual(['true', 'a,{b,{c,d}}']);
    // Copilot quotes its YAML value: only the comma is a problem there.
    expect(patternsFor(copilot, patterns).usable).toEqual(['**/*.ts', 'true']);
    expect(commaProblem('a,{b,{c,d}}')).toMatch(/comma/);
    expect(frontmatter(['a: 1'])).toBe('---\na: 1\n---\n');
  });
});
