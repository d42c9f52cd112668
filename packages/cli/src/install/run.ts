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
import { readManifest, serializeManifest, type ProjectManifest } from '../project.js';
import type { Session } from '../session.js';
import { pruneBlobs } from '../blob-store.js';
import { pruneStore, putArtifact } from '../store.js';
import { storeProjectBlobs } from './blobs.js';
import { checkEdges } from './edges.js';
import { fetchAndVerify } from './fetch.js';
import { readLocalPackage, type LocalPackage } from './local.js';
import { readLock, lockText } from './lockio.js';
import { rebuildMergedGraph, type MergeSummary } from './merged.js';
import { checkLockRegistries, lockChanges, lockClosure, lockDrift } from './plan.js';
import { dropPins, ensureGitignore, userConfigBindings } from './project-edits.js';
import { resolveStep, type ResolveStepResult } from './resolve-step.js';
import { sealKey } from './seal.js';
import { RegistrySource } from './source.js';
import { checkDeclared, parseSpec } from './spec.js';
import { commitProjectFiles, recoverProjectFiles } from './txn.js';
import type { LockedEntry, LockState, Planned, VerifiedEntry } from './types.js';
import { readVerified, writeVerified, type ArtifactFacts } from './verified.js';
import { verifyArtifact } from './verify.js';
import { yankedReport, yankedStatus } from './yanked.js';

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
  /** Scope bindings written to ctxpkg.json `registries` (from the user config). */
  bound: Array<{ scope: string; registry: string }>;
  /** Pins removed from ctxpkg.json `context.pins` with the packages they named. */
  pinsRemoved: string[];
  /**
   * Installed versions the registry lists as yanked (install/yanked.ts): from an index fetched in
   * this run, or `as_of: 'last_check'` when this run made no registry request and only the record
   * of an earlier run knows. `kept`: `update` kept it
   * because no newer version is allowed; `olderAllowed`: a non-yanked older version to move to.
   */
  yanked: Array<{ name: string; version: string; as_of?: 'last_check'; kept?: true; olderAllowed?: string }>;
  /** `.ctxpkg/` was added to `.gitignore` (the install created ctxpkg.json). */
  gitignoreUpdated: boolean;
  merge: MergeSummary;
  skippedOptional: string[];
  lockfileChanged: boolean;
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

async function pipeline(session: Session, opts: InstallOptions, deps: CliDeps): Promise<InstallReport> {
  const root = session.root;
  recoverProjectFiles(root);
  const manifest: ProjectManifest = readManifest(root);
  const lock = readLock(root);
  const before = lock.state;
  const declared: Record<string, string> = { ...manifest.dependencies };
  const exactNow: Record<string, string> = {};
  const fileSpecs: string[] = [];
  const provisional = new Set<string>();

  // 1. Arguments and ctxpkg.json are validated before any network request.
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
    if (!(name in declared)) throw new CtxpkgError('E_NOT_FOUND', `${name} is not a dependency of this project`, { hint: 'see `ctxpkg ls`' });
    delete declared[name];
  }
  if (opts.frozen && ((opts.specs ?? []).length > 0 || (opts.remove ?? []).length > 0 || opts.update)) {
    throw new CtxpkgError('E_USAGE', '--frozen-lockfile installs exactly the lockfile; it cannot add, remove or update packages');
  }
  const requireSignature = manifest.trust.require_signature;
  const acceptNewKey = Boolean(opts.acceptNewKey);
  const key = sealKey(deps, true);
  const record = readVerified(root, key);

  // 2. Local files: verified and pinned by hash; their dependencies become roots.
  const local = new Map<string, LocalPackage>();
  for (const path of fileSpecs) {
    const lp = await readLocalPackage(root, path, { before, requireSignature, acceptNewKey });
    declared[lp.entry.name] = lp.entry.registry;
    delete exactNow[lp.entry.name];
    local.set(lp.entry.name, lp);
  }
  checkDeclared(declared);
  checkLockRegistries(before, session.settings, [manifest.dependencies, declared, before.declared], deps);

  // 3. Plan.
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
  let planned: Planned[];
  let edgesFrom: 'lock' | 'index' = 'lock';
  let resolved: ResolveStepResult | undefined;
  const nothingToResolve = !opts.update && (opts.specs ?? []).length === 0 && (!drift || ((opts.remove ?? []).length > 0 && !lockDrift(declared, { ...before, declared })));
  if (opts.frozen) {
    if (drift) {
      throw new CtxpkgError('E_LOCKFILE_OUT_OF_SYNC', `ctxpkg.lock is out of sync with ctxpkg.json: ${drift}`, {
        hint: 'run `ctxpkg install` without --frozen-lockfile to update the lockfile, and commit it',
      });
    }
    planned = lockClosure(declared, before).map(fromLock);
  } else if (nothingToResolve) {
    // The lock satisfies the declared set (after an uninstall, the rest of it): no registry contact.
    planned = lockClosure(declared, before).map(fromLock);
  } else {
    for (const [name, range] of Object.entries(declared)) {
      if (range.startsWith('file:') && !local.has(name)) local.set(name, await readLocalPackage(root, range.slice(5), { name, before, requireSignature, acceptNewKey }));
    }
    const registryDeclared = Object.fromEntries(Object.entries(declared).filter(([, r]) => !r.startsWith('file:')));
    const fileRoots = [...local.values()].flatMap((l) => l.required);
    resolved = await resolveStep(
      { declared: registryDeclared, exactNow, fileRoots, localNames: new Set(local.keys()), lockModel: lock.model, before, update: opts.update },
      source,
    );
    for (const lp of local.values()) {
      const versions = resolved.versions;
      lp.entry.dependencies = Object.fromEntries(lp.required.filter((d) => versions.has(d.name)).map((d) => [d.name, versions.get(d.name) as string]));
    }
    planned = resolved.planned;
    edgesFrom = 'index';
  }

  // 4. Fetch and verify; then every recorded edge against the verified manifests.
  const fetched = await fetchAndVerify({ root, session, planned, before, record, requireSignature, acceptNewKey, concurrency: opts.concurrency ?? 8, stderr: deps.stderr });
  checkEdges(fetched.entries, edgesFrom);
  const all = [...fetched.entries, ...[...local.values()].map((l) => l.entry).filter((f) => !fetched.entries.some((v) => v.name === f.name))].sort(byName);

  // 5. Compute every new file text; refuse a frozen change before anything is written.
  for (const name of provisional) {
    const v = all.find((e) => e.name === name);
    if (v) declared[name] = `^${v.version}`;
  }
  const after: LockState = { declared: { ...declared }, packages: new Map() };
  for (const v of all) {
    after.packages.set(v.name, {
      name: v.name, version: v.version, registry: v.registry, artifact_sha256: v.artifact_sha256,
      integrity_sha256: v.integrity_sha256, signer_public_key: v.signer_public_key, dependencies: v.dependencies,
    });
  }
  const removed = [...before.packages.values()].filter((e) => !after.packages.has(e.name)).map((e) => ({ name: e.name, version: e.version })).sort(byName);
  const pins = opts.frozen ? { extra: manifest.extra, dropped: [] } : dropPins(manifest.extra, removed.map((r) => r.name));
  const bound = opts.frozen ? [] : userConfigBindings(all.filter((v) => !v.registry.startsWith('file:')).map((v) => v.name), manifest, session.settings);
  const newManifest: ProjectManifest = {
    ...manifest,
    dependencies: declared,
    registries: { ...manifest.registries, ...Object.fromEntries(bound.map((b) => [b.scope, b.registry])) },
    extra: pins.extra,
  };
  const newLockText = lockText(after);
  const manifestText = serializeManifest(newManifest);
  const lockfileChanged = newLockText !== lock.text;
  if (opts.frozen && lockfileChanged) {
    throw new CtxpkgError('E_LOCKFILE_OUT_OF_SYNC', `installing ctxpkg.lock exactly would change it (${lockChanges(before, after)}); refusing under --frozen-lockfile`, {
      hint: 'run `ctxpkg install` without --frozen-lockfile and commit the lockfile',
    });
  }

  // 6. Write: store (artifacts, then their blobs), ctxpkg.json + ctxpkg.lock together,
  // .gitignore, the merged graph, the sealed record; then prune.
  for (const v of all) if (!v.fromStore) putArtifact(root, v.bytes);
  const blobStore = await storeProjectBlobs(root, all);
  if (lockfileChanged || manifestText !== serializeManifest(manifest) || !session.exists) {
    commitProjectFiles(root, { 'ctxpkg.json': manifestText, 'ctxpkg.lock': newLockText });
  }
  const gitignoreUpdated = !session.exists ? ensureGitignore(root) : false;
  const { summary: merge, binding } = await rebuildMergedGraph(
    root,
    all,
    async (e) => {
      const full = await verifyArtifact(e.bytes, { requireSignature, acceptNewKey, name: e.name, version: e.version, registry: e.registry, expectedSha: e.artifact_sha256, pinnedSigner: e.signer_public_key, fromStore: true });
      return { graph: full.graph as NonNullable<VerifiedEntry['graph']>, content_hash: full.content_hash };
    },
    record.merged,
  );
  const status = await yankedStatus(all, source, record, source.requests + fetched.downloads > 0);
  const artifacts = new Map<string, ArtifactFacts>();
  for (const v of all) {
    const yanked = status.get(v.artifact_sha256)?.yanked;
    artifacts.set(v.artifact_sha256, {
      name: v.name, version: v.version, registry: v.registry, integrity_sha256: v.integrity_sha256, signer_public_key: v.signer_public_key,
      content_hash: v.content_hash, dependencies: v.manifestDependencies, ...(yanked === undefined ? {} : { yanked }),
    });
  }
  writeVerified(root, key, { artifacts, merged: binding });
  pruneStore(root, new Set(all.map((v) => v.artifact_sha256)));
  pruneBlobs(root, blobStore.keep);

  // 7. Report.
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
  const yanked = yankedReport(all, status, resolved?.yankedKept ?? []);
  return {
    root,
    added,
    changed,
    removed,
    packages: all.map((v) => ({ name: v.name, version: v.version, registry: v.registry, signer: v.signer_public_key })),
    requests: source.requests + fetched.downloads,
    downloaded: all.filter((v) => !v.fromStore && !v.registry.startsWith('file:')).length,
    localReads: fetched.localReads,
    saved,
    bound,
    pinsRemoved: pins.dropped,
    yanked,
    gitignoreUpdated,
    merge,
    skippedOptional: resolved?.skippedOptional ?? [],
    lockfileChanged,
  };
}
