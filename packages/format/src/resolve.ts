/**
 * Full transitive dependency resolution over an injected `VersionSource` (issue 3 item 2;
 * FORMAT-FACTS §7.2 for what the reference does: depth 1 only). Pure: all I/O is the source's.
 *
 * Rules (spec/format.md §17 "Resolution"):
 * - one version per package name; the solver is PubGrub (resolve/solver.ts), so a solution is
 *   found whenever one exists over the non-yanked candidates, and a failure is explained as
 *   chains of requirements ("@a/x@1.2.0 needs @c/z ^2 but @b/y@3.0.0 needs @c/z ^1");
 * - the highest matching non-yanked version wins; a yanked version is a candidate only when the
 *   lockfile pins it or the root requires exactly it (`=1.2.0`, reference `remote.rs` pin rule);
 * - the required graph is solved first; optional dependencies are then added without changing
 *   any required choice, and those that cannot be added are reported in `skippedOptional`;
 * - self-dependencies and unscoped names are refused; cycles among distinct packages resolve;
 * - with a lockfile every locked version still allowed is kept (`changes` lists the rest), and
 *   `frozen` refuses any difference with `E_LOCKFILE_OUT_OF_SYNC`;
 * - deterministic: same inputs → same result and same text, whatever order the source answers in.
 */
import { CtxpkgError, isCtxpkgError } from './errors.js';
import { isValidVersion, parsePackageName, validateVersion } from './names.js';
import { Describer } from './resolve/describe.js';
import { FailureReport } from './resolve/failure.js';
import { changeText, frozenDrift, lockChanges, lockPins, outOfSync } from './resolve/lock-policy.js';
import { edgeKey, SolveFailure, Solver, type SolveInput } from './resolve/solver.js';
import type { Resolution, ResolvePolicy, ResolveRoot, ResolvedPackage, SkippedOptional, VersionSource } from './resolve/types.js';
import { Provider, type Dep } from './resolve/universe.js';
import { parseRange, satisfies } from './versions.js';

export type * from './resolve/types.js';

/** Label of an unnamed root in messages. */
export const ROOT_LABEL = 'your project';

function validateRootDeps(root: ResolveRoot): Dep[] {
  const seen = new Set<string>();
  const out: Dep[] = [];
  const bare = (s: string) => s.replace(/^@/, '');
  if (!Array.isArray(root.dependencies)) throw new CtxpkgError('E_MANIFEST', 'the root dependencies must be an array of {name, version_req, optional}');
  for (const d of root.dependencies) {
    const name: unknown = d?.name;
    if (typeof name !== 'string') throw new CtxpkgError('E_INVALID_NAME', 'a dependency name must be a string');
    try {
      parsePackageName(name);
    } catch (e) {
      throw new CtxpkgError('E_INVALID_NAME', `dependency ${JSON.stringify(name)} is not a scoped @ns/name reference`, {
        hint: 'depend on packages by their scoped name, e.g. @acme/auth-context',
        cause: e,
      });
    }
    if (root.name !== undefined && bare(name) === bare(root.name)) {
      throw new CtxpkgError('E_CYCLE', `${root.name} depends on itself (${name}); refused`, { hint: 'remove the dependency on the package itself' });
    }
    if (seen.has(name)) throw new CtxpkgError('E_MANIFEST', `dependency ${name} is declared twice`, { hint: 'declare each dependency once' });
    seen.add(name);
    if (typeof d.version_req !== 'string') throw new CtxpkgError('E_INVALID_RANGE', `dependency ${name}: the version range must be a string`);
    try {
      out.push({ name, version_req: d.version_req, optional: d.optional === true, range: parseRange(d.version_req, { mode: 'read' }) });
    } catch (e) {
      if (!isCtxpkgError(e)) throw e;
      throw new CtxpkgError(e.code, `dependency ${name}: ${e.message}`, { hint: e.hint, cause: e, details: { dependency: name, range: d.version_req } });
    }
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** Versions that may be used although yanked: lockfile pins and exact root requirements. */
function yankedAllowed(pins: Map<string, string>, deps: Dep[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (n: string, v: string) => (out.get(n) ?? out.set(n, new Set()).get(n)!).add(v);
  for (const [n, v] of pins) add(n, v);
  for (const d of deps) {
    const m = /^=\s*(\S+)$/.exec(d.version_req.trim());
    if (m && isValidVersion(m[1]!)) add(d.name, m[1]!);
  }
  return out;
}

/**
 * Resolve `root`'s dependencies transitively. Throws `E_INVALID_NAME` (unscoped dependency
 * name), `E_CYCLE` (self-dependency), `E_INVALID_RANGE` / `E_MANIFEST` (bad root declaration),
 * `E_NOT_FOUND`, `E_NO_MATCH`, `E_CONFLICT`, `E_RESOLVE` (no solution; message = explanation,
 * details `{ explanation, requirements, chains }`), `E_LOCKFILE_OUT_OF_SYNC` (frozen drift,
 * details `{ problems, changes }`), `E_USAGE` (bad policy), and any error of the source.
 */
export async function resolve(root: ResolveRoot, source: VersionSource, policy: ResolvePolicy = {}): Promise<Resolution> {
  if (root.version !== undefined) validateVersion(root.version);
  const rootDeps = validateRootDeps(root);
  const rootKey = root.name ?? '';
  const lock = policy.lockfile;
  if (policy.frozen && !lock) throw outOfSync(['a frozen install needs ctxpkg.lock, and there is none']);
  if (policy.frozen && (policy.update?.length ?? 0) > 0) throw new CtxpkgError('E_USAGE', 'a frozen install cannot update packages');
  for (const n of policy.update ?? []) parsePackageName(n);
  if (policy.frozen && lock) {
    const drift = frozenDrift(root.dependencies, lock);
    if (drift.length > 0) throw outOfSync(drift);
  }
  const pins = lockPins(lock, new Set(policy.update ?? []));
  const provider = new Provider(source, { key: rootKey, version: root.version }, yankedAllowed(pins, rootDeps));
  const describer = new Describer(provider, rootKey, root.name ?? ROOT_LABEL);
  const base: Omit<SolveInput, 'skipOptional' | 'pins'> = {
    rootKey,
    rootDeps,
    provider,
    prefer: (n) => pins.get(n),
  };
  const report = (e: SolveFailure) => new FailureReport(e.incompat, describer, provider, rootKey);
  const depsOf = async (name: string, version: string): Promise<Dep[]> => {
    if (name === rootKey) return rootDeps;
    const r = await provider.dependencies(name, version);
    return r.ok ? r.deps : [];
  };

  // Phase 1: the required graph.
  let selection: Map<string, string>;
  try {
    selection = await new Solver({ ...base, skipOptional: () => true, pins: new Map() }).solve();
  } catch (e) {
    if (e instanceof SolveFailure) throw report(e).toError();
    throw e;
  }

  // Phase 2: add optional dependencies without changing any required version.
  const skipped = new Map<string, { reason: SkippedOptional['reason']; message: string }>();
  let hasOptional = false;
  for (const [n, v] of selection) if ((await depsOf(n, v)).some((d) => d.optional)) hasOptional = true;
  if (hasOptional) {
    const fixed = new Map([...selection].filter(([n]) => n !== rootKey));
    for (;;) {
      try {
        selection = await new Solver({ ...base, skipOptional: (f, t) => skipped.has(edgeKey(f, t)), pins: fixed }).solve();
        break;
      } catch (e) {
        if (!(e instanceof SolveFailure)) throw e;
        const r = report(e);
        const candidates = r.leaves
          .filter((l) => l.cause.kind === 'dependency' && l.cause.dep.optional)
          .map((l) => ({ leaf: l, key: l.cause.kind === 'dependency' ? edgeKey(l.cause.from, l.cause.dep.name) : '' }))
          .filter((c) => !skipped.has(c.key))
          .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        const pick = candidates[candidates.length - 1];
        if (!pick) throw r.toError();
        const kind = r.kindOf(pick.leaf);
        skipped.set(pick.key, { reason: kind === 'not_found' || kind === 'no_match' ? kind : 'conflict', message: r.lines.join('\n') });
      }
    }
  }
  return buildResolution(selection, rootKey, root.name ?? ROOT_LABEL, depsOf, skipped, policy);
}

async function buildResolution(
  selection: Map<string, string>,
  rootKey: string,
  rootLabel: string,
  depsOf: (name: string, version: string) => Promise<Dep[]>,
  skipped: Map<string, { reason: SkippedOptional['reason']; message: string }>,
  policy: ResolvePolicy,
): Promise<Resolution> {
  const names = [...selection.keys()].sort();
  const depMaps = new Map<string, Record<string, string>>();
  const required = new Map<string, string[]>();
  const skippedOptional: SkippedOptional[] = [];
  for (const name of names) {
    const version = selection.get(name)!;
    const map: Record<string, string> = {};
    const hard: string[] = [];
    for (const d of await depsOf(name, version)) {
      if (d.name === rootKey) continue; // a dependency back on the root is satisfied by the project itself
      const v = selection.get(d.name);
      if (v !== undefined && satisfies(v, d.range)) {
        map[d.name] = v;
        if (!d.optional) hard.push(d.name);
      } else if (d.optional) {
        const why = skipped.get(edgeKey(name, d.name)) ?? { reason: 'conflict' as const, message: '' };
        const isRoot = name === rootKey;
        skippedOptional.push({ from: isRoot ? rootLabel : name, from_version: isRoot ? null : version, name: d.name, version_req: d.version_req, ...why });
      }
    }
    depMaps.set(name, Object.fromEntries(Object.keys(map).sort().map((k) => [k, map[k]!])));
    required.set(name, hard);
  }
  const reachable = new Set([rootKey]);
  const queue = [rootKey];
  while (queue.length > 0) {
    for (const next of required.get(queue.shift()!) ?? []) if (!reachable.has(next)) (reachable.add(next), queue.push(next));
  }
  const packages: ResolvedPackage[] = names
    .filter((n) => n !== rootKey)
    .map((name) => ({ name, version: selection.get(name)!, dependencies: depMaps.get(name)!, optional: !reachable.has(name) }));
  const changes = lockChanges(policy.lockfile, packages);
  if (policy.frozen && changes.length > 0) throw outOfSync(changes.map(changeText), changes);
  skippedOptional.sort((a, b) => (a.from + '\0' + a.name < b.from + '\0' + b.name ? -1 : 1));
  return { root: { dependencies: depMaps.get(rootKey) ?? {} }, packages, skippedOptional, changes };
}

