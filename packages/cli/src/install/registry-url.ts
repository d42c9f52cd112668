/**
 * Registry URLs in the install path: when two spellings name the same registry, and where the
 * registry configured for a package comes from (for hints that point at the setting to fix).
 *
 * Equivalence (spec/registry.md §2): a registry answers at its root and under its base path
 * `/api`, so `http://h:80/api/`, `HTTP://H/api` and `http://h` are one registry. The comparison
 * key is the URL with a lowercase scheme and host, no default port, no trailing slashes and no
 * final `/api` segment. The scheme, the host name, the port and every other path segment still
 * count (`https:` ≠ `http:`, `localhost` ≠ `127.0.0.1`, `/API` ≠ `/api`). `file:` origins are
 * equal only when spelled the same.
 */
import { registryFor, redactUrlText, type RegistrySettings } from '../config.js';
import { userConfigPath } from '../paths.js';

export { registryKey, sameRegistry } from '../config.js';

/** Where the registry of a package comes from. */
export type RegistryOriginKind = 'project-scope' | 'user-scope' | 'flag' | 'env' | 'project-default' | 'user-default';

export interface RegistryOrigin {
  url: string;
  kind: RegistryOriginKind;
  /** Human description of the setting, e.g. `"registries"["@acme"] in ctxpkg.json`. */
  where: string;
}

/**
 * The registry configured for `name` and the setting it comes from, by the precedence of
 * `registryFor` (config.ts; the URL is always `registryFor`'s). Throws `E_CONFIG` like it when
 * nothing is configured.
 */
export function registryOrigin(name: string, s: RegistrySettings, deps?: { env: Record<string, string | undefined>; homeDir: string }): RegistryOrigin {
  const url = registryFor(name, s);
  const scope = name.startsWith('@') && name.includes('/') ? name.slice(0, name.indexOf('/')) : '';
  const userFile = deps ? `your user config (${userConfigPath(deps)})` : 'your user config';
  const env = s.env.CTXPKG_REGISTRY;
  let kind: RegistryOriginKind;
  if (scope && s.project.registries[scope]) kind = 'project-scope';
  else if (scope && s.user.registries[scope]) kind = 'user-scope';
  else if (s.flag) kind = 'flag';
  else if (env && env.trim() !== '') kind = 'env';
  else if (s.project.registry) kind = 'project-default';
  else kind = 'user-default';
  const where: Record<RegistryOriginKind, string> = {
    'project-scope': `"registries"["${scope}"] in ctxpkg.json`,
    'user-scope': `"registries"["${scope}"] in ${userFile}`,
    flag: '--registry',
    env: 'CTXPKG_REGISTRY',
    'project-default': '"registry" in ctxpkg.json',
    'user-default': `"registry" in ${userFile}`,
  };
  return { url, kind, where: where[kind] };
}

/** A registry URL or `file:` origin safe to print (credentials, query and fragment redacted). */
export function shownRegistry(url: string): string {
  return url.startsWith('file:') ? url : redactUrlText(url);
}
