/**
 * The Rust `semver` crate's own test cases (tests/test_version_req.rs and tests/test_version.rs of
 * dtolnay/semver 1.0.27), ported as data: the reference parses `version_req` with that crate, so
 * our dialect must give the same answers (spec/format.md §17.2). Where the reference's own step
 * differs from the crate (it trims and reads an empty text as `*`), the reference wins and the
 * row says so.
 */
import { describe, expect, it } from 'vitest';
import { isCtxpkgError } from '../errors.js';
import { compareVersions, isValidVersion, parseRange, satisfies } from '../index.js';

/** [range, versions that match, versions that do not]. */
const MATCHES: Array<[string, string[], string[]]> = [
  // test_basic
  ['1.0.0', ['1.0.0', '1.1.0', '1.0.1'], ['0.9.9', '0.10.0', '0.1.0', '1.0.0-pre', '1.0.1-pre']],
  // test_exact
  ['=1.0.0', ['1.0.0'], ['1.0.1', '0.9.9', '0.10.0', '0.1.0', '1.0.0-pre']],
  ['=0.9.0', ['0.9.0'], ['0.9.1', '1.9.0', '0.0.9', '0.9.0-pre']],
  ['=0.0.2', ['0.0.2'], ['0.0.1', '0.0.3', '0.0.2-pre']],
  ['=0.1.0-beta2.a', ['0.1.0-beta2.a'], ['0.9.1', '0.1.0', '0.1.1-beta2.a', '0.1.0-beta2']],
  ['=0.1.0+meta', ['0.1.0', '0.1.0+meta', '0.1.0+any'], []],
  // test_greater_than
  ['>= 1.0.0', ['1.0.0', '2.0.0'], ['0.1.0', '0.0.1', '1.0.0-pre', '2.0.0-pre']],
  ['>= 2.1.0-alpha2', ['2.1.0-alpha2', '2.1.0-alpha3', '2.1.0', '3.0.0'], ['2.0.0', '2.1.0-alpha1', '2.0.0-alpha2', '3.0.0-alpha2']],
  // test_less_than
  ['< 1.0.0', ['0.1.0', '0.0.1'], ['1.0.0', '1.0.0-beta', '1.0.1', '0.9.9-alpha']],
  ['<= 2.1.0-alpha2', ['2.1.0-alpha2', '2.1.0-alpha1', '2.0.0', '1.0.0'], ['2.1.0', '2.2.0-alpha1', '2.0.0-alpha2', '1.0.0-alpha2']],
  ['>1.0.0-alpha, <1.0.0', ['1.0.0-beta'], []],
  ['>1.0.0-alpha, <1.0', [], ['1.0.0-beta']],
  ['>1.0.0-alpha, <1', [], ['1.0.0-beta']],
  // test_multiple
  ['> 0.0.9, <= 2.5.3', ['0.0.10', '1.0.0', '2.5.3'], ['0.0.8', '2.5.4']],
  ['0.3.0, 0.4.0', [], ['0.0.8', '0.3.0', '0.4.0']],
  ['<= 0.2.0, >= 0.5.0', [], ['0.0.8', '0.3.0', '0.5.1']],
  ['0.1.0, 0.1.4, 0.1.6', ['0.1.6', '0.1.9'], ['0.1.0', '0.1.4', '0.2.0']],
  ['>=0.5.1-alpha3, <0.6', ['0.5.1-alpha3', '0.5.1-alpha4', '0.5.1-beta', '0.5.1', '0.5.5'], ['0.5.1-alpha1', '0.5.2-alpha3', '0.5.5-pre', '0.5.0-pre', '0.6.0', '0.6.0-pre']],
  // test_tilde
  ['~1', ['1.0.0', '1.0.1', '1.1.1'], ['0.9.1', '2.9.0', '0.0.9']],
  ['~1.2', ['1.2.0', '1.2.1'], ['1.1.1', '1.3.0', '0.0.9']],
  ['~1.2.2', ['1.2.2', '1.2.4'], ['1.2.1', '1.9.0', '1.0.9', '2.0.1', '0.1.3']],
  ['~1.2.3-beta.2', ['1.2.3', '1.2.4', '1.2.3-beta.2', '1.2.3-beta.4'], ['1.3.3', '1.1.4', '1.2.3-beta.1', '1.2.4-beta.2']],
  // test_caret
  ['^1', ['1.1.2', '1.1.0', '1.2.1', '1.0.1'], ['0.9.1', '2.9.0', '0.1.4', '1.0.0-beta1', '0.1.0-alpha', '1.0.1-pre']],
  ['^1.1', ['1.1.2', '1.1.0', '1.2.1'], ['0.9.1', '2.9.0', '1.0.1', '0.1.4']],
  ['^1.1.2', ['1.1.2', '1.1.4', '1.2.1'], ['0.9.1', '2.9.0', '1.1.1', '0.0.1', '1.1.2-alpha1', '1.1.3-alpha1', '2.9.0-alpha1']],
  ['^0.1.2', ['0.1.2', '0.1.4'], ['0.9.1', '2.9.0', '1.1.1', '0.0.1', '0.1.2-beta', '0.1.3-alpha', '0.2.0-pre']],
  ['^0.5.1-alpha3', ['0.5.1-alpha3', '0.5.1-alpha4', '0.5.1-beta', '0.5.1', '0.5.5'], ['0.5.1-alpha1', '0.5.2-alpha3', '0.5.5-pre', '0.5.0-pre', '0.6.0']],
  ['^0.0.2', ['0.0.2'], ['0.9.1', '2.9.0', '1.1.1', '0.0.1', '0.1.4']],
  ['^0.0', ['0.0.2', '0.0.0'], ['0.9.1', '2.9.0', '1.1.1', '0.1.4']],
  ['^0', ['0.9.1', '0.0.2', '0.0.0'], ['2.9.0', '1.1.1']],
  ['^1.4.2-beta.5', ['1.4.2', '1.4.3', '1.4.2-beta.5', '1.4.2-beta.6', '1.4.2-c'], ['0.9.9', '2.0.0', '1.4.2-alpha', '1.4.2-beta.4', '1.4.3-beta.5']],
  // test_wildcard
  ['*', ['0.9.1', '2.9.0', '0.0.9', '1.0.1', '1.1.1'], ['1.0.0-pre']],
  ['1.*', ['1.2.0', '1.2.1', '1.1.1', '1.3.0'], ['0.0.9', '1.2.0-pre']],
  ['1.2.*', ['1.2.0', '1.2.2', '1.2.4'], ['1.9.0', '1.0.9', '2.0.1', '0.1.3', '1.2.2-pre']],
  // test_any (VersionReq::STAR)
  ['*', ['0.0.1', '0.1.0', '1.0.0'], []],
  // test_pre
  ['=2.1.1-really.0', ['2.1.1-really.0'], []],
  // test_cargo3202
  ['0.*.*', ['0.5.0'], []],
];

/** Texts the crate refuses (test_multiple, test_parse, test_comparator_parse, …): never written. */
const REFUSED = [
  '> 0.1.0,',
  '> 0.3.0, ,',
  '1.2.3 - 2.3.4',
  '>1, >2, >3, >4, >5, >6, >7, >8, >9, >10, >11, >12, >13, >14, >15, >16, >17, >18, >19, >20, >21, >22, >23, >24, >25, >26, >27, >28, >29, >30, >31, >32, >33',
  '> 0.0.9 <= 2.5.3',
  '=1.2.3 || =2.3.4',
  '1.1 || =1.2.3',
  '6.* || 8.* || >= 10.*',
  '\0',
  '>= >= 0.0.2',
  '>== 0.0.2',
  'a.0.0',
  '1.0.0-',
  '>=',
  '1.2.3-01',
  '1.2.3+4.',
  '>',
  '1.',
  '1.*.',
  '1.2.3+4ÿ',
  '*.1',
  '1.*.1',
  '>=1.*.1',
  '*, 0.20.0-any',
  '0.20.0-any, *',
  '0.20.0-any, *, 1.0',
];

/** [text, same requirement as]: the crate parses both to equal `VersionReq`s. */
const SAME: Array<[string, string]> = [
  ['x', '*'],
  ['X', '*'],
  ['1.x', '1.*'],
  ['1.X', '1.*'],
  ['1.*.*', '1.*'],
  ['1.2.x', '1.2.*'],
  ['1.2.X', '1.2.*'],
  ['2.X', '2.*'],
  ['2.x.x', '2.*'],
  ['0.*.*', '0.*'],
  ['=0.1.0+meta', '=0.1.0'],
  ['2', '^2'],
  ['1.2.3-alpha', '^1.2.3-alpha'],
];

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return isCtxpkgError(e) ? e.code : `not a CtxpkgError: ${String(e)}`;
  }
  return undefined;
}

describe('semver crate tests/test_version_req.rs, ported', () => {
  it.each(MATCHES)('%j', (range, yes, no) => {
    const r = parseRange(range, { mode: 'write' });
    for (const v of yes) expect(satisfies(v, r), `${v} should match`).toBe(true);
    for (const v of no) expect(satisfies(v, r), `${v} should not match`).toBe(false);
  });

  it.each(REFUSED)('%j is refused when writing', (range) => {
    expect(['E_RANGE', 'E_INVALID_RANGE']).toContain(codeOf(() => parseRange(range, { mode: 'write' })));
  });

  it.each(SAME)('%j is the same requirement as %j', (a, b) => {
    expect(parseRange(a, { mode: 'write' }).key).toBe(parseRange(b, { mode: 'write' }).key);
  });

  it('^1 and ^2 differ (test_eq_hash)', () => {
    expect(parseRange('^1').key).not.toBe(parseRange('^2').key);
  });

  it('an empty text is "any": the reference reads it so before the crate sees it (crate: error)', () => {
    expect(parseRange('', { mode: 'write' }).any).toBe(true);
  });

  it.each(['=', '>', '>=', '<', '<=', '~', '^'])('test_leading_digit_in_pre_and_build with %j', (op) => {
    for (const tail of ['1.2.3-1a', '1.2.3+1a', '1.2.3-01a', '1.2.3+01', '1.2.3-1+1', '1.2.3-1-1+1-1-1', '1.2.3-1a+1a', '1.2.3-1a-1a+1a-1a-1a']) {
      expect(codeOf(() => parseRange(`${op} ${tail}`, { mode: 'write' })), tail).toBeUndefined();
    }
  });
});

describe('semver crate tests/test_version.rs, ported', () => {
  it.each(['', '  ', '1', '1.2', '1.2.3-', 'a.b.c', '1.2.3 abc', '1.2.3-01', '1.2.3++', '07', '111111111111111111111.0.0', '8\0'])('%j is not a version', (v) => {
    expect(isValidVersion(v)).toBe(false);
  });
  it.each(['1.2.3', '1.2.3-alpha1', '1.2.3+build5', '1.2.3+5build', '1.2.3-alpha1+build5', '1.2.3-1.alpha1.9+build5.7.3aedf', '1.2.3-0a.alpha1.9+05build.7.3aedf', '0.4.0-beta.1+0851523', '1.1.0-beta-10'])(
    '%j is a version',
    (v) => {
      expect(isValidVersion(v)).toBe(true);
    },
  );
  it.each([
    ['0.0.0', '1.2.3-alpha2'],
    ['1.0.0', '1.2.3-alpha2'],
    ['1.2.0', '1.2.3-alpha2'],
    ['1.2.3-alpha1', '1.2.3'],
    ['1.2.3-alpha1', '1.2.3-alpha2'],
  ])('%s < %s (test_lt)', (a, b) => {
    expect(compareVersions(a, b)).toBeLessThan(0);
    expect(compareVersions(b, a)).toBeGreaterThan(0);
  });
  it('test_spec_order', () => {
    const vs = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0'];
    for (let i = 1; i < vs.length; i++) expect(compareVersions(vs[i - 1]!, vs[i]!), `${vs[i - 1]} < ${vs[i]}`).toBeLessThan(0);
  });
  it('build metadata: the crate orders 1.2.3+23 < 1.2.3+42; precedence (and ctxpkg) does not (spec/format.md §17.1)', () => {
    expect(compareVersions('1.2.3+23', '1.2.3+42')).toBe(0);
  });
});
