/**
 * Turns a PubGrub failure derivation into the explanation text of `E_CONFLICT` / `E_NO_MATCH` /
 * `E_NOT_FOUND` / `E_RESOLVE` (layout of Dart pub's `SolveFailure`: "Because …, …." lines,
 * "And because" / "So, because" chaining, numbered lines for facts used twice).
 *
 * Two combined facts read "X needs A and B" when one package needs two things, and
 * "X needs P r1 but Y needs P r2" when two packages need incompatible ranges of one package.
 */
import type { Describer } from './describe.js';
import { walkDerivation, type Incompat } from './incompat.js';

interface Line {
  text: string;
  number: number | null;
}

export class Explainer {
  private readonly derivations = new Map<number, number>();
  private readonly lineNumbers = new Map<number, number>();
  private readonly lines: Line[] = [];

  constructor(
    private readonly d: Describer,
    private readonly failure: Incompat,
  ) {}

  /** The explanation, one string per line (numbered lines start with `(n) `). */
  explain(): string[] {
    this.count(this.failure);
    if (this.failure.cause.kind === 'derived') this.visit(this.failure, false);
    else this.write(this.failure, `Because ${this.d.text(this.failure)}, version solving failed.`, false);
    const width = this.lineNumbers.size === 0 ? 0 : `(${Math.max(...this.lineNumbers.values())}) `.length;
    const out: string[] = [];
    for (const l of this.lines) {
      if (l.text === '') {
        if (out.length > 0 && out[out.length - 1] !== '') out.push('');
        continue;
      }
      out.push(l.number !== null ? `(${l.number})`.padEnd(width) + l.text : ' '.repeat(width) + l.text);
    }
    return out;
  }

  private count(inc: Incompat): void {
    const n = this.derivations.get(inc.id);
    if (n !== undefined) {
      this.derivations.set(inc.id, n + 1);
      return;
    }
    this.derivations.set(inc.id, 1);
    if (inc.cause.kind === 'derived') {
      this.count(inc.cause.conflict);
      this.count(inc.cause.other);
    }
  }

  private write(inc: Incompat, text: string, numbered: boolean): void {
    if (numbered) {
      const n = this.lineNumbers.size + 1;
      this.lineNumbers.set(inc.id, n);
      this.lines.push({ text, number: n });
    } else this.lines.push({ text, number: null });
  }

  private withLine(inc: Incompat): string {
    const n = this.lineNumbers.get(inc.id);
    return n === undefined ? this.d.text(inc) : `${this.d.text(inc)} (${n})`;
  }

  /** "A and B", with the `needs both` / `but` forms for two dependency facts. */
  private and(a: Incompat, b: Incompat): string {
    const ca = a.cause;
    const cb = b.cause;
    if (ca.kind === 'dependency' && cb.kind === 'dependency' && !this.lineNumbers.has(a.id) && !this.lineNumbers.has(b.id)) {
      const [x, y] = this.d.text(a) <= this.d.text(b) ? [a, b] : [b, a];
      const cx = x.cause as typeof ca;
      const cy = y.cause as typeof ca;
      if (cx.from === cy.from && cx.fromVersion === cy.fromVersion && cx.dep.optional === cy.dep.optional) {
        const who = this.d.who(cx.from, cx.fromVersion);
        const rest = (inc: Incompat) => this.d.text(inc).slice(who.length + 1).replace(/^(optionally )?needs /, '');
        return `${who} ${cx.dep.optional ? 'optionally needs' : 'needs'} both ${rest(x)} and ${rest(y)}`;
      }
      if (cx.dep.name === cy.dep.name && this.d.disjointDeps(cx, cy)) return `${this.d.text(x)} but ${this.d.text(y)}`;
      const through = this.d.requiresThrough(cx, cy) ?? this.d.requiresThrough(cy, cx);
      if (through !== undefined) return through;
      return `${this.d.text(x)} and ${this.d.text(y)}`;
    }
    return `${this.withLine(a)} and ${this.withLine(b)}`;
  }

  private isDerived(inc: Incompat): boolean {
    return inc.cause.kind === 'derived';
  }

  private visit(inc: Incompat, conclusion: boolean): void {
    const numbered = conclusion || (this.derivations.get(inc.id) ?? 0) > 1;
    const conjunction = conclusion || inc === this.failure ? 'So,' : 'And';
    const text = this.d.text(inc);
    const cause = inc.cause;
    if (cause.kind !== 'derived') return;
    const { conflict, other } = cause;
    if (this.isDerived(conflict) && this.isDerived(other)) {
      const cl = this.lineNumbers.get(conflict.id);
      const ol = this.lineNumbers.get(other.id);
      if (cl !== undefined && ol !== undefined) {
        this.write(inc, `Because ${this.and(conflict, other)}, ${text}.`, numbered);
      } else if (cl !== undefined || ol !== undefined) {
        const [withLine, withoutLine] = cl !== undefined ? [conflict, other] : [other, conflict];
        this.visit(withoutLine, false);
        this.write(inc, `${conjunction} because ${this.withLine(withLine)}, ${text}.`, numbered);
      } else {
        const singleConflict = this.isSingleLine(conflict);
        const singleOther = this.isSingleLine(other);
        if (singleConflict || singleOther) {
          const [first, second] = singleOther ? [conflict, other] : [other, conflict];
          this.visit(first, false);
          this.visit(second, false);
          this.write(inc, `Thus, ${text}.`, numbered);
        } else {
          this.visit(conflict, true);
          this.lines.push({ text: '', number: null });
          this.visit(other, false);
          this.write(inc, `${conjunction} because ${this.withLine(conflict)}, ${text}.`, numbered);
        }
      }
    } else if (this.isDerived(conflict) || this.isDerived(other)) {
      const [derived, ext] = this.isDerived(conflict) ? [conflict, other] : [other, conflict];
      const dl = this.lineNumbers.get(derived.id);
      if (dl !== undefined) {
        this.write(inc, `Because ${this.and(ext, derived)}, ${text}.`, numbered);
      } else if (this.isCollapsible(derived)) {
        const dc = derived.cause as { conflict: Incompat; other: Incompat };
        const [collapsedDerived, collapsedExt] = this.isDerived(dc.conflict) ? [dc.conflict, dc.other] : [dc.other, dc.conflict];
        this.visit(collapsedDerived, false);
        this.write(inc, `${conjunction} because ${this.and(collapsedExt, ext)}, ${text}.`, numbered);
      } else {
        this.visit(derived, false);
        this.write(inc, `${conjunction} because ${this.d.text(ext)}, ${text}.`, numbered);
      }
    } else {
      this.write(inc, `Because ${this.and(conflict, other)}, ${text}.`, numbered);
    }
  }

  private isSingleLine(inc: Incompat): boolean {
    const c = inc.cause;
    return c.kind === 'derived' && !this.isDerived(c.conflict) && !this.isDerived(c.other);
  }

  private isCollapsible(inc: Incompat): boolean {
    if ((this.derivations.get(inc.id) ?? 0) > 1) return false;
    const c = inc.cause;
    if (c.kind !== 'derived') return false;
    const conflictDerived = this.isDerived(c.conflict);
    if (conflictDerived === this.isDerived(c.other)) return false;
    return !this.lineNumbers.has((conflictDerived ? c.conflict : c.other).id);
  }
}

/** External (leaf) facts of a derivation, each once, in a stable order. */
export function leavesOf(failure: Incompat): Incompat[] {
  const out: Incompat[] = [];
  walkDerivation(failure, (inc) => {
    if (inc.cause.kind !== 'derived') out.push(inc);
  });
  return out;
}
