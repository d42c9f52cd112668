/**
 * Lockfile-based planning (no network): is the lockfile a complete, consistent answer for the
 * declared dependencies, and which locked packages does the project need?
 * Rules (issue 5 item 5; ADVERSARIAL HB-26):
 * - every declared dependency has a lock entry whose version satisfies its range (a `file:`
 *   dependency needs an entry from that same file);
 * - the lock's recorded declared set equals ctxpkg.json's;
 * - every locked dependency edge points at an entry with exactly that version;
 * - every locked registry equals the registry configured for that name now (else
 *   `E_LOCK_REGISTRY_MISMATCH`, checked before any request).
 */
import { CtxpkgError, satisfies } from '@ctxpkg/format';
import { registryFor, type RegistrySettings } from '../config.js';
import type { LockedEntry, LockState } from './types.js';

/** Why a lockfile does not satisfy the manifest, or undefined when it does. */
export function lockDrift(declared: Record<string, string>, lock: LockState): string | undefined {
  const names = Object.keys(declared).sort();
  const lockNames = Object.keys(lock.declared).sort();
  if (names.join('\n') !== lockNames.join('\n') || names.some((n) => declared[n] !== lock.declared[n])) {
    return 'ctxpkg.json declares different dependencies than ctxpkg.lock records';
  }
  for (const n of names) {
    const e = lock.packages.get(n);
    if (!e) return `${n} is declared but has no entry in ctxpkg.lock`;
    const range = declared[n];
    if (range.startsWith('file:')) {
      if (e.registry !== range) return `${n} is declared as ${range} but locked from ${e.registry}`;
    } else if (!satisfies(e.version, range)) {
      return `${n}@${e.version} in ctxpkg.lock does not satisfy ${range}`;
    }
  }
  for (const e of lock.packages.values()) {
    for (const [dep, v] of Object.entries(e.dependencies)) {
      const d = lock.packages.get(dep);
      if (!d || d.version !== v) return `${e.name}@${e.version} needs ${dep}@${v}, which ctxpkg.lock does not contain`;
    }
  }
  return undefined;
}

/** The locked packages reachable from the declared dependencies, sorted by name. */
export function lockClosure(declared: Record<string, string>, lock: LockState): LockedEntry[] {
  const seen = new Map<string, LockedEntry>();
  const stack = Object.keys(declared);
  while (stack.length > 0) {
    const n = stack.pop() as string;
    if (seen.has(n)) continue;
    const e = lock.packages.get(n);
    if (!e) continue;
    seen.set(n, e);
    stack.push(...Object.keys(e.dependencies));
  }
  return [...seen.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** HB-26a: refuse a lock entry whose registry is not the one configured for its name. */
export function checkLockRegistries(lock: LockState, settings: RegistrySettings): void {
  for (const e of lock.packages.values()) {
    if (e.registry.startsWith('file:')) continue;
    const expected = registryFor(e.name, settings);
    if (e.registry !== expected) {
      throw new CtxpkgError('E_LOCK_REGISTRY_MISMATCH', `ctxpkg.lock says ${e.name}@${e.version} comes from ${e.registry}, but the registry configured for it is ${expected}`, {
        details: { package: `${e.name}@${e.version}`, locked: e.registry, configured: expected },
        hint: 'the lockfile may have been tampered with; review it, or fix the registry configuration and run `ctxpkg install` without --frozen-lockfile',
      });
    }
  }
}
