/**
 * What every route receives: the resolved options (`RegistryDeps`) and the Hono environment with
 * per-request variables (route name for metrics/logs, the memoised principal, the error code).
 */
import type { Context } from 'hono';
import { authenticate, type Principal } from './auth.js';
import { renderIndex, buildIndex } from './index-doc.js';
import type { Metrics } from './metrics.js';
import type { Logger, RegistryLimits } from './options.js';
import type { PackageRecord, RegistryStore } from './store/types.js';

export interface Env {
  Variables: {
    /** Stable route name for metrics and logs (`index`, `download`, `publish`, …). */
    route: string;
    principal: Principal | null;
    errorCode: string;
  };
}

export type Ctx = Context<Env>;

export interface RegistryDeps {
  store: RegistryStore;
  clock: () => Date;
  log: Logger;
  limits: RegistryLimits;
  metrics: Metrics;
  publicUrl: string | undefined;
  indexCache: IndexCache;
}

/** The caller of this request (memoised). Throws `E_AUTH` for a bad token — before any body read. */
export async function principalOf(c: Ctx, deps: RegistryDeps): Promise<Principal | null> {
  const known = c.get('principal');
  if (known !== undefined) return known;
  const p = await authenticate(deps.store, c.req.header('authorization'), deps.clock());
  c.set('principal', p);
  return p;
}

/** RFC 3339 UTC with milliseconds only when non-zero (FORMAT-FACTS §0 rule 8 spelling). */
export function isoNow(d: Date): string {
  return d.toISOString().replace(/\.000Z$/, 'Z');
}

/**
 * Serialised index documents keyed by `@ns/name`, valid while the package's `revision` is
 * unchanged. The revision is read from the store on every request, so changes made by another
 * process (the admin CLI changing visibility) are never served stale.
 */
export class IndexCache {
  private readonly entries = new Map<string, { revision: number; body: string; etag: string }>();

  constructor(private readonly maxEntries = 10_000) {}

  async get(store: RegistryStore, pkg: PackageRecord): Promise<{ body: string; etag: string }> {
    const full = `@${pkg.namespace}/${pkg.name}`;
    const hit = this.entries.get(full);
    if (hit && hit.revision === pkg.revision) return hit;
    const versions = await store.listVersions(pkg.namespace, pkg.name);
    const rendered = renderIndex(buildIndex(full, pkg.visibility, versions));
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(full, { revision: pkg.revision, ...rendered });
    return rendered;
  }
}
