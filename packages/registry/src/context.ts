/**
 * What every route receives: the resolved options (`RegistryDeps`) and the Hono environment whose
 * bindings are the per-request state (`RequestState`: route name for metrics/logs, the memoised
 * principal, the error code). The state object is created per request by the wrapper in app.ts
 * and passed to Hono as `env`, so that wrapper can read it after dispatch without a middleware
 * (a middleware would make every answer asynchronous; see maybe.ts).
 */
import type { Context } from 'hono';
import { authenticate, type Principal } from './auth.js';
import { renderIndex, buildIndex } from './index-doc.js';
import { consistentIndexParts } from './tlog/proofs.js';
import { andThen, type MaybePromise } from './maybe.js';
import type { Metrics } from './metrics.js';
import type { Logger, RegistryLimits } from './options.js';
import type { PackageRecord, RegistryStore } from './store/types.js';
import type { WitnessSync } from './tlog/witnesses.js';

/** Per-request state (Hono's `c.env`), one fresh object per request. */
export interface RequestState {
  /** Stable route name for metrics and logs (`index`, `download`, `publish`, …); `unmatched` until a route sets it. */
  route: string;
  /** The caller once resolved (`null`: anonymous); `undefined` until then. */
  principal: Principal | null | undefined;
  /** The error code of an error answer, for the log line. */
  errorCode: string | undefined;
}

export interface Env {
  Bindings: RequestState;
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
  /** `draining` is set while the server shuts down (readiness answers 503). */
  lifecycle: { draining: boolean };
  /** The registry's witnesses (spec/transparency.md §8); `enabled` is false when none is configured. */
  witnesses: WitnessSync;
}

/**
 * The caller of this request (memoised in the request state). Without an `Authorization` header
 * the answer is `null` at once (no store access); otherwise the token is looked up. Throws (or
 * rejects with) `E_AUTH` for a bad token — before any body read.
 */
export function principalOf(c: Ctx, deps: RegistryDeps): MaybePromise<Principal | null> {
  const state = c.env;
  if (state.principal !== undefined) return state.principal;
  const header = c.req.header('authorization');
  if (header === undefined || header === '') return (state.principal = null);
  return authenticate(deps.store, header, deps.clock()).then((p) => (state.principal = p));
}

/** RFC 3339 UTC with milliseconds only when non-zero (FORMAT-FACTS §0 rule 8 spelling). */
export function isoNow(d: Date): string {
  return d.toISOString().replace(/\.000Z$/, 'Z');
}

/** A serialised index document: UTF-8 bytes (written to sockets as is) and its strong ETag. */
export interface IndexBody {
  bytes: Uint8Array;
  etag: string;
}

/**
 * Serialised index documents keyed by `@ns/name`, valid while the package's `revision` is
 * unchanged. Every publish, yank, un-yank and visibility change bumps the revision in its own
 * transaction, and the caller passes a package row read for this very request (`getPackage`,
 * exact across processes), so a change is served on the next request — never a stale document.
 */
export class IndexCache {
  private readonly entries = new Map<string, { revision: number } & IndexBody>();

  constructor(private readonly maxEntries = 10_000) {}

  /** The document for `pkg` at `pkg.revision`: synchronously on a hit, else built from `listVersions`. */
  get(store: RegistryStore, pkg: PackageRecord): MaybePromise<IndexBody> {
    const full = `@${pkg.namespace}/${pkg.name}`;
    const hit = this.entries.get(full);
    if (hit !== undefined && hit.revision === pkg.revision) return hit;
    const parts = consistentIndexParts(store, pkg.namespace, pkg.name);
    return andThen(parts, ([versions, log]) => {
      const { body, etag } = renderIndex(buildIndex(full, pkg.visibility, versions, log));
      const entry = { revision: pkg.revision, bytes: Buffer.from(body, 'utf8'), etag };
      if (!this.entries.has(full) && this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(full, entry);
      return entry;
    });
  }
}
