/**
 * The README's "Exit codes" table is the contract users script against (new-user trial findings
 * 19/20): it must list every exit code the CLI can return, in ascending order, each with its
 * meaning, and every error code it names must really exit with that row's number. The codes come
 * from the source, not from a copy: `exitCodeFor` over the whole `ERROR_CODES` table, plus every
 * literal exit code a CLI command sets (`exitCode: … 1 …`, `SYNC_FAILED_EXIT = 8`, bin.ts's 70).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, exitCodeFor } from '@ctxpkg/format/errors';

const ROOT = join(import.meta.dirname, '..');

interface Row {
  exit: number;
  meaning: string;
  codes: string[];
}

/** The rows of the table under `## Exit codes` in README.md. */
function readmeRows(): Row[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Exit codes\n');
  expect(start, 'README has an "## Exit codes" section').toBeGreaterThan(0);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const rows: Row[] = [];
  for (const line of section.split('\n')) {
    const m = /^\|\s*(\d+)\s*\|([^|]*)\|([^|]*)\|$/.exec(line);
    if (!m) continue;
    rows.push({ exit: Number(m[1]), meaning: m[2].trim(), codes: [...m[3].matchAll(/`(E_[A-Z_]+)`/g)].map((x) => x[1]) });
  }
  return rows;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== '__tests__') out.push(...sourceFiles(p));
    } else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** Every integer a CLI source file assigns as an exit code. */
function literalExitCodes(): Map<number, string[]> {
  const found = new Map<number, string[]>();
  const note = (n: number, where: string): void => void found.set(n, [...(found.get(n) ?? []), where]);
  for (const file of sourceFiles(join(ROOT, 'packages/cli/src'))) {
    const text = readFileSync(file, 'utf8');
    const rel = file.slice(ROOT.length + 1);
    for (const m of text.matchAll(/\bexitCode\s*[:=]\s*([^,;}\n]+)/g)) for (const n of m[1].matchAll(/\b\d+\b/g)) note(Number(n[0]), rel);
    for (const m of text.matchAll(/\b[A-Z_]+_EXIT\s*=\s*(\d+)\b/g)) note(Number(m[1]), rel);
  }
  return found;
}

describe('README "Exit codes" table', () => {
  const rows = readmeRows();

  it('lists each exit code once, in ascending order, with a meaning', () => {
    expect(rows.length).toBeGreaterThan(5);
    const exits = rows.map((r) => r.exit);
    expect(exits).toEqual([...new Set(exits)].sort((a, b) => a - b));
    for (const r of rows) expect(r.meaning.length, `exit ${r.exit}`).toBeGreaterThan(3);
  });

  it('has exactly the exit codes the CLI can return', () => {
    const fromErrors = new Set(Object.keys(ERROR_CODES).map(exitCodeFor));
    const literal = literalExitCodes();
    // The literal scan must see the codes we know are set by hand; otherwise it would pass vacuously.
    expect(literal.get(8)).toContain('packages/cli/src/install/sync-hook.ts');
    expect(literal.get(1)).toContain('packages/cli/src/commands/verify.ts');
    expect(literal.get(70)).toContain('packages/cli/src/bin.ts');
    const expected = [...new Set([0, ...fromErrors, ...literal.keys()])].sort((a, b) => a - b);
    expect(rows.map((r) => r.exit)).toEqual(expected);
  });

  it('every error code a row names exits with that row, and every error family has its row named by at least one code', () => {
    const known = new Set(Object.keys(ERROR_CODES));
    for (const r of rows) {
      for (const c of r.codes) {
        expect(known.has(c), `${c} (README exit ${r.exit}) is not in ERROR_CODES`).toBe(true);
        expect(exitCodeFor(c), `${c} is listed under exit ${r.exit}`).toBe(r.exit);
      }
    }
    for (const exit of new Set(Object.keys(ERROR_CODES).map(exitCodeFor))) {
      expect(rows.find((r) => r.exit === exit)?.codes.length, `exit ${exit} names none of its error codes`).toBeGreaterThan(0);
    }
  });
});
