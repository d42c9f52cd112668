/**
 * Terms and incompatibilities of the PubGrub algorithm (Natalie Weizenbaum, "PubGrub: Next-
 * Generation Version Solving", 2018; Dart pub `doc/solver.md`), over finite version sets.
 *
 * A term is a package name and a bitset over its universe (universe.ts): bit 0 = "not
 * selected", bit i+1 = `versions[i]`. A positive term ("P is selected at one of S") has bit 0
 * clear; a negative term ("P is not selected at any of S") has bit 0 set. Set operations on
 * terms are plain bit operations, so intersection, negation and subset tests are exact.
 */
import type { Dep } from './universe.js';
import { ABSENT } from './universe.js';

export interface Term {
  name: string;
  mask: bigint;
  /** `full ^ mask`, precomputed for terms of incompatibilities (hot in `relation`). */
  outside?: bigint;
}

export const isPositive = (t: Term): boolean => (t.mask & ABSENT) === 0n;

/** Why an incompatibility holds. */
export type Cause =
  /** The root must be selected. */
  | { kind: 'root' }
  /** `from@fromVersion` depends on `dep` (from = root key for the root's own dependencies). */
  | { kind: 'dependency'; from: string; fromVersion: string; dep: Dep }
  /** `name@version` cannot be used (its metadata is invalid). */
  | { kind: 'unusable'; name: string; version: string; reason: string }
  /** No candidate version is left for a required term. */
  | { kind: 'no_versions'; name: string }
  /** While adding optional dependencies, `name@version` is fixed by the required graph. */
  | { kind: 'pinned'; name: string; version: string }
  /** Derived by resolution from two incompatibilities. */
  | { kind: 'derived'; conflict: Incompat; other: Incompat };

/** A set of terms that must not all be true at once. */
export interface Incompat {
  readonly id: number;
  readonly terms: Term[];
  readonly cause: Cause;
}

/** Creates incompatibilities with Dart pub's normalization. */
export class IncompatFactory {
  private next = 0;
  constructor(
    private readonly rootKey: string,
    private readonly fullOf: (name: string) => bigint,
  ) {}

  /**
   * Normalize and build: for derived incompatibilities with several terms the positive root term
   * is dropped (the root is always selected); terms of one package are intersected; terms that
   * every assignment satisfies (the full set) are dropped, as they add nothing.
   */
  make(terms: Term[], cause: Cause): Incompat {
    let ts = terms;
    if (cause.kind === 'derived' && ts.length !== 1 && ts.some((t) => t.name === this.rootKey && isPositive(t))) {
      ts = ts.filter((t) => !(t.name === this.rootKey && isPositive(t)));
    }
    const merged = new Map<string, bigint>();
    for (const t of ts) merged.set(t.name, (merged.get(t.name) ?? this.fullOf(t.name)) & t.mask);
    const out: Term[] = [];
    for (const [name, mask] of merged) {
      const full = this.fullOf(name);
      if (mask !== full) out.push({ name, mask, outside: full ^ mask });
    }
    return { id: this.next++, terms: out, cause };
  }

  /** True when the incompatibility says the whole problem has no solution. */
  isFailure(inc: Incompat): boolean {
    return inc.terms.length === 0 || (inc.terms.length === 1 && inc.terms[0]!.name === this.rootKey && isPositive(inc.terms[0]!));
  }
}

/** Visits every incompatibility of a derivation tree once (depth first, conflict side first). */
export function walkDerivation(root: Incompat, visit: (inc: Incompat) => void): void {
  const seen = new Set<number>();
  const stack = [root];
  while (stack.length > 0) {
    const inc = stack.pop()!;
    if (seen.has(inc.id)) continue;
    seen.add(inc.id);
    visit(inc);
    if (inc.cause.kind === 'derived') stack.push(inc.cause.other, inc.cause.conflict);
  }
}
