/**
 * Catalog and search (spec/registry.md "Catalog and search"):
 *   GET /v1/index.json[?limit=N&after=@ns/name]   → every package the caller may see, by name
 *   GET /v1/search?q=words[&limit=N]             → ranked matches over names, descriptions, tags
 *                                                  and node content of each package's latest version
 * Private packages appear only for tokens of their namespace; for everyone else the answer is
 * byte-identical to one where those packages do not exist.
 */
import type { Hono } from 'hono';
import { CtxpkgError } from '@ctxpkg/format';
import { visibilityFilter } from '../auth.js';
import { principalOf, type Env, type RegistryDeps } from '../context.js';
import { jsonResponse, PRIVATE_CACHE } from '../http.js';
import type { CatalogEntry } from '../store/types.js';

function limitParam(raw: string | undefined, max: number): number {
  if (raw === undefined || raw === '') return max;
  if (!/^[0-9]{1,6}$/.test(raw) || Number(raw) < 1) throw new CtxpkgError('E_USAGE', 'limit must be a positive integer');
  return Math.min(Number(raw), max);
}

function entry(e: CatalogEntry): Record<string, unknown> {
  return {
    name: `@${e.namespace}/${e.name}`,
    latest: e.latest,
    description: e.description,
    tags: e.tags,
    visibility: e.visibility,
    updated_at: e.updated_at,
  };
}

/** Private entries make the whole answer private; otherwise it is the same for everyone. */
function cacheFor(entries: readonly CatalogEntry[]): string {
  return entries.some((e) => e.visibility === 'private') ? PRIVATE_CACHE : 'public, no-cache';
}

export function registerCatalogRoutes(api: Hono<Env>, deps: RegistryDeps): void {
  api.get('/v1/index.json', async (c) => {
    c.env.route = 'catalog';
    const principal = await principalOf(c, deps);
    const limit = limitParam(c.req.query('limit'), deps.limits.catalogPageSize);
    const after = c.req.query('after');
    if (after !== undefined && after.length > 200) throw new CtxpkgError('E_USAGE', 'after is too long');
    const rows = await deps.store.catalog(visibilityFilter(principal), { limit: limit + 1, after });
    const page = rows.slice(0, limit);
    const next = rows.length > limit ? `@${page[page.length - 1].namespace}/${page[page.length - 1].name}` : null;
    return jsonResponse(200, { schema: 'ctxpkg-registry-catalog-v1', packages: page.map(entry), next }, cacheFor(page));
  });

  api.get('/v1/search', async (c) => {
    c.env.route = 'search';
    const principal = await principalOf(c, deps);
    const q = c.req.query('q') ?? '';
    if (q.trim() === '') throw new CtxpkgError('E_USAGE', 'missing search text: use /v1/search?q=words');
    if (q.length > deps.limits.maxQueryChars) {
      throw new CtxpkgError('E_USAGE', `the search text is longer than ${deps.limits.maxQueryChars} characters`);
    }
    const limit = limitParam(c.req.query('limit'), deps.limits.maxSearchResults);
    const hits = await deps.store.search(visibilityFilter(principal), q, { limit });
    return jsonResponse(
      200,
      {
        schema: 'ctxpkg-registry-search-v1',
        query: q,
        results: hits.map((h) => ({ ...entry(h), snippet: h.snippet })),
      },
      cacheFor(hits),
    );
  });
}
