/**
 * Operations (spec/registry.md "Operations"):
 *   GET /-/ping   → 200 `{ "status": "alive" }`: liveness, the process answers (no store access)
 *   GET /-/ready  → 200 `{ "status": "ready", "backend", "writable" }` when the store answers and the
 *                   server is not draining, else 503 `{ "status": "unavailable" | "draining", … }`
 *   GET /healthz  → 200 `{ "status": "ok", "backend": "sqlite" }` when the store answers *and* can
 *                   write, else 503 `{ "status": "unavailable" | "read-only", "backend", "detail" }`
 *   GET /metrics  → Prometheus text (metrics.ts). Aggregate counts only; keep it on an internal
 *                   network if even publish counts are sensitive.
 */
import type { Hono } from 'hono';
import type { Env, RegistryDeps } from '../context.js';

export function registerOpsRoutes(api: Hono<Env>, deps: RegistryDeps): void {
  const noStore = { 'cache-control': 'no-store' };
  const backend = deps.store.backend;

  api.get('/-/ping', (c) => {
    c.env.route = 'ping';
    return c.json({ status: 'alive' }, 200, noStore);
  });

  api.get('/-/ready', async (c) => {
    c.env.route = 'ready';
    if (deps.lifecycle.draining) return c.json({ status: 'draining', backend }, 503, noStore);
    const h = await deps.store.health();
    if (!h.reachable) return c.json({ status: 'unavailable', backend, detail: h.detail }, 503, noStore);
    return c.json({ status: 'ready', backend, writable: h.writable }, 200, noStore);
  });

  api.get('/healthz', async (c) => {
    c.env.route = 'healthz';
    const h = await deps.store.health();
    if (h.reachable && h.writable) return c.json({ status: 'ok', backend }, 200, noStore);
    return c.json({ status: h.reachable ? 'read-only' : 'unavailable', backend, detail: h.detail }, 503, noStore);
  });

  api.get('/metrics', (c) => {
    c.env.route = 'metrics';
    return c.text(deps.metrics.render({ rssBytes: process.memoryUsage().rss }), 200, {
      'content-type': 'text/plain; version=0.0.4; charset=utf-8',
      'cache-control': 'no-store',
    });
  });
}
