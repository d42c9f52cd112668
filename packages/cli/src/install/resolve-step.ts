/**
 * The resolving branch of the install pipeline: resolve the declared dependencies transitively
 * over the configured registries, respecting ctxpkg.lock, and turn the result into planned
 * packages (run.ts fetches and verifies them).
 *
 * `update` (issue 5 item 6): with no names every package of the graph is re-resolved to the newest
 * allowed version (declared and indirect ones, like `npm update` / `cargo update`); with names only
 * those are freed and the other locked versions stay unless the new ones force a move
 * (`cargo update -p`).
 *
 * Yanked versions (issue 5 "update"; npm and cargo keep a yanked locked version): a locked yanked
 * version stays unless the user asks. `update` re-resolves the packages it updates; when that
 * would move a package from its locked yanked version to an *older* one, or fail because nothing
 * else is allowed (nothing newer satisfies the range), the package is kept at its locked version
 * instead and reported in `yankedKept` with the version the user could move to. Any other version
 * that goes down is reported as a downgrade by the caller (never silent).
 */
import { compareVersions, CtxpkgError, isCtxpkgError, resolve as resolveGraph } from '@ctxpkg/format';
import type { Lockfile } from '@ctxpkg/format';
import type { Dep, RegistrySource } from './source.js';
import type { LockState, Planned } from './types.js';

export interface ResolveStepInput {
  /** Declared registry dependencies (name → range; `file:` ones excluded). */
  declared: Record<string, string>;
  /** Ranges used for this run instead of the declared ones (`install @x@1.1.0` → `=1.1.0`). */
  exactNow: Record<string, string>;
  /** Required dependencies of local packages (roots too), and the local packages' names. */
  fileRoots: Dep[];
  localNames: ReadonlySet<string>;
  lockModel?: Lockfile;
  before: LockState;
  /** `update`: true for every root, or the names to update. */
  update?: string[] | true;
}

export interface ResolveStepResult {
  planned: Planned[];
  /** Every resolved package with its version (local ones included). */
  versions: Map<string, string>;
  skippedOptional: string[];
  /**
   * Locked yanked versions that `update` kept, with the older non-yanked version the user could
   * move to on purpose (the resolver's pick, or the highest older one; absent when there is none).
   */
  yankedKept: Array<{ name: string; version: string; olderAllowed?: string }>;
}

type ResolvedList = Array<{ name: string; version: string; dependencies: Record<string, string> }>;

/** Normalize the resolver's package list (array or Map). */
function resolvedPackages(res: unknown): ResolvedList {
  const pk = (res as { packages: unknown }).packages;
  const list = pk instanceof Map ? [...pk.values()] : (pk as unknown[]);
  return (list as Array<{ name: string; version: string; dependencies?: Record<string, string> }>).map((p) => ({
    name: p.name,
    version: p.version,
    dependencies: { ...(p.dependencies ?? {}) },
  }));
}

/** Every declared root and every locked registry package (not `file:`), sorted by name. */
function allUpdatable(rootDeps: Dep[], before: LockState): string[] {
  const names = new Set(rootDeps.map((d) => d.name));
  for (const e of before.packages.values()) if (!e.registry.startsWith('file:')) names.add(e.name);
  return [...names].sort();
}

/**
 * Resolve and plan. Throws the resolver's codes (`E_NOT_FOUND`, `E_NO_MATCH`, `E_RESOLVE`, …),
 * the registry client's, and `E_LOCK_MISMATCH` when a registry now lists another artifact for a
 * locked version.
 */
export async function resolveStep(input: ResolveStepInput, source: RegistrySource): Promise<ResolveStepResult> {
  const rootDeps: Dep[] = Object.entries(input.declared).map(([name, range]) => ({ name, version_req: input.exactNow[name] ?? range, optional: false }));
  for (const d of input.fileRoots) if (!rootDeps.some((r) => r.name === d.name)) rootDeps.push(d);
  rootDeps.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // `update` with no names frees the whole graph (npm, `cargo update`): every declared and every
  // locked registry package, indirect ones included. `update <names>` frees only those names; the
  // rest stays locked unless the freed versions require it to move (`cargo update -p`).
  let update = input.update === true ? allUpdatable(rootDeps, input.before) : input.update;
  const yankedKept: ResolveStepResult['yankedKept'] = [];
  /** The locked version of `name` when it is yanked (and not a local file), else undefined. */
  const lockedYanked = async (name: string): Promise<string | undefined> => {
    const locked = input.before.packages.get(name);
    if (!locked || locked.registry.startsWith('file:')) return undefined;
    return (await source.listVersions(name)).some((v) => v.version === locked.version && v.yanked) ? locked.version : undefined;
  };
  /** The highest non-yanked version below `version` (what the user could move to on purpose). */
  const olderLive = async (name: string, version: string): Promise<string | undefined> =>
    (await source.listVersions(name))
      .filter((v) => !v.yanked && compareVersions(v.version, version) < 0)
      .map((v) => v.version)
      .sort(compareVersions)
      .pop();
  let res;
  let resolved: ResolvedList;
  for (;;) {
    try {
      res = await resolveGraph({ dependencies: rootDeps }, source, { lockfile: input.lockModel, update });
    } catch (err) {
      // Updating off a yanked version can leave nothing allowed: keep those locked versions.
      if (!update || !isCtxpkgError(err) || !['E_NO_MATCH', 'E_RESOLVE', 'E_CONFLICT'].includes(err.code)) throw err;
      const keep: ResolveStepResult['yankedKept'] = [];
      for (const name of update) {
        const v = await lockedYanked(name);
        if (v) keep.push({ name, version: v, olderAllowed: await olderLive(name, v) });
      }
      if (keep.length === 0) throw err;
      yankedKept.push(...keep);
      update = update.filter((n) => !keep.some((k) => k.name === n));
      continue;
    }
    resolved = resolvedPackages(res);
    if (!update || update.length === 0) break;
    const back: ResolveStepResult['yankedKept'] = [];
    for (const p of resolved) {
      const locked = input.before.packages.get(p.name);
      if (!locked || !update.includes(p.name) || compareVersions(p.version, locked.version) >= 0) continue;
      if (await lockedYanked(p.name)) back.push({ name: p.name, version: locked.version, olderAllowed: p.version });
    }
    if (back.length === 0) break;
    yankedKept.push(...back);
    update = update.filter((n) => !back.some((b) => b.name === n));
  }
  const skippedOptional = ((res as { skippedOptional?: Array<{ name: string } | string> }).skippedOptional ?? []).map((s) => (typeof s === 'string' ? s : s.name));
  const planned: Planned[] = [];
  for (const p of resolved) {
    if (input.localNames.has(p.name)) continue;
    const registry = source.registryOf(p.name);
    const entry = await source.entry(p.name, p.version);
    const locked = input.before.packages.get(p.name);
    if (locked && locked.version === p.version && !locked.registry.startsWith('file:') && locked.artifact_sha256 !== entry.artifact_sha256) {
      throw new CtxpkgError('E_LOCK_MISMATCH', `${p.name}@${p.version}: the registry now lists artifact ${entry.artifact_sha256}, but ctxpkg.lock pinned ${locked.artifact_sha256}`, {
        details: { package: `${p.name}@${p.version}`, locked: locked.artifact_sha256, index: entry.artifact_sha256 },
        hint:
          'ctxpkg.lock was modified, or the registry changed the bytes of a published version (published versions must never change). ' +
          "Review the lockfile's history (`git log -p ctxpkg.lock`) and restore it if it was edited; otherwise report it to the registry operator. " +
          `Only if you trust the registry's current bytes: remove the "${p.name}" entry from ctxpkg.lock and run \`ctxpkg install\` again, then review the lockfile diff before committing`,
      });
    }
    planned.push({
      name: p.name,
      version: p.version,
      registry,
      fetchFrom: registry,
      expectedSha: entry.artifact_sha256,
      expectedFrom: 'index',
      dependencies: p.dependencies,
      bytes: source.downloaded.get(`${p.name}@${p.version}`),
    });
  }
  return { planned, versions: new Map(resolved.map((p) => [p.name, p.version])), skippedOptional, yankedKept: yankedKept.sort((a, b) => (a.name < b.name ? -1 : 1)) };
}
