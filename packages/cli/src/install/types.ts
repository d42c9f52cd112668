/**
 * The install pipeline's internal shapes. `LockState` mirrors the lockfile model of
 * `@ctxpkg/format` (lockfile.ts); `lockio.ts` converts between the two.
 */
import type { ContextGraph, LockLogRecord } from '@ctxpkg/format';
import type { ProjectManifest } from '../project.js';
import type { ReadLock } from './lockio.js';
import type { MergeSummary } from './merged.js';
import type { ResolveStepResult } from './resolve-step.js';
import type { RegistrySource } from './source.js';
import type { ManifestDep, VerifiedRecord } from './verified.js';
import type { YankedStatus } from './yanked.js';

/** One installed package as recorded in ctxpkg.lock. */
export interface LockedEntry {
  name: string;
  version: string;
  /** Registry base URL the artifact came from (normalized). */
  registry: string;
  /** SHA-256 (lowercase hex) of the exact downloaded bytes; the store key. */
  artifact_sha256: string;
  /** The manifest's `integrity.sha256`. */
  integrity_sha256: string;
  /** Signer public key (64 lowercase hex) pinned at first install; '' when unsigned (policy off). */
  signer_public_key: string;
  /** Resolved dependencies: name → version. */
  dependencies: Record<string, string>;
  /** The version's place in its registry's transparency log (spec/transparency.md §5.4). */
  log?: LockLogRecord;
}

/** The lockfile contents in the CLI's terms. */
export interface LockState {
  /** The root's declared dependencies when the lock was written (name → range). */
  declared: Record<string, string>;
  /** Installed packages by name. */
  packages: Map<string, LockedEntry>;
}

/** One package the install will use: where it comes from and what its bytes must hash to. */
export interface Planned {
  name: string;
  version: string;
  /** The origin to record in ctxpkg.lock (registry URL as locked or configured, or `file:<path>`). */
  registry: string;
  /** Where to download from: the configured registry URL (equivalent to `registry`), or the `file:` origin. */
  fetchFrom: string;
  /** The artifact SHA-256 (64 lowercase hex) the bytes must hash to. */
  expectedSha: string;
  /**
   * Where `expectedSha` came from: ctxpkg.lock (installing the lock as it is) or the registry
   * index fetched in this run (resolving; a locked version was checked equal to it first). Error
   * messages name this source (checksum.ts).
   */
  expectedFrom: 'lockfile' | 'index';
  /** Resolved dependencies: name → version. */
  dependencies: Record<string, string>;
  /** Bytes already downloaded while resolving (not yet verified). */
  bytes?: Uint8Array;
}

/**
 * A package after download/store read and verification. `graph` is absent for a store artifact
 * that `.ctxpkg/verified.json` vouches for (verified.ts): it was fully verified when it entered
 * the store, its bytes are re-hashed on every read, and it is only parsed again when the merged
 * graph has to be rebuilt.
 */
export interface VerifiedEntry extends LockedEntry {
  bytes: Uint8Array;
  /** `integrity.content_hash` (merge input identity). */
  content_hash: string;
  /** The verified manifest's dependencies (checked against the recorded edges, edges.ts). */
  manifestDependencies: ManifestDep[];
  graph?: ContextGraph;
  /** ZIP form: the blobs verification read (hash-checked), by blob_ref; absent for pinned store artifacts. */
  blobs?: Map<string, Uint8Array>;
  /** True when the bytes came from the local store (no network). */
  fromStore: boolean;
}

/** ctxpkg.json, ctxpkg.lock and the arguments, validated; nothing fetched yet (step 1). */
export interface Inputs {
  root: string;
  manifest: ProjectManifest;
  lock: ReadLock;
  /** The lock as it was before this run. */
  before: LockState;
  /** The declared dependencies after this run's arguments (name → range or `file:` origin). */
  declared: Record<string, string>;
  /** `@x@1.1.0`: the exact range to resolve now (saved as `^1.1.0`). */
  exactNow: Record<string, string>;
  /** Local `.ctxpkg` files named as arguments. */
  fileSpecs: string[];
  /** Names given without a range: saved as `^<installed version>` once resolved. */
  provisional: Set<string>;
  requireSignature: boolean;
  acceptNewKey: boolean;
  key: Buffer | undefined;
  record: VerifiedRecord;
}

/** Which packages to fetch, from where, and what they must hash to (step 3). */
export interface Plan {
  planned: Planned[];
  /** Recorded edges come from the lock, or from the registry index resolved in this run. */
  edgesFrom: 'lock' | 'index';
  resolved?: ResolveStepResult;
  source: RegistrySource;
}

/** The new texts of ctxpkg.json and ctxpkg.lock, computed before anything is written (step 5). */
export interface ProjectTexts {
  /** Packages in the old lock and not in the new one, sorted by name. */
  removed: Array<{ name: string; version: string }>;
  pins: { extra: Record<string, unknown>; dropped: string[] };
  /** Scope bindings copied from the user config or `--registry` into ctxpkg.json (`from`: which). */
  bound: Array<{ scope: string; registry: string; from: string }>;
  manifestText: string;
  lockText: string;
  lockfileChanged: boolean;
}

/** What the writes of step 6 report. */
export interface Written {
  /** ctxpkg.json did not exist before this run and was written. */
  manifestCreated: boolean;
  gitignoreUpdated: boolean;
  merge: MergeSummary;
  /** Yank status by artifact SHA-256. */
  status: Map<string, YankedStatus>;
}
