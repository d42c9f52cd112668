/**
 * Differential test against the Rust `semver` crate (the reference's range library): every row of
 * fixtures/semver-crate/differential.json (ranges × versions → match, produced by the crate; see
 * the fixture's "about") is run through our parser and matcher. Issue 13 items 12–16.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isCtxpkgError } from '../errors.js';
import { evalVersion, parseRange, satisfies, type VersionRange } from '../versions.js';

interface Table {
  about: string[];
  versions: string[];
  rows: Array<[range: string, outcome: 'ok' | 'error', data: string]>;
}

const table = JSON.parse(readFileSync(fileURLToPath(new URL('../../../../fixtures/semver-crate/differential.json', import.meta.url)), 'utf8')) as Table;

/** Bit `i` of the fixture's hex bitset: digit i/4, weight 2^(i mod 4). */
const bit = (hex: string, i: number): boolean => ((parseInt(hex[i >> 2]!, 16) >> (i & 3)) & 1) === 1;

/** The documented divergence (spec/format.md §17.2.3): numbers above 2^53−1 are refused. */
const hasHugeNumber = (range: string): boolean => (range.match(/[0-9]+/g) ?? []).some((d) => !Number.isSafeInteger(Number(d)));

function tryParse(range: string, mode: 'read' | 'write'): VersionRange | string {
  try {
    return parseRange(range, { mode });
  } catch (e) {
    return isCtxpkgError(e) ? e.code : `not a CtxpkgError: ${String(e)}`;
  }
}

describe('differential table from the semver crate (fixtures/semver-crate/differential.json)', () => {
  it('is the table we think it is', () => {
    expect(table.about.join(' ')).toContain('semver crate 1.0.27');
    expect(table.versions.length).toBeGreaterThanOrEqual(190);
    expect(table.rows.length).toBeGreaterThanOrEqual(3700);
    for (const v of table.versions) expect(evalVersion(v), v).not.toBeNull();
    for (const [, outcome, data] of table.rows) if (outcome === 'ok') expect(data.length).toBe(Math.ceil(table.versions.length / 4));
  });

  it('every range parses, refuses and matches like the crate', () => {
    const problems: string[] = [];
    let cells = 0;
    for (const [range, outcome, data] of table.rows) {
      const shown = JSON.stringify(range);
      const read = tryParse(range, 'read');
      const write = tryParse(range, 'write');
      if (hasHugeNumber(range)) {
        if (read !== 'E_INVALID_RANGE' || write !== 'E_INVALID_RANGE') problems.push(`${shown}: a number above 2^53-1 must be E_INVALID_RANGE (read ${String(typeof read === 'string' ? read : 'ok')})`);
        continue;
      }
      if (outcome === 'error') {
        if (typeof write !== 'string') problems.push(`${shown}: the crate refuses it (${data}) but write mode accepts it`);
        else if (write !== 'E_RANGE' && write !== 'E_INVALID_RANGE') problems.push(`${shown}: refused with ${write}`);
        if (typeof read !== 'string' && read.npmOnly.length === 0) problems.push(`${shown}: read mode accepts it as reference syntax (the crate says ${data})`);
        continue;
      }
      if (typeof write === 'string') {
        problems.push(`${shown}: the crate accepts it but write mode says ${write}`);
        continue;
      }
      table.versions.forEach((v, i) => {
        cells++;
        const expected = bit(data, i);
        if (satisfies(v, write) !== expected) problems.push(`${shown} vs ${v}: crate ${expected}, ours ${!expected}`);
      });
    }
    expect(problems.slice(0, 30)).toEqual([]);
    expect(problems.length).toBe(0);
    expect(cells).toBeGreaterThan(600_000);
  });
});
