/**
 * PubGrub's partial solution: the ordered list of decisions and derivations, with the
 * intersection of all assignments per package (Dart pub `partial_solution.dart`).
 */
import type { Incompat, Term } from './incompat.js';
import { versionBit } from './universe.js';

export interface Assignment {
  name: string;
  mask: bigint;
  /** Number of decisions made when this assignment was added (root decision = 1). */
  level: number;
  /** null for a decision. */
  cause: Incompat | null;
  index: number;
}

function popcount(m: bigint): number {
  let n = 0;
  for (let x = m; x !== 0n; x &= x - 1n) n++;
  return n;
}

export type Relation = 'satisfied' | 'contradicted' | 'inconclusive';

export class PartialSolution {
  readonly assignments: Assignment[] = [];
  /** name → index of the decided version. */
  readonly decisions = new Map<string, number>();
  private readonly acc = new Map<string, bigint>();
  private readonly byName = new Map<string, Assignment[]>();
  level = 0;

  constructor(
    private readonly fullOf: (name: string) => bigint,
    /** Told whenever a package becomes (count = allowed versions) or stops being (null) pending. */
    private readonly onPending: (name: string, count: number | null) => void,
  ) {}

  /** Select `versions[index]` of `name`. */
  decide(name: string, index: number): void {
    this.level++;
    this.decisions.set(name, index);
    this.push(name, versionBit(index), null);
  }

  /** Add a derivation caused by `cause`. */
  derive(name: string, mask: bigint, cause: Incompat): void {
    this.push(name, mask, cause);
  }

  private push(name: string, mask: bigint, cause: Incompat | null): void {
    const a: Assignment = { name, mask, level: this.level, cause, index: this.assignments.length };
    this.assignments.push(a);
    let list = this.byName.get(name);
    if (!list) this.byName.set(name, (list = []));
    list.push(a);
    const acc = (this.acc.get(name) ?? this.fullOf(name)) & mask;
    this.acc.set(name, acc);
    this.track(name, acc);
  }

  /** Pending = must be selected (positive) but not decided yet. */
  private track(name: string, acc: bigint | undefined): void {
    this.onPending(name, acc !== undefined && (acc & 1n) === 0n && !this.decisions.has(name) ? popcount(acc) : null);
  }

  /** Intersection of all assignments to `name` (everything when there are none). */
  accOf(name: string): bigint {
    return this.acc.get(name) ?? this.fullOf(name);
  }

  /** How the current assignments relate to `term`. */
  relation(term: Term): Relation {
    const acc = this.acc.get(term.name) ?? this.fullOf(term.name);
    if ((acc & (term.outside ?? this.fullOf(term.name) ^ term.mask)) === 0n) return 'satisfied';
    if ((acc & term.mask) === 0n) return 'contradicted';
    return 'inconclusive';
  }

  /** The earliest assignment after which `term` is satisfied. */
  satisfier(term: Term): Assignment {
    const full = this.fullOf(term.name);
    const outside = full ^ term.mask;
    let running = full;
    for (const a of this.byName.get(term.name) ?? []) {
      running &= a.mask;
      if ((running & outside) === 0n) return a;
    }
    throw new Error(`resolver invariant: no satisfier for ${term.name}`);
  }

  /** Remove every assignment made after decision level `level`. */
  backtrack(level: number): void {
    const touched = new Set<string>();
    while (this.assignments.length > 0 && this.assignments[this.assignments.length - 1]!.level > level) {
      const a = this.assignments.pop()!;
      touched.add(a.name);
      this.byName.get(a.name)!.pop();
      if (a.cause === null) this.decisions.delete(a.name);
    }
    for (const name of touched) {
      const list = this.byName.get(name)!;
      if (list.length === 0) {
        this.byName.delete(name);
        this.acc.delete(name);
      } else {
        let m = this.fullOf(name);
        for (const a of list) m &= a.mask;
        this.acc.set(name, m);
      }
      this.track(name, this.acc.get(name));
    }
    this.level = level;
  }
}
