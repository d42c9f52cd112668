/**
 * An in-memory `VersionSource` for resolver tests and benches. A registry is written as
 * `{ '@a/x': { '1.2.0': { deps: { '@c/z': '^2' }, optional: { '@d/w': '*' }, yanked: true } } }`.
 */
import { CtxpkgError } from '../../errors.js';
import type { Lockfile } from '../../lockfile.js';
import type { ResolverDependency, SourceVersion, VersionSource } from '../types.js';

export interface MemVersion {
  deps?: Record<string, string>;
  optional?: Record<string, string>;
  /** Raw dependency list, used verbatim instead of `deps`/`optional` (for malformed cases). */
  raw?: unknown;
  yanked?: boolean;
}

export type MemRegistry = Record<string, Record<string, MemVersion>>;

export interface MemSourceOptions {
  /** Name used in E_NOT_FOUND messages. */
  registry?: string;
  /** Answer lists in reverse order (determinism checks). */
  reverse?: boolean;
  /** Every call is recorded here as `list @a/x` or `deps @a/x@1.0.0`. */
  calls?: string[];
}

export function memorySource(reg: MemRegistry, opts: MemSourceOptions = {}): VersionSource {
  const registry = opts.registry ?? 'https://registry.test/api';
  const order = <T>(xs: T[]): T[] => (opts.reverse ? [...xs].reverse() : xs);
  return {
    async listVersions(name: string): Promise<SourceVersion[]> {
      opts.calls?.push(`list ${name}`);
      const versions = Object.hasOwn(reg, name) ? reg[name] : undefined;
      if (!versions) throw new CtxpkgError('E_NOT_FOUND', `package ${name} was not found on ${registry}`);
      return order(Object.entries(versions).map(([version, v]) => ({ version, yanked: v.yanked === true })));
    },
    async dependencies(name: string, version: string): Promise<ResolverDependency[]> {
      opts.calls?.push(`deps ${name}@${version}`);
      const v = reg[name]?.[version];
      if (!v) throw new CtxpkgError('E_NOT_FOUND', `${name}@${version} was not found on ${registry}`);
      if (v.raw !== undefined) return v.raw as ResolverDependency[];
      const deps = [
        ...Object.entries(v.deps ?? {}).map(([n, r]) => ({ name: n, version_req: r, optional: false })),
        ...Object.entries(v.optional ?? {}).map(([n, r]) => ({ name: n, version_req: r, optional: true })),
      ];
      return order(deps);
    },
  };
}

/** Root dependencies from `{ name: range }` (and optional ones). */
export function rootDeps(deps: Record<string, string>, optional: Record<string, string> = {}): ResolverDependency[] {
  return [
    ...Object.entries(deps).map(([name, version_req]) => ({ name, version_req, optional: false })),
    ...Object.entries(optional).map(([name, version_req]) => ({ name, version_req, optional: true })),
  ];
}

/** A minimal valid lockfile (hashes are placeholders of the right shape). */
export function lockOf(declared: Record<string, string>, entries: Record<string, [string, Record<string, string>]>): Lockfile {
  return {
    lockfileVersion: 1 as const,
    dependencies: declared,
    packages: Object.fromEntries(
      Object.entries(entries).map(([n, [version, dependencies]]) => [
        n,
        { version, registry: 'https://registry.test/api', artifact_sha256: 'a'.repeat(64), integrity_sha256: 'b'.repeat(64), signer_public_key: 'c'.repeat(64), dependencies },
      ]),
    ),
  };
}
