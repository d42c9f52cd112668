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

/** At most 5 items joined with "; ", then how many more. */
function listed(items: string[]): string {
  return items.slice(0, 5).join('; ') + (items.length > 5 ? `; and ${items.length - 5} more` : '');
}

/** Each dependency whose declaration differs between ctxpkg.json and the lock's record, by name. */
function declaredDiff(declared: Record<string, string>, recorded: Record<string, string>): string[] {
  const out: string[] = [];
  for (const n of [...new Set([...Object.keys(declared), ...Object.keys(recorded)])].sort()) {
    const now = Object.hasOwn(declared, n) ? declared[n] : undefined;
    const then = Object.hasOwn(recorded, n) ? recorded[n] : undefined;
    if (now === then) continue;
    if (then === undefined) out.push(`${n} is declared in ctxpkg.json (${JSON.stringify(now)}) but not in ctxpkg.lock`);
    else if (now === undefined) out.push(`${n} is recorded in ctxpkg.lock (${JSON.stringify(then)}) but no longer declared in ctxpkg.json`);
    else out.push(`${n} is declared as ${JSON.stringify(now)} in ctxpkg.json but ctxpkg.lock records ${JSON.stringify(then)}`);
  }
  return out;
}

/**
 * What writing `after` over `before` would change, one item per package (added, removed, another
 * version, origin, artifact or dependencies), and per changed declaration; sorted by name. Used
 * to name what a `--frozen-lockfile` install refuses to change.
 */
export function lockChanges(before: LockState, after: LockState): string {
  const out = declaredDiff(after.declared, before.declared);
  for (const n of [...new Set([...before.packages.keys(), ...after.packages.keys()])].sort()) {
    const a = before.packages.get(n);
    const b = after.packages.get(n);
    if (!a) out.push(`${n}@${b!.version} would be added`);
    else if (!b) out.push(`${n}@${a.version} would be removed`);
    else if (a.version !== b.version) out.push(`${n} would move from ${a.version} to ${b.version}`);
    else if (a.registry !== b.registry) out.push(`${n}@${a.version} would come from ${b.registry} instead of ${a.registry}`);
    else if (a.artifact_sha256 !== b.artifact_sha256 || a.integrity_sha256 !== b.integrity_sha256) out.push(`${n}@${a.version} would be a different artifact`);
    else if (a.signer_public_key !== b.signer_public_key) out.push(`${n}@${a.version} would record another signer key`);
    else if (JSON.stringify(Object.entries(a.dependencies).sort()) !== JSON.stringify(Object.entries(b.dependencies).sort())) out.push(`${n}@${a.version} would record other dependencies`);
  }
  return out.length > 0 ? listed(out) : 'the same packages, written in the current lockfile format';
}

/** Why a lockfile does not satisfy the manifest, or undefined when it does. */
export function lockDrift(declared: Record<string, string>, lock: LockState): string | undefined {
  const names = Object.keys(declared).sort();
  const declaredDrift = declaredDiff(declared, lock.declared);
  if (declaredDrift.length > 0) return listed(declaredDrift);
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
 * `E_LOCK_REGISTRY_MISMATCH` whose hint names the setting to fix, and `E_CONFIG` when no registry
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
      if (!isCtxpkgError(err) || err.code !== 'E_CONFIG') throw err;
      throw new CtxpkgError('E_CONFIG', `no registry configured for ${e.name}, which ctxpkg.lock installs from ${shownRegistry(e.registry)}`, {
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
