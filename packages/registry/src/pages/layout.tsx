/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
/**
 * The frame every page shares (header with search and login state, footer), the response
 * headers of every page, and the one "not found" page.
 *
 * Escaping: pages are Hono JSX, which escapes every text child and attribute value, so package
 * text (names, descriptions, node text, ids, trust report details) is always inert. Nothing here
 * uses `dangerouslySetInnerHTML` or `raw`. Links are built only by `PageUrls` from validated
 * names and `encodeURIComponent`, never from package text, so no `javascript:` URL can appear.
 * The Content-Security-Policy allows scripts and styles from this origin only (no inline code).
 */
import type { Child } from 'hono/jsx';
import { ASSETS } from './assets.js';

/** Where the pages live on the server: every page path starts with it; it never overlaps the API (`/v1`, `/api`, …). */
export const PAGES_PREFIX = '/ui';

/** Content-Security-Policy of every page: nothing from other origins, no inline script or style. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Headers every page answer carries (plus `cache-control`). */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  vary: 'Cookie',
});

/** Who is looking: anonymous, or logged in with a read token of one namespace. */
export interface Viewer {
  namespace: string | null;
  tokenId: string | null;
  /** A session cookie was sent but its token is no longer valid (it is cleared on this answer). */
  sessionEnded: boolean;
}

export const ANONYMOUS: Viewer = Object.freeze({ namespace: null, tokenId: null, sessionEnded: false });

/** Builds every link of the pages (paths under the pages root, parameters percent-encoded). */
export class PageUrls {
  /**
   * `base`: the path prefix under which clients reach this server (the public URL's path, `''`
   * when served at the host's root); pages live under `<base>/ui`.
   */
  constructor(readonly base: string) {
    this.root = `${base}${PAGES_PREFIX}`;
  }
  /** `<base>/ui`: the pages root (also the session cookie's path). */
  readonly root: string;
  /** The API download URL of a version (public packages only link it). */
  download(ns: string, name: string, version: string): string {
    return `${this.base}/v1/packages/${encodeURIComponent(ns)}/${encodeURIComponent(name)}/${encodeURIComponent(version)}/download`;
  }
  home(): string {
    return `${this.root}/`;
  }
  asset(file: string): string {
    return `${this.root}/assets/${file}`;
  }
  searchPath(): string {
    return `${this.root}/search`;
  }
  search(q: string): string {
    return `${this.searchPath()}?q=${encodeURIComponent(q)}`;
  }
  login(next?: string): string {
    return next ? `${this.root}/login?next=${encodeURIComponent(next)}` : `${this.root}/login`;
  }
  logout(): string {
    return `${this.root}/logout`;
  }
  ns(ns: string): string {
    return `${this.root}/ns/${encodeURIComponent(ns)}`;
  }
  /** A package page; without `version`, its latest. */
  pkg(ns: string, name: string, version?: string, query = ''): string {
    const base = `${this.root}/pkg/${encodeURIComponent(ns)}/${encodeURIComponent(name)}`;
    return (version === undefined ? base : `${base}/${encodeURIComponent(version)}`) + query;
  }
  /** A package page for a full name `@ns/name` (a dependency), or null when the name is not scoped. */
  pkgByName(full: string, version?: string): string | null {
    const m = /^@([a-z0-9-]+)\/([a-z0-9-]+)$/.exec(full);
    return m ? this.pkg(m[1], m[2], version) : null;
  }
  graph(ns: string, name: string, version: string, focus?: string): string {
    const base = `${this.root}/graph/${encodeURIComponent(ns)}/${encodeURIComponent(name)}/${encodeURIComponent(version)}`;
    return focus === undefined ? base : `${base}?focus=${encodeURIComponent(focus)}`;
  }
  node(ns: string, name: string, version: string, id: string): string {
    return `${this.root}/node/${encodeURIComponent(ns)}/${encodeURIComponent(name)}/${encodeURIComponent(version)}?id=${encodeURIComponent(id)}`;
  }
  diff(ns: string, name: string, from?: string, to?: string): string {
    const q = from !== undefined && to !== undefined ? `?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}` : '';
    return `${this.root}/diff/${encodeURIComponent(ns)}/${encodeURIComponent(name)}${q}`;
  }
}

export interface FrameProps {
  title: string;
  urls: PageUrls;
  viewer: Viewer;
  /** The text to show in the header's search box. */
  query?: string;
  /** The path of this page, for the login link to come back to. */
  here?: string;
  children?: Child;
}

function Who(p: { urls: PageUrls; viewer: Viewer; here?: string }) {
  if (p.viewer.namespace === null) {
    return (
      <div class="who">
        <a href={p.urls.login(p.here)}>Log in</a>
      </div>
    );
  }
  return (
    <div class="who">
      <span>
        Viewing as <a href={p.urls.ns(p.viewer.namespace)}>@{p.viewer.namespace}</a>
      </span>
      <form method="post" action={p.urls.logout()}>
        <button type="submit">Log out</button>
      </form>
    </div>
  );
}

/** The page frame: doctype, head, header bar, main content, footer. */
export function Frame(p: FrameProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{p.title} · ctxpkg registry</title>
        <link rel="stylesheet" href={p.urls.asset(ASSETS.css)} />
        <link rel="icon" type="image/svg+xml" href={p.urls.asset(ASSETS.icon)} />
        <script src={p.urls.asset(ASSETS.js)} defer></script>
      </head>
      <body>
        <header class="top">
          <div class="bar">
            <a class="brand" href={p.urls.home()}>
              ctx<span>pkg</span> registry
            </a>
            <form class="search" method="get" action={p.urls.searchPath()} role="search">
              <input type="search" name="q" value={p.query ?? ''} placeholder="Search packages, descriptions and node text" aria-label="Search" maxlength={256} />
              <button type="submit">Search</button>
            </form>
            <Who urls={p.urls} viewer={p.viewer} here={p.here} />
          </div>
        </header>
        <main>
          {p.viewer.sessionEnded ? <p class="notice warn">Your session ended: the token it used is no longer valid. Log in again to see private packages.</p> : null}
          {p.children}
        </main>
        <footer>
          ctxpkg registry · the same data as the <code>/v1</code> API · install with <code>ctxpkg install @ns/name</code>
        </footer>
      </body>
    </html>
  );
}

/** Serialise a page: `<!doctype html>` + the rendered element. */
export function renderPage(el: unknown): string {
  return `<!doctype html>${String(el)}`;
}

/**
 * The page answer: status, body and the page headers. `cache` is the Cache-Control value;
 * `extra` adds headers (e.g. `set-cookie`).
 */
export function pageResponse(status: number, html: string, cache: string, extra: Record<string, string> = {}): Response {
  return new Response(html, { status, headers: { ...PAGE_HEADERS, 'cache-control': cache, ...extra } });
}

/**
 * The one "not found" page, byte-identical for every path and every viewer: a package or
 * namespace that does not exist, one the viewer may not see (private), and any unknown page all
 * answer these exact bytes (spec/registry.md §9: the pages never confirm a private package).
 * It therefore shows neither the requested name nor the viewer's login state.
 */
export function notFoundHtml(urls: PageUrls): string {
  return renderPage(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Not found · ctxpkg registry</title>
        <link rel="stylesheet" href={urls.asset(ASSETS.css)} />
        <link rel="icon" type="image/svg+xml" href={urls.asset(ASSETS.icon)} />
      </head>
      <body>
        <header class="top">
          <div class="bar">
            <a class="brand" href={urls.home()}>
              ctx<span>pkg</span> registry
            </a>
            <form class="search" method="get" action={urls.searchPath()} role="search">
              <input type="search" name="q" placeholder="Search packages, descriptions and node text" aria-label="Search" maxlength={256} />
              <button type="submit">Search</button>
            </form>
          </div>
        </header>
        <main>
          <h1>Not found</h1>
          <p>There is no such page or package here — or it is a private package, which only viewers logged in with a token of its namespace can see.</p>
          <p>
            <a href={urls.home()}>Search the registry</a> · <a href={urls.login()}>Log in with a read token</a>
          </p>
        </main>
      </body>
    </html>,
  );
}
