/**
 * The install pipeline behind `install`, `update` and `uninstall` (issue 5 item 5):
 *
 *   under the project lock: recover → read ctxpkg.json + ctxpkg.lock → validate names/ranges
 *   (no network yet) → check locked registries (HB-26a) → plan (frozen: the lock or
 *   E_LOCKFILE_OUT_OF_SYNC; a satisfied lock: no network; else resolve transitively over the
 *   registries, respecting the lock) → fetch missing artifacts in parallel (bounded) → verify each
 *   (artifact hash, full format check, signature policy, name/version, pinned signer) → store
 *   (artifacts, then the blobs of ZIP-form packages) → commit ctxpkg.json + ctxpkg.lock together
 *   → rebuild the merged graph → prune the store and the blob store.
 *
 * Nothing is written before every package has been verified; a failure leaves the project as it was.
 */
import { readFileSync } from 'node:fs';
import { relative, resolve as resolvePath } from 'node:path';
import { CtxpkgError, readPackage, resolve as resolveGraph, parsePackageName } from '@ctxpkg/format';
import type { CliDeps } from '../deps.js';
import { withProjectLock } from '../lock.js';
import { createProgress } from '../progress.js';
import { readManifest, serializeManifest, type ProjectManifest } from '../project.js';
import type { Session } from '../session.js';
import { pruneBlobs } from '../blob-store.js';
import { hasArtifact, pruneStore, putArtifact, readArtifact, sha256Bytes } from '../store.js';
import { storeProjectBlobs } from './blobs.js';
import { readLock, lockText } from './lockio.js';
import { rebuildMergedGraph, type MergeSummary } from './merged.js';
import { checkLockRegistries, lockClosure, lockDrift } from './plan.js';
import { mapBounded } from './pool.js';
import { RegistrySource, type Dep } from './source.js';
import { checkDeclared, parseSpec } from './spec.js';
import { commitProjectFiles, recoverProjectFiles } from './txn.js';
import type { LockedEntry, LockState, VerifiedEntry } from './types.js';
import { verifyArtifact } from './verify.js';

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
  changed: Array<{ name: string; from: string; to: string }>;
  removed: Array<{ name: string; version: string }>;
  packages: Array<{ name: string; version: string; registry: string; signer: string }>;
  /** Registry requests made (0 = offline install). */
  requests: number;
  downloaded: number;
  merge: MergeSummary;
  skippedOptional: string[];
  lockfileChanged: boolean;
}

const byName = <T extends { name: string }>(a: T, b: T): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

interface Planned {
  name: string;
  version: string;
  registry: string;
  expectedSha: string;
  dependencies: Record<string, string>;
  bytes?: Uint8Array;
}

/** Normalize the resolver's package list (array or Map) to planned entries. */
function resolvedPackages(res: unknown): Array<{ name: string; version: string; dependencies: Record<string, string> }> {
  const pk = (res as { packages: unknown }).packages;
  const list = pk instanceof Map ? [...pk.values()] : (pk as unknown[]);
  return (list as Array<{ name: string; version: string; dependencies?: Record<string, string> }>).map((p) => ({
    name: p.name,
    version: p.version,
    dependencies: { ...(p.dependencies ?? {}) },
  }));
}

/** Run the pipeline; returns the report. See the module docstring for the rules. */
export async function runPipeline(session: Session, opts: InstallOptions, deps: CliDeps): Promise<InstallReport> {
  const root = session.root;
  return withProjectLock(root, async () => {
    recoverProjectFiles(root);
    const manifest: ProjectManifest = readManifest(root);
    const lock = readLock(root);
    const before = lock.state;
    const declared: Record<string, string> = { ...manifest.dependencies };
    const fileSpecs: Array<{ path: string }> = [];
    const provisional = new Set<string>();

    // 1. Arguments and ctxpkg.json are validated before any network request.
    for (const arg of opts.specs ?? []) {
      const s = parseSpec(arg);
      if (s.kind === 'file') fileSpecs.push({ path: s.path });
      else {
        declared[s.name] = s.range ?? '*';
        if (s.range === undefined) provisional.add(s.name);
      }
    }
    for (const name of opts.remove ?? []) {
      parsePackageName(name);
      if (!(name in declared)) throw new CtxpkgError('E_NOT_FOUND', `${name} is not a dependency of this project`, { hint: 'see `ctxpkg ls`' });
      delete declared[name];
    }
    if (opts.frozen && (fileSpecs.length > 0 || (opts.specs ?? []).length > 0 || (opts.remove ?? []).length > 0 || opts.update)) {
      throw new CtxpkgError('E_USAGE', '--frozen-lockfile installs exactly the lockfile; it cannot add, remove or update packages');
    }
    const requireSignature = manifest.trust.require_signature;
    const verifyBase = { requireSignature, acceptNewKey: Boolean(opts.acceptNewKey) };

    // 2. Local files: verified and pinned by hash; their dependencies become roots.
    const fileEntries: VerifiedEntry[] = [];
    const fileRoots: Dep[] = [];
    const fileDeps = new Map<string, Dep[]>();
    const readLocal = async (rel: string, name?: string): Promise<VerifiedEntry> => {
      const abs = resolvePath(root, rel);
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(readFileSync(abs));
      } catch (err) {
        throw new CtxpkgError('E_NOT_FOUND', `cannot read ${rel}: ${(err as Error).message}`);
      }
      const pkg = await readPackage(bytes, { requireSignature });
      const m = pkg.manifest as { name: string; version: string; dependencies?: Dep[] };
      parsePackageName(m.name);
      if (name !== undefined && m.name !== name) {
        throw new CtxpkgError('E_NAME_MISMATCH', `${rel} contains ${m.name}, but ctxpkg.json expects ${name}`);
      }
      const registry = `file:${relative(root, abs).split('\\').join('/')}`;
      const pinned = before.packages.get(m.name);
      const v = await verifyArtifact(bytes, { ...verifyBase, name: m.name, version: m.version, registry, expectedSha: sha256Bytes(bytes), pinnedSigner: pinned?.signer_public_key, fromStore: false });
      const required = (m.dependencies ?? []).filter((d) => !d.optional);
      fileRoots.push(...required);
      fileDeps.set(m.name, required);
      return v;
    };
    for (const f of fileSpecs) {
      const v = await readLocal(f.path);
      declared[v.name] = v.registry;
      fileEntries.push(v);
    }
    checkDeclared(declared);
    checkLockRegistries(before, session.settings);

    // 3. Plan.
    const source = new RegistrySource(session.client, session.settings);
    const drift = lockDrift(declared, before);
    let planned: Planned[];
    let skippedOptional: string[] = [];
    const fromLock = (e: LockedEntry): Planned => ({ name: e.name, version: e.version, registry: e.registry, expectedSha: e.artifact_sha256, dependencies: e.dependencies });
    if (opts.frozen) {
      if (drift) {
        throw new CtxpkgError('E_LOCKFILE_OUT_OF_SYNC', `ctxpkg.lock is out of sync with ctxpkg.json: ${drift}`, {
          hint: 'run `ctxpkg install` without --frozen-lockfile to update the lockfile, and commit it',
        });
      }
      planned = lockClosure(declared, before).map(fromLock);
    } else if (!opts.update && fileSpecs.length === 0 && (opts.specs ?? []).length === 0 && (!drift || (opts.remove?.length && !lockDrift(declared, { ...before, declared })))) {
      // Nothing to resolve: the lock satisfies the declared set (after an uninstall, the rest of
      // it), so the plan is its closure and no registry is contacted.
      planned = lockClosure(declared, before).map(fromLock);
    } else {
      for (const f of Object.entries(declared)) {
        const [name, range] = f;
        if (range.startsWith('file:') && !fileEntries.some((e) => e.name === name)) fileEntries.push(await readLocal(range.slice(5), name));
      }
      const rootDeps: Dep[] = Object.entries(declared)
        .filter(([, r]) => !r.startsWith('file:'))
        .map(([name, version_req]) => ({ name, version_req, optional: false }));
      for (const d of fileRoots) if (!rootDeps.some((r) => r.name === d.name)) rootDeps.push(d);
      rootDeps.sort(byName);
      const lockForResolver = lock.model;
      const update = opts.update === true ? rootDeps.map((d) => d.name) : opts.update;
      const res = await resolveGraph({ dependencies: rootDeps }, source, { lockfile: lockForResolver, update });
      skippedOptional = ((res as { skippedOptional?: Array<{ name: string } | string> }).skippedOptional ?? []).map((s) => (typeof s === 'string' ? s : s.name));
      planned = [];
      const resolved = resolvedPackages(res);
      for (const f of fileEntries) {
        const versions = new Map(resolved.map((p) => [p.name, p.version]));
        f.dependencies = Object.fromEntries((fileDeps.get(f.name) ?? []).filter((d) => versions.has(d.name)).map((d) => [d.name, versions.get(d.name) as string]));
      }
      for (const p of resolved) {
        if (fileEntries.some((f) => f.name === p.name)) continue;
        const registry = source.registryOf(p.name);
        const entry = await source.entry(p.name, p.version);
        const locked = before.packages.get(p.name);
        if (locked && locked.version === p.version && locked.registry === registry && locked.artifact_sha256 !== entry.artifact_sha256) {
          throw new CtxpkgError('E_LOCK_MISMATCH', `${p.name}@${p.version}: the registry now lists artifact ${entry.artifact_sha256}, but ctxpkg.lock pinned ${locked.artifact_sha256}`, {
            details: { package: `${p.name}@${p.version}`, locked: locked.artifact_sha256, index: entry.artifact_sha256 },
            hint: 'published versions must never change; report this to the registry operator',
          });
        }
        planned.push({ name: p.name, version: p.version, registry, expectedSha: entry.artifact_sha256, dependencies: p.dependencies, bytes: source.downloaded.get(`${p.name}@${p.version}`) });
      }
    }

    // 4. Fetch and verify (store first, then network), bounded parallelism.
    const toFetch = planned.filter((p) => !p.bytes && !hasArtifact(root, p.expectedSha));
    const bar = createProgress(deps.stderr, 'downloading', { unit: 'count' });
    let done = 0;
    const verified = await mapBounded(planned, opts.concurrency ?? 8, async (p) => {
      let bytes = p.bytes;
      let fromStore = false;
      if (!bytes) {
        try {
          bytes = readArtifact(root, p.expectedSha);
          fromStore = bytes !== undefined;
        } catch {
          bytes = undefined; // corrupt store file: fetch again
        }
      }
      if (!bytes) {
        if (p.registry.startsWith('file:')) {
          // A local package missing from the store: read the file again; the hash check below
          // refuses it if the file changed since it was locked.
          try {
            bytes = new Uint8Array(readFileSync(resolvePath(root, p.registry.slice(5))));
          } catch (err) {
            throw new CtxpkgError('E_NOT_FOUND', `${p.name} is locked from ${p.registry}, which cannot be read: ${(err as Error).message}`);
          }
        } else {
          bytes = await session.client.download(p.registry, p.name, p.version, p.expectedSha);
        }
        bar.update(++done, toFetch.length);
      }
      const locked = before.packages.get(p.name);
      if (fromStore && locked && locked.version === p.version && locked.artifact_sha256 === p.expectedSha && locked.registry === p.registry) {
        // Exactly the pinned artifact, re-hashed just now: verified when it entered the store.
        return { ...locked, dependencies: p.dependencies, bytes, fromStore } as VerifiedEntry;
      }
      const v = await verifyArtifact(bytes, { ...verifyBase, name: p.name, version: p.version, registry: p.registry, expectedSha: p.expectedSha, pinnedSigner: locked?.signer_public_key, fromStore });
      v.dependencies = p.dependencies;
      return v;
    });
    bar.done();
    const all = [...verified, ...fileEntries.filter((f) => !verified.some((v) => v.name === f.name))].sort(byName);

    // 5. Write: store (artifacts, then their blobs), then ctxpkg.json + ctxpkg.lock together,
    // then the merged graph.
    for (const v of all) if (!v.fromStore) putArtifact(root, v.bytes);
    const blobStore = await storeProjectBlobs(root, all);
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
    const newLockText = lockText(after);
    const newManifest: ProjectManifest = { ...manifest, dependencies: declared };
    const manifestText = serializeManifest(newManifest);
    const lockfileChanged = newLockText !== lock.text;
    if (opts.frozen && lockfileChanged) {
      throw new CtxpkgError('E_LOCKFILE_OUT_OF_SYNC', 'installing ctxpkg.lock exactly would change it; refusing under --frozen-lockfile', {
        hint: 'run `ctxpkg install` without --frozen-lockfile and commit the lockfile',
      });
    }
    if (lockfileChanged || manifestText !== serializeManifest(manifest) || !session.exists) {
      commitProjectFiles(root, { 'ctxpkg.json': manifestText, 'ctxpkg.lock': newLockText });
    }
    const merge = await rebuildMergedGraph(root, all, async (e) => {
      const full = await verifyArtifact(e.bytes, { ...verifyBase, name: e.name, version: e.version, registry: e.registry, expectedSha: e.artifact_sha256, pinnedSigner: e.signer_public_key, fromStore: true });
      return { graph: full.graph as NonNullable<VerifiedEntry['graph']>, content_hash: full.content_hash as string };
    });
    pruneStore(root, new Set(all.map((v) => v.artifact_sha256)));
    pruneBlobs(root, blobStore.keep);

    const added: InstallReport['added'] = [];
    const changed: InstallReport['changed'] = [];
    for (const v of all) {
      const old = before.packages.get(v.name);
      if (!old) added.push({ name: v.name, version: v.version });
      else if (old.version !== v.version) changed.push({ name: v.name, from: old.version, to: v.version });
    }
    const removed = [...before.packages.values()].filter((e) => !after.packages.has(e.name)).map((e) => ({ name: e.name, version: e.version })).sort(byName);
    return {
      root,
      added,
      changed,
      removed,
      packages: all.map((v) => ({ name: v.name, version: v.version, registry: v.registry, signer: v.signer_public_key })),
      requests: source.requests + toFetch.length,
      downloaded: all.filter((v) => !v.fromStore && !v.registry.startsWith('file:')).length,
      merge,
      skippedOptional,
      lockfileChanged,
    };
  });
}
