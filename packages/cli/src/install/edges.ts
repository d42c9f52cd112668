/**
 * Dependency edges against the verified manifests (npm/rfcs#539 class; ADVERSARIAL HB-26).
 *
 * ctxpkg.lock records, per package, the versions its dependencies resolved to. The lockfile is a
 * cache of a resolution, not a source of truth for what a package depends on: an edge injected
 * into a locked package (pointing at an injected entry) must not install anything. So after every
 * package is verified, each recorded edge is checked against that package's own manifest:
 * - every edge names a dependency the manifest declares, and its version satisfies the declared
 *   range;
 * - every required (non-optional) dependency of the manifest has an edge (optional ones may be
 *   absent: the resolver skips those it cannot add).
 * The same check covers a resolution whose dependencies came from a registry index that disagrees
 * with the package it serves.
 */
import { CtxpkgError, satisfies } from '@ctxpkg/format';
import type { ManifestDep } from './verified.js';

export interface EdgeSubject {
  name: string;
  version: string;
  /** Recorded edges: dependency name → resolved version. */
  dependencies: Record<string, string>;
  /** The verified manifest's dependencies. */
  manifestDependencies: readonly ManifestDep[];
}

/** The first disagreement between `p`'s edges and its manifest, or undefined. */
export function edgeProblem(p: EdgeSubject): string | undefined {
  const declared = new Map(p.manifestDependencies.map((d) => [d.name, d]));
  for (const dep of Object.keys(p.dependencies).sort()) {
    const v = p.dependencies[dep] as string;
    const d = declared.get(dep);
    if (!d) return `${p.name}@${p.version} is recorded as depending on ${dep}@${v}, but its manifest declares no dependency on ${dep}`;
    let ok = false;
    try {
      ok = satisfies(v, d.version_req);
    } catch {
      ok = false;
    }
    if (!ok) return `${p.name}@${p.version} is recorded as depending on ${dep}@${v}, but its manifest requires ${dep} ${d.version_req}`;
  }
  for (const d of [...declared.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!d.optional && !(d.name in p.dependencies)) return `${p.name}@${p.version} requires ${d.name} ${d.version_req}, but no version of it is recorded`;
  }
  return undefined;
}

/**
 * Check every package's edges (sorted by name, first problem wins). Throws `E_LOCK_MISMATCH`
 * (exit 5) when the edges came from ctxpkg.lock (`source: 'lock'`), and `E_INTEGRITY` when they
 * came from a registry index that disagrees with the package it served (`source: 'index'`).
 */
export function checkEdges(packages: readonly EdgeSubject[], source: 'lock' | 'index'): void {
  for (const p of [...packages].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const problem = edgeProblem(p);
    if (!problem) continue;
    if (source === 'lock') {
      throw new CtxpkgError('E_LOCK_MISMATCH', `ctxpkg.lock does not match the packages it pins: ${problem}`, {
        details: { package: `${p.name}@${p.version}`, recorded: p.dependencies, declared: p.manifestDependencies },
        hint: 'nothing was installed; restore ctxpkg.lock from version control (it may have been tampered with), or delete it and run `ctxpkg install` to resolve again',
      });
    }
    throw new CtxpkgError('E_INTEGRITY', `the registry index disagrees with the package it served: ${problem}`, {
      details: { package: `${p.name}@${p.version}`, resolved: p.dependencies, declared: p.manifestDependencies },
      hint: 'nothing was installed; report this to the registry operator',
    });
  }
}
