/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
/**
 * Home, search results and namespace pages. They show only what the store answers through the
 * viewer's visibility filter, so for a viewer who may not see a private package each of these
 * pages is byte-identical to the same page on a registry without it.
 */
import type { CatalogEntry, NamespaceSummary, RecentPublish, SearchHit } from '../store/types.js';
import { plural, Snippet, When } from './common.js';
import { Frame, type PageUrls, type Viewer } from './layout.js';

interface Base {
  urls: PageUrls;
  viewer: Viewer;
}

function PackageLine(p: { urls: PageUrls; e: CatalogEntry }) {
  const { e, urls } = p;
  return (
    <>
      <a class="name" href={urls.pkg(e.namespace, e.name)}>
        @{e.namespace}/{e.name}
      </a>{' '}
      {e.latest !== null ? <span class="pill">{e.latest}</span> : <span class="pill yanked">all versions yanked</span>}{' '}
      {e.visibility === 'private' ? <span class="pill private">private</span> : null}
    </>
  );
}

export function HomePage(p: Base & { recent: RecentPublish[]; namespaces: NamespaceSummary[] }) {
  const { urls, viewer } = p;
  return (
    <Frame title="Home" urls={urls} viewer={viewer} here={urls.home()}>
      <h1>Context packages</h1>
      <p class="muted">
        Signed, versioned knowledge for AI agents: gotchas, conventions, decisions and facts. Search by name, description or anything a
        package says.
      </p>
      <div class="grid">
        <section>
          <h2>Recent publishes</h2>
          {p.recent.length === 0 ? (
            <p class="muted">Nothing published yet.</p>
          ) : (
            <ul class="plain results">
              {p.recent.map((r) => (
                <li>
                  <a class="name" href={urls.pkg(r.namespace, r.name, r.version)}>
                    @{r.namespace}/{r.name}
                  </a>{' '}
                  <span class="pill">{r.version}</span> {r.yanked ? <span class="pill yanked">yanked</span> : null}{' '}
                  {r.visibility === 'private' ? <span class="pill private">private</span> : null}{' '}
                  <span class="muted small">
                    <When at={r.published_at} />
                  </span>
                  <div class="snippet">{r.description}</div>
                </li>
              ))}
            </ul>
          )}
        </section>
        <aside class="side">
          <h2>Namespaces</h2>
          {p.namespaces.length === 0 ? (
            <p class="muted">No namespaces with packages you can see.</p>
          ) : (
            <ul class="plain">
              {p.namespaces.map((n) => (
                <li>
                  <a href={urls.ns(n.namespace)}>@{n.namespace}</a> <span class="muted small">{plural(n.packages, 'package')}</span>
                </li>
              ))}
            </ul>
          )}
          {viewer.namespace === null ? (
            <p class="small muted">
              Private packages appear after you <a href={urls.login(urls.home())}>log in with a read token</a> of their namespace.
            </p>
          ) : null}
        </aside>
      </div>
    </Frame>
  );
}

export function SearchPage(p: Base & { query: string; hits: SearchHit[]; error?: string }) {
  const { urls, viewer } = p;
  return (
    <Frame title={`Search: ${p.query}`} urls={urls} viewer={viewer} query={p.query} here={urls.search(p.query)}>
      <h1>
        Search results for <q>{p.query}</q>
      </h1>
      {p.error !== undefined ? (
        <p class="notice warn">{p.error}</p>
      ) : p.hits.length === 0 ? (
        <p class="muted">No package matches every word. Words match as prefixes: try fewer or shorter words.</p>
      ) : (
        <>
          <p class="muted small">{plural(p.hits.length, 'package')}, best match first.</p>
          <ul class="plain results">
            {p.hits.map((h) => (
              <li>
                <PackageLine urls={urls} e={h} />
                {h.description !== '' && !h.snippet.startsWith(h.description.slice(0, 40)) ? <div class="small muted">{h.description}</div> : null}
                <div>
                  <Snippet text={h.snippet} />
                </div>
              </li>
            ))}
          </ul>
        </>
      )}
    </Frame>
  );
}

export function NamespacePage(p: Base & { namespace: string; entries: CatalogEntry[]; next: string | null }) {
  const { urls, viewer } = p;
  return (
    <Frame title={`@${p.namespace}`} urls={urls} viewer={viewer} here={urls.ns(p.namespace)}>
      <h1>@{p.namespace}</h1>
      {p.entries.length === 0 ? (
        <p class="muted">No packages yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Package</th>
              <th>Latest</th>
              <th>Description</th>
              <th>Last change</th>
            </tr>
          </thead>
          <tbody>
            {p.entries.map((e) => (
              <tr>
                <td>
                  <a href={urls.pkg(e.namespace, e.name)}>
                    @{e.namespace}/{e.name}
                  </a>{' '}
                  {e.visibility === 'private' ? <span class="pill private">private</span> : null}
                </td>
                <td>{e.latest ?? <span class="pill yanked">all yanked</span>}</td>
                <td class="snippet">{e.description}</td>
                <td class="small">
                  <When at={e.updated_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {p.next !== null ? (
        <p class="pager">
          <a href={`${urls.ns(p.namespace)}?after=${encodeURIComponent(p.next)}`}>Next page →</a>
        </p>
      ) : null}
    </Frame>
  );
}

export function LoginPage(p: Base & { next: string; error?: string; status?: string }) {
  const { urls, viewer } = p;
  return (
    <Frame title="Log in" urls={urls} viewer={viewer}>
      <div class="login">
        <h1>Log in with a read token</h1>
        <p class="muted">
          Private packages are visible to tokens of their namespace. Paste a <b>read</b> token (<code>ctxr_…</code>); the pages keep it in an
          HttpOnly cookie for this site for up to 8 hours and never show it again. Get one from an owner of the namespace:
        </p>
        <p>
          <code>ctxpkg registry token create --namespace &lt;ns&gt; --scope read --expires 30d</code>
        </p>
        {p.error !== undefined ? <p class="notice warn">{p.error}</p> : null}
        {p.status !== undefined ? <p class="notice">{p.status}</p> : null}
        <form method="post" action={urls.login()} class="card">
          <input type="hidden" name="next" value={p.next} />
          <label for="token">Read token</label>
          <input id="token" type="password" name="token" autocomplete="off" spellcheck={false} required maxlength={200} placeholder="ctxr_…" />
          <button class="primary" type="submit">
            Log in
          </button>
        </form>
      </div>
    </Frame>
  );
}
