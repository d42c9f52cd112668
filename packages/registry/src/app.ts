/**
 * `createApp` — the registry as a Hono app (ARCHITECTURE.md "packages/registry"; spec/registry.md).
 *
 * The API is mounted twice: at the root (`/v1/…`, `/healthz`, `/metrics`) and under `basePath`
 * (default `/api`, so `http://host:port/api` works as a reference-client base URL whose default
 * ends in `/api`). One wrapper around `app.fetch` handles every request: raw-path safety check,
 * CORS preflight and headers, metrics, request log. Errors become `{ "error", "code" }` bodies with the status from `httpStatusFor`.
 * Nothing here listens on a port (server.ts does); tests call `app.request(url, init)`.
 */
import { Hono } from 'hono';
import { isCtxpkgError } from '@ctxpkg/format';
import { IndexCache, type Env, type RegistryDeps, type RequestState } from './context.js';
import { applyCors, preflightResponse } from './cors.js';
import { redactTokenText } from './auth.js';
import { errorResponse, JSON_TYPE } from './http.js';
import { andThen, type MaybePromise } from './maybe.js';
import { logTimestamp } from './line-logger.js';
import { Metrics } from './metrics.js';
import { DEFAULT_LIMITS, normaliseBasePath, type AppOptions, type LogEntry } from './options.js';
import { rawPath, rawPathProblem } from './params.js';
import { registerBlobRoutes } from './routes/blobs.js';
import { registerCatalogRoutes } from './routes/catalog.js';
import { notFoundResponse, registerPageRoutes } from './pages/routes.js';
import { PAGES_PREFIX } from './pages/layout.js';
import { registerOpsRoutes } from './routes/ops.js';
import { registerPublishRoute } from './routes/publish.js';
import { registerReadRoutes } from './routes/read.js';
import { registerYankRoutes } from './routes/yank.js';
import { registerLogRoutes } from './routes/log.js';
import { registerWhoamiRoute } from './routes/whoami.js';
import { registerAdminRoutes } from './routes/admin.js';
import { WitnessSync } from './tlog/witnesses.js';

export type RegistryApp = Hono<Env>;

/** Resolve options to the dependencies every route receives. */
export function resolveDeps(opts: AppOptions): RegistryDeps {
  const log = opts.log ?? (() => undefined);
  return {
    store: opts.store,
    clock: opts.clock ?? (() => new Date()),
    log,
    witnesses: new WitnessSync(opts.store.log, opts.witnesses ?? [], opts.fetch ?? fetch, log),
    limits: { ...DEFAULT_LIMITS, ...opts.limits },
    metrics: opts.metrics ?? new Metrics(),
    publicUrl: opts.publicUrl,
    indexCache: new IndexCache(),
    lifecycle: opts.lifecycle ?? { draining: false },
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
  registerLogRoutes(api, deps);
  registerWhoamiRoute(api, deps);
  registerAdminRoutes(api, deps);

  const app = new Hono<Env>();
  app.route('/', api);
  if (basePath !== '') app.route(basePath, api);
  // The pages for people (pages/routes.tsx) live under /ui, which no API path or base path uses.
  const pages = registerPageRoutes(app, deps);

  app.notFound((c) => {
    c.env.route = 'unmatched';
    const path = rawPath(c.req.url);
    if (path === PAGES_PREFIX || path.startsWith(`${PAGES_PREFIX}/`)) return notFoundResponse(pages);
    return new Response(JSON.stringify({ error: 'no such route', code: 'E_NOT_FOUND' }), {
      status: 404,
      headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store' },
    });
  });
  app.onError((err, c) => {
    if (isCtxpkgError(err)) {
      c.env.errorCode = err.code;
    } else {
      c.env.errorCode = 'E_INTERNAL';
      deps.log({ msg: 'internal error', time: new Date().toISOString(), error: redactTokenText(err instanceof Error ? err.stack ?? err.message : String(err)) });
    }
    return errorResponse(err);
  });

  // Every request passes this wrapper instead of a Hono middleware: raw-path check, CORS
  // preflight and headers, metrics, request log. A middleware would make every answer a promise
  // (Hono composes middleware asynchronously); here a route that answers synchronously (the
  // cached index.json, see maybe.ts) stays synchronous. The per-request state travels as Hono's
  // `env` (context.ts `RequestState`). `app.request` goes through `app.fetch`, so tests see it too.
  const allowed = new Set(opts.corsOrigins ?? []);
  const dispatch = app.fetch;
  app.fetch = (request: Request): MaybePromise<Response> => {
    const t0 = performance.now();
    const state: RequestState = { route: 'unmatched', principal: undefined, errorCode: undefined };
    const method = request.method;
    const path = rawPath(request.url);
    const origin = request.headers.get('origin') ?? undefined;
    const bad = rawPathProblem(path);
    let answer: MaybePromise<Response>;
    if (bad) {
      state.route = 'rejected';
      state.errorCode = bad.code;
      answer = errorResponse(bad);
    } else if (method === 'OPTIONS') {
      state.route = 'preflight';
      answer = preflightResponse(origin, allowed);
    } else {
      answer = dispatch(request, state);
    }
    const routed = !bad && method !== 'OPTIONS';
    return andThen(answer, (res) => {
      // Only touch headers for CORS requests: reading them forces the adapter's slow path.
      if (routed && origin !== undefined) applyCors(res.headers, method, origin, allowed);
      const seconds = (performance.now() - t0) / 1000;
      const status = res.status;
      deps.metrics.observeRequest(method, state.route, status, seconds);
      const entry: LogEntry = { msg: 'request', time: logTimestamp(), method, path: redactTokenText(path), route: state.route, status, ms: Math.round(seconds * 100000) / 100 };
      if (state.errorCode) entry.code = state.errorCode;
      if (state.principal) entry.token_id = state.principal.tokenId;
      deps.log(entry);
      return res;
    });
  };
  return app;
}
