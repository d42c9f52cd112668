/**
 * The install pipeline behind `install`, `update` and `uninstall` (issue 5 item 5):
 *
 *   under the project lock: recover → read ctxpkg.json + ctxpkg.lock → validate names/ranges
 *   (no network yet) → check locked origins (HB-26a: registries by spec/registry.md §2 equivalence,
 *   `file:` only where ctxpkg.json declares that file) → plan (frozen: the lock or
 *   E_LOCKFILE_OUT_OF_SYNC; a satisfied lock: no network; else resolve transitively over the
 *   registries, respecting the lock; resolve-step.ts) → fetch and verify (fetch.ts) → check every
 *   recorded edge against the verified manifests (edges.ts) → write: store (artifacts, then the
 *   blobs of ZIP-form packages), ctxpkg.json + ctxpkg.lock together, `.gitignore` when the install
 *   created ctxpkg.json, the merged graph, the sealed record of what was verified (verified.ts) →
 *   prune the store and the blob store.
 *
 * Nothing is written before every package has been verified and every check passed; a failure
 * leaves the project as it was (and removes a `.ctxpkg/` that only this run created).
 */
import { existsSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { compareVersions, CtxpkgError, isValidVersion, parsePackageName } from '@ctxpkg/format';
import { registryFor } from '../config.js';
import type { CliDeps } from '../deps.js';
import { withProjectLock } from '../lock.js';
import { PROJECT_FILES } from '../paths.js';
import { readManifest, type ProjectManifest } from '../project.js';
import type { Session } from '../session.js';
import { checkEdges } from './edges.js';
import { fetchAndVerify } from './fetch.js';
import { readLocalPackage, type LocalPackage } from './local.js';
import { allowOutsideFiles } from './local-file.js';
import { readLock } from './lockio.js';
import type { MergeSummary } from './merged.js';
import { checkLockRegistries, lockClosure, lockDrift } from './plan.js';
import { resolveStep } from './resolve-step.js';
import { sealKey } from './seal.js';
import { RegistrySource } from './source.js';
import { checkDeclared, parseSpec } from './spec.js';
import { closest } from '../suggest.js';
import { recoverProjectFiles } from './txn.js';
import type { Inputs, LockedEntry, Plan, Planned, ProjectTexts, VerifiedEntry, Written } from './types.js';
import type { TransparencyResult } from './transparency.js';
import { readVerified } from './verified.js';
import { projectTexts, writeProject } from './write-step.js';
import { yankedReport } from './yanked.js';

export interface InstallOptions {
  /** Arguments of `install` (`@ns/name[@range]` or a file). */
  specs?: string[];
  /** Names to remove (`uninstall`). */
  remove?: string[];
  /** `update`: true for all, or the names to move to their newest allowed version. */
  update?: string[] | true;
  frozen?: boolean;
  acceptNewKey?: boolean;
  /** Max parallel downloads (default 8). */
  concurrency?: number;
  /** A frozen transparency log is an error, not a warning (`--strict`; spec/transparency.md §5.3). */
  strict?: boolean;
  /** The allowed age of a log checkpoint (`--log-max-age 24h`). */
  logMaxAge?: string;
}

export interface InstallReport {
  root: string;
  added: Array<{ name: string; version: string }>;
  /** Version changes; `downgrade` when the new version is lower (always said, never silent). */
  changed: Array<{ name: string; from: string; to: string; downgrade?: true }>;
  removed: Array<{ name: string; version: string }>;
  packages: Array<{ name: string; version: string; registry: string; signer: string }>;
  /** Registry requests made: index fetches and downloads (0 = no network). */
  requests: number;
  /** Packages whose bytes came from a registry in this run. */
  downloaded: number;
  /** Local `file:` packages read again into the store. */
  localReads: number;
  /** Ranges written to ctxpkg.json `dependencies` (new or changed), sorted by name. */
  saved: Array<{ name: string; range: string; previous?: string }>;
  /** Scope bindings written to ctxpkg.json `registries` (from the user config or `--registry`). */
  bound: Array<{ scope: string; registry: string; from: string }>;
  /** Pins removed from ctxpkg.json `context.pins` with the packages they named. */
  pinsRemoved: string[];
  /**
   * Installed versions the registry lists as yanked (install/yanked.ts): from an index fetched in
   * this run, or `as_of: 'last_check'` when this run made no registry request and only the record
   * of an earlier run knows. `kept`: `update` kept it
   * because no newer version is allowed; `olderAllowed`: a non-yanked older version to move to;
   * `requested`: installed because the command named exactly that version.
   */
  yanked: Array<{ name: string; version: string; as_of?: 'last_check'; kept?: true; olderAllowed?: string; requested?: true }>;
  /** This run created ctxpkg.json: there was none in the working directory or any parent (`install <pkg>` starts a project, as npm does). */
  manifestCreated: boolean;
  /** `.ctxpkg/` was added to `.gitignore` (the install created ctxpkg.json). */
  gitignoreUpdated: boolean;
  merge: MergeSummary;
  skippedOptional: string[];
  lockfileChanged: boolean;
  /** What the registries' transparency logs proved (install/transparency.ts); absent when no index was fetched. */
  transparency?: {
    registries: TransparencyResult['registries'];
    keyChanges: TransparencyResult['keyChanges'];
    /** Freeze warnings (stderr). */
    warnings: string[];
    /** Packages checked against a log. */
    checked: number;
  };
}

const byName = <T extends { name: string }>(a: T, b: T): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Run the pipeline; returns the report. See the module docstring for the rules. */
export async function runPipeline(session: Session, opts: InstallOptions, deps: CliDeps): Promise<InstallReport> {
  const dir = join(session.root, PROJECT_FILES.dir);
  const hadDir = existsSync(dir);
  try {
    return await withProjectLock(session.root, () => pipeline(session, opts, deps));
  } catch (err) {
    if (!hadDir) {
      try {
        rmdirSync(dir); // only when empty: this run created it for its lock and wrote nothing
      } catch {
        /* not empty or already gone */
      }
    }
    throw err;
  }
}

/**
 * The named steps in order: 1 `readInputs` (validate, no network), 2 `readLocalFiles`, the
 * declared-set and locked-origin checks, 3 `planInstall`, 4 fetch and verify + recorded edges,
 * 5 `projectTexts` (write-step.ts; nothing written yet), 6 `writeProject`, 7 `report`.
 */
async function pipeline(session: Session, opts: InstallOptions, deps: CliDeps): Promise<InstallReport> {
  const inputs = readInputs(session.root, opts, deps);
  const local = await readLocalFiles(inputs);
  checkDeclared(inputs.declared, inputs.root);
  checkLockRegistries(inputs.before, session.settings, [inputs.manifest.dependencies, inputs.declared, inputs.before.declared], deps);
  const plan = await planInstall(session, opts, inputs, local);
  // 3b. The transparency logs of the registries the plan was resolved from (before any download).
  const tlogStep = plan.edgesFrom === 'index' ? await import('./transparency.js') : undefined;
  const tlog = tlogStep ? await tlogStep.checkTransparency(plan.planned, plan.source, session, inputs.before, { strict: opts.strict, maxAge: opts.logMaxAge }, deps) : undefined;
  // 4. Fetch and verify; then every recorded edge against the verified manifests.
  const fetched = await fetchAndVerify({
    root: inputs.root, session, planned: plan.planned, before: inputs.before, record: inputs.record,
    requireSignature: inputs.requireSignature, acceptNewKey: inputs.acceptNewKey, concurrency: opts.concurrency ?? 8, stderr: deps.stderr, source: plan.source,
    loggedSigners: new Set(tlog?.keyChanges.map((k) => k.name) ?? []),
  });
  if (tlog && tlogStep) tlogStep.checkLoggedSigners(fetched.entries, tlog);
  for (const v of fetched.entries) {
    const old = inputs.before.packages.get(v.name);
    const kept = old && old.version === v.version && old.artifact_sha256 === v.artifact_sha256 ? old.log : undefined;
    const log = tlog?.records.get(v.name) ?? kept;
    if (log) v.log = log;
  }
  checkEdges(fetched.entries, plan.edgesFrom);
  const all = [...fetched.entries, ...[...local.values()].map((l) => l.entry).filter((f) => !fetched.entries.some((v) => v.name === f.name))].sort(byName);
  const texts = projectTexts(session, Boolean(opts.frozen), inputs, all);
  const written = await writeProject(session, inputs, plan, all, texts, fetched.downloads);
  const r = report(inputs, plan, all, texts, written, fetched);
  if (tlog) {
    r.requests += tlog.requests;
    r.transparency = { registries: tlog.registries, keyChanges: tlog.keyChanges, warnings: tlog.warnings, checked: tlog.records.size };
  }
  return r;
}

/** Step 1: arguments and ctxpkg.json are validated before any network request. */
function readInputs(root: string, opts: InstallOptions, deps: CliDeps): Inputs {
  recoverProjectFiles(root);
  const manifest: ProjectManifest = readManifest(root);
  const lock = readLock(root);
  const declared: Record<string, string> = { ...manifest.dependencies };
  const exactNow: Record<string, string> = {};
  const fileSpecs: string[] = [];
  const provisional = new Set<string>();
  for (const arg of opts.specs ?? []) {
    const s = parseSpec(arg);
    if (s.kind === 'file') fileSpecs.push(s.path);
    else if (s.range === undefined) {
      declared[s.name] = '*';
      provisional.add(s.name);
    } else if (isValidVersion(s.range)) {
      // `@x@1.1.0` (npm): exactly 1.1.0 now, saved as ^1.1.0 (README "Daily use").
      declared[s.name] = `^${s.range}`;
      exactNow[s.name] = `=${s.range}`;
    } else declared[s.name] = s.range;
  }
  for (const name of opts.remove ?? []) {
    parsePackageName(name);
    if (!(name in declared)) {
      const close = closest(name, Object.keys(declared));
      throw new CtxpkgError('E_NOT_FOUND', `${name} is not a dependency of this project${close.length > 0 ? `; did you mean ${close.join(' or ')}?` : ''}`, {
        hint: 'see `ctxpkg ls`',
        details: { name, suggestions: close },
      });
    }
    delete declared[name];
  }
  if (opts.frozen && ((opts.specs ?? []).length > 0 || (opts.remove ?? []).length > 0 || opts.update)) {
    throw new CtxpkgError('E_USAGE', '--frozen-lockfile installs exactly the lockfile; it cannot add, remove or update packages');
  }
  const key = sealKey(deps, true);
  return {
    root, manifest, lock, before: lock.state, declared, exactNow, fileSpecs, provisional,
    requireSignature: manifest.trust.require_signature, acceptNewKey: Boolean(opts.acceptNewKey), key, record: readVerified(root, key),
  };
}

/** Step 2: local files named as arguments, verified and pinned by hash; their dependencies become roots. */
async function readLocalFiles(inputs: Inputs): Promise<Map<string, LocalPackage>> {
  const { root, before, requireSignature, acceptNewKey } = inputs;
  const local = new Map<string, LocalPackage>();
  for (const path of inputs.fileSpecs) {
    // A path typed on the command line is the user's own choice: it may lie outside the project.
    const lp = await readLocalPackage(root, path, { before, requireSignature, acceptNewKey, allowOutside: true });
    inputs.declared[lp.entry.name] = lp.entry.registry;
    delete inputs.exactNow[lp.entry.name];
    local.set(lp.entry.name, lp);
  }
  return local;
}

/**
 * Step 3: the plan. Frozen: the lock, or E_LOCKFILE_OUT_OF_SYNC on drift; a lock that satisfies
 * the declared set (after an uninstall, the rest of it): the lock, no registry contact; else
 * resolve over the registries, respecting the lock (resolve-step.ts).
 */
async function planInstall(session: Session, opts: InstallOptions, inputs: Inputs, local: Map<string, LocalPackage>): Promise<Plan> {
  const { root, declared, before, requireSignature, acceptNewKey } = inputs;
  const source = new RegistrySource(session.client, session.settings);
  const drift = lockDrift(declared, before);
  const fromLock = (e: LockedEntry): Planned => ({
    name: e.name,
    version: e.version,
    registry: e.registry,
    fetchFrom: e.registry.startsWith('file:') ? e.registry : registryFor(e.name, session.settings),
    expectedSha: e.artifact_sha256,
    expectedFrom: 'lockfile',
    dependencies: e.dependencies,
  });
  const nothingToResolve = !opts.update && (opts.specs ?? []).length === 0 && (!drift || ((opts.remove ?? []).length > 0 && !lockDrift(declared, { ...before, declared })));
  if (opts.frozen) {
    if (drift) {
      throw new CtxpkgError('E_LOCKFILE_OUT_OF_SYNC', `ctxpkg.lock is out of sync with ctxpkg.json: ${drift}`, {
        hint: 'run `ctxpkg install` without --frozen-lockfile to update the lockfile, and commit it',
      });
    }
    return { planned: lockClosure(declared, before).map(fromLock), edgesFrom: 'lock', source };
  }
  if (nothingToResolve) return { planned: lockClosure(declared, before).map(fromLock), edgesFrom: 'lock', source };
  for (const [name, range] of Object.entries(declared)) {
    if (range.startsWith('file:') && !local.has(name)) local.set(name, await readLocalPackage(root, range.slice(5), { name, before, requireSignature, acceptNewKey, allowOutside: allowOutsideFiles(session.settings.env), label: range }));
  }
  const registryDeclared = Object.fromEntries(Object.entries(declared).filter(([, r]) => !r.startsWith('file:')));
  const fileRoots = [...local.values()].flatMap((l) => l.required);
  const resolved = await resolveStep(
    { declared: registryDeclared, exactNow: inputs.exactNow, fileRoots, localNames: new Set(local.keys()), lockModel: inputs.lock.model, before, update: opts.update },
    source,
  );
  for (const lp of local.values()) {
    const versions = resolved.versions;
    lp.entry.dependencies = Object.fromEntries(lp.required.filter((d) => versions.has(d.name)).map((d) => [d.name, versions.get(d.name) as string]));
  }
  return { planned: resolved.planned, edgesFrom: 'index', resolved, source };
}

/** Step 7: what changed, for the command's report (install.ts `reportLines`). */
function report(
  inputs: Inputs,
  plan: Plan,
  all: VerifiedEntry[],
  texts: ProjectTexts,
  written: Written,
  fetched: { downloads: number; localReads: number },
): InstallReport {
  const { manifest, declared, before } = inputs;
  const added: InstallReport['added'] = [];
  const changed: InstallReport['changed'] = [];
  for (const v of all) {
    const old = before.packages.get(v.name);
    if (!old) added.push({ name: v.name, version: v.version });
    else if (old.version !== v.version) changed.push({ name: v.name, from: old.version, to: v.version, ...(compareVersions(v.version, old.version) < 0 ? { downgrade: true as const } : {}) });
  }
  const saved = Object.keys(declared)
    .sort()
    .filter((n) => manifest.dependencies[n] !== declared[n])
    .map((n) => ({ name: n, range: declared[n] as string, ...(manifest.dependencies[n] !== undefined ? { previous: manifest.dependencies[n] } : {}) }));
  return {
    root: inputs.root,
    added,
    changed,
    removed: texts.removed,
    packages: all.map((v) => ({ name: v.name, version: v.version, registry: v.registry, signer: v.signer_public_key })),
    requests: plan.source.requests + fetched.downloads,
    downloaded: all.filter((v) => !v.fromStore && !v.registry.startsWith('file:')).length,
    localReads: fetched.localReads,
    saved,
    bound: texts.bound,
    pinsRemoved: texts.pins.dropped,
    yanked: yankedReport(all, written.status, plan.resolved?.yankedKept ?? []).map((y) =>
      inputs.exactNow[y.name] === `=${y.version}` && before.packages.get(y.name)?.version !== y.version ? { ...y, requested: true as const } : y,
    ),
    manifestCreated: written.manifestCreated,
    gitignoreUpdated: written.gitignoreUpdated,
    merge: written.merge,
    skippedOptional: plan.resolved?.skippedOptional ?? [],
    lockfileChanged: texts.lockfileChanged,
  };
}
