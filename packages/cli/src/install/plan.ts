/**
 * Lockfile-based planning (no network): is the lockfile a complete, consistent answer for the
 * declared dependencies, and which locked packages does the project need?
 * Rules (issue 5 item 5; ADVERSARIAL HB-26):
 * - every declared dependency has a lock entry whose version satisfies its range and whose origin
 *   matches the declaration (a `file:` dependency needs an entry from that same file; a range
 *   needs an entry from a registry);
 * - the lock's recorded declared set equals ctxpkg.json's;
 * - every locked dependency edge points at an entry with exactly that version;
 * - every locked registry is the registry configured for that name now, compared as in
 *   spec/registry.md §2 (registry-url.ts), and a `file:` entry is allowed only for a name that
 *   ctxpkg.json declares as exactly that `file:` origin (else `E_LOCK_REGISTRY_MISMATCH`, checked
 *   before any request).
 */
import { CtxpkgError, isCtxpkgError, satisfies } from '@ctxpkg/format';
import type { RegistrySettings } from '../config.js';
import { registryOrigin, sameRegistry, shownRegistry } from './registry-url.js';
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
    } else if (e.registry.startsWith('file:')) {
      return `${n} is declared as ${range} (a registry range) but locked from ${e.registry}`;
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

const scopeOf = (name: string): string => (name.includes('/') ? name.slice(0, name.indexOf('/')) : name);

/**
 * HB-26a: refuse a lock entry whose registry is not the one configured for its name, and a
 * `file:` entry for a name that none of `declarations` (ctxpkg.json as read, the arguments of
 * this command, the lock's own record of them) declares as exactly that file. Throws
 * `E_LOCK_REGISTRY_MISMATCH` whose hint names the setting to fix, and `E_USAGE` when no registry
 * is configured for a locked name (hint: the binding to add). URLs are printed redacted.
 */
export function checkLockRegistries(
  lock: LockState,
  settings: RegistrySettings,
  declarations: ReadonlyArray<Record<string, string>>,
  deps?: { env: Record<string, string | undefined>; homeDir: string },
): void {
  for (const e of [...lock.packages.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const id = `${e.name}@${e.version}`;
    if (e.registry.startsWith('file:')) {
      if (declarations.some((d) => d[e.name] === e.registry)) continue;
      const decl = declarations[0]?.[e.name];
      throw new CtxpkgError(
        'E_LOCK_REGISTRY_MISMATCH',
        `ctxpkg.lock says ${id} comes from the local file ${e.registry}, but ctxpkg.json ${decl === undefined ? 'does not declare it' : `declares it as ${JSON.stringify(decl)}`}; a local file may stand in for a package only when ctxpkg.json declares exactly that file`,
        {
          details: { package: id, locked: e.registry, declared: decl ?? null },
          hint: `if you did not put that file there, ctxpkg.lock was tampered with: restore it from version control. To use a local file on purpose, run \`ctxpkg install <file>\` (it declares "${e.name}": "file:<path>" in ctxpkg.json)`,
        },
      );
    }
    let origin;
    try {
      origin = registryOrigin(e.name, settings, deps);
    } catch (err) {
      if (!isCtxpkgError(err) || err.code !== 'E_USAGE') throw err;
      throw new CtxpkgError('E_USAGE', `no registry configured for ${e.name}, which ctxpkg.lock installs from ${shownRegistry(e.registry)}`, {
        details: { package: id, locked: shownRegistry(e.registry) },
        hint: `bind the scope in ctxpkg.json and commit it — "registries": { "${scopeOf(e.name)}": "${shownRegistry(e.registry)}" } — or set CTXPKG_REGISTRY / pass --registry (\`ctxpkg install\` writes that binding when it resolves ${scopeOf(e.name)} through your user config)`,
        cause: err,
      });
    }
    if (sameRegistry(e.registry, origin.url)) continue;
    const locked = shownRegistry(e.registry);
    const configured = shownRegistry(origin.url);
    const fix =
      origin.kind === 'project-scope'
        ? `ctxpkg.json binds ${scopeOf(e.name)} to ${configured}; if ${locked} is right, change that binding`
        : `if ${locked} is right, bind the scope for everyone in ctxpkg.json — "registries": { "${scopeOf(e.name)}": "${locked}" } — or change ${origin.where}`;
    throw new CtxpkgError('E_LOCK_REGISTRY_MISMATCH', `ctxpkg.lock says ${id} comes from ${locked}, but the registry configured for it is ${configured} (from ${origin.where})`, {
      details: { package: id, locked, configured, configured_by: origin.where },
      hint: `${fix}; if you did not expect ctxpkg.lock to name ${locked}, it may have been tampered with: restore it from version control`,
    });
  }
}
