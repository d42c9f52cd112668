/**
 * Operations (spec/registry.md "Operations"):
 *   GET /healthz  → 200 `{ "status": "ok", "backend": "sqlite" }` when the store answers, else 503
 *   GET /metrics  → Prometheus text (metrics.ts). Aggregate counts only; keep it on an internal
 *                   network if even publish counts are sensitive.
 */
import type { Hono } from 'hono';
import type { Env, RegistryDeps } from '../context.js';

export function registerOpsRoutes(api: Hono<Env>, deps: RegistryDeps): void {
  api.get('/healthz', async (c) => {
    c.env.route = 'healthz';
    try {
      await deps.store.getNamespace('healthz-probe');
      return c.json({ status: 'ok', backend: deps.store.backend }, 200, { 'cache-control': 'no-store' });
    } catch {
      return c.json({ status: 'unavailable', backend: deps.store.backend }, 503, { 'cache-control': 'no-store' });
    }
  });

  api.get('/metrics', (c) => {
    c.env.route = 'metrics';
    return c.text(deps.metrics.render({ rssBytes: process.memoryUsage().rss }), 200, {
      'content-type': 'text/plain; version=0.0.4; charset=utf-8',
      'cache-control': 'no-store',
    });
  });
}
