/**
 * The PubGrub solving loop (Dart pub `version_solver.dart`, `doc/solver.md`): unit propagation,
 * conflict-driven clause learning with backjumping, and decision making. Complete: it finds a
 * solution whenever one exists over the candidate versions; otherwise it throws `SolveFailure`
 * carrying the derivation of the failure, which explain.ts turns into text.
 *
 * Decisions (queue.ts): among undecided required packages, the one seen in most conflicts, then
 * the one with the fewest allowed versions, then by name; at its preferred version (a lockfile
 * pin) when still allowed, else at the highest allowed version.
 */
import { CtxpkgError } from '../errors.js';
import { IncompatFactory, type Incompat, type Term } from './incompat.js';
import { PartialSolution, type Assignment } from './partial.js';
import { DecisionQueue } from './queue.js';
import { ABSENT, versionBit, type Dep, type Provider } from './universe.js';

/** Thrown when no solution exists; `incompat` is the root of the derivation. */
export class SolveFailure extends Error {
  constructor(readonly incompat: Incompat) {
    super('version solving failed');
  }
}

export interface SolveInput {
  rootKey: string;
  rootDeps: Dep[];
  provider: Provider;
  /** Preferred version of a package (lockfile pin), if any. */
  prefer(name: string): string | undefined;
  /** True for an optional dependency edge `from → to` that is to be ignored. */
  skipOptional(from: string, to: string): boolean;
  /** Packages fixed to one version (required graph, while adding optional dependencies). */
  pins: ReadonlyMap<string, string>;
}

export const edgeKey = (from: string, to: string): string => `${from}\u0000${to}`;

function highestBit(m: bigint): number {
  return m.toString(2).length - 1;
}

export class Solver {
  readonly factory: IncompatFactory;
  private readonly solution: PartialSolution;
  private readonly byPackage = new Map<string, Incompat[]>();
  private readonly perVersion = new Map<string, Incompat[]>();
  private readonly queue = new DecisionQueue();

  constructor(private readonly input: SolveInput) {
    const fullOf = (name: string) => input.provider.get(name).full;
    this.factory = new IncompatFactory(input.rootKey, fullOf);
    this.solution = new PartialSolution(fullOf, (name, count) => this.queue.setPending(name, count));
  }

  /** Solve; returns name → selected version (root included). Throws `SolveFailure`. */
  async solve(): Promise<Map<string, string>> {
    const { rootKey, provider } = this.input;
    await provider.load([rootKey]);
    this.add(this.factory.make([{ name: rootKey, mask: ABSENT }], { kind: 'root' }));
    let next: string | null = rootKey;
    while (next !== null) {
      this.propagate(next);
      const choice = this.choose();
      if (choice === null) break;
      if (choice.index < 0) {
        next = choice.name;
        continue;
      }
      const incs = this.perVersion.get(this.versionKey(choice.name, choice.index)) ?? (await this.incompatsFor(choice.name, choice.index));
      next = this.tryDecide(choice.name, choice.index, incs);
    }
    const out = new Map<string, string>();
    for (const [name, index] of this.solution.decisions) out.set(name, provider.get(name).versions[index]!);
    return out;
  }

  private add(inc: Incompat): void {
    for (const t of inc.terms) {
      let list = this.byPackage.get(t.name);
      if (!list) this.byPackage.set(t.name, (list = []));
      list.push(inc);
    }
  }

  private propagate(start: string): void {
    const changed = new Set([start]);
    while (changed.size > 0) {
      const pkg: string = changed.values().next().value!;
      changed.delete(pkg);
      const list = this.byPackage.get(pkg) ?? [];
      for (let i = list.length - 1; i >= 0; i--) {
        const result = this.propagateOne(list[i]!);
        if (result === 'conflict') {
          const rootCause = this.resolveConflict(list[i]!);
          changed.clear();
          const derived = this.propagateOne(rootCause);
          if (typeof derived !== 'string') throw new CtxpkgError('E_INTERNAL', 'resolver invariant: learned clause did not propagate');
          changed.add(derived);
          break;
        }
        if (result !== null) changed.add(result);
      }
    }
  }

  /** Derives the negation of the only undetermined term, or reports a conflict. */
  private propagateOne(inc: Incompat): string | 'conflict' | null {
    let unsatisfied: Term | null = null;
    for (const t of inc.terms) {
      const rel = this.solution.relation(t);
      if (rel === 'contradicted') return null;
      if (rel === 'inconclusive') {
        if (unsatisfied !== null) return null;
        unsatisfied = t;
      }
    }
    if (unsatisfied === null) return 'conflict';
    const full = this.input.provider.get(unsatisfied.name).full;
    this.solution.derive(unsatisfied.name, full ^ unsatisfied.mask, inc);
    return unsatisfied.name;
  }

  /** Conflict resolution with backjumping; returns the learned incompatibility. */
  private resolveConflict(start: Incompat): Incompat {
    let inc = start;
    let learned = false;
    while (!this.factory.isFailure(inc)) {
      let mostRecentTerm: Term | null = null;
      let mostRecent: Assignment | null = null;
      let difference: Term | null = null;
      let previousLevel = 1;
      for (const t of inc.terms) {
        const satisfier = this.solution.satisfier(t);
        if (mostRecent === null) {
          mostRecentTerm = t;
          mostRecent = satisfier;
        } else if (mostRecent.index < satisfier.index) {
          previousLevel = Math.max(previousLevel, mostRecent.level);
          mostRecentTerm = t;
          mostRecent = satisfier;
          difference = null;
        } else {
          previousLevel = Math.max(previousLevel, satisfier.level);
        }
        if (mostRecentTerm === t) {
          const full = this.input.provider.get(t.name).full;
          const diff = mostRecent.mask & (full ^ t.mask);
          difference = diff === 0n ? null : { name: t.name, mask: diff };
          if (difference !== null) {
            const inverse = { name: t.name, mask: full ^ difference.mask };
            previousLevel = Math.max(previousLevel, this.solution.satisfier(inverse).level);
          }
        }
      }
      const sat = mostRecent!;
      if (previousLevel < sat.level || sat.cause === null) {
        this.solution.backtrack(previousLevel);
        for (const t of inc.terms) this.queue.bump(t.name);
        if (learned) this.add(inc);
        return inc;
      }
      const terms: Term[] = inc.terms.filter((t) => t !== mostRecentTerm);
      for (const t of sat.cause.terms) if (t.name !== sat.name) terms.push(t);
      if (difference !== null) terms.push({ name: difference.name, mask: this.input.provider.get(difference.name).full ^ difference.mask });
      inc = this.factory.make(terms, { kind: 'derived', conflict: inc, other: sat.cause });
      learned = true;
    }
    throw new SolveFailure(inc);
  }

  private versionKey(name: string, index: number): string {
    return `${name}@${this.input.provider.get(name).versions[index]!}`;
  }

  /**
   * The next package to decide and its version index (-1 after recording that no version is
   * left), or null when every required package is decided. Order: packages seen in more
   * conflicts first (conflict-driven priority), then fewest allowed versions, then name.
   */
  private choose(): { name: string; index: number } | null {
    const name = this.queue.peek();
    if (name === null) return null;
    const acc = this.solution.accOf(name);
    const universe = this.input.provider.get(name);
    if (acc === 0n) {
      this.add(this.factory.make([{ name, mask: acc }], { kind: 'no_versions', name }));
      return { name, index: -1 };
    }
    let index = -1;
    const preferred = this.input.prefer(name);
    if (preferred !== undefined) {
      const i = universe.versions.indexOf(preferred);
      if (i >= 0 && (acc & versionBit(i)) !== 0n) index = i;
    }
    if (index < 0) index = highestBit(acc) - 1;
    return { name, index };
  }

  /** Decide `name@versions[index]` unless one of its dependencies already conflicts. */
  private tryDecide(name: string, index: number, incs: Incompat[]): string {
    let conflict = false;
    for (const inc of incs) {
      conflict ||= inc.terms.every((t) => t.name === name || this.solution.relation(t) === 'satisfied');
    }
    if (!conflict) this.solution.decide(name, index);
    return name;
  }

  /** Dependency incompatibilities of `name@versions[index]`, created (and indexed) once. */
  private async incompatsFor(name: string, index: number): Promise<Incompat[]> {
    const { provider, rootKey } = this.input;
    const version = provider.get(name).versions[index]!;
    const key = this.versionKey(name, index);
    const cached = this.perVersion.get(key);
    if (cached) return cached;
    const self: Term = { name, mask: versionBit(index) };
    const out: Incompat[] = [];
    let deps: Dep[];
    if (name === rootKey) deps = this.input.rootDeps;
    else {
      const r = await provider.dependencies(name, version);
      if (!r.ok) deps = [];
      else deps = r.deps;
      if (!r.ok) out.push(this.factory.make([self], { kind: 'unusable', name, version, reason: r.reason }));
    }
    const active = deps.filter((d) => !(d.optional && this.input.skipOptional(name, d.name)));
    await provider.load(active.map((d) => d.name));
    for (const d of active) {
      const u = provider.get(d.name);
      const m = u.mask(d.range);
      if (m !== 0n && !u.labels.has(m)) u.labels.set(m, d.version_req.trim() || '*');
      out.push(this.factory.make([self, { name: d.name, mask: u.full ^ m }], { kind: 'dependency', from: name, fromVersion: version, dep: d }));
    }
    if (name === rootKey) {
      for (const [pinned, v] of [...this.input.pins].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        await provider.load([pinned]);
        const u = provider.get(pinned);
        const i = u.versions.indexOf(v);
        const m = i < 0 ? 0n : versionBit(i);
        out.push(this.factory.make([self, { name: pinned, mask: u.full ^ m }], { kind: 'pinned', name: pinned, version: v }));
      }
    }
    for (const inc of out) this.add(inc);
    this.perVersion.set(key, out);
    return out;
  }
}

