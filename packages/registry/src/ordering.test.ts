import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import semver from 'semver';
import { compareDesc, orderVersions, pickLatest, precedenceKey } from './ordering.js';

const v = (version: string, yanked = false) => ({ version, yanked });

describe('orderVersions', () => {
  it('puts the highest stable first, then the rest by descending precedence (HB-01 set)', () => {
    const input = ['1.0.0', '1.2.0', '1.3.0-rc.1', '1.3.0-rc.2', '1.3.0-rc.10', '2.0.0-alpha.1'].map((x) => v(x));
    const { latest, ordered } = orderVersions(input);
    expect(latest?.version).toBe('1.2.0');
    expect(ordered.map((e) => e.version)).toEqual(['1.2.0', '2.0.0-alpha.1', '1.3.0-rc.10', '1.3.0-rc.2', '1.3.0-rc.1', '1.0.0']);
  });

  it('skips yanked versions for latest but keeps them listed', () => {
    const { latest, ordered } = orderVersions([v('1.0.0'), v('2.0.0', true), v('1.5.0')]);
    expect(latest?.version).toBe('1.5.0');
    expect(ordered.map((e) => e.version)).toEqual(['1.5.0', '2.0.0', '1.0.0']);
    expect(ordered.find((e) => !e.yanked)?.version).toBe('1.5.0');
  });

  it('uses a prerelease only when no stable non-yanked version exists', () => {
    expect(pickLatest([v('1.0.0', true), v('2.0.0-rc.1'), v('2.0.0-rc.2')])?.version).toBe('2.0.0-rc.2');
    expect(pickLatest([v('1.0.0'), v('2.0.0-rc.1')])?.version).toBe('1.0.0');
  });

  it('has no latest when everything is yanked, and sorts numerically not lexically', () => {
    const { latest, ordered } = orderVersions([v('1.10.0', true), v('1.9.0', true), v('1.2.0', true)]);
    expect(latest).toBeNull();
    expect(ordered.map((e) => e.version)).toEqual(['1.10.0', '1.9.0', '1.2.0']);
  });

  it('returns [] for no versions and does not mutate its input', () => {
    expect(orderVersions([])).toEqual({ latest: null, ordered: [] });
    const input = [v('1.0.0'), v('2.0.0')];
    orderVersions(input);
    expect(input.map((e) => e.version)).toEqual(['1.0.0', '2.0.0']);
  });

  it('property: the first non-yanked entry is always latest, and it is the max stable (or max prerelease)', () => {
    const id = fc.integer({ min: 0, max: 12 });
    const ver = fc
      .tuple(id, id, id, fc.option(fc.constantFrom('alpha', 'rc.1', 'rc.10', 'rc.2', 'beta.3'), { nil: undefined }))
      .map(([a, b, c, pre]) => `${a}.${b}.${c}${pre ? '-' + pre : ''}`);
    fc.assert(
      fc.property(fc.uniqueArray(ver, { maxLength: 20 }), fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }), (versions, flags) => {
        const entries = versions.map((x, i) => v(x, flags[i]));
        const { latest, ordered } = orderVersions(entries);
        const firstLive = ordered.find((e) => !e.yanked) ?? null;
        expect(firstLive).toBe(latest);
        const live = entries.filter((e) => !e.yanked).map((e) => e.version);
        const stable = live.filter((x) => semver.prerelease(x) === null);
        const pool = stable.length > 0 ? stable : live;
        const expected = pool.length ? pool.sort(semver.rcompare)[0] : null;
        expect(latest?.version ?? null).toBe(expected);
        expect(ordered).toHaveLength(entries.length);
      }),
    );
  });
});

describe('precedenceKey', () => {
  it('drops build metadata only', () => {
    expect(precedenceKey('1.0.0+build.7')).toBe('1.0.0');
    expect(precedenceKey('1.0.0-rc.1+b')).toBe('1.0.0-rc.1');
    expect(precedenceKey('1.0.0')).toBe('1.0.0');
  });

  it('property: equal keys exactly when semver.eq (strict versions)', () => {
    const num = fc.constantFrom('0', '1', '2', '10');
    const pre = fc.option(fc.constantFrom('alpha', 'alpha.1', 'rc.2', '0', '1'), { nil: undefined });
    const build = fc.option(fc.constantFrom('b1', 'build.7', 'x.y'), { nil: undefined });
    const ver = fc.tuple(num, num, num, pre, build).map(([a, b, c, p, bd]) => `${a}.${b}.${c}${p ? '-' + p : ''}${bd ? '+' + bd : ''}`);
    fc.assert(
      fc.property(ver, ver, (a, b) => {
        expect(precedenceKey(a) === precedenceKey(b)).toBe(semver.eq(a, b));
      }),
    );
  });
});

describe('compareDesc', () => {
  it('orders by descending precedence with build metadata as a total tie-break', () => {
    expect(['1.0.0', '2.0.0', '1.0.0-rc.1'].sort(compareDesc)).toEqual(['2.0.0', '1.0.0', '1.0.0-rc.1']);
    expect(compareDesc('1.0.0+a', '1.0.0+b')).not.toBe(0);
  });
});
