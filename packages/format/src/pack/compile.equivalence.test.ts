/**
 * The compiler's output is pinned on ~1,000 random inputs (`__tests__/random-packs.ts`): the
 * SHA-256 of each pack's text and receipt, recorded in `__tests__/random-packs.golden.json` by
 * the compiler as of commit f67816e (before the cold-render rework of issue 16 item 3), re-recorded
 * when the budget overruns were fixed (38 cases had recorded E_INTERNAL; compile.budget.test.ts). Any change
 * to the selection, order, layout or receipt shows up here; a deliberate one must re-record the
 * file (`CTXPKG_RECORD_PACKS=1 npx vitest run packages/format/src/pack/compile.equivalence.test.ts`)
 * and say why in its commit.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isCtxpkgError } from '../errors.js';
import { compilePack } from './compile.js';
import { receiptText } from './receipt.js';
import { randomCases } from './__tests__/random-packs.js';

const FILE = join(dirname(fileURLToPath(import.meta.url)), '__tests__', 'random-packs.golden.json');
const SEEDS = [1, 2, 3, 4, 5];
const PER_SEED = 200;

/** `text sha256 · receipt sha256`, or the error code. */
function outcome(input: Parameters<typeof compilePack>[0]): string {
  try {
    const p = compilePack(input);
    const h = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 16);
    return `${h(p.text)} ${h(receiptText(p.receipt))} ${p.brokenPins.length}`;
  } catch (e) {
    if (isCtxpkgError(e)) return e.code;
    throw e;
  }
}

describe('compilePack on random inputs gives the recorded bytes', () => {
  const got: Record<string, string> = {};
  for (const seed of SEEDS) for (const c of randomCases(seed, PER_SEED)) got[c.name] = outcome(c.input);
  if (process.env.CTXPKG_RECORD_PACKS === '1') writeFileSync(FILE, JSON.stringify(got, null, 1) + '\n');
  const want = JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, string>;
  it('every case (text and receipt) matches', () => {
    expect(Object.keys(got).length).toBe(SEEDS.length * PER_SEED);
    const differ = Object.keys(want).filter((k) => got[k] !== want[k]);
    expect(differ).toEqual([]);
  });
  it('the cases exercise what they should (notes, list items, secrets, budgets)', () => {
    const outcomes = Object.values(got);
    // Not degenerate: most cases compile, a few hit E_BUDGET, and outputs differ.
    expect(outcomes.filter((o) => o === 'E_BUDGET').length).toBeGreaterThan(0);
    expect(new Set(outcomes).size).toBeGreaterThan(outcomes.length * 0.8);
  });
});
