/**
 * Lockfile policy of the resolver (ADVERSARIAL HB-26): which locked versions are preferred, the
 * static drift checks of a frozen install, and the list of changes a resolution makes to a
 * lockfile.
 */
import semver from 'semver';
import { CtxpkgError } from '../errors.js';
import type { Lockfile } from '../lockfile.js';
import type { ResolutionChange, ResolverDependency } from './types.js';

/** name → locked version, for every locked package not being updated. */
export function lockPins(lock: Lockfile | undefined, update: ReadonlySet<string>): Map<string, string> {
  const pins = new Map<string, string>();
  if (!lock) return pins;
  for (const name of Object.keys(lock.packages).sort()) if (!update.has(name)) pins.set(name, lock.packages[name]!.version);
  return pins;
}

/**
 * Differences between the root's declared dependencies and the lockfile's record of them that a
 * frozen install must refuse before resolving: a range changed, a dependency added, removed or
 * switched between required and optional, or a required dependency without an entry.
 */
export function frozenDrift(declared: readonly ResolverDependency[], lock: Lockfile): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const optional = lock.optionalDependencies ?? {};
  for (const d of [...declared].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    seen.add(d.name);
    const own = d.optional ? optional : lock.dependencies;
    const otherKind = d.optional ? lock.dependencies : optional;
    if (Object.hasOwn(own, d.name)) {
      if (own[d.name] !== d.version_req) problems.push(`${d.name}: declared ${JSON.stringify(d.version_req)} but the lockfile records ${JSON.stringify(own[d.name])}`);
    } else if (Object.hasOwn(otherKind, d.name)) {
      problems.push(`${d.name}: declared ${d.optional ? 'optional' : 'required'} but the lockfile records it as ${d.optional ? 'required' : 'optional'}`);
    } else problems.push(`${d.name}: declared but not in the lockfile`);
    if (!d.optional && !Object.hasOwn(lock.packages, d.name)) problems.push(`${d.name}: the lockfile has no entry for it`);
  }
  for (const name of [...Object.keys(lock.dependencies), ...Object.keys(optional)].sort()) {
    if (!seen.has(name)) problems.push(`${name}: in the lockfile but no longer declared`);
  }
  return problems;
}

/** Throws `E_LOCKFILE_OUT_OF_SYNC` listing `problems` (at most 10 in the message). */
export function outOfSync(problems: string[], changes: ResolutionChange[] = []): CtxpkgError {
  const shown = problems.slice(0, 10).join('; ') + (problems.length > 10 ? `; … (${problems.length} in total)` : '');
  return new CtxpkgError('E_LOCKFILE_OUT_OF_SYNC', `ctxpkg.lock is out of sync with the declared dependencies: ${shown}`, {
    hint: 'run `ctxpkg install` without --frozen to update ctxpkg.lock, then commit it',
    details: { problems, changes },
  });
}

/** Text of one change, e.g. `@acme/kb: 1.2.0 → 2.0.1 (upgraded)`. */
export function changeText(c: ResolutionChange): string {
  if (c.kind === 'added') return `${c.name}: ${c.to} would be added`;
  if (c.kind === 'removed') return `${c.name}: ${c.from} would be removed`;
  if (c.kind === 'dependencies') return `${c.name}@${c.to}: its resolved dependencies differ from the lockfile`;
  return `${c.name}: ${c.from} → ${c.to} (${c.kind})`;
}

function sameRecord(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
}

/** Changes from `lock` (empty when absent) to the resolved packages, sorted by name. */
export function lockChanges(
  lock: Lockfile | undefined,
  resolved: ReadonlyArray<{ name: string; version: string; dependencies: Record<string, string> }>,
): ResolutionChange[] {
  const locked = lock?.packages ?? {};
  const out: ResolutionChange[] = [];
  const names = new Set<string>();
  for (const p of resolved) {
    names.add(p.name);
    const entry = Object.hasOwn(locked, p.name) ? locked[p.name] : undefined;
    if (!entry) out.push({ name: p.name, to: p.version, kind: 'added' });
    else if (entry.version !== p.version) {
      const cmp = semver.compare(p.version, entry.version);
      out.push({ name: p.name, from: entry.version, to: p.version, kind: cmp < 0 ? 'downgraded' : 'upgraded' });
    } else if (!sameRecord(entry.dependencies, p.dependencies)) {
      out.push({ name: p.name, from: entry.version, to: p.version, kind: 'dependencies' });
    }
  }
  for (const name of Object.keys(locked)) if (!names.has(name)) out.push({ name, from: locked[name]!.version, kind: 'removed' });
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
