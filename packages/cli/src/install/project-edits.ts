/**
 * Edits an install makes to project files besides the dependency list:
 *
 * - Pins of removed packages: `context.pins` (spec/pack.md "Policy") names nodes or packages; a
 *   pin on a package that is no longer installed makes every render/sync fail (`E_NOT_FOUND`).
 *   When packages leave the project, the pins naming them (`@ns/name` or `@ns/name#<node>`) are
 *   removed from ctxpkg.json in the same commit, and the command says so.
 * - Scope bindings (B7): a scope resolved through the user config (its `registries["@ns"]` or its
 *   default `registry`) or through `--registry` (a flag of this one command) exists only on this
 *   machine, so a teammate or CI cannot install from the committed lockfile. The binding
 *   `registries["@ns"]` is written into ctxpkg.json (committed; tokens never go there). npm keeps
 *   `--registry` out of .npmrc but records it in the lockfile's `resolved` URLs, which `npm ci`
 *   follows; ctxpkg checks every locked registry against the configured one, so the binding is
 *   what lets the lockfile install elsewhere. `CTXPKG_REGISTRY` is a standing setting of the
 *   environment (CI sets it too) and writes nothing.
 * - `.gitignore`: when an install creates ctxpkg.json (no `ctxpkg init`), `.ctxpkg/` is added to
 *   `.gitignore` exactly as `init` does.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RegistrySettings } from '../config.js';
import { writeFileAtomic } from '../fsutil.js';
import type { ProjectManifest } from '../project.js';
import { registryOrigin } from './registry-url.js';

/** True when `pin` names package `name` or one of its nodes. */
export function pinNames(pin: string, name: string): boolean {
  return pin === name || pin.startsWith(`${name}#`);
}

/**
 * `extra` with the pins naming any of `removed` dropped from `context.pins`, and the dropped pins
 * (sorted). Other members of `context` keep their order; `extra` itself is not modified.
 */
export function dropPins(extra: Record<string, unknown>, removed: readonly string[]): { extra: Record<string, unknown>; dropped: string[] } {
  const ctx = extra.context;
  if (!ctx || typeof ctx !== 'object' || Array.isArray(ctx)) return { extra, dropped: [] };
  const pins = (ctx as Record<string, unknown>).pins;
  if (!Array.isArray(pins)) return { extra, dropped: [] };
  const dropped = pins.filter((p): p is string => typeof p === 'string' && removed.some((n) => pinNames(p, n)));
  if (dropped.length === 0) return { extra, dropped: [] };
  const next: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(ctx as Record<string, unknown>)) next[k] = k === 'pins' ? pins.filter((p) => !dropped.includes(p)) : v;
  return { extra: { ...extra, context: next }, dropped: [...dropped].sort() };
}

/** A scope binding an install adds to ctxpkg.json, and the setting it came from (for the message). */
export interface ScopeBinding {
  scope: string;
  registry: string;
  /** `your user config` or `--registry`. */
  from: string;
}

/**
 * Scope bindings to add to ctxpkg.json for the registry packages `names`: each scope that
 * ctxpkg.json does not bind and that resolves through the user config or `--registry`. Sorted by scope.
 */
export function userConfigBindings(names: readonly string[], manifest: ProjectManifest, settings: RegistrySettings): ScopeBinding[] {
  const out = new Map<string, { registry: string; from: string }>();
  for (const name of names) {
    const scope = name.slice(0, name.indexOf('/'));
    if (!name.startsWith('@') || scope === '' || manifest.registries[scope] || out.has(scope)) continue;
    let origin;
    try {
      origin = registryOrigin(name, settings);
    } catch {
      continue;
    }
    if (origin.kind === 'user-scope' || origin.kind === 'user-default') out.set(scope, { registry: origin.url, from: 'your user config' });
    else if (origin.kind === 'flag') out.set(scope, { registry: origin.url, from: '--registry' });
  }
  return [...out.keys()].sort().map((scope) => ({ scope, ...(out.get(scope) as { registry: string; from: string }) }));
}

/** Spellings of the `.ctxpkg/` ignore line that `init` and install accept as present. */
const IGNORE_LINES = ['.ctxpkg', '.ctxpkg/', '/.ctxpkg', '/.ctxpkg/'];

/** Add `.ctxpkg/` to `<root>/.gitignore` unless it is there; returns true when it was added. Throws `E_IO`. */
export function ensureGitignore(root: string): boolean {
  const path = join(root, '.gitignore');
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
  if (current.split(/\r?\n/).some((l) => IGNORE_LINES.includes(l.trim()))) return false;
  writeFileAtomic(path, current + (current === '' || current.endsWith('\n') ? '' : '\n') + '.ctxpkg/\n');
  return true;
}
