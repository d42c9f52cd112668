/**
 * The registry's pages over a registry filled from ../shared/corpus (issue 14): every page type
 * answers, stays within its page weight (each page under 200 KB, the graph page under 1 MB at
 * 1,000 nodes), and — in Debian's Chromium driven by playwright-core — can be clicked through
 * (search → package → node → diff), hides private packages behind one constant 404, executes no
 * hostile package text, loads nothing from another origin, works without JavaScript, and is
 * saved as screenshots in test-artifacts/pages/ (gitignored).
 *
 * Chromium: `/usr/bin/chromium` (or `$CTXPKG_CHROMIUM`); never a downloaded browser. Absent, the
 * browser tests are skipped with a printed reason — unless `CTXPKG_REQUIRE_CHROMIUM=1` (CI), where
 * that is a failure.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegistry, type RunningRegistry } from '@ctxpkg/registry';
import { fillPagesRegistry, XSS, type FilledRegistry } from './support/pages-fixture.js';
import { describeShared, REPO_ROOT } from './support/shared.js';

const CHROMIUM = process.env.CTXPKG_CHROMIUM ?? '/usr/bin/chromium';
const REQUIRED = process.env.CTXPKG_REQUIRE_CHROMIUM === '1';
const noChromium = existsSync(CHROMIUM) ? null : `${CHROMIUM} is absent (install Debian's chromium: apt-get install -y chromium)`;
if (noChromium && REQUIRED) throw new Error(`${noChromium}; CTXPKG_REQUIRE_CHROMIUM=1 requires it`);
if (noChromium) console.log(`[skip] registry page browser tests: ${noChromium}`);

/** Launch arguments for Debian's Chromium in a container (no sandbox, no GPU, no network side traffic). */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic'];
const ARTIFACTS = join(REPO_ROOT, 'test-artifacts', 'pages');
const PAGE_LIMIT = 200_000;
const GRAPH_LIMIT = 1_000_000;

describeShared('registry pages over the corpus', () => {
  let reg: RunningRegistry;
  let f: FilledRegistry;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ctxpkg-pages-reg-'));
    reg = await startRegistry({ dataDir, port: 0, log: () => undefined });
    f = await fillPagesRegistry(reg.store, reg.app);
  }, 300_000);
  afterAll(async () => {
    await reg?.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (f) rmSync(f.workDir, { recursive: true, force: true });
  });

  const path = (full: string, kind: 'pkg' | 'graph' | 'diff', version?: string): string => {
    const [ns, name] = full.slice(1).split('/');
    return kind === 'diff' ? `/ui/diff/${ns}/${name}` : `/ui/${kind}/${ns}/${name}${version ? `/${version}` : ''}`;
  };

  it('every page type answers within its page weight', async () => {
    const firstNode = async (full: string, version: string): Promise<string> => {
      const html = await (await fetch(reg.url + path(full, 'pkg', version))).text();
      return /href="(\/ui\/node\/[^"]+)"/.exec(html)![1].replace(/&amp;/g, '&');
    };
    const pages: Array<[string, string, number]> = [
      ['home', '/ui/', PAGE_LIMIT],
      ['search', '/ui/search?q=tests', PAGE_LIMIT],
      ['namespace', '/ui/ns/corpus', PAGE_LIMIT],
      ['login', '/ui/login', PAGE_LIMIT],
      ['not found', '/ui/pkg/acme/secret-rules', PAGE_LIMIT],
      ['diff', path(f.changed, 'diff'), PAGE_LIMIT],
      ['diff (0.9.0 → 1.1.0, across a yank)', `${path(f.changed, 'diff')}?from=0.9.0&to=1.1.0`, PAGE_LIMIT],
      ['node', await firstNode(f.all, '1.0.0'), PAGE_LIMIT],
      ['graph (1,000 nodes)', path(f.big, 'graph', '1.0.0'), GRAPH_LIMIT],
      ['graph (corpus, clustered)', path(f.all, 'graph', '1.0.0'), GRAPH_LIMIT],
      ...[f.all, f.big, f.changed, f.hostile, f.hostileMd, ...f.corpus.map((c) => c.name)].map((full): [string, string, number] => [`package ${full}`, path(full, 'pkg'), PAGE_LIMIT]),
      ['package (1,000 nodes, part 2)', `${path(f.big, 'pkg')}?part=2`, PAGE_LIMIT],
    ];
    const rows: string[] = [];
    for (const [what, url, limit] of pages) {
      const res = await fetch(reg.url + url);
      const bytes = (await res.arrayBuffer()).byteLength;
      rows.push(`${what.padEnd(70)} ${String(res.status).padEnd(4)} ${(bytes / 1000).toFixed(1).padStart(7)} KB`);
      expect(res.status, what).toBe(what === 'not found' ? 404 : 200);
      expect(bytes, what).toBeLessThan(limit);
    }
    console.log(`page weights:\n${rows.join('\n')}`);
    const big = await (await fetch(reg.url + path(f.big, 'graph', '1.0.0'))).text();
    expect(big.match(/<a class="dot c\d+" href="\/ui\/node\//g)!.length).toBeGreaterThanOrEqual(1000);
    const bigPkg = await (await fetch(reg.url + path(f.big, 'pkg'))).text();
    expect(bigPkg).toMatch(/Part 1 of \d/);
  });

  describe.skipIf(noChromium !== null)('in Chromium', () => {
    let ctx: BrowserContext;
    let page: Page;
    const requests: string[] = [];
    const dialogs: string[] = [];
    let profile: string;
    beforeAll(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      profile = mkdtempSync(join(tmpdir(), 'ctxpkg-chromium-'));
      ctx = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 900 } });
      ctx.on('request', (r) => requests.push(r.url()));
      page = ctx.pages()[0] ?? (await ctx.newPage());
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
    }, 120_000);
    afterAll(async () => {
      await ctx?.close();
      if (profile) rmSync(profile, { recursive: true, force: true });
    });
    const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: false });

    it('clicks through search → package → node → diff', async () => {
      await page.goto(`${reg.url}/ui/`);
      expect(await page.textContent('h1')).toBe('Context packages');
      await shot('home');
      await page.fill('header input[name=q]', 'nextjs guidelines');
      await Promise.all([page.waitForURL(/\/ui\/search\?q=/), page.press('header input[name=q]', 'Enter')]);
      await shot('search');
      await Promise.all([page.waitForURL(/\/ui\/pkg\/corpus\/nextjs-guidelines$/), page.click('a.name:text-is("@corpus/nextjs-guidelines")')]);
      expect(await page.textContent('#install-cmd')).toBe('ctxpkg install @corpus/nextjs-guidelines');
      expect(await page.textContent('.file .scopes')).toContain('agentsmd/**');
      await shot('package');
      await Promise.all([page.waitForURL(/\/ui\/node\//), page.click('.item:not(.sec) a.meta >> nth=0')]);
      expect(await page.textContent('pre.content')).toContain('Next.js application');
      await shot('node');
      await Promise.all([page.waitForURL(/\/ui\/diff\//), page.click('text=Changes since 1.0.0')]);
      expect(await page.textContent('.summary')).toMatch(/1\s*changed\s*1\s*added\s*1\s*removed/);
      expect((await page.locator('.diff ins').allTextContents()).join('|')).toContain('all');
      await shot('diff');
    });

    it('draws the graph: node boxes link to nodes; large graphs are grouped, and a group opens node by node', async () => {
      await page.goto(`${reg.url}${path(f.changed, 'graph', '1.1.0')}`);
      const stated = Number(/^(\d+) nodes/.exec((await page.textContent('main > p.muted'))!)![1]);
      expect(stated).toBeGreaterThan(5);
      expect(await page.locator('svg.graph a.n').count()).toBe(stated);
      await shot('graph');
      await Promise.all([page.waitForURL(/\/ui\/node\//), page.click('svg.graph a.n >> nth=3')]);
      await page.goto(`${reg.url}${path(f.all, 'graph', '1.0.0')}`);
      expect(await page.locator('svg.graph g.cl').count()).toBeGreaterThan(10);
      await shot('graph-clusters');
      await Promise.all([page.waitForURL(/focus=/), page.click('svg.graph g.cl a:not(.dot) >> nth=1')]);
      expect(await page.locator('svg.graph a.n').count()).toBeGreaterThan(0);
      await shot('graph-focus');
      await page.goto(`${reg.url}${path(f.big, 'graph', '1.0.0')}`);
      expect(await page.locator('svg.graph a.dot').count()).toBeGreaterThanOrEqual(1000);
      await shot('graph-1000');
      await page.goto(`${reg.url}/ui/ns/corpus`);
      await shot('namespace');
    });

    it('a private package is the same 404 as a missing one until a read token of its namespace logs in (HttpOnly, SameSite=Strict)', async () => {
      const visit = async (url: string) => {
        const res = (await page.goto(reg.url + url))!;
        return { status: res.status(), body: Buffer.from(await res.body()) };
      };
      const hidden = await visit('/ui/pkg/acme/secret-rules');
      const missing = await visit('/ui/pkg/acme/no-such-package');
      expect(hidden.status).toBe(404);
      expect(hidden.body.equals(missing.body)).toBe(true);
      await page.goto(`${reg.url}/ui/pkg/acme/secret-rules`);
      await shot('not-found');
      const login = async (token: string) => {
        await page.goto(`${reg.url}/ui/login?next=${encodeURIComponent('/ui/pkg/acme/secret-rules')}`);
        await page.fill('input[name=token]', token);
        const [res] = await Promise.all([page.waitForNavigation(), page.click('form.card button[type=submit]')]);
        return res!;
      };
      const other = await login(f.tokens.otherRead);
      expect(other.status()).toBe(404);
      expect(Buffer.from(await other.body()).equals(missing.body)).toBe(true);
      await page.goto(`${reg.url}/ui/login`);
      await shot('login');
      const own = await login(f.tokens.acmeRead);
      expect(own.status()).toBe(200);
      expect(await page.textContent('h1')).toContain('@acme/secret-rules');
      await shot('private');
      const cookie = (await ctx.cookies(`${reg.url}/ui/`)).find((c) => c.name === 'ctxpkg_session')!;
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/ui' });
      expect(await page.evaluate(() => (globalThis as any).document.cookie)).toBe('');
      await Promise.all([page.waitForURL(/\/ui\/$/), page.click('header .who button')]);
      expect((await ctx.cookies(`${reg.url}/ui/`)).find((c) => c.name === 'ctxpkg_session')).toBeUndefined();
      expect((await page.goto(`${reg.url}/ui/pkg/acme/secret-rules`))!.status()).toBe(404);
    });

    it('runs none of the hostile text: no dialog, no script, no event handler, no javascript: link', async () => {
      const nodeLinks = async (full: string, version: string): Promise<string[]> => {
        await page.goto(`${reg.url}${path(full, 'pkg', version)}`);
        return page.locator('a.meta').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
      };
      const urls = [
        '/ui/',
        '/ui/ns/evil',
        '/ui/search?q=payload',
        `/ui/search?q=${encodeURIComponent(XSS[0])}`,
        path(f.hostile, 'pkg'),
        path(f.hostile, 'graph', '1.1.0'),
        `${path(f.hostile, 'diff')}?from=1.0.0&to=1.1.0`,
        path(f.hostileMd, 'pkg'),
        path(f.hostileMd, 'graph', '1.0.0'),
        ...(await nodeLinks(f.hostile, '1.1.0')),
        ...(await nodeLinks(f.hostileMd, '1.0.0')),
      ];
      for (const url of urls) {
        await page.goto(reg.url + url);
        // Runs in the page (DOM types are not part of this project's compilation).
        const seen = await page.evaluate(() => {
          const g = globalThis as any;
          const all: any[] = [...g.document.querySelectorAll('*')];
          return {
            xss: g.__xss ?? null,
            scripts: [...g.document.querySelectorAll('script')].map((s: any) => s.getAttribute('src')),
            handlers: all.flatMap((e) => [...e.attributes].filter((a: any) => a.name.startsWith('on')).map((a: any) => `${e.tagName} ${a.name}`)),
            jsLinks: all.filter((e) => /^\s*javascript:/i.test(e.getAttribute('href') ?? '') || /^\s*javascript:/i.test(e.getAttribute('src') ?? '')).length,
            foreign: g.document.querySelectorAll('img, iframe, object, embed, math, style').length as number,
          };
        });
        expect(seen, url).toEqual({ xss: null, scripts: [expect.stringMatching(/^\/ui\/assets\/app\.[0-9a-f]+\.js$/)], handlers: [], jsLinks: 0, foreign: 0 });
      }
      await page.goto(`${reg.url}${path(f.hostile, 'pkg')}`);
      expect(await page.textContent('body')).toContain(XSS[0]);
      await shot('xss');
      expect(dialogs).toEqual([]);
    });

    it('copies the install command; works without JavaScript; requests nothing from another origin', async () => {
      await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: reg.url });
      await page.goto(`${reg.url}${path(f.all, 'pkg')}`);
      await page.click('button[data-copy=install-cmd]');
      await expect.poll(() => page.textContent('button[data-copy=install-cmd]')).toBe('Copied');
      expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe('ctxpkg install @corpus/all-instructions');
      await shot('package-large');

      const plainProfile = mkdtempSync(join(tmpdir(), 'ctxpkg-chromium-nojs-'));
      const plain = await chromium.launchPersistentContext(plainProfile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, javaScriptEnabled: false });
      const noJs = plain.pages()[0] ?? (await plain.newPage());
      await noJs.goto(`${reg.url}/ui/`);
      await noJs.fill('header input[name=q]', 'fastapi');
      await Promise.all([noJs.waitForURL(/search/), noJs.press('header input[name=q]', 'Enter')]);
      expect(await noJs.locator('.results li').count()).toBeGreaterThan(0);
      await noJs.goto(`${reg.url}${path(f.changed, 'pkg')}`);
      expect(await noJs.isHidden('button[data-copy=install-cmd]')).toBe(true);
      expect(await noJs.textContent('#install-cmd')).toBe('ctxpkg install @corpus/nextjs-guidelines');
      await plain.close();
      rmSync(plainProfile, { recursive: true, force: true });

      const origin = new URL(reg.url).origin;
      expect(requests.length).toBeGreaterThan(20);
      expect(requests.filter((u) => new URL(u).origin !== origin)).toEqual([]);
    });
  });
});
