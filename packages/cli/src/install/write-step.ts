/**
 * Steps 5 and 6 of the install pipeline (run.ts): compute the new ctxpkg.json and ctxpkg.lock
 * texts (refusing a frozen change before anything is written), then write everything in order —
 * store, project files, .gitignore, merged graph, sealed record — and prune.
 */
import { CtxpkgError } from '@ctxpkg/format';
import { pruneBlobs } from '../blob-store.js';
import { serializeManifest, type ProjectManifest } from '../project.js';
import type { Session } from '../session.js';
import { pruneStore, putArtifact } from '../store.js';
import { storeProjectBlobs } from './blobs.js';
import { lockText } from './lockio.js';
import { rebuildMergedGraph } from './merged.js';
import { lockChanges } from './plan.js';
import { dropPins, ensureGitignore, userConfigBindings } from './project-edits.js';
import { commitProjectFiles } from './txn.js';
import type { Inputs, LockState, Plan, ProjectTexts, VerifiedEntry, Written } from './types.js';
import { writeVerified, type ArtifactFacts } from './verified.js';
import { verifyArtifact } from './verify.js';
import { yankedStatus } from './yanked.js';

const byName = <T extends { name: string }>(a: T, b: T): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Step 5: every new file text; a frozen install that would change ctxpkg.lock is refused here,
 * before anything is written. Names given without a range get `^<installed version>`.
 */
export function projectTexts(session: Session, frozen: boolean, inputs: Inputs, all: VerifiedEntry[]): ProjectTexts {
  const { manifest, declared, before } = inputs;
  for (const name of inputs.provisional) {
    const v = all.find((e) => e.name === name);
    if (v) declared[name] = `^${v.version}`;
  }
  // A lock entry for the very artifact installed (same version and artifact SHA-256) whose
  // `integrity_sha256` is not the artifact's own was edited by hand: refused, not rewritten — a
  // plain install used to "heal" it silently (attack pass 3 of 2026-12-07; a frozen install
  // refused it already, as a change of the lockfile).
  for (const v of all) {
    const locked = before.packages.get(v.name);
    if (locked && locked.version === v.version && locked.artifact_sha256 === v.artifact_sha256 && locked.integrity_sha256 !== v.integrity_sha256) {
      throw new CtxpkgError('E_LOCKFILE', `${v.name}@${v.version}: ctxpkg.lock records integrity ${locked.integrity_sha256}, but the locked artifact (${v.artifact_sha256}) says ${v.integrity_sha256}: the lockfile was edited; nothing was installed`, {
        hint: 'restore ctxpkg.lock from version control, or delete this package\'s entry from it to lock it again',
        details: { package: `${v.name}@${v.version}`, locked: locked.integrity_sha256, artifact: v.integrity_sha256 },
      });
    }
  }
  const after: LockState = { declared: { ...declared }, packages: new Map() };
  for (const v of all) {
    after.packages.set(v.name, {
      name: v.name, version: v.version, registry: v.registry, artifact_sha256: v.artifact_sha256,
      integrity_sha256: v.integrity_sha256, signer_public_key: v.signer_public_key, dependencies: v.dependencies,
      ...(v.log ? { log: v.log } : {}),
    });
  }
  const removed = [...before.packages.values()].filter((e) => !after.packages.has(e.name)).map((e) => ({ name: e.name, version: e.version })).sort(byName);
  const pins = frozen ? { extra: manifest.extra, dropped: [] } : dropPins(manifest.extra, removed.map((r) => r.name));
  const bound = frozen ? [] : userConfigBindings(all.filter((v) => !v.registry.startsWith('file:')).map((v) => v.name), manifest, session.settings);
  const newManifest: ProjectManifest = {
    ...manifest,
    dependencies: declared,
    registries: { ...manifest.registries, ...Object.fromEntries(bound.map((b) => [b.scope, b.registry])) },
    extra: pins.extra,
  };
  const newLockText = lockText(after);
  const lockfileChanged = newLockText !== inputs.lock.text;
  if (frozen && lockfileChanged) {
    throw new CtxpkgError('E_LOCKFILE_OUT_OF_SYNC', `installing ctxpkg.lock exactly would change it (${lockChanges(before, after)}); refusing under --frozen-lockfile`, {
      hint: 'run `ctxpkg install` without --frozen-lockfile and commit the lockfile',
    });
  }
  return { removed, pins, bound, manifestText: serializeManifest(newManifest), lockText: newLockText, lockfileChanged };
}

/**
 * Step 6, the writes: store (artifacts, then their blobs), ctxpkg.json + ctxpkg.lock together,
 * .gitignore, the merged graph, the sealed record (with yank status); then prune the stores.
 */
export async function writeProject(
  session: Session,
  inputs: Inputs,
  plan: Plan,
  all: VerifiedEntry[],
  texts: ProjectTexts,
  downloads: number,
): Promise<Written> {
  const { root, manifest, requireSignature, acceptNewKey, record } = inputs;
  for (const v of all) if (!v.fromStore) putArtifact(root, v.bytes);
  const blobStore = await storeProjectBlobs(root, all);
  if (texts.lockfileChanged || texts.manifestText !== serializeManifest(manifest) || !session.exists) {
    commitProjectFiles(root, { 'ctxpkg.json': texts.manifestText, 'ctxpkg.lock': texts.lockText });
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
  const status = await yankedStatus(all, plan.source, record, plan.source.requests + downloads > 0);
  const artifacts = new Map<string, ArtifactFacts>();
  for (const v of all) {
    const yanked = status.get(v.artifact_sha256)?.yanked;
    artifacts.set(v.artifact_sha256, {
      name: v.name, version: v.version, registry: v.registry, integrity_sha256: v.integrity_sha256, signer_public_key: v.signer_public_key,
      content_hash: v.content_hash, dependencies: v.manifestDependencies, ...(yanked === undefined ? {} : { yanked }),
    });
  }
  writeVerified(root, inputs.key, { artifacts, merged: binding });
  pruneStore(root, new Set(all.map((v) => v.artifact_sha256)));
  pruneBlobs(root, blobStore.keep);
  return { manifestCreated: !session.exists, gitignoreUpdated, merge, status };
}

