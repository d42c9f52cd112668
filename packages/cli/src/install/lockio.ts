/**
 * ctxpkg.lock on disk ↔ the CLI's `LockState`, through the lockfile model of `@ctxpkg/format`
 * (`parseLockfile` rejects tampered or inconsistent files with `E_LOCKFILE`; `serializeLockfile`
 * is deterministic: sorted keys, LF, trailing newline).
 */
import { join } from 'node:path';
import { parseLockfile, serializeLockfile, type Lockfile } from '@ctxpkg/format/lockfile';
import { readTextIfExists } from '../fsutil.js';
import { PROJECT_FILES } from '../paths.js';
import type { LockedEntry, LockState } from './types.js';

export interface ReadLock {
  state: LockState;
  /** The parsed model (for the resolver's lockfile-respecting mode); undefined when absent. */
  model?: Lockfile;
  /** The exact text, to detect "unchanged". */
  text?: string;
}

/**
 * `signer_public_key` recorded for a package installed without a signature (only possible with
 * `trust.require_signature: false`): 64 zeros, which is never a valid signer key.
 */
export const UNSIGNED_SIGNER = '0'.repeat(64);

/** Convert the format model to `LockState`. */
export function fromModel(model: Lockfile): LockState {
  const packages = new Map<string, LockedEntry>();
  for (const [name, p] of Object.entries(model.packages)) {
    packages.set(name, {
      name,
      version: p.version,
      registry: p.registry,
      artifact_sha256: p.artifact_sha256,
      integrity_sha256: p.integrity_sha256,
      signer_public_key: p.signer_public_key === UNSIGNED_SIGNER ? '' : p.signer_public_key,
      dependencies: { ...p.dependencies },
      ...(p.log ? { log: { ...p.log } } : {}),
    });
  }
  return { declared: { ...model.dependencies }, packages };
}

/** Convert `LockState` to the format model. */
export function toModel(state: LockState): Lockfile {
  const packages: Lockfile['packages'] = {};
  for (const name of [...state.packages.keys()].sort()) {
    const e = state.packages.get(name) as LockedEntry;
    packages[name] = {
      version: e.version,
      registry: e.registry,
      artifact_sha256: e.artifact_sha256,
      integrity_sha256: e.integrity_sha256,
      signer_public_key: e.signer_public_key === '' ? UNSIGNED_SIGNER : e.signer_public_key,
      dependencies: { ...e.dependencies },
      ...(e.log ? { log: { ...e.log } } : {}),
    };
  }
  return { lockfileVersion: 1, dependencies: { ...state.declared }, optionalDependencies: {}, packages };
}

/** Read `<root>/ctxpkg.lock`; a missing file is an empty lock. Throws `E_LOCKFILE`. */
export function readLock(root: string): ReadLock {
  const text = readTextIfExists(join(root, PROJECT_FILES.lockfile));
  if (text === undefined) return { state: { declared: {}, packages: new Map() } };
  const model = parseLockfile(text);
  return { state: fromModel(model), model, text };
}

/** Deterministic text of a lock state. */
export function lockText(state: LockState): string {
  return serializeLockfile(toModel(state));
}
