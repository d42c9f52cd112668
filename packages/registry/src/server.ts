/**
 * The only file that listens on a port (ARCHITECTURE.md "packages/registry"; spec/registry.md
 * "Running a registry").
 *
 * `startRegistry` opens the data directory (taking its server lock), collects orphan blobs left
 * by a crash, serves the app with @hono/node-server and returns `{ url, close }`. `close()` stops
 * accepting connections, lets in-flight requests finish (up to `shutdownTimeoutMs`), then closes
 * the store. `serveRegistry` adds what a foreground process needs: the `listening on` line, JSON
 * request logs, and a graceful shutdown on SIGTERM/SIGINT.
 */
import type { WitnessConfig } from './tlog/witnesses.js';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { serve } from '@hono/node-server';
import { CtxpkgError } from '@ctxpkg/format';
import { createApp, type RegistryApp } from './app.js';
import { bufferedLineLogger } from './line-logger.js';
import { acquireServerLock } from './server-lock.js';
import { openStore } from './store/open.js';
import { normaliseBasePath, type Logger, type RegistryLimits } from './options.js';
import type { RegistryStore } from './store/types.js';

export interface StartRegistryOptions {
  /** Data directory (created when missing): `registry.sqlite` + `blobs/`. Give this or `db`. */
  dataDir?: string;
  /**
   * PostgreSQL URL (`postgres://…`): metadata and blobs in that database, migrated on start.
   * Several servers ("nodes") may serve one database.
   */
  db?: string;
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
  /** Port (default 0: a free port is picked; read it from the returned `url`). */
  port?: number;
  /** Externally visible base URL (absolute `Location` headers); default: the listening URL. */
  publicUrl?: string;
  limits?: Partial<RegistryLimits>;
  /** Extra API mount point (default `/api`; `''` for root only). */
  basePath?: string;
  corsOrigins?: readonly string[];
  log?: Logger;
  clock?: () => Date;
  /** How long `close()` waits for in-flight requests before cutting connections (default 10 s). */
  shutdownTimeoutMs?: number;
  /** Orphan-blob collection interval in ms (default 1 h; 0 disables the timer). */
  gcIntervalMs?: number;
  /** Witnesses that cosign the log's checkpoints (`--witness <vkey>=<url>`; spec/transparency.md §8). */
  witnesses?: readonly WitnessConfig[];
  /** Serve HTTPS with this certificate chain and private key (PEM bytes or text). */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Connection timeouts (`DEFAULT_TIMEOUTS`). */
  timeouts?: Partial<ServerTimeouts>;
}

/** How long the server waits for a client, in ms (spec/registry.md §12). */
export interface ServerTimeouts {
  /** The whole request, headers and body, must arrive within this (default 60 000): a PUT trickling bytes is cut off. */
  requestMs: number;
  /** The request headers must arrive within this (default 10 000). */
  headersMs: number;
  /** A connection with no bytes moving for this long is closed (default 30 000). */
  idleMs: number;
  /** An idle keep-alive connection is closed after this (default 5 000). */
  keepAliveMs: number;
}

export const DEFAULT_TIMEOUTS: ServerTimeouts = Object.freeze({ requestMs: 60_000, headersMs: 10_000, idleMs: 30_000, keepAliveMs: 5_000 });

/** A listen failure as the environment error it is (busy port, privileged port, unknown host). */
function listenError(host: string, port: number, err: NodeJS.ErrnoException): CtxpkgError {
  const where = `${host}:${port}`;
  const hint =
    err.code === 'EADDRINUSE'
      ? `another process is listening on ${where}: stop it, or pick another --port (0 picks a free one)`
      : err.code === 'EACCES'
        ? `ports below 1024 need privileges: use a port above 1024 behind a reverse proxy, or grant CAP_NET_BIND_SERVICE`
        : err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND'
          ? `${host} is not an address of this machine: use 127.0.0.1, 0.0.0.0 or one of its interfaces`
          : 'check --host and --port';
  return new CtxpkgError('E_ENVIRONMENT', `cannot listen on ${where}: ${err.code ?? err.message}`, { hint, cause: err });
}

export interface RunningRegistry {
  /** `http://HOST:PORT` of the listening socket (the API is also under `url + basePath`). */
  url: string;
  host: string;
  port: number;
  publicUrl: string;
  app: RegistryApp;
  store: RegistryStore;
  /** Graceful stop; idempotent. */
  close(): Promise<void>;
}

function formatUrl(host: string, port: number, scheme = 'http'): string {
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Start a registry. Throws `E_LOCKED` when another live server uses `dataDir`, `E_ENVIRONMENT`
 * when the port cannot be bound or the database cannot be reached, `E_USAGE` for bad options.
 */
export async function startRegistry(opts: StartRegistryOptions): Promise<RunningRegistry> {
  const host = opts.host ?? '127.0.0.1';
  const port = opts.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CtxpkgError('E_USAGE', `invalid port ${port}`);
  if ((opts.dataDir === undefined) === (opts.db === undefined)) {
    throw new CtxpkgError('E_USAGE', 'give either a data directory (--data) or a PostgreSQL URL (--db), not both or neither');
  }
  // One server per data directory; any number of nodes on one PostgreSQL database.
  const log = opts.log ?? (() => undefined);
  const lock =
    opts.dataDir !== undefined
      ? await acquireServerLock(opts.dataDir, (text) => log({ msg: text, time: new Date().toISOString() }))
      : { release: async () => undefined };
  let store: RegistryStore | undefined;
  try {
    store = await openStore(opts.db !== undefined ? { db: opts.db } : { dataDir: opts.dataDir as string });
    // SQLite: no publish of this process is in flight yet and the lock excludes other servers, so
    // every unreferenced blob is an orphan of an interrupted publish. PostgreSQL: other nodes may
    // be publishing, so only blobs older than the grace period (their pins expire with it).
    await store.collectGarbage({ graceMs: opts.db !== undefined ? 3_600_000 : 0, now: Date.now() });
  } catch (err) {
    await store?.close();
    await lock.release();
    throw err;
  }
  const lifecycle = { draining: false };
  const app = createApp({
    store, clock: opts.clock, log, limits: opts.limits, basePath: opts.basePath, corsOrigins: opts.corsOrigins,
    publicUrl: opts.publicUrl, lifecycle, witnesses: opts.witnesses,
  });
  const t = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };

  const server = await new Promise<Server>((resolve, reject) => {
    const timeouts = {
      requestTimeout: t.requestMs,
      headersTimeout: Math.min(t.headersMs, t.requestMs),
      keepAliveTimeout: t.keepAliveMs,
      // How often Node checks the request and header deadlines (its default, 30 s, lets a trickle live that long).
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(t.requestMs / 4))),
    };
    const s = (
      opts.tls
        ? serve({ fetch: app.fetch, port, hostname: host, createServer: createHttpsServer, serverOptions: { ...timeouts, cert: opts.tls.cert, key: opts.tls.key } })
        : serve({ fetch: app.fetch, port, hostname: host, serverOptions: timeouts })
    ) as Server;
    s.setTimeout(t.idleMs, (socket) => socket.destroy());
    s.once('listening', () => resolve(s));
    s.once('error', (err: NodeJS.ErrnoException) => reject(listenError(host, port, err)));
  }).catch(async (err: unknown) => {
    await store?.close();
    await lock.release();
    throw err;
  });
  const addr = server.address() as AddressInfo;
  const url = formatUrl(host, addr.port, opts.tls ? 'https' : 'http');
  const publicUrl = opts.publicUrl ?? url;

  const gcEvery = opts.gcIntervalMs ?? 3_600_000;
  const gcTimer =
    gcEvery > 0
      ? setInterval(() => {
          store?.collectGarbage({ graceMs: gcEvery, now: Date.now() }).catch((err: unknown) => {
            log({ msg: 'gc failed', time: new Date().toISOString(), error: String(err) });
          });
        }, gcEvery)
      : undefined;
  gcTimer?.unref();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      // Readiness answers 503 from now on, so a load balancer stops sending; in-flight requests finish.
      lifecycle.draining = true;
      if (gcTimer) clearInterval(gcTimer);
      await new Promise<void>((resolve) => {
        const timeout = setTimeout(() => server.closeAllConnections(), opts.shutdownTimeoutMs ?? 10_000);
        const idle = setInterval(() => server.closeIdleConnections(), 50);
        server.close(() => {
          clearTimeout(timeout);
          clearInterval(idle);
          resolve();
        });
        server.closeIdleConnections();
      });
      await store?.close();
      await lock.release();
    })();
    return closing;
  };
  return { url, host, port: addr.port, publicUrl, app, store, close };
}

/**
 * The line `serve` prints for clients: `ctxpkg login --registry <public base>/api --scope …`.
 * Without `--public-url`, a server bound to every interface (`0.0.0.0`, `::`) has no address a
 * client can use — `http://0.0.0.0:4873` reaches nothing from another machine — so the line names
 * a placeholder and says that `--public-url` makes it exact.
 */
export function loginLine(reg: { publicUrl: string; host: string; port: number }, opts: { publicUrl?: string; basePath?: string; tls?: unknown }): string {
  const wildcard = opts.publicUrl === undefined && (reg.host === '0.0.0.0' || reg.host === '::' || reg.host === '[::]');
  const base = wildcard ? `${opts.tls ? 'https' : 'http'}://<this server's address>:${reg.port}` : reg.publicUrl.replace(/\/+$/, '');
  const line = `clients log in with: ctxpkg login --registry ${base}${normaliseBasePath(opts.basePath)} --scope @<namespace>`;
  return wildcard ? `${line}  (set --public-url to the URL clients reach, e.g. https://ctx.example.com behind a proxy, to print it here)` : line;
}

/** Where `serveRegistry` writes its line and its JSON logs. */
export interface ServeIo {
  stdout: { write(chunk: string): unknown };
}

/**
 * Run a registry in the foreground until SIGTERM or SIGINT: prints `listening on URL`, then one
 * JSON log line per request (batched, see line-logger.ts); on a signal, finishes in-flight
 * requests, flushes the log and resolves.
 */
export async function serveRegistry(opts: StartRegistryOptions, io: ServeIo): Promise<{ url: string }> {
  const buffered = bufferedLineLogger((chunk) => io.stdout.write(chunk));
  const log: Logger = opts.log ?? buffered.log;
  const reg = await startRegistry({ ...opts, log });
  io.stdout.write(`listening on ${reg.url}\n`);
  // What a client logs in to: the public base URL with the API mount point (default /api).
  io.stdout.write(`${loginLine(reg, opts)}\n`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      log({ msg: 'shutting down', time: new Date().toISOString(), signal });
      const done = () => {
        buffered.flush();
        resolve();
      };
      reg.close().then(done, done);
    };
    const onTerm = () => stop('SIGTERM');
    const onInt = () => stop('SIGINT');
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
  });
  return { url: reg.url };
}
