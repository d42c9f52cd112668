/**
 * Public shapes of the resolver (resolve.ts). Dependencies use the reference's array form
 * `{name, version_req, optional}` (FORMAT-FACTS §7.1); structurally the same as the manifest
 * model's `Dependency`.
 */
import type { Lockfile } from '../lockfile.js';

/** One declared dependency (manifest `dependencies[]` entry). */
export interface ResolverDependency {
  /** Scoped `@ns/name`. */
  name: string;
  /** Range in the `version_req` dialect (spec/format.md §17), read mode. */
  version_req: string;
  optional: boolean;
}

/** One published version as the registry index lists it. */
export interface SourceVersion {
  version: string;
  yanked: boolean;
}

/**
 * Where versions come from. Bound to one registry: the resolver never asks anything else
 * (HB-28). `listVersions` of an unknown package throws `CtxpkgError('E_NOT_FOUND')` naming the
 * registry (or returns `[]`); any other error aborts resolution unchanged. `dependencies` is
 * asked lazily, only for versions the solver actually tries.
 */
export interface VersionSource {
  listVersions(name: string): Promise<SourceVersion[]>;
  dependencies(name: string, version: string): Promise<ResolverDependency[]>;
}

/** The project (or package) being resolved. */
export interface ResolveRoot {
  /** The root's own name, if any: a dependency on it is a self-dependency (refused). */
  name?: string;
  /** The root's own version (used when a transitive package depends back on the root). */
  version?: string;
  dependencies: ResolverDependency[];
}

export interface ResolvePolicy {
  /** Respect this lockfile: keep every locked version that is still valid. */
  lockfile?: Lockfile;
  /** Fail with `E_LOCKFILE_OUT_OF_SYNC` on any difference from `lockfile` (needs `lockfile`). */
  frozen?: boolean;
  /** Names whose locked versions are ignored (re-resolved to the highest match). */
  update?: string[];
}

/** One package of the solution. */
export interface ResolvedPackage {
  name: string;
  version: string;
  /** Each dependency of this version that is part of the solution: name → resolved version. */
  dependencies: Record<string, string>;
  /** True when the package is reachable from the root only through optional dependencies. */
  optional: boolean;
}

/** An optional dependency that was not installed. */
export interface SkippedOptional {
  /** The package (or root label) declaring it, and its resolved version (null for the root). */
  from: string;
  from_version: string | null;
  name: string;
  version_req: string;
  /** `not_found`: no such package; `no_match`: no version in range; `conflict`: clashes. */
  reason: 'not_found' | 'no_match' | 'conflict';
  /** The resolver's explanation (one or more lines). */
  message: string;
}

/** A difference between the lockfile and the resolution. */
export interface ResolutionChange {
  name: string;
  /** Locked version (absent for `added`). */
  from?: string;
  /** Resolved version (absent for `removed`). */
  to?: string;
  kind: 'added' | 'removed' | 'upgraded' | 'downgraded' | 'dependencies';
}

/** Result of `resolve`. Arrays are sorted by name (then by the other fields). */
export interface Resolution {
  /** The root's dependencies that were installed: name → version. */
  root: { dependencies: Record<string, string> };
  packages: ResolvedPackage[];
  skippedOptional: SkippedOptional[];
  /** Empty without a lockfile policy. */
  changes: ResolutionChange[];
}
