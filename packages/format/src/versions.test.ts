import { describe, expect, it } from 'vitest';
import { describeShared, sharedJson } from '../../../test/support/shared.js';
import { compareVersions, maxSatisfying, parseRange, sameVersion, satisfies, MAX_RANGE_LENGTH } from './versions.js';
import { isCtxpkgError } from './errors.js';
import { HB02_PICKS, HB02_VERSIONS } from './__tests__/hb02.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return isCtxpkgError(e) ? e.code : `not a CtxpkgError: ${String(e)}`;
  }
  return undefined;
}

interface SemverRow {
  req: string;
  version?: string;
  matches?: string;
  parse?: string;
}

describeShared('semver_table of reference-vectors.json (FORMAT-FACTS §7.2)', () => {
  const rows = sharedJson<{ semver_table: SemverRow[] }>('vectors/reference-vectors.json').semver_table;
  const matchRows = rows.filter((r) => r.version !== undefined);
  const parseRows = rows.filter((r) => r.parse !== undefined);

  it.each(matchRows.map((r) => [r.req, r.version!, r.matches === 'Ok(true)'] as const))('%j against %s → %s', (req, version, expected) => {
    expect(satisfies(version, parseRange(req, { mode: 'write' }))).toBe(expected);
  });

  it.each(parseRows.map((r) => [r.req, r.parse!] as const))('%j parses like the reference in write mode (%s)', (req, outcome) => {
    const code = codeOf(() => parseRange(req, { mode: 'write' }));
    if (outcome === 'Ok(())') expect(code).toBeUndefined();
    else expect(code === 'E_RANGE' || code === 'E_INVALID_RANGE').toBe(true);
  });

  it('npm-only rows the reference refuses are still readable (read mode), garbage is not', () => {
    expect(parseRange('1.0 || 2.0').npmOnly).toEqual(['or']);
    expect(parseRange('>=1.0 <2.0').npmOnly).toEqual(['space-separated']);
    expect(codeOf(() => parseRange('>>nope<<'))).toBe('E_INVALID_RANGE');
    expect(codeOf(() => parseRange('latest'))).toBe('E_INVALID_RANGE');
  });
});

describe('HB-01 prereleases are opt-in and compare numerically', () => {
  const versions = ['1.0.0', '1.2.0', '1.3.0-rc.1', '1.3.0-rc.2', '1.3.0-rc.10', '2.0.0-alpha.1'];
  it.each(['^1.0.0', '*', '', '1.x', '^1', '>=1.0.0 <2.0.0', '<2.0.0'])('%j picks 1.2.0', (r) => {
    expect(maxSatisfying(versions, r)).toBe('1.2.0');
  });
  it.each(['>=1.3.0-rc.0', '^1.3.0-rc.0', '~1.3.0-rc.2'])('%j picks 1.3.0-rc.10', (r) => {
    expect(maxSatisfying(versions, r)).toBe('1.3.0-rc.10');
  });
  it('sorts rc.2 before rc.10 (numeric identifiers)', () => {
    const shuffled = ['2.0.0-alpha.1', '1.3.0-rc.10', '1.0.0', '1.3.0-rc.2', '1.2.0', '1.3.0-rc.1'];
    expect([...shuffled].sort(compareVersions)).toEqual(versions);
  });
});

describe('HB-02 caret and tilde below 1.0.0', () => {
  it.each([...HB02_PICKS, ['^0.0.0', null] as const])('%j picks %s', (r, expected) => {
    expect(maxSatisfying(HB02_VERSIONS, r)).toBe(expected);
  });
});

describe('HB-05 range grammar interop and pathological ranges', () => {
  const versions = ['1.2.3', '1.5.0', '2.0.0'];
  it('"latest" is E_INVALID_RANGE, never "any"', () => {
    expect(codeOf(() => parseRange('latest'))).toBe('E_INVALID_RANGE');
  });
  it('">=1.0, <2.0" is the reference dialect (comma = and) and picks 1.5.0', () => {
    // Intentional difference from HB-05's npm-based expectation (E_INVALID_RANGE): the reference
    // parses this range (semver_table row ">=1.0, <2.0" matches 1.5.0) and packages written by
    // lean-ctx use it, so refusing it would break interop. It is never treated as "*".
    expect(maxSatisfying(versions, '>=1.0, <2.0')).toBe('1.5.0');
    expect(parseRange('>=1.0, <2.0', { mode: 'write' }).npmOnly).toEqual([]);
  });
  it('"^1.2.3 || ^2" reads as npm and picks 2.0.0, but is refused on write', () => {
    expect(maxSatisfying(versions, '^1.2.3 || ^2')).toBe('2.0.0');
    const code = codeOf(() => parseRange('^1.2.3 || ^2', { mode: 'write' }));
    expect(code).toBe('E_RANGE');
  });
  it.each(['', '*', '  ', 'x'])('%j means any version → 2.0.0', (r) => {
    expect(maxSatisfying(versions, r)).toBe('2.0.0');
  });
  it('bare "1.2.3" means ^1.2.3 (the reference rule) → 1.5.0', () => {
    expect(maxSatisfying(versions, '1.2.3')).toBe('1.5.0');
  });
  it('a 300-character range is refused by the length cap before parsing', () => {
    const long = '1.2.3' + ' '.repeat(293) + '<2';
    expect(long.length).toBe(300);
    expect(codeOf(() => parseRange(long))).toBe('E_INVALID_RANGE');
    expect(codeOf(() => parseRange('*'.padEnd(MAX_RANGE_LENGTH + 1, ' ')))).toBe('E_INVALID_RANGE');
  });
});

describe('range dialect details (spec/format.md §17)', () => {
  it.each([
    ['>= 1.2, < 2', '1.9.0', true],
    ['>=1.*', '1.0.0', true],
    ['1.2.*', '1.3.0', false],
    ['1.2.*', '1.2.7', true],
    ['=1.2', '1.2.9', true],
    ['=1.2', '1.3.0', false],
    ['>1.2', '1.2.9', false],
    ['<=1.2', '1.2.9', true],
    ['~1', '1.9.0', true],
    ['^1.2.3-beta.2', '1.2.3-beta.10', true],
    ['^1.2.3-beta.2', '1.2.4-beta.1', false],
    ['1.2.3 - 1.4', '1.4.9', true],
    ['~>1.2', '1.2.5', true],
    ['1.0.0+build', '1.0.0', true],
  ])('%j vs %s → %s', (r, v, expected) => {
    expect(satisfies(v, r)).toBe(expected);
  });

  it.each(['01.2', '1.2-beta', '1.x.3', '>=1,', '1 ||', 'v1.2.3', '1.2.3\n<2', '9007199254740992', '^1.2.3-01', 'é'])(
    '%j is E_INVALID_RANGE',
    (r) => {
      expect(codeOf(() => parseRange(r))).toBe('E_INVALID_RANGE');
    },
  );

  it.each([
    ['1.2.3 - 2', 'hyphen'],
    ['~>1.2', 'tilde-greater'],
    ['*, >=1', 'wildcard-comparator'],
    ['>=1\t<2', 'space-separated'],
    [Array.from({ length: 33 }, () => '>=1').join(','), 'too-many-comparators'],
  ])('%j is npm-only (%s): read yes, write E_RANGE', (r, feature) => {
    expect(parseRange(r).npmOnly).toContain(feature);
    expect(codeOf(() => parseRange(r, { mode: 'write' }))).toBe('E_RANGE');
  });

  it('never matches invalid or prerelease versions through "*"', () => {
    expect(satisfies('not-a-version', '*')).toBe(false);
    expect(satisfies('v1.0.0', '*')).toBe(false);
    expect(satisfies('1.0.0-rc.1', '*')).toBe(false);
  });

  it('skips invalid versions and breaks build-metadata ties by text, independent of order', () => {
    expect(maxSatisfying(['not-a-version', '1.1.0'], '^1')).toBe('1.1.0');
    expect(maxSatisfying(['1.0.0+b', '1.0.0+a'], '*')).toBe('1.0.0+a');
    expect(maxSatisfying(['1.0.0+a', '1.0.0+b'], '*')).toBe('1.0.0+a');
  });
});

describe('compareVersions / sameVersion (HB-03)', () => {
  it('ignores build metadata', () => {
    expect(sameVersion('1.0.0+build.7', '1.0.0')).toBe(true);
    expect(sameVersion('1.0.0+cafe', '1.0.0+beef')).toBe(true);
    expect(sameVersion('1.0.0', '1.0.1')).toBe(false);
  });
  it('orders like the reference loader (version_lt cases)', () => {
    expect(compareVersions('3.5.0', '3.6.0')).toBeLessThan(0);
    expect(compareVersions('3.6.14', '3.6.15')).toBeLessThan(0);
    expect(compareVersions('3.6.15', '3.6.15')).toBe(0);
  });
  it.each(['v1.2.3', ' 1.2.3 ', '=1.2.3', '01.2.3', '1.2', '9007199254740992.0.0'])('refuses %j with E_INVALID_VERSION', (v) => {
    expect(codeOf(() => compareVersions(v, '1.0.0'))).toBe('E_INVALID_VERSION');
  });
});

describe('issue 13: ranges follow the semver crate (the reference), items 12–16', () => {
  it('12: a partial comparator next to a pre-release comparator uses the crate pre-release rule', () => {
    const versions = ['1.3.0', '1.4.0-beta.1', '1.4.0-beta.2'];
    expect(maxSatisfying(versions, '^1.4, >=1.4.0-beta.1')).toBe('1.4.0-beta.2');
    expect(maxSatisfying(['1.3.9', '1.4.0-beta.2'], '>=1.4.0-beta.1, <=1.4')).toBeNull();
    // the other partial comparators compare the pre-release with none and refuse it, as in the crate
    for (const partial of ['1.*', '~1', '~1.4', '>1', '>=1.4', '<=1.4', '=1.4']) expect(satisfies('1.4.0-beta.2', `${partial}, >=1.4.0-beta.1`), partial).toBe(false);
  });
  it('13: "x.x.x", "*.*", "*.*.*" are refused when writing (the crate refuses them), read as any', () => {
    for (const r of ['x.x.x', '*.*', '*.*.*', 'X.X']) {
      expect(codeOf(() => parseRange(r, { mode: 'write' })), r).toBe('E_RANGE');
      expect(parseRange(r).npmOnly).toEqual(['wildcard-version']);
      expect(satisfies('3.1.4', r)).toBe(true);
    }
    expect(codeOf(() => parseRange('*.1'))).toBe('E_INVALID_RANGE');
  });
  it('14: U+FEFF is not white space to the reference: refused, never trimmed and written raw', () => {
    for (const r of ['\uFEFF^1.2', '^1.2\uFEFF', '\uFEFF']) {
      expect(codeOf(() => parseRange(r, { mode: 'write' })), JSON.stringify(r)).toBe('E_INVALID_RANGE');
    }
    // what Rust's str::trim removes is trimmed (U+0085 included, which JavaScript keeps)
    for (const r of ['\u00a0^1.2', '^1.2\u3000', '\u0085^1.2', '\t^1.2\n']) expect(satisfies('1.3.0', parseRange(r, { mode: 'write' })), JSON.stringify(r)).toBe(true);
  });
  it('15: 2^53−1 works in every comparator; only larger numbers are refused', () => {
    const max = '9007199254740991';
    for (const r of [`^${max}`, `~${max}`, max, `>${max}.0`, `<=${max}`, `${max}.*`, `^1.${max}`, `~0.0.${max}`]) {
      expect(codeOf(() => parseRange(r, { mode: 'write' })), r).toBeUndefined();
    }
    expect(satisfies(`${max}.1.0`, `^${max}`)).toBe(true);
    expect(satisfies(`${max}.0.0`, `<=${max}`)).toBe(true);
    expect(satisfies(`1.${max}.0`, `>1.9007199254740990`)).toBe(true);
    expect(codeOf(() => parseRange('^9007199254740992'))).toBe('E_INVALID_RANGE');
  });
  it('16: ">=0.0.0" never admits a 0.0.0 pre-release, even next to a pre-release comparator of another triple', () => {
    expect(satisfies('0.0.0-alpha', '>=0.0.0')).toBe(false);
    expect(satisfies('0.0.0-alpha', '>=0.0.0, ^0.0.0-alpha')).toBe(false);
    expect(satisfies('0.0.0-alpha', '>=0.0.0-0, >=0.0.0')).toBe(false);
    expect(satisfies('0.0.0-alpha', '>=0.0.0-0')).toBe(true);
  });
  it('E_RANGE says what is wrong in the user\'s terms and gives the comma form when there is one', () => {
    const message = (r: string) => {
      try {
        parseRange(r, { mode: 'write' });
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(message('^x')).toBe('version range "^x" cannot be written into a package: it uses a wildcard after an operator or next to other comparators ("*" must stand alone); write "*"');
    expect(message('1.2.3 - 2')).toBe('version range "1.2.3 - 2" cannot be written into a package: it uses a hyphen range "a - b"; write ">=1.2.3, <=2"');
    expect(message('>=1.2 <2')).toContain('comparators separated by spaces (they must be separated by commas); write ">=1.2, <2"');
    expect(message('~>1.2')).toContain('write "~1.2"');
    expect(message('^1 || ^2')).toBe('version range "^1 || ^2" cannot be written into a package: it uses "||" alternatives (a dependency has one range)');
    for (const r of ['^x', '1.2.3 - 2', '>=1.2 <2', '^1 || ^2', 'x.x.x']) expect(message(r)).not.toMatch(/lean-ctx|reference/);
  });
});
