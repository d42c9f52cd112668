/**
 * The install pipeline's internal shapes. `LockState` mirrors the lockfile model of
 * `@ctxpkg/format` (lockfile.ts); `lockio.ts` converts between the two.
 */
import type { ContextGraph } from '@ctxpkg/format';
import type { ManifestDep } from './verified.js';

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
