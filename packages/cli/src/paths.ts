/**
 * Where ctxpkg keeps per-user and per-project files. One place, so every command agrees.
 *
 * User directory (config, credentials, signing key):
 *   `$CTXPKG_HOME` if set, else `$XDG_CONFIG_HOME/ctxpkg`, else `<home>/.config/ctxpkg`.
 * Project files (found from the working directory upwards by the nearest `ctxpkg.json`):
 *   `ctxpkg.json` (declared dependencies, registries, policy), `ctxpkg.lock` (lockfile, committed),
 *   `.ctxpkg/` (derived, rebuildable: `store/`, `graph/merged.json`, …).
 */
import { join } from 'node:path';
import type { CliDeps } from './deps.js';

/** The per-user ctxpkg directory. */
export function userDir(deps: Pick<CliDeps, 'env' | 'homeDir'>): string {
  const explicit = deps.env.CTXPKG_HOME;
  if (explicit && explicit.trim() !== '') return explicit;
  const xdg = deps.env.XDG_CONFIG_HOME;
  if (xdg && xdg.trim() !== '') return join(xdg, 'ctxpkg');
  return join(deps.homeDir, '.config', 'ctxpkg');
}

/** The user config file (registries per scope, saved tokens), mode 0600. */
export function userConfigPath(deps: Pick<CliDeps, 'env' | 'homeDir'>): string {
  return join(userDir(deps), 'config.json');
}

/**
 * The default signing key: 64 hex characters of the Ed25519 seed, no newline, mode 0600 — the
 * reference's key file format (FORMAT-FACTS §4, `cp/keys.rs`), at our own location.
 */
export function defaultKeyPath(deps: Pick<CliDeps, 'env' | 'homeDir'>): string {
  return join(userDir(deps), 'keys', 'ctxpkg-ed25519.key');
}

/** Project file names, relative to the project root. */
export const PROJECT_FILES = {
  manifest: 'ctxpkg.json',
  lockfile: 'ctxpkg.lock',
  dir: '.ctxpkg',
  store: join('.ctxpkg', 'store'),
  mergedGraph: join('.ctxpkg', 'graph', 'merged.json'),
} as const;
