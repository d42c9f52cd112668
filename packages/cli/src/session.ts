/**
 * Per-command wiring shared by the package commands: the project (root + ctxpkg.json), the
 * registry settings and a registry client over the injected fetch.
 */
import { registrySettings, type RegistrySettings } from './config.js';
import { RegistryClient } from './client.js';
import type { CliDeps } from './deps.js';
import { findProjectRoot, readManifest, type ProjectManifest } from './project.js';

export interface Session {
  root: string;
  /** True when ctxpkg.json exists. */
  exists: boolean;
  manifest: ProjectManifest;
  settings: RegistrySettings;
  client: RegistryClient;
}

/** Open the project around `deps.cwd` and bind a client (`--registry` in `registryFlag`). */
export function openSession(deps: CliDeps, registryFlag?: string): Session {
  const { root, exists } = findProjectRoot(deps.cwd);
  const manifest = readManifest(root);
  const settings = registrySettings(deps, registryFlag, { registry: manifest.registry, registries: manifest.registries });
  return { root, exists, manifest, settings, client: new RegistryClient({ fetch: deps.fetch, settings }) };
}
