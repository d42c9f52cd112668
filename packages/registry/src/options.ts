/**
 * Options of `createApp` and their defaults (spec/registry.md "Configuration").
 */
import { CtxpkgError, MAX_PACKAGE_BYTES } from '@ctxpkg/format';
import type { Metrics } from './metrics.js';
import type { RegistryStore } from './store/types.js';
import type { WitnessConfig } from './tlog/witnesses.js';

export interface RegistryLimits {
  /**
   * Largest accepted package in bytes (default 10 MiB = 10,485,760: the format's file limit,
   * FORMAT-FACTS §1.1, which is also what every client downloads, so a package `ctxpkg create`
   * writes is accepted; the hosted reference caps at 8 MiB, set `--max-package-bytes 8388608` to match it).
   */
  maxPackageBytes: number;
  /** Most results one search answers (default 50). */
  maxSearchResults: number;
  /** Longest search query in characters (default 256; longer → 400). */
  maxQueryChars: number;
  /** Most packages one catalog page lists (default 500). */
  catalogPageSize: number;
  /** Searchable text kept per version in characters (default 262,144); the rest is not indexed. */
  searchTextChars: number;
}

export const DEFAULT_LIMITS: RegistryLimits = Object.freeze({
  maxPackageBytes: MAX_PACKAGE_BYTES,
  maxSearchResults: 50,
  maxQueryChars: 256,
  catalogPageSize: 500,
  searchTextChars: 256 * 1024,
});

/** One structured log line. Never contains a token or a request body. */
export type LogEntry = Record<string, unknown> & { msg: string };
export type Logger = (entry: LogEntry) => void;

export interface AppOptions {
  store: RegistryStore;
  /** The current time (default: `() => new Date()`). */
  clock?: () => Date;
  /** Structured log sink (default: discard). */
  log?: Logger;
  limits?: Partial<RegistryLimits>;
  /**
   * Extra mount point for the whole API besides the root, e.g. `/api` (the default), so both
   * `http://host/v1/...` and `http://host/api/v1/...` work. `''` mounts at the root only.
   */
  basePath?: string;
  /**
   * Origins allowed to make cross-origin writes (PUT, DELETE, POST) with an Authorization
   * header. Other origins get `Access-Control-Allow-Origin: *` on public reads only. No origin
   * ever gets `Access-Control-Allow-Credentials` (bearer tokens need no cookies).
   */
  corsOrigins?: readonly string[];
  /** The externally visible base URL, used for absolute `Location` headers. */
  publicUrl?: string;
  /** Share a metrics registry (default: a new one per app). */
  metrics?: Metrics;
  /** Set `draining` when the server stops accepting work: readiness then answers 503. */
  lifecycle?: { draining: boolean };
  /**
   * Witnesses that cosign the log's checkpoints (spec/transparency.md §8): each new checkpoint is
   * submitted to them (c2sp.org/tlog-witness) and their cosignatures are served with it.
   */
  witnesses?: readonly WitnessConfig[];
  /** The fetch used to call witnesses (default: the global fetch). */
  fetch?: typeof fetch;
}

/** Normalise a base path: `''` or `/seg[/seg…]` without a trailing slash. Throws `E_USAGE`. */
export function normaliseBasePath(p: string | undefined): string {
  if (p === undefined) return '/api';
  const t = p.trim().replace(/\/+$/, '');
  if (t === '') return '';
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(t) || /(^|\/)\.{1,2}(\/|$)/.test(t)) {
    throw new CtxpkgError('E_USAGE', `invalid base path ${JSON.stringify(p)}: use segments like /api`);
  }
  if (t === '/ui' || t.startsWith('/ui/')) {
    throw new CtxpkgError('E_USAGE', `invalid base path ${JSON.stringify(p)}: /ui is where the registry's pages live`, { hint: 'use /api (the default) or another prefix' });
  }
  return t;
}
