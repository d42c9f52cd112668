/**
 * Shared helpers of the adversarial suite (ADVERSARIAL.md, engineer W4): hostile package
 * builders re-signed with the test key, "nothing written" snapshots of project trees and of
 * registry storage, prototype-pollution checks, and real servers on port 0 (the registry and a
 * request-counting "evil" host). Not a test file; imported by `test/adversarial/*.test.ts`.
 */
import { publicUnlessDeclared } from '../../packages/registry/src/__tests__/support.js';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { compactJsonText, computeIntegrity, signManifest, writePackage, type PackageContent } from '@ctxpkg/format';
import { createNamespace, createToken, startRegistry, type RunningRegistry, type SqliteStore } from '@ctxpkg/registry';

/** The ADVERSARIAL test key: 32 bytes 0x2a (public key 197f6b23…8d61). */
export const SEED = new Uint8Array(32).fill(0x2a);
export const TEST_PUBLIC_KEY = '197f6b23e16c8532c6abc838facd5ea789be0c76b2920334039bfa8b3d368d61';
export const OTHER_SEED = new Uint8Array(32).fill(0x07);
export const T = '2026-01-02T03:04:05Z';

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
export const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
export const sha256 = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

/** A small v2 content object with one fact whose text is `text`. */
export function graphContent(text = 'JWT secrets rotate every 24h'): PackageContent {
  return {
    context_graph: {
      format: 'ctxpkg-graph-v2',
      nodes: [
        { id: 'N1', type: 'fact', content: text, activation: 1 },
        { id: 'N2', type: 'gotcha', content: 'token refresh races', activation: 0.9 },
      ],
      edges: [{ from: 'N1', to: 'N2', type: 'has_gotcha', weight: 0.9 }],
    },
  };
}

/** A package split into its manifest members (as JSON member text, without integrity/signature) and content text. */
export interface Parts {
  name: string;
  version: string;
  /** Manifest members as raw JSON text, e.g. `"name":"@acme/kb","version":"1.0.0",…`. */
  members: string;
  contentText: string;
}

/** A valid package written by ctxpkg, split into parts for surgical edits. */
export function parts(name = '@acme/kb', version = '1.0.0', content: PackageContent = graphContent()): Parts {
  const text = dec(writePackage({ manifest: { name, version, description: 'adversarial base', created_at: T }, content }, { seed: SEED }));
  const manifest = JSON.parse(text).manifest as Record<string, unknown>;
  const start = text.indexOf('"content": ') + '"content": '.length;
  return {
    name,
    version,
    members: Object.entries(manifest)
      .filter(([k]) => k !== 'integrity' && k !== 'signature')
      .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
      .join(','),
    contentText: text.slice(start, text.length - 2),
  };
}

/**
 * Re-sign parts with the test key: integrity from the content text as written, signature over
 * `name`/`version` (which must be what the members say, unless the test wants a mismatch).
 */
export function resign(p: Parts, seed: Uint8Array = SEED): Uint8Array {
  const integrity = computeIntegrity(p.name, p.version, compactJsonText(p.contentText));
  const sig = signManifest({ name: p.name, version: p.version, integrity }, seed);
  return enc(`{"manifest":{${p.members},"integrity":${JSON.stringify(integrity)},"signature":${JSON.stringify(sig)}},"content":${p.contentText}}`);
}

/** The prototype checks of HB-08, run in the test's own process after the hostile input was handled. */
export function expectPrototypesIntact(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(({} as Record<string, unknown>).visibility).toBeUndefined();
  expect(({} as Record<string, unknown>).kind).toBeUndefined();
  expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  expect(Object.prototype.constructor).toBe(Object);
}

/**
 * Everything on disk under `dir` (not following symlinks): path → `d` (directory),
 * `l:<target>` (symlink) or `f:<mode>:<sha256>` (file). Two equal snapshots mean nothing was
 * written, created, removed, renamed or re-moded.
 */
export function treeSnapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const r = rel + name;
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out[r] = `l:${readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[r] = 'd';
        walk(p, r + '/');
      } else out[r] = `f:${(st.mode & 0o7777).toString(8)}:${sha256(readFileSync(p))}`;
    }
  };
  if (existsSync(dir)) walk(dir, '');
  return out;
}

/**
 * Everything observable about registry storage: every row of every table of the database
 * (including audit events, tokens, signer keys and the full-text index), sorted, plus the
 * blob directory tree with file hashes (including its tmp/ directory).
 */
export function registrySnapshot(store: SqliteStore, dataDir: string): string {
  const tables = (store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>).map((t) => t.name);
  const rows: Record<string, string[]> = {};
  for (const t of tables) rows[t] = (store.db.prepare(`SELECT * FROM "${t}"`).all() as unknown[]).map((r) => JSON.stringify(r, (_k, v) => (Buffer.isBuffer(v) ? v.toString('hex') : v))).sort();
  const files = Object.fromEntries(Object.entries(treeSnapshot(dataDir)).filter(([p]) => !/^registry\.sqlite/.test(p) && !/server\.lock/.test(p)));
  return JSON.stringify({ rows, files });
}

/** A fresh temporary directory. */
export function temp(prefix = 'ctxpkg-adv-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A registry listening on 127.0.0.1:0 over a fresh data directory, with namespace `acme` and its tokens. */
export interface LiveRegistry {
  reg: RunningRegistry;
  dataDir: string;
  /** `http://127.0.0.1:PORT/api` */
  api: string;
  publish: string;
  read: string;
  /** Every request the server answered (method, path, status). */
  requests: Array<{ method: string; path: string; status: number }>;
  snapshot(): string;
  close(): Promise<void>;
}

export async function liveRegistry(opts: { namespaces?: string[]; corsOrigins?: string[] } = {}): Promise<LiveRegistry> {
  const dataDir = temp('ctxpkg-adv-reg-');
  const requests: LiveRegistry['requests'] = [];
  const log = (e: Record<string, unknown>): void => {
    if (e.msg === 'request') requests.push({ method: String(e.method), path: String(e.path), status: Number(e.status) });
  };
  const reg = await startRegistry({ dataDir, port: 0, gcIntervalMs: 0, shutdownTimeoutMs: 200, corsOrigins: opts.corsOrigins, clock: () => new Date(T), log });
  for (const ns of opts.namespaces ?? ['acme']) await createNamespace({ store: reg.store }, ns);
  const publish = (await createToken({ store: reg.store }, { namespace: 'acme', scope: 'publish' })).token;
  const read = (await createToken({ store: reg.store }, { namespace: 'acme', scope: 'read' })).token;
  return {
    reg,
    dataDir,
    api: `${reg.url}/api`,
    publish,
    read,
    requests,
    snapshot: () => registrySnapshot(reg.store as SqliteStore, dataDir),
    close: () => reg.close(),
  };
}

/** A plain HTTP server on 127.0.0.1:0 that logs every request and answers with `handler` (default 404). */
export interface EvilHost {
  url: string;
  requests: Array<{ method: string; url: string; authorization?: string }>;
  close(): Promise<void>;
}

export async function evilHost(handler?: (req: IncomingMessage) => { status: number; headers?: Record<string, string>; body?: Uint8Array | string }): Promise<EvilHost> {
  const requests: EvilHost['requests'] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    req.resume();
    const a = handler?.(req) ?? { status: 404, body: '{"error":"nope","code":"E_NOT_FOUND"}' };
    res.writeHead(a.status, a.headers ?? { 'content-type': 'application/json' });
    res.end(a.body ?? '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** PUT package bytes to a live registry over HTTP; returns status and parsed body. */
export async function putHttp(api: string, token: string | undefined, name: string, version: string, bytes: Uint8Array): Promise<{ status: number; body: any }> {
  const [ns, n] = name.slice(1).split('/');
  const headers: Record<string, string> = { 'content-type': 'application/octet-stream', ...(await publicUnlessDeclared(bytes)) };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${api}/v1/packages/${ns}/${n}/${version}`, { method: 'PUT', headers, body: bytes });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body };
}

/**
 * `treeSnapshot` of a project, minus the bare `.ctxpkg` directory entry itself: the project lock
 * (`.ctxpkg/lock`) needs that directory, so a refused command may leave it behind, empty. Every
 * file below it (store, merged graph, state, journal) is still compared.
 */
export function projectSnapshot(dir: string): Record<string, string> {
  const s = treeSnapshot(dir);
  if (s['.ctxpkg'] === 'd') delete s['.ctxpkg'];
  return s;
}
