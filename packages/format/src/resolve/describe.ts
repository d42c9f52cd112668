/**
 * Words for terms and incompatibilities in resolver explanations (vocabulary: "needs",
 * "cannot be installed", "is incompatible with"; layout: explain.ts).
 */
import { rangeLabel } from '../versions.js';
import { isPositive, type Incompat, type Term } from './incompat.js';
import { ABSENT, type Provider, type Universe } from './universe.js';

type DepCause = Extract<Incompat['cause'], { kind: 'dependency' }>;

/** Most available versions listed in a "matches no version" message. */
const MAX_LISTED = 20;

export class Describer {
  constructor(
    private readonly provider: Provider,
    private readonly rootKey: string,
    readonly rootLabel: string,
  ) {}

  private runs(u: Universe, m: bigint): string {
    const parts: string[] = [];
    const n = u.versions.length;
    let i = 0;
    while (i < n) {
      if ((m & (1n << BigInt(i + 1))) === 0n) {
        i++;
        continue;
      }
      let j = i;
      while (j + 1 < n && (m & (1n << BigInt(j + 2))) !== 0n) j++;
      const lo = u.versions[i]!;
      const hi = u.versions[j]!;
      if (i === j) parts.push(lo);
      else if (i === 0) parts.push(`<=${hi}`);
      else if (j === n - 1) parts.push(`>=${lo}`);
      else parts.push(`>=${lo} <=${hi}`);
      i = j + 1;
    }
    return parts.join(' || ');
  }

  /** A positive version set of `name` (mask without the absent bit), as a subject. */
  subject(name: string, mask: bigint): string {
    if (name === this.rootKey) return this.rootLabel;
    const u = this.provider.get(name);
    const m = mask & ~ABSENT;
    const all = u.full ^ ABSENT;
    if (u.versions.length > 0 && m === all && u.versions.length > 1) return `every version of ${name}`;
    return this.object(name, mask);
  }

  /** A positive version set of `name`, as an object ("needs …"). */
  object(name: string, mask: bigint): string {
    if (name === this.rootKey) return this.rootLabel;
    const u = this.provider.get(name);
    const m = mask & ~ABSENT;
    if ((m & (m - 1n)) === 0n && m !== 0n) return `${name}@${u.versions[m.toString(2).length - 2]}`;
    const label = u.labels.get(m);
    if (label !== undefined) return `${name} ${label}`;
    if (m === (u.full ^ ABSENT)) return `any version of ${name}`;
    if (m === 0n) return `no version of ${name}`;
    return `${name} ${this.runs(u, m)}`;
  }

  /** `@a/x@1.2.0` or the root label. */
  who(name: string, version: string): string {
    return name === this.rootKey ? this.rootLabel : `${name}@${version}`;
  }

  /** Why a dependency's range selects nothing, or '' when it selects something. */
  emptyReason(name: string, mask: bigint): string {
    const u = this.provider.get(name);
    if (mask !== 0n) return '';
    if (u.notFound) return `, which was not found (${u.notFound.message})`;
    if (u.listed.length === 0) return `, which has no published versions`;
    const names = u.listed.map((e) => (e.yanked ? `${e.version} (yanked)` : e.version));
    const shown = names.length > MAX_LISTED ? ['…', ...names.slice(-MAX_LISTED)] : names;
    return `, which matches no version (available: ${shown.join(', ')})`;
  }

  /** True when two dependency facts on one package allow disjoint, non-empty version sets. */
  disjointDeps(a: DepCause, b: DepCause): boolean {
    const u = this.provider.get(a.dep.name);
    const ma = u.mask(a.dep.range);
    const mb = u.mask(b.dep.range);
    return ma !== 0n && mb !== 0n && (ma & mb) === 0n;
  }

  /**
   * "X needs A r1 which needs B r2" when `first` leads to exactly the version that `second`
   * starts from (Dart pub's "depends on … which depends on …"); undefined otherwise.
   */
  requiresThrough(first: DepCause, second: DepCause): string | undefined {
    if (first.dep.name !== second.from || first.dep.optional || second.dep.optional) return undefined;
    const u = this.provider.get(first.dep.name);
    const i = u.versions.indexOf(second.fromVersion);
    const m = u.mask(first.dep.range);
    if (i < 0 || m !== 1n << BigInt(i + 1)) return undefined;
    const target = this.provider.get(second.dep.name);
    if (this.emptyReason(second.dep.name, target.mask(second.dep.range)) !== '') return undefined;
    return `${this.who(first.from, first.fromVersion)} needs ${first.dep.name} ${rangeLabel(first.dep.version_req)} which needs ${second.dep.name} ${rangeLabel(second.dep.version_req)}`;
  }

  /** The sentence fragment for one incompatibility. */
  text(inc: Incompat): string {
    const c = inc.cause;
    switch (c.kind) {
      case 'root':
        return `${this.rootLabel} is required`;
      case 'dependency': {
        const u = this.provider.get(c.dep.name);
        const target = `${c.dep.name} ${rangeLabel(c.dep.version_req)}`;
        const verb = c.dep.optional ? 'optionally needs' : 'needs';
        return `${this.who(c.from, c.fromVersion)} ${verb} ${target}${this.emptyReason(c.dep.name, u.mask(c.dep.range))}`;
      }
      case 'unusable':
        return `${c.name}@${c.version} cannot be used because ${c.reason}`;
      case 'no_versions':
        return `no version of ${c.name} is left to try`;
      case 'pinned':
        return `the required dependencies fix ${c.name}@${c.version}`;
      case 'derived':
        return this.termsText(inc.terms);
    }
  }

  private termsText(terms: Term[]): string {
    const sorted = [...terms].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const pos = sorted.filter(isPositive);
    const neg = sorted.filter((t) => !isPositive(t));
    const full = (t: Term) => this.provider.get(t.name).full;
    const objectOfNegation = (t: Term) => this.object(t.name, full(t) ^ t.mask);
    if (sorted.length === 0 || (sorted.length === 1 && sorted[0]!.name === this.rootKey && pos.length === 1)) {
      return 'version solving failed';
    }
    if (sorted.length === 1) {
      const t = sorted[0]!;
      if (!isPositive(t)) return `${objectOfNegation(t)} is required`;
      const u = this.provider.get(t.name);
      if ((t.mask | ABSENT) === u.full && u.versions.length > 1) return `no version of ${t.name} can be installed`;
      return `${this.object(t.name, t.mask)} cannot be installed`;
    }
    if (pos.length === 1 && neg.length === 1) return `${this.subject(pos[0]!.name, pos[0]!.mask)} needs ${objectOfNegation(neg[0]!)}`;
    if (neg.length === 0) {
      const subjects = pos.map((t) => this.subject(t.name, t.mask));
      if (subjects.length === 2) return `${subjects[0]} is incompatible with ${subjects[1]}`;
      return `${subjects.slice(0, -1).join(', ')} and ${subjects[subjects.length - 1]} cannot all be installed together`;
    }
    const objects = neg.map(objectOfNegation).join(' or ');
    if (pos.length === 0) return `either ${objects} is required`;
    const subjects = pos.map((t) => this.subject(t.name, t.mask)).join(' and ');
    return `${subjects} ${pos.length === 1 ? 'needs' : 'together need'} ${objects}`;
  }
}
