/**
 * `createApp` — the registry as a Hono app (ARCHITECTURE.md "packages/registry"; spec/registry.md).
 *
 * The API is mounted twice: at the root (`/v1/…`, `/healthz`, `/metrics`) and under `basePath`
 * (default `/api`, so `http://host:port/api` works as a reference-client base URL whose default
 * ends in `/api`). One middleware wraps every request: raw-path safety check, CORS preflight and
 * headers, metrics, request log. Errors become `{ "error", "code" }` bodies with the status from `httpStatusFor`.
 * Nothing here listens on a port (server.ts does); tests call `app.request(url, init)`.
 */
import { Hono } from 'hono';
import { isCtxpkgError } from '@ctxpkg/format';
import { IndexCache, type Env, type RegistryDeps } from './context.js';
import { applyCors, preflightResponse } from './cors.js';
import { errorResponse, JSON_TYPE } from './http.js';
import { Metrics } from './metrics.js';
import { DEFAULT_LIMITS, normaliseBasePath, type AppOptions, type LogEntry } from './options.js';
import { rawPath, rawPathProblem } from './params.js';
import { registerBlobRoutes } from './routes/blobs.js';
import { registerCatalogRoutes } from './routes/catalog.js';
import { registerOpsRoutes } from './routes/ops.js';
import { registerPublishRoute } from './routes/publish.js';
import { registerReadRoutes } from './routes/read.js';
import { registerYankRoutes } from './routes/yank.js';

export type RegistryApp = Hono<Env>;

/** Resolve options to the dependencies every route receives. */
export function resolveDeps(opts: AppOptions): RegistryDeps {
  return {
    store: opts.store,
    clock: opts.clock ?? (() => new Date()),
    log: opts.log ?? (() => undefined),
    limits: { ...DEFAULT_LIMITS, ...opts.limits },
    metrics: opts.metrics ?? new Metrics(),
    publicUrl: opts.publicUrl,
    indexCache: new IndexCache(),
  };
}

/**
 * Build the registry app. `opts.store` is required; see `AppOptions` for the rest. Throws
 * `E_USAGE` for an invalid `basePath`.
 */
export function createApp(opts: AppOptions): RegistryApp {
  const deps = resolveDeps(opts);
  const basePath = normaliseBasePath(opts.basePath);

  const api = new Hono<Env>();
  registerReadRoutes(api, deps);
  registerBlobRoutes(api, deps);
  registerPublishRoute(api, deps);
  registerYankRoutes(api, deps);
  registerCatalogRoutes(api, deps);
  registerOpsRoutes(api, deps);

  const app = new Hono<Env>();
  const allowed = new Set(opts.corsOrigins ?? []);
  // One middleware (fewer async layers on the hot path): raw-path check, CORS, metrics, log.
  app.use('*', async (c, next) => {
    const t0 = performance.now();
    const path = rawPath(c.req.url);
    const method = c.req.method;
    const origin = c.req.header('origin');
    const bad = rawPathProblem(path);
    if (bad) {
      c.set('route', 'rejected');
      c.set('errorCode', bad.code);
      c.res = errorResponse(bad);
    } else if (method === 'OPTIONS') {
      c.set('route', 'preflight');
      c.res = preflightResponse(origin, allowed);
    } else {
      await next();
      // Only touch headers for CORS requests: reading them forces the adapter's slow path.
      if (origin !== undefined) applyCors(c.res.headers, method, origin, allowed);
    }
    const seconds = (performance.now() - t0) / 1000;
    const route = c.get('route') ?? 'unmatched';
    const status = c.res.status;
    deps.metrics.observeRequest(method, route, status, seconds);
    const entry: LogEntry = { msg: 'request', time: new Date().toISOString(), method, path, route, status, ms: Math.round(seconds * 100000) / 100 };
    const code = c.get('errorCode');
    if (code) entry.code = code;
    const principal = c.get('principal');
    if (principal) entry.token_id = principal.tokenId;
    deps.log(entry);
  });
  app.route('/', api);
  if (basePath !== '') app.route(basePath, api);

  app.notFound((c) => {
    c.set('route', 'unmatched');
    return new Response(JSON.stringify({ error: 'no such route', code: 'E_NOT_FOUND' }), {
      status: 404,
      headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store' },
    });
  });
  app.onError((err, c) => {
    if (isCtxpkgError(err)) {
      c.set('errorCode', err.code);
    } else {
      c.set('errorCode', 'E_INTERNAL');
      deps.log({ msg: 'internal error', time: new Date().toISOString(), error: err instanceof Error ? err.stack ?? err.message : String(err) });
    }
    return errorResponse(err);
  });
  return app;
}
