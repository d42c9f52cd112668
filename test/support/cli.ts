/**
 * In-process harness for CLI ↔ registry tests: registries are Hono apps reached through an
 * injected fetch (`(url, init) => app.request(url, init)`), every request is logged with its
 * host, path and Authorization header, and the CLI runs through `runCli` with captured output.
 */
import { publicUnlessDeclared } from '../../packages/registry/src/__tests__/support.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runCli, type CliDeps } from 'ctxpkg';
import { buildPackage, publicKeyFromSeed, type ContextGraph } from '@ctxpkg/format';
import { addSignerKey, createApp, createNamespace, createToken, openSqliteStore, type RegistryStore } from '@ctxpkg/registry';

export interface LoggedRequest {
  host: string;
  method: string;
  path: string;
  authorization: string | null;
}

export interface TestRegistry {
  /** Base URL, e.g. `http://p.test/api`. */
  url: string;
  host: string;
  store: RegistryStore;
  app: ReturnType<typeof createApp>;
  /** Create a namespace and return a publish token for it. */
  namespace(ns: string): Promise<string>;
  /** Allow another signer key for a namespace. */
  addKey(ns: string, seed: Uint8Array): Promise<void>;
}

export interface World {
  registries: Map<string, TestRegistry>;
  log: LoggedRequest[];
  /** Replace responses: return a Response to override, undefined to pass through. */
  intercept?: (url: URL, init: RequestInit | undefined) => Promise<Response | undefined> | Response | undefined;
  fetch: typeof fetch;
  addRegistry(host: string): Promise<TestRegistry>;
}

/** A set of in-process registries reachable by host name through one fetch. */
export function createWorld(): World {
  const world: World = {
    registries: new Map(),
    log: [],
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      const headers = new Headers(init?.headers);
      world.log.push({ host: url.host, method: init?.method ?? 'GET', path: url.pathname, authorization: headers.get('authorization') });
      const over = world.intercept ? await world.intercept(url, init) : undefined;
      if (over) return over;
      const reg = world.registries.get(url.host);
      if (!reg) throw new TypeError(`fetch failed: no host ${url.host}`);
      return reg.app.request(url.href, init);
    }) as typeof fetch,
    async addRegistry(host: string) {
      const dataDir = mkdtempSync(join(tmpdir(), 'ctxpkg-reg-'));
      const store = await openSqliteStore({ dataDir });
      const app = createApp({ store });
      const reg: TestRegistry = {
        url: `http://${host}/api`,
        host,
        store,
        app,
        async namespace(ns) {
          await createNamespace({ store }, ns);
          return (await createToken({ store }, { namespace: ns, scope: 'publish' })).token;
        },
        async addKey(ns, seed) {
          await addSignerKey({ store }, ns, publicKeyFromSeed(seed));
        },
      };
      world.registries.set(host, reg);
      return reg;
    },
  };
  return world;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Parsed stdout when `--json` was passed. */
  json: any;
}

/** Run the CLI in process; `stdin` is the text the command reads on standard input (default: none). */
export async function cli(args: string[], opts: { cwd: string; env?: Record<string, string | undefined>; fetch: typeof fetch; home?: string; stdin?: string }): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const stdin = new PassThrough();
  stdin.end(opts.stdin);
  const deps: CliDeps = {
    fetch: opts.fetch,
    env: { CTXPKG_HOME: opts.home ?? join(opts.cwd, '.home'), ...opts.env },
    cwd: opts.cwd,
    homeDir: opts.home ?? opts.cwd,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin,
    clock: () => new Date('2026-01-02T03:04:05Z'),
  };
  const code = await runCli(args, deps);
  let json: unknown;
  if (args.includes('--json')) {
    try {
      json = JSON.parse(stdout);
    } catch {
      json = undefined;
    }
  }
  return { code, stdout, stderr, json };
}

/** A small signed package with `nodes` gotcha nodes and the given dependencies. */
export function makePackage(name: string, version: string, seed: Uint8Array, opts: { deps?: Record<string, string>; nodes?: string[]; description?: string } = {}): Uint8Array {
  const texts = opts.nodes ?? [`Never do the wrong thing in ${name}@${version}`];
  const graph: ContextGraph = {
    format: 'ctxpkg-graph-v2',
    nodes: texts.map((t, i) => ({ id: `n${i + 1}`, type: 'gotcha', content: t, activation: 1.0 })),
    edges: [],
  };
  return buildPackage(
    {
      manifest: {
        name,
        version,
        description: opts.description ?? `test package ${name}`,
        created_at: '2026-01-02T03:04:05Z',
        dependencies: Object.entries(opts.deps ?? {}).map(([n, r]) => ({ name: n, version_req: r, optional: false })),
      },
      content: { context_graph: graph },
    },
    { seed },
  ).bytes;
}

/** Publish bytes straight to a registry app (test setup, not the code under test). */
export async function putPackage(reg: TestRegistry, token: string, name: string, version: string, bytes: Uint8Array): Promise<void> {
  const [ns, n] = name.slice(1).split('/');
  const res = await reg.app.request(`${reg.url}/v1/packages/${ns}/${n}/${version}`, {
    method: 'PUT',
    headers: { ...(await publicUnlessDeclared(bytes)), authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body: bytes,
  });
  if (res.status !== 201) throw new Error(`setup publish of ${name}@${version} failed: ${res.status} ${await res.text()}`);
}

/** A fresh temporary directory. */
export function tempDir(prefix = 'ctxpkg-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
