/**
 * The error thrown when resolution fails: code chosen from the facts of the derivation, message
 * = the explanation text (explain.ts), details = the explanation lines, every external fact
 * (`requirements`) and the chains of requirements from the root to each conflicting one.
 *
 * Code: `E_NOT_FOUND` when a needed package does not exist; else `E_CONFLICT` when two facts
 * require disjoint ranges of one package; else `E_NO_MATCH` when a range matches no version;
 * else `E_RESOLVE` (e.g. every candidate has invalid metadata).
 */
import { CtxpkgError, type ErrorCode } from '../errors.js';
import type { Describer } from './describe.js';
import { Explainer, leavesOf } from './explain.js';
import type { Incompat } from './incompat.js';
import { versionBit, type Provider } from './universe.js';

export type LeafKind = 'not_found' | 'no_match' | 'conflict' | 'unusable' | 'other';

type DepCause = Extract<Incompat['cause'], { kind: 'dependency' }>;

/** One link of a chain: `from` (root label or name) at `from_version` needs `package` `range`. */
export interface ChainLink {
  from: string;
  from_version: string | null;
  package: string;
  range: string;
}

export class FailureReport {
  readonly lines: string[];
  readonly leaves: Incompat[];

  constructor(
    readonly failure: Incompat,
    private readonly d: Describer,
    private readonly provider: Provider,
    private readonly rootKey: string,
  ) {
    this.lines = new Explainer(d, failure).explain();
    this.leaves = leavesOf(failure).sort((a, b) => {
      const ta = d.text(a);
      const tb = d.text(b);
      return ta < tb ? -1 : ta > tb ? 1 : 0;
    });
  }

  private depLeaves(): Array<{ inc: Incompat; c: DepCause }> {
    return this.leaves.filter((l) => l.cause.kind === 'dependency').map((inc) => ({ inc, c: inc.cause as DepCause }));
  }

  /** What kind of problem one external fact shows. */
  kindOf(leaf: Incompat): LeafKind {
    const c = leaf.cause;
    if (c.kind === 'unusable') return 'unusable';
    if (c.kind !== 'dependency') return 'other';
    const u = this.provider.get(c.dep.name);
    if (u.notFound) return 'not_found';
    if (u.mask(c.dep.range) === 0n) return 'no_match';
    return this.depLeaves().some((o) => o.inc !== leaf && o.c.dep.name === c.dep.name) ? 'conflict' : 'other';
  }

  code(): ErrorCode {
    const kinds = new Set(this.leaves.map((l) => this.kindOf(l)));
    if (kinds.has('not_found')) return 'E_NOT_FOUND';
    if (kinds.has('conflict')) return 'E_CONFLICT';
    if (kinds.has('no_match')) return 'E_NO_MATCH';
    return 'E_RESOLVE';
  }

  private link(c: DepCause): ChainLink {
    return { from: c.from === this.rootKey ? this.d.rootLabel : c.from, from_version: c.from === this.rootKey ? null : c.fromVersion, package: c.dep.name, range: c.dep.version_req };
  }

  /** Root → … → `c`, following dependency facts whose range admits each intermediate version. */
  private chainTo(c: DepCause): ChainLink[] {
    const chain: ChainLink[] = [this.link(c)];
    const seen = new Set<string>([`${c.from}@${c.fromVersion}`]);
    let cur = c;
    while (cur.from !== this.rootKey) {
      const u = this.provider.get(cur.from);
      const i = u.versions.indexOf(cur.fromVersion);
      const parent = this.depLeaves().find(
        (o) => o.c.dep.name === cur.from && i >= 0 && (u.mask(o.c.dep.range) & versionBit(i)) !== 0n && !seen.has(`${o.c.from}@${o.c.fromVersion}`),
      );
      if (!parent) break;
      seen.add(`${parent.c.from}@${parent.c.fromVersion}`);
      chain.unshift(this.link(parent.c));
      cur = parent.c;
    }
    return chain;
  }

  /** Structured details for the error. */
  details(): Record<string, unknown> {
    const requirements = this.leaves.map((l) => {
      const c = l.cause;
      const text = this.d.text(l);
      if (c.kind === 'dependency') return { kind: 'dependency', ...this.link(c), optional: c.dep.optional, problem: this.kindOf(l), text };
      if (c.kind === 'unusable') return { kind: 'unusable', package: c.name, version: c.version, reason: c.reason, text };
      if (c.kind === 'pinned') return { kind: 'pinned', package: c.name, version: c.version, text };
      return { kind: c.kind, text };
    });
    const chains = this.depLeaves()
      .filter(({ inc }) => ['conflict', 'no_match', 'not_found'].includes(this.kindOf(inc)))
      .map(({ c }) => this.chainTo(c));
    return { explanation: this.lines, requirements, chains };
  }

  toError(): CtxpkgError {
    const code = this.code();
    const hint: Record<string, string> = {
      E_NOT_FOUND: 'check the package name and the registry its scope is bound to',
      E_CONFLICT: 'change one of the ranges named above so that one version satisfies all of them',
      E_NO_MATCH: 'use a range that matches one of the available versions',
      E_RESOLVE: 'the versions named above cannot be used; require other versions',
    };
    const notFound = this.leaves.map((l) => (l.cause.kind === 'dependency' ? this.provider.get(l.cause.dep.name).notFound : undefined)).find((e) => e);
    // The registry client's own hint says more (e.g. that the package may be private and how to log in).
    const notFoundHint = code === 'E_NOT_FOUND' ? (notFound as { hint?: unknown } | undefined)?.hint : undefined;
    return new CtxpkgError(code, this.lines.join('\n'), { hint: typeof notFoundHint === 'string' ? notFoundHint : hint[code], details: this.details(), cause: notFound });
  }
}
