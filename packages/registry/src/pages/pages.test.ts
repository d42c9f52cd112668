/**
 * The registry's pages through `app.request` on every store backend: headers, content, the
 * constant 404 for private packages, sessions, escaping of hostile package text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace, createToken, revokeToken } from '../admin.js';
import { describeBackends, makePackage, newTestRegistry, type BackendName, type TestRegistry } from '../__tests__/support.js';
import { normaliseBasePath } from '../options.js';
import { ASSETS } from './assets.js';
import { PAGE_CSP } from './layout.js';

const CLOCK = () => new Date('2026-02-03T04:05:06Z');
const EVIL = ['<script>alert(1)</script>', '<img src=x onerror=alert(2)>', '"><svg onload=alert(3)>', "javascript:alert(4)"];

async function fill(reg: TestRegistry, withPrivate: boolean): Promise<void> {
  const ok = async (path: string, bytes: Uint8Array) => expect((await reg.put(path, bytes, reg.tokens.acmePublish)).status).toBe(201);
  await ok('/v1/packages/acme/kb/1.0.0', makePackage({ nodes: [{ content: 'Refresh tokens behind one mutex.', type: 'gotcha' }, { content: 'Keep the cache warm.', type: 'fact' }] }));
  await ok('/v1/packages/acme/kb/1.1.0', makePackage({ version: '1.1.0', nodes: [{ content: 'Refresh tokens behind one global mutex.', type: 'gotcha' }, { content: 'New rule.', type: 'convention', id: 'N3' }] }));
  if (withPrivate) {
    await ok('/v1/packages/acme/secret/1.0.0', makePackage({ name: '@acme/secret', visibility: 'private', description: 'hidden plans', nodes: [{ content: 'zebrafinch secret text' }] }));
    // A namespace whose only package is private: its page is hidden like the package.
    const put = await reg.put('/v1/packages/other/hidden/1.0.0', makePackage({ name: '@other/hidden', visibility: 'private' }), reg.tokens.otherPublish);
    expect(put.status).toBe(201);
  }
  await ok('/v1/packages/acme/uses/1.0.0', makePackage({ name: '@acme/uses', dependencies: [{ name: '@acme/kb', version_req: '^1' }] }));
  for (const version of ['1.0.0', '1.1.0']) {
    await ok(
      `/v1/packages/acme/evil/${version}`,
      makePackage({
        name: '@acme/evil',
        version,
        description: `evil ${EVIL[0]}`,
        tags: [EVIL[1]],
        nodes: EVIL.map((e, i) => ({ id: `E${i}${e}`, type: i === 0 ? e : 'gotcha', content: `payload ${e} ${version === '1.1.0' ? EVIL[(i + 1) % EVIL.length] : ''}` })),
      }),
    );
  }
}

function session(token: string): Record<string, string> {
  return { cookie: `ctxpkg_session=${token}` };
}

async function snapshot(res: Response): Promise<{ status: number; body: string; headers: Array<[string, string]> }> {
  return { status: res.status, body: await res.text(), headers: [...res.headers] };
}

describeBackends('registry pages', (backend: BackendName) => {
  let reg: TestRegistry;
  let twin: TestRegistry;
  let otherRead: string;
  let thirdRead: string;
  let twinThirdRead: string;
  beforeAll(async () => {
    reg = await newTestRegistry({ clock: CLOCK }, backend);
    twin = await newTestRegistry({ clock: CLOCK }, backend);
    await fill(reg, true);
    await fill(twin, false);
    otherRead = (await createToken({ store: reg.store }, { namespace: 'other', scope: 'read' })).token;
    // A viewer who may see neither private package: a read token of a third namespace, in both registries.
    for (const r of [reg, twin]) await createNamespace({ store: r.store }, 'third');
    thirdRead = (await createToken({ store: reg.store }, { namespace: 'third', scope: 'read' })).token;
    twinThirdRead = (await createToken({ store: twin.store }, { namespace: 'third', scope: 'read' })).token;
  });
  afterAll(async () => {
    await reg.close();
    await twin.close();
  });
  const get = (path: string, headers: Record<string, string> = {}) => reg.req(path, { headers });

  it('answers HTML with a strict CSP and the safety headers; / and /ui redirect to /ui/', async () => {
    const res = await get('/ui/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(PAGE_CSP).toContain("script-src 'self'");
    expect(PAGE_CSP).not.toContain('unsafe');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    for (const p of ['/', '/ui']) {
      const r = await get(p);
      expect(r.status).toBe(302);
      expect(r.headers.get('location')).toBe('/ui/');
    }
  });

  it('home lists recent publishes and namespaces the viewer can see', async () => {
    const html = await (await get('/ui/')).text();
    expect(html).toContain('@acme/kb');
    expect(html).toContain('<span class="pill">1.1.0</span>');
    expect(html).not.toContain('secret');
    const mine = await (await get('/ui/', session(reg.tokens.acmeRead))).text();
    expect(mine).toContain('@acme/secret');
    expect(mine).toContain('Viewing as');
  });

  it('catalog pages are byte-identical to a registry without the private package, for anyone who may not see it', async () => {
    for (const path of ['/ui/', '/ui/search?q=zebrafinch', '/ui/search?q=acme', '/ui/ns/acme']) {
      for (const [mine, theirs] of [[{}, {}], [session(thirdRead), session(twinThirdRead)]]) {
        const a = await snapshot(await get(path, mine));
        const b = await snapshot(await twin.req(path, { headers: theirs }));
        expect(a.status, path).toBe(200);
        expect(a.body, path).toBe(b.body);
      }
    }
  });

  it('a private package answers the same 404 page as a missing one and as any unknown page, to anonymous and other-namespace viewers', async () => {
    const constant = await snapshot(await get('/ui/pkg/acme/nothing'));
    expect(constant.status).toBe(404);
    expect(constant.body).toContain('Not found');
    const paths = [
      '/ui/pkg/acme/secret',
      '/ui/pkg/acme/secret/1.0.0',
      '/ui/graph/acme/secret/1.0.0',
      '/ui/node/acme/secret/1.0.0?id=N1',
      '/ui/diff/acme/secret',
      '/ui/pkg/acme/nothing/1.0.0',
      '/ui/no/such/page',
      '/ui/ns/nosuchns',
      '/ui/ns/other',
    ];
    for (const path of paths) {
      const viewers = path === '/ui/ns/other' ? [{}, session(reg.tokens.acmeRead)] : [{}, session(otherRead)];
      for (const headers of viewers) expect(await snapshot(await get(path, headers)), path).toEqual(constant);
    }
    const ownNs = await get('/ui/ns/other', session(otherRead));
    expect(ownNs.status).toBe(200);
    expect(await ownNs.text()).toContain('@other/hidden');
    const own = await get('/ui/pkg/acme/secret', session(reg.tokens.acmeRead));
    expect(own.status).toBe(200);
    expect(own.headers.get('cache-control')).toBe('private, no-store');
    expect(await own.text()).toContain('zebrafinch secret text');
  });

  it('a page URL written with the scope as people type it (@acme) redirects to the canonical one, for missing and private packages alike', async () => {
    for (const [typed, canonical] of [
      ['/ui/pkg/@acme/kb', '/ui/pkg/acme/kb'],
      ['/ui/pkg/%40acme/kb/1.0.0', '/ui/pkg/acme/kb/1.0.0'],
      ['/ui/graph/@acme/kb/1.0.0?focus=x', '/ui/graph/acme/kb/1.0.0?focus=x'],
      ['/ui/ns/@acme', '/ui/ns/acme'],
      ['/ui/pkg/@acme/secret', '/ui/pkg/acme/secret'],
      ['/ui/pkg/@acme/nothing', '/ui/pkg/acme/nothing'],
    ]) {
      const r = await get(typed);
      expect(r.status, typed).toBe(308);
      expect(r.headers.get('location'), typed).toBe(canonical);
    }
    expect((await get('/ui/pkg/@/kb')).status).not.toBe(308);
    const followed = await get((await get('/ui/pkg/@acme/kb')).headers.get('location') as string);
    expect(followed.status).toBe(200);
  });

  it('a visible package names a missing version or node in its own 404', async () => {
    const r = await get('/ui/pkg/acme/kb/9.9.9');
    expect(r.status).toBe(404);
    expect(await r.text()).toContain('@acme/kb@9.9.9 does not exist');
    expect((await get('/ui/node/acme/kb/1.0.0?id=nope')).status).toBe(404);
    expect((await get('/ui/pkg/acme/kb/not-semver')).status).toBe(400);
  });

  it('the package page shows install command, versions, dependents, signer and trust report, and the content', async () => {
    const html = await (await get('/ui/pkg/acme/kb')).text();
    expect(html).toContain('ctxpkg install @acme/kb</code>');
    expect(html).toContain('data-copy="install-cmd"');
    expect(html).toMatch(/1\.1\.0.*latest/s);
    expect(html).toContain('@acme/uses');
    expect(html).toContain('197f6b23e16c8532c6abc838facd5ea789be0c76b2920334039bfa8b3d368d61');
    expect(html).toContain('content_hash');
    expect(html).toContain('not checked');
    expect(html).toContain('Refresh tokens behind one global mutex.');
    expect(html).toContain('/ui/diff/acme/kb?from=1.0.0&amp;to=1.1.0');
    const old = await (await get('/ui/pkg/acme/kb/1.0.0')).text();
    expect(old).toContain('ctxpkg install @acme/kb@1.0.0');
  });

  it('a yanked version says so and offers the latest version, not itself; with every version yanked, no install command (new-user trial 18)', async () => {
    const r = await newTestRegistry({ clock: CLOCK }, backend);
    try {
      for (const version of ['1.0.0', '1.1.0']) expect((await r.put(`/v1/packages/acme/yk/${version}`, makePackage({ name: '@acme/yk', version }), r.tokens.acmePublish)).status).toBe(201);
      const yank = (version: string) => r.req(`/v1/packages/acme/yk/${version}`, { method: 'DELETE', token: r.tokens.acmePublish });
      expect((await yank('1.0.0')).status).toBeLessThan(300);
      const old = await (await r.req('/ui/pkg/acme/yk/1.0.0')).text();
      expect(old).toContain('id="yanked-notice"');
      expect(old).not.toContain('ctxpkg install @acme/yk@1.0.0');
      expect(old).toContain('<code id="install-cmd">ctxpkg install @acme/yk</code>');
      expect(old).toContain('href="/ui/pkg/acme/yk/1.1.0"');
      const latest = await (await r.req('/ui/pkg/acme/yk/1.1.0')).text();
      expect(latest).not.toContain('id="yanked-notice"');
      expect(latest).toContain('<code id="install-cmd">ctxpkg install @acme/yk</code>');
      expect((await yank('1.1.0')).status).toBeLessThan(300);
      const none = await (await r.req('/ui/pkg/acme/yk/1.1.0')).text();
      expect(none).toContain('Every version of this package is yanked: there is nothing to install.');
      expect(none).not.toContain('id="install-cmd"');
      expect(none).not.toContain('ctxpkg install @acme/yk');
    } finally {
      await r.close();
    }
  });

  it('node, graph and diff pages', async () => {
    const node = await (await get('/ui/node/acme/kb/1.1.0?id=N3')).text();
    expect(node).toContain('New rule.');
    const graph = await (await get('/ui/graph/acme/kb/1.1.0')).text();
    expect(graph).toContain('<svg class="graph"');
    expect(graph.match(/<a class="n c\d+" href="\/ui\/node\/acme\/kb\/1\.1\.0\?id=N\d"/g)).toHaveLength(2);
    const diff = await (await get('/ui/diff/acme/kb?from=1.0.0&to=1.1.0')).text();
    expect(diff).toContain('<ins>global </ins>');
    expect(diff).toMatch(/<b>1<\/b> changed/);
    expect(diff).toMatch(/<b>1<\/b> added/);
    expect(diff).toMatch(/<b>1<\/b> removed/);
    expect(await (await get('/ui/diff/acme/kb')).text()).toBe(diff);
  });

  it('escapes hostile package text everywhere; every link, script and stylesheet is same-origin', async () => {
    const pages = ['/ui/', '/ui/pkg/acme/evil', '/ui/graph/acme/evil/1.0.0', `/ui/node/acme/evil/1.0.0?id=${encodeURIComponent(`E1${EVIL[1]}`)}`, '/ui/search?q=payload', '/ui/ns/acme', '/ui/diff/acme/evil'];
    expect(await (await get('/ui/diff/acme/evil')).text()).toMatch(/<b>4<\/b> changed/);
    for (const path of pages) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      const html = await res.text();
      // Every tag is one of ours: no hostile element, no event attribute, one script (our asset).
      const tags = html.match(/<[a-z][a-z0-9]*(?:\s[^>]*)?>/gi) ?? [];
      const names = new Set(tags.map((t) => /^<([a-z0-9]+)/i.exec(t)![1].toLowerCase()));
      for (const bad of ['img', 'iframe', 'math', 'object', 'embed', 'style']) expect(names.has(bad), `${path} <${bad}>`).toBe(false);
      for (const t of tags) expect(t, path).not.toMatch(/\son[a-z]+\s*=/i);
      expect(tags.filter((t) => t.startsWith('<script')), path).toEqual([`<script src="/ui/assets/${ASSETS.js}" defer="">`]);
      expect(html, path).not.toMatch(/(?:href|src|action)="(?!\/)/);
      if (path !== '/ui/') expect(html, path).toContain('&lt;');
    }
    expect(await (await get('/ui/pkg/acme/evil')).text()).toContain('evil &lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('login: a read token starts an HttpOnly, SameSite=Strict session; publish and bad tokens are refused; cross-site posts are refused', async () => {
    const post = (token: string, headers: Record<string, string> = {}) =>
      reg.req('/ui/login', { method: 'POST', body: new URLSearchParams({ token, next: '/ui/pkg/acme/secret' }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://registry.test', ...headers } });
    const ok = await post(reg.tokens.acmeRead);
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/ui/pkg/acme/secret');
    const cookie = ok.headers.get('set-cookie')!;
    expect(cookie).toContain(`ctxpkg_session=${reg.tokens.acmeRead}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/ui/);
    expect(cookie).toMatch(/Max-Age=28800/);
    const pub = await post(reg.tokens.acmePublish);
    expect(pub.status).toBe(400);
    expect(pub.headers.get('set-cookie')).toBeNull();
    const pubHtml = await pub.text();
    expect(pubHtml).toContain('publish token');
    expect(pubHtml).not.toContain(reg.tokens.acmePublish);
    expect((await post('ctxr_' + 'A'.repeat(43))).status).toBe(400);
    expect((await post('garbage')).status).toBe(400);
    const cross = await post(reg.tokens.acmeRead, { origin: 'https://evil.example' });
    expect(cross.status).toBe(403);
    expect(cross.headers.get('set-cookie')).toBeNull();
    expect((await post(reg.tokens.acmeRead, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post(reg.tokens.acmeRead, { 'sec-fetch-site': 'same-site' })).status).toBe(403);
    expect((await post(reg.tokens.acmeRead, { 'sec-fetch-site': 'same-origin', origin: 'null' })).status).toBe(303);
    const openRedirect = await reg.req('/ui/login', { method: 'POST', body: `token=${reg.tokens.acmeRead}&next=//evil.example/`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(openRedirect.headers.get('location')).toBe('/ui/');
    const out = await reg.req('/ui/logout', { method: 'POST', headers: { origin: 'http://registry.test' } });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/ctxpkg_session=;.*Max-Age=0/);
  });

  it('a session whose token was revoked ends: the viewer is anonymous again and the cookie is cleared', async () => {
    const t = await createToken({ store: reg.store }, { namespace: 'acme', scope: 'read' });
    expect((await get('/ui/pkg/acme/secret', session(t.token))).status).toBe(200);
    await revokeToken({ store: reg.store }, t.id);
    const home = await get('/ui/', session(t.token));
    expect(home.status).toBe(200);
    expect(home.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    const html = await home.text();
    expect(html).toContain('Your session ended');
    expect(html).not.toContain('@acme/secret');
    const hidden = await get('/ui/pkg/acme/secret', session(t.token));
    expect(hidden.status).toBe(404);
    expect(await hidden.text()).toBe((await snapshot(await get('/ui/pkg/acme/nothing'))).body);
  });

  it('serves its assets with immutable caching and answers 304 to their ETag', async () => {
    const res = await get(`/ui/assets/${ASSETS.css}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(res.headers.get('cache-control')).toContain('immutable');
    expect((await get(`/ui/assets/${ASSETS.css}`, { 'if-none-match': res.headers.get('etag')! })).status).toBe(304);
    expect((await get('/ui/assets/nope.css')).status).toBe(404);
  });
});

describe('pages path', () => {
  it('refuses /ui as the API base path', () => {
    expect(() => normaliseBasePath('/ui')).toThrow(/pages/);
    expect(() => normaliseBasePath('/ui/x')).toThrow(/pages/);
    expect(normaliseBasePath('/uix')).toBe('/uix');
  });
});
