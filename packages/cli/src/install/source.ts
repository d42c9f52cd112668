/**
 * The resolver's `VersionSource` over registries: each name is asked only of the registry
 * configured for it (no fallback to any other registry — ADVERSARIAL HB-28), indexes are fetched
 * once per run, and a version's dependencies come from our registry's index entry or, when a
 * registry does not list them, from the downloaded package (kept for the install step).
 */
import { CtxpkgError, readPackage } from '@ctxpkg/format';
import type { IndexEntry, PackageIndex, RegistryClient } from '../client.js';
import { boundScopes, registryFor, type RegistrySettings } from '../config.js';
import { sha256Bytes } from '../store.js';
import { withNameSuggestions } from '../suggest.js';

export interface Dep {
  name: string;
  version_req: string;
  optional: boolean;
}

export class RegistrySource {
  private readonly indexes = new Map<string, Promise<PackageIndex>>();
  /** Artifacts downloaded while resolving (`name@version` → bytes). */
  readonly downloaded = new Map<string, Uint8Array>();
  /** Number of registry requests made: index fetches and downloads while resolving (for the report). */
  requests = 0;
  /** Indexes that arrived, by name (for yank status after resolution). */
  private readonly fetched = new Map<string, PackageIndex>();

  constructor(
    private readonly client: RegistryClient,
    private readonly settings: RegistrySettings,
  ) {}

  /** The registry a name resolves against. */
  registryOf(name: string): string {
    return registryFor(name, this.settings);
  }

  /** The (cached) index of a package. */
  index(name: string): Promise<PackageIndex> {
    let p = this.indexes.get(name);
    if (!p) {
      this.requests++;
      const registry = this.registryOf(name);
      p = this.client.index(registry, name).catch(async (e: unknown) => {
        throw await withNameSuggestions(e, this.client, registry, name, boundScopes(this.settings));
      });
      p.then((idx) => this.fetched.set(name, idx)).catch(() => undefined);
      this.indexes.set(name, p);
    }
    return p;
  }

  /** The index entry of `name@version`; `E_NOT_FOUND` when the registry does not list it. */
  async entry(name: string, version: string): Promise<IndexEntry> {
    const idx = await this.index(name);
    const e = idx.versions.find((v) => v.version === version);
    if (!e) throw new CtxpkgError('E_NOT_FOUND', `${name}@${version} is not listed by registry ${idx.registry}`);
    return e;
  }

  /**
   * Whether `name@version` is yanked according to an index fetched in this run, else to the
   * registry's answer on its download in this run; undefined when this run saw neither.
   */
  yanked(name: string, version: string): boolean | undefined {
    return this.fetched.get(name)?.versions.find((v) => v.version === version)?.yanked ?? this.observed.get(`${name}@${version}`);
  }

  /** Record the registry's yanked answer on a download of `name@version` (`x-ctxpkg-yanked`). */
  noteYanked(name: string, version: string, yanked: boolean): void {
    this.observed.set(`${name}@${version}`, yanked);
  }

  /** Yanked answers seen on downloads in this run, by `name@version`. */
  private readonly observed = new Map<string, boolean>();

  async listVersions(name: string): Promise<Array<{ version: string; yanked: boolean }>> {
    const idx = await this.index(name);
    return idx.versions.map((v) => ({ version: v.version, yanked: v.yanked }));
  }

  /** Start fetching the indexes of `deps` in parallel (the resolver asks for them one by one). */
  private prefetch(deps: Dep[]): void {
    for (const d of deps) {
      if (this.indexes.has(d.name)) continue;
      try {
        this.registryOf(d.name);
        this.index(d.name).catch(() => undefined); // errors surface when the resolver asks
      } catch {
        // an unscoped or unconfigured name: the resolver reports it
      }
    }
  }

  async dependencies(name: string, version: string): Promise<Dep[]> {
    const e = await this.entry(name, version);
    if (e.dependencies) {
      const deps = e.dependencies.map((d) => ({ name: d.name, version_req: d.version_req, optional: d.optional === true }));
      this.prefetch(deps);
      return deps;
    }
    const registry = this.registryOf(name);
    this.requests++;
    const bytes = await this.client.download(registry, name, version, e.artifact_sha256);
    const found = sha256Bytes(bytes);
    if (found !== e.artifact_sha256) {
      throw new CtxpkgError('E_ARTIFACT_CHECKSUM', `${name}@${version}: downloaded bytes hash to ${found}, but the registry index says ${e.artifact_sha256}`, {
        details: { package: `${name}@${version}`, expected: e.artifact_sha256, expected_from: 'the registry index', found },
        hint: 'the registry (or something between you and it) served other bytes than its index lists; nothing was installed. Retry, and report it to the registry operator if it persists',
      });
    }
    this.downloaded.set(`${name}@${version}`, bytes);
    const pkg = await readPackage(bytes, { requireSignature: false });
    const deps = ((pkg.manifest as { dependencies?: Dep[] }).dependencies ?? []).map((d) => ({ name: d.name, version_req: d.version_req, optional: d.optional === true }));
    this.prefetch(deps);
    return deps;
  }
}
