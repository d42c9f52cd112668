/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
/**
 * The registry's pages for people (spec/registry.md §15), server-rendered under `/ui`:
 *
 *   GET  /ui/                                   home: search box, recent publishes, namespaces
 *   GET  /ui/search?q=words                     search results (the API's search)
 *   GET  /ui/ns/{ns}[?after=@ns/name]           a namespace's packages
 *   GET  /ui/pkg/{ns}/{name}[/{version}][?part=N] a package version (default: latest)
 *   GET  /ui/graph/{ns}/{name}/{version}[?focus=K] the knowledge graph as SVG
 *   GET  /ui/node/{ns}/{name}/{version}?id=ID   one node
 *   GET  /ui/diff/{ns}/{name}[?from=A&to=B]     what changed between two versions
 *   GET  /ui/login, POST /ui/login, POST /ui/logout   read-token sessions (session.ts)
 *   GET  /ui/assets/{file}                      the stylesheet and script (assets.ts)
 *   GET  / and /ui                              redirect to /ui/
 *
 * Every path matches exactly one route, none overlaps the API, and per-request work stays in
 * the `app.fetch` wrapper (AGENTS.md): no middleware. A package the viewer may not see, a missing
 * one and any unknown page answer the same constant 404 page (`notFoundHtml`).
 */
import type { Hono } from 'hono';
import { CtxpkgError, httpStatusFor, isCtxpkgError, parsePackageName, validateVersion } from '@ctxpkg/format';
import { visibilityFilter } from '../auth.js';
import { readBodyCapped } from '../body.js';
import type { Ctx, Env, RegistryDeps } from '../context.js';
import { compareDesc, orderVersions } from '../ordering.js';
import { packageRef, type PackageRef } from '../params.js';
import { visiblePackage } from '../routes/read.js';
import type { PackageRecord, VersionRecord } from '../store/types.js';
import { ASSETS } from './assets.js';
import { HomePage, LoginPage, NamespacePage, SearchPage } from './browse.js';
import { ContentCache, type VersionContent } from './content.js';
import { diffGraphs } from './diff.js';
import { DiffPage } from './diff-page.js';
import { GraphPage, renderGraphSvg } from './graph-page.js';
import { focusOf, layoutGraph, type GraphPicture } from './graph-layout.js';
import { Frame, notFoundHtml, PAGES_PREFIX, pageResponse, PageUrls, renderPage, type Viewer } from './layout.js';
import { NodePage } from './node-page.js';
import { nodeAnchor, PackagePage, partOf, renderTreePart, splitTree, type TreePart } from './package-page.js';
import { checkLoginToken, clearedCookie, secureRequest, sessionCookie, sessionOf, type Session } from './session.js';

const NAMESPACE_PAGE = 100;
const RECENT = 20;
const DEPENDENTS = 100;
const LOGIN_BODY_BYTES = 4096;
const NOT_FOUND_CACHE = 'no-store';
/** Entries of each rendering cache (graph pictures, tree parts, tree markup). */
const CACHE_ENTRIES = 32;

/** What the pages need besides the API's deps. */
export interface PagesState {
  urls: PageUrls;
  notFound: string;
  contents: ContentCache;
  /** Graph layouts and their rendered SVG by artifact SHA-256 and focus (LRU, 32). */
  pictures: Map<string, { pic: GraphPicture; svg: string } | null>;
  /** Tree parts (by artifact) and their rendered markup (by artifact, version and part), LRU, 32 each. */
  trees: Map<string, TreePart[]>;
  treeHtml: Map<string, string>;
}

/** The base path of links from a public URL (`https://h/reg/` → `/reg`; none → `''`). */
export function linkBase(publicUrl: string | undefined): string {
  if (!publicUrl) return '';
  try {
    return new URL(publicUrl).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/** The constant 404 page answer (identical bytes and headers every time; `extra` only adds a session-clearing cookie). */
export function notFoundResponse(state: PagesState, extra: Record<string, string> = {}): Response {
  return pageResponse(404, state.notFound, NOT_FOUND_CACHE, extra);
}

function ErrorPage(p: { urls: PageUrls; viewer: Viewer; status: number; message: string; hint?: string }) {
  return (
    <Frame title={p.status === 404 ? 'Not found' : 'Error'} urls={p.urls} viewer={p.viewer}>
      <h1>{p.status === 404 ? 'Not found' : p.status >= 500 ? 'Something went wrong' : 'That did not work'}</h1>
      <p>{p.message}</p>
      {p.hint !== undefined ? <p class="muted">{p.hint}</p> : null}
      <p>
        <a href={p.urls.home()}>Back to the registry</a>
      </p>
    </Frame>
  );
}

/** A found-but-wrong answer (a version or node of a visible package), safe to word because the viewer may see the package. */
function missing(message: string): CtxpkgError {
  return new CtxpkgError('E_NOT_FOUND', message, { details: { public: true } });
}

type Handler = (c: Ctx, s: Session) => Promise<Response | { status?: number; html: string }>;

function cacheFor(s: Session, privateData: boolean): string {
  return privateData || s.principal !== null ? 'private, no-store' : 'no-cache';
}

/** Validate a `next` path for after login: a page of ours, printable ASCII, no `//` or `\`. */
export function safeNext(next: string | undefined, urls: PageUrls): string {
  if (!next || !next.startsWith(`${urls.root}/`) || !/^[\x21-\x7e]{1,1000}$/.test(next) || next.includes('//') || next.includes('\\')) return urls.home();
  return next;
}

/**
 * Whether a state-changing form post comes from this site. Browsers send `Sec-Fetch-Site` (a
 * header pages cannot forge): it decides when present; otherwise the `Origin`, when present, must
 * be this server's or the public URL's origin.
 */
function sameSite(c: Ctx, publicUrl: string | undefined): boolean {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const origin = c.req.header('origin');
  if (origin === undefined) return true;
  const own = new Set([new URL(c.req.url).origin]);
  if (publicUrl) {
    try {
      own.add(new URL(publicUrl).origin);
    } catch {
      // an unparsable public URL adds nothing
    }
  }
  return own.has(origin);
}

/**
 * A page URL written with the package's scope as people type it (`/ui/pkg/@acme/kb`,
 * `/ui/ns/@acme`) answers a permanent redirect (308) to the canonical URL without the `@`
 * (`/ui/pkg/acme/kb`), query kept; `undefined` for every other request. Only the `:ns` segment is
 * rewritten; nothing is looked up, so the redirect says nothing about whether the package exists.
 * `base` is the path of the registry's public URL (`linkBase`), put before the path.
 */
function scopedUrlRedirect(c: Ctx, base: string): Response | undefined {
  const ns = c.req.param('ns');
  if (ns === undefined || !ns.startsWith('@') || ns.length < 2) return undefined;
  const url = new URL(c.req.url);
  const segments = url.pathname.split('/');
  const at = segments.findIndex((seg, i) => i > 1 && safeDecode(seg) === ns);
  if (at < 0) return undefined;
  segments[at] = encodeURIComponent(ns.slice(1));
  return new Response(null, { status: 308, headers: { location: base + segments.join('/') + url.search, 'cache-control': 'public, max-age=3600' } });
}

function safeDecode(seg: string): string | undefined {
  try {
    return decodeURIComponent(seg);
  } catch {
    return undefined;
  }
}

/** Register every page route on `app` (the root app, not the API mount). */
export function registerPageRoutes(app: Hono<Env>, deps: RegistryDeps): PagesState {
  const urls = new PageUrls(linkBase(deps.publicUrl));
  const state: PagesState = { urls, notFound: notFoundHtml(urls), contents: new ContentCache(deps.store), pictures: new Map(), trees: new Map(), treeHtml: new Map() };

  const page = (name: string, handler: Handler) => async (c: Ctx): Promise<Response> => {
    c.env.route = `page_${name}`;
    const scoped = scopedUrlRedirect(c, linkBase(deps.publicUrl));
    if (scoped) return scoped;
    let session: Session = { viewer: { namespace: null, tokenId: null, sessionEnded: false }, principal: null, setCookie: undefined };
    const cookie = (): Record<string, string> => (session.setCookie !== undefined ? { 'set-cookie': session.setCookie } : {});
    try {
      session = await sessionOf(c, deps, urls.root);
      const r = await handler(c, session);
      if (r instanceof Response) return r;
      return pageResponse(r.status ?? 200, r.html, cacheFor(session, false), cookie());
    } catch (err) {
      if (isCtxpkgError(err)) {
        c.env.errorCode = err.code;
        if (err.code === 'E_NOT_FOUND' && err.details?.public !== true) return notFoundResponse(state, cookie());
        const status = err.code === 'E_AUTH' ? 400 : httpStatusFor(err.code);
        const html = renderPage(<ErrorPage urls={urls} viewer={session.viewer} status={status} message={err.message} hint={err.hint} />);
        return pageResponse(status, html, 'no-store', cookie());
      }
      c.env.errorCode = 'E_INTERNAL';
      deps.log({ msg: 'internal error', time: new Date().toISOString(), error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      const html = renderPage(<ErrorPage urls={urls} viewer={session.viewer} status={500} message="The registry could not show this page. The error was logged." />);
      return pageResponse(500, html, 'no-store', cookie());
    }
  };

  /** The package (or the constant 404) and its versions in precedence order. */
  async function loadPackage(c: Ctx, ns: string, name: string): Promise<{ ref: PackageRef; pkg: PackageRecord; versions: VersionRecord[]; latest: string | null }> {
    const ref = packageRef(ns, name);
    const pkg = await visiblePackage(c, deps, ref);
    const all = await deps.store.listVersions(ref.namespace, ref.name);
    const latest = orderVersions(all).latest?.version ?? null;
    return { ref, pkg, versions: all.slice().sort((a, b) => compareDesc(a.version, b.version)), latest };
  }

  function pickVersion(ref: PackageRef, versions: VersionRecord[], latest: string | null, raw: string | undefined): VersionRecord {
    const wanted = raw ?? latest ?? versions[0]?.version;
    if (wanted === undefined) throw missing(`${ref.full} has no versions`);
    if (raw !== undefined) validateVersion(raw);
    const v = versions.find((x) => x.version === wanted);
    if (!v) throw missing(`${ref.full}@${wanted} does not exist`);
    return v;
  }

  const previousOf = (versions: VersionRecord[], v: VersionRecord): string | undefined => versions[versions.findIndex((x) => x.version === v.version) + 1]?.version;

  /** A version's graph picture and its SVG, cached by artifact, package, version (the links name it) and focus. */
  function picture(pkg: PackageRecord, v: VersionRecord, content: VersionContent, focus: string | undefined): { pic: GraphPicture; svg: string } | null {
    return cached(state.pictures, JSON.stringify([content.artifact, pkg.namespace, pkg.name, v.version, focus ?? null]), () => {
      const laid = layoutGraph(content.graph, focus);
      return laid && { pic: laid, svg: renderGraphSvg(urls, pkg, v.version, laid) };
    });
  }

  /** The tree parts of a version (cached by artifact). */
  function partsOf(content: VersionContent): TreePart[] {
    return cached(state.trees, content.artifact, () => splitTree(content.tree));
  }

  const toPages = (c: Ctx) => c.redirect(urls.home(), 302);
  app.get('/', (c) => {
    c.env.route = 'page_redirect';
    return toPages(c);
  });
  app.get(PAGES_PREFIX, (c) => {
    c.env.route = 'page_redirect';
    return toPages(c);
  });

  app.get(`${PAGES_PREFIX}/assets/:file`, (c) => {
    c.env.route = 'page_asset';
    const a = ASSETS.files.get(c.req.param('file'));
    if (!a) return notFoundResponse(state);
    const headers = { 'content-type': a.type, 'cache-control': 'public, max-age=31536000, immutable', etag: a.etag, 'x-content-type-options': 'nosniff' };
    if (c.req.header('if-none-match') === a.etag) return new Response(null, { status: 304, headers });
    return new Response(a.body, { status: 200, headers });
  });

  app.get(
    `${PAGES_PREFIX}/`,
    page('home', async (_c, s) => {
      const filter = visibilityFilter(s.principal);
      const [recent, namespaces] = await Promise.all([deps.store.recentPublishes(filter, { limit: RECENT }), deps.store.namespaceSummaries(filter)]);
      return { html: renderPage(<HomePage urls={urls} viewer={s.viewer} recent={recent} namespaces={namespaces} />) };
    }),
  );

  app.get(
    `${PAGES_PREFIX}/search`,
    page('search', async (c, s) => {
      const q = c.req.query('q') ?? '';
      if (q.trim() === '') return c.redirect(urls.home(), 302);
      if (q.length > deps.limits.maxQueryChars) {
        const error = `The search text is longer than ${deps.limits.maxQueryChars} characters.`;
        return { status: 400, html: renderPage(<SearchPage urls={urls} viewer={s.viewer} query={q.slice(0, deps.limits.maxQueryChars)} hits={[]} error={error} />) };
      }
      const hits = await deps.store.search(visibilityFilter(s.principal), q, { limit: deps.limits.maxSearchResults });
      return { html: renderPage(<SearchPage urls={urls} viewer={s.viewer} query={q} hits={hits} />) };
    }),
  );

  app.get(
    `${PAGES_PREFIX}/ns/:ns`,
    page('namespace', async (c, s) => {
      const ns = c.req.param('ns');
      const parsed = parsePackageName(`@${ns}/x`);
      if (parsed.namespace !== ns) throw new CtxpkgError('E_INVALID_NAME', `invalid namespace ${ns}`);
      const after = c.req.query('after');
      const start = after !== undefined && after.startsWith(`@${ns}/`) && after.length <= 200 ? after : `@${ns}/`;
      const rows = await deps.store.catalog(visibilityFilter(s.principal), { limit: NAMESPACE_PAGE + 1, after: start });
      const mine = rows.filter((r) => r.namespace === ns);
      const entries = mine.slice(0, NAMESPACE_PAGE);
      if (entries.length === 0 && start === `@${ns}/` && !(s.viewer.namespace === ns && (await deps.store.getNamespace(ns)))) throw new CtxpkgError('E_NOT_FOUND', 'not found');
      const next = mine.length > NAMESPACE_PAGE ? `@${ns}/${entries[entries.length - 1].name}` : null;
      return { html: renderPage(<NamespacePage urls={urls} viewer={s.viewer} namespace={ns} entries={entries} next={next} />) };
    }),
  );

  const packagePage = page('package', async (c, s) => {
    const { ref, pkg, versions, latest } = await loadPackage(c, c.req.param('ns') ?? '', c.req.param('name') ?? '');
    const raw = c.req.param('version');
    const v = pickVersion(ref, versions, latest, raw);
    const [content, dependents, keys] = await Promise.all([
      state.contents.get(v),
      deps.store.dependents(visibilityFilter(s.principal), ref.full, { limit: DEPENDENTS }),
      deps.store.listSignerKeys(ref.namespace),
    ]);
    const parts = partsOf(content);
    const partRaw = c.req.query('part');
    const part = partRaw !== undefined && /^[0-9]{1,4}$/.test(partRaw) ? Math.min(Math.max(Number(partRaw), 1), parts.length) : 1;
    const treeHtml = cached(state.treeHtml, JSON.stringify([content.artifact, ref.namespace, ref.name, v.version, part]), () => renderTreePart(urls, pkg, v, parts[part - 1]));
    const html = renderPage(
      <PackagePage
        urls={urls}
        viewer={s.viewer}
        pkg={pkg}
        v={v}
        versions={versions}
        latest={latest}
        content={content}
        dependents={dependents}
        keys={keys}
        parts={parts}
        part={part}
        treeHtml={treeHtml}
        isDefault={raw === undefined}
      />,
    );
    return pageResponse(200, html, cacheFor(s, pkg.visibility === 'private'), s.setCookie ? { 'set-cookie': s.setCookie } : {});
  });
  app.get(`${PAGES_PREFIX}/pkg/:ns/:name`, packagePage);
  app.get(`${PAGES_PREFIX}/pkg/:ns/:name/:version`, packagePage);

  app.get(
    `${PAGES_PREFIX}/graph/:ns/:name/:version`,
    page('graph', async (c, s) => {
      const { ref, pkg, versions, latest } = await loadPackage(c, c.req.param('ns') ?? '', c.req.param('name') ?? '');
      const v = pickVersion(ref, versions, latest, c.req.param('version'));
      const content = await state.contents.get(v);
      const focus = c.req.query('focus');
      const drawn = picture(pkg, v, content, focus);
      if (!drawn) throw missing(`${ref.full}@${v.version} has no group ${focus ?? ''} in its graph`);
      const focusTitle = focus === undefined ? undefined : focusTitleOf(content, focus);
      const html = renderPage(
        <GraphPage urls={urls} viewer={s.viewer} pkg={pkg} v={v} pic={drawn.pic} svg={drawn.svg} nodeCount={content.graph.nodes.length} focus={focus} focusTitle={focusTitle} />,
      );
      return pageResponse(200, html, cacheFor(s, pkg.visibility === 'private'), s.setCookie ? { 'set-cookie': s.setCookie } : {});
    }),
  );

  app.get(
    `${PAGES_PREFIX}/node/:ns/:name/:version`,
    page('node', async (c, s) => {
      const { ref, pkg, versions, latest } = await loadPackage(c, c.req.param('ns') ?? '', c.req.param('name') ?? '');
      const v = pickVersion(ref, versions, latest, c.req.param('version'));
      const content = await state.contents.get(v);
      const id = c.req.query('id') ?? '';
      const node = content.byId.get(id);
      if (!node) throw missing(`${ref.full}@${v.version} has no node with this id`);
      const n = partOf(partsOf(content), id);
      const treeHref = `${urls.pkg(ref.namespace, ref.name, v.version, n === 1 ? '' : `?part=${n}`)}#${nodeAnchor(id)}`;
      const graphHref = urls.graph(ref.namespace, ref.name, v.version, focusOf(content.graph, id));
      const html = renderPage(
        <NodePage urls={urls} viewer={s.viewer} pkg={pkg} v={v} content={content} node={node} treeHref={treeHref} graphHref={graphHref} previous={previousOf(versions, v)} />,
      );
      return pageResponse(200, html, cacheFor(s, pkg.visibility === 'private'), s.setCookie ? { 'set-cookie': s.setCookie } : {});
    }),
  );

  app.get(
    `${PAGES_PREFIX}/diff/:ns/:name`,
    page('diff', async (c, s) => {
      const { ref, pkg, versions, latest } = await loadPackage(c, c.req.param('ns') ?? '', c.req.param('name') ?? '');
      const to = pickVersion(ref, versions, latest, c.req.query('to'));
      const fromRaw = c.req.query('from');
      const from = fromRaw !== undefined ? pickVersion(ref, versions, latest, fromRaw) : versions.find((x) => x.version === previousOf(versions, to)) ?? to;
      const [a, b] = await Promise.all([state.contents.get(from), state.contents.get(to)]);
      const html = renderPage(<DiffPage urls={urls} viewer={s.viewer} pkg={pkg} versions={versions} from={from.version} to={to.version} a={a} b={b} diff={diffGraphs(a.graph, b.graph)} />);
      return pageResponse(200, html, cacheFor(s, pkg.visibility === 'private'), s.setCookie ? { 'set-cookie': s.setCookie } : {});
    }),
  );

  app.get(
    `${PAGES_PREFIX}/login`,
    page('login', async (c, s) => {
      const next = safeNext(c.req.query('next'), urls);
      const status = s.viewer.namespace !== null ? `You are viewing as @${s.viewer.namespace}. Logging in with another token replaces this session.` : undefined;
      return { html: renderPage(<LoginPage urls={urls} viewer={s.viewer} next={next} status={status} />) };
    }),
  );

  app.post(
    `${PAGES_PREFIX}/login`,
    page('login', async (c, s) => {
      if (!sameSite(c, deps.publicUrl)) throw new CtxpkgError('E_FORBIDDEN', 'log in from this registry’s own login page');
      const body = new TextDecoder().decode(await readBodyCapped(c.req.raw, LOGIN_BODY_BYTES));
      const form = new URLSearchParams(body);
      const next = safeNext(form.get('next') ?? undefined, urls);
      const checked = await checkLoginToken(deps, (form.get('token') ?? '').trim());
      if (typeof checked === 'string') {
        return { status: 400, html: renderPage(<LoginPage urls={urls} viewer={s.viewer} next={next} error={checked} />) };
      }
      c.env.principal = checked;
      return new Response(null, {
        status: 303,
        headers: { location: next, 'cache-control': 'no-store', 'set-cookie': sessionCookie((form.get('token') ?? '').trim(), urls.root, secureRequest(c, deps.publicUrl)) },
      });
    }),
  );

  app.post(
    `${PAGES_PREFIX}/logout`,
    page('logout', async (c) => {
      if (!sameSite(c, deps.publicUrl)) throw new CtxpkgError('E_FORBIDDEN', 'log out from this registry’s own pages');
      return new Response(null, {
        status: 303,
        headers: { location: urls.home(), 'cache-control': 'no-store', 'set-cookie': clearedCookie(urls.root, secureRequest(c, deps.publicUrl)) },
      });
    }),
  );

  return state;
}

/** `map.get(key)`, else `make()` stored under `key`; the map is an LRU of `CACHE_ENTRIES` entries. */
function cached<T>(map: Map<string, T>, key: string, make: () => T): T {
  if (map.has(key)) {
    const hit = map.get(key)!;
    map.delete(key);
    map.set(key, hit);
    return hit;
  }
  const value = make();
  map.set(key, value);
  if (map.size > CACHE_ENTRIES) map.delete(map.keys().next().value as string);
  return value;
}

function focusTitleOf(content: VersionContent, focus: string): string {
  if (focus.startsWith('s:')) {
    const n = content.byId.get(focus.slice(2));
    if (n) return n.content.split('\n', 1)[0];
  }
  return focus.startsWith('f:') ? focus.slice(2) || '(no source file)' : focus;
}

