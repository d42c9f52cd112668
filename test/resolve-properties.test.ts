/**
 * Property tests of the resolver (fast-check): on small random registries it is
 * - complete: it finds a solution exactly when brute force over all assignments finds one;
 * - sound: every selected version satisfies every requirement on it and is not yanked (unless
 *   the root requires exactly it);
 * - deterministic: the same answer (or the same error text) whatever order the source lists
 *   versions and dependencies in.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCtxpkgError, resolve, satisfies } from '@ctxpkg/format';
import { memorySource, rootDeps, type MemRegistry } from '../packages/format/src/resolve/__tests__/memory-source.js';

const NAMES = ['@pk/p0', '@pk/p1', '@pk/p2', '@pk/p3'];
const VERSIONS = ['1.0.0', '1.1.0', '2.0.0'];
const RANGES = ['^1', '^2', '*', '>=1.1', '=1.0.0', '^3', '1.1'];

const arbVersion = fc.record({
  yanked: fc.constantFrom(false, false, false, true),
  deps: fc.dictionary(fc.constantFrom(...NAMES), fc.constantFrom(...RANGES), { maxKeys: 2 }),
});

const arbCase = fc.record({
  registry: fc.dictionary(fc.constantFrom(...NAMES), fc.dictionary(fc.constantFrom(...VERSIONS), arbVersion, { minKeys: 1 }), { minKeys: 1 }),
  root: fc.dictionary(fc.constantFrom(...NAMES), fc.constantFrom(...RANGES), { minKeys: 1, maxKeys: 3 }),
});

/** Drops self-dependencies (the generator's only way to make a version unusable). */
function clean(reg: MemRegistry): MemRegistry {
  const out: MemRegistry = {};
  for (const [name, versions] of Object.entries(reg)) {
    out[name] = {};
    for (const [v, spec] of Object.entries(versions)) {
      const deps = Object.fromEntries(Object.entries(spec.deps ?? {}).filter(([d]) => d !== name));
      out[name]![v] = { deps, yanked: spec.yanked === true };
    }
  }
  return out;
}

function bruteForceHasSolution(reg: MemRegistry, root: Record<string, string>): boolean {
  const names = NAMES;
  // A yanked version is a candidate only when the root requires exactly it (`=1.0.0`).
  const usable = (n: string, v: string, yanked: boolean | undefined) => !yanked || root[n]?.trim() === `=${v}`;
  const choices = names.map((n) => [null, ...Object.entries(reg[n] ?? {}).filter(([v, s]) => usable(n, v, s.yanked)).map(([v]) => v)]);
  const pick: Array<string | null> = new Array(names.length).fill(null);
  const ok = (): boolean => {
    const sel = new Map(names.map((n, i) => [n, pick[i]!]));
    const meets = (name: string, range: string) => {
      const v = sel.get(name);
      return typeof v === 'string' && satisfies(v, range);
    };
    if (!Object.entries(root).every(([n, r]) => meets(n, r))) return false;
    for (const [n, v] of sel) {
      if (v === null) continue;
      for (const [d, r] of Object.entries(reg[n]![v]!.deps ?? {})) if (!meets(d, r)) return false;
    }
    return true;
  };
  const search = (i: number): boolean => {
    if (i === names.length) return ok();
    for (const c of choices[i]!) {
      pick[i] = c;
      if (search(i + 1)) return true;
    }
    return false;
  };
  return search(0);
}

async function outcome(reg: MemRegistry, root: Record<string, string>, reverse: boolean): Promise<string> {
  try {
    return JSON.stringify(await resolve({ dependencies: rootDeps(root) }, memorySource(reg, { reverse })));
  } catch (e) {
    if (!isCtxpkgError(e)) throw e;
    return `${e.code}: ${e.message}`;
  }
}

describe('resolver properties', () => {
  it('is complete, sound and independent of source answer order', async () => {
    await fc.assert(
      fc.asyncProperty(arbCase, async ({ registry, root }) => {
        const reg = clean(registry as MemRegistry);
        const a = await outcome(reg, root, false);
        const b = await outcome(reg, root, true);
        expect(b).toBe(a);
        const solvable = bruteForceHasSolution(reg, root);
        expect(a.startsWith('{')).toBe(solvable);
        if (!solvable) {
          expect(a).toMatch(/^E_(CONFLICT|NO_MATCH|NOT_FOUND|RESOLVE): /);
          return;
        }
        const res = JSON.parse(a) as { packages: Array<{ name: string; version: string; dependencies: Record<string, string> }> };
        const sel = new Map(res.packages.map((p) => [p.name, p.version]));
        for (const [n, r] of Object.entries(root)) expect(satisfies(sel.get(n)!, r)).toBe(true);
        for (const p of res.packages) {
          if (reg[p.name]![p.version]!.yanked) expect(root[p.name]).toBe(`=${p.version}`);
          for (const [d, r] of Object.entries(reg[p.name]![p.version]!.deps ?? {})) {
            expect(satisfies(sel.get(d)!, r)).toBe(true);
            expect(p.dependencies[d]).toBe(sel.get(d));
          }
        }
      }),
      { numRuns: 400, seed: 20260301 },
    );
  });
});
