/**
 * Test support for registry tests (not part of the build): signed test packages written with the
 * format's own writer, and a registry app over a fresh temporary data directory with tokens.
 */
import { writePackage, type ContextNode } from '@ctxpkg/format';
import { createApp, type RegistryApp } from '../app.js';
import { createNamespace, createToken } from '../admin.js';
import type { AppOptions, LogEntry } from '../options.js';
import { PgStore } from '../store/pg.js';
import { SqliteStore } from '../store/sqlite.js';
import { openTestStore, type AnyStore, type BackendName } from './backends.js';

export { BACKENDS, describeBackends, type AnyStore, type BackendName } from './backends.js';

/** The ADVERSARIAL test key: seed of 32 bytes 0x2a (public key 197f6b23…8d61). */
export const TEST_SEED = new Uint8Array(32).fill(0x2a);
export const TEST_PUBLIC_KEY = '197f6b23e16c8532c6abc838facd5ea789be0c76b2920334039bfa8b3d368d61';
/** A second key for "unregistered signer" cases. */
export const OTHER_SEED = new Uint8Array(32).fill(0x07);

export interface TestPackageOptions {
  name?: string;
  version?: string;
  description?: string;
  visibility?: 'public' | 'private';
  seed?: Uint8Array | null;
  tags?: string[];
  nodes?: Array<Partial<ContextNode> & { content: string }>;
  dependencies?: ReadonlyArray<{ readonly name: string; readonly version_req: string; readonly optional?: boolean }>;
}

/** Packages made by `makePackage` whose manifest declares a visibility. */
const DECLARED = new WeakSet<Uint8Array>();

/**
 * The header most tests publish with: `X-Ctxpkg-Visibility: public` for a package whose manifest
 * declares no visibility (the registry's own default is private), none when it declares one (it
 * decides) or cannot be read (the registry's refusal is what the test checks).
 */
export async function publicUnlessDeclared(bytes: Uint8Array | null): Promise<Record<string, string>> {
  if (!bytes) return {};
  if (DECLARED.has(bytes)) return {};
  // Oversized and hostile inputs (tests of the size cap) are not parsed: a raw look suffices.
  if (bytes.byteLength > 2 * 1024 * 1024) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes('"visibility"') ? {} : { 'x-ctxpkg-visibility': 'public' };
  try {
    const { readPackage } = await import('@ctxpkg/format');
    const m = (await readPackage(bytes)).manifest as { visibility?: unknown };
    return m.visibility === undefined || m.visibility === null ? { 'x-ctxpkg-visibility': 'public' } : {};
  } catch {
    return {};
  }
}

/** Whether `makePackage` wrote a `visibility` into these bytes' manifest. */
export function declaresVisibility(bytes: Uint8Array): boolean {
  return DECLARED.has(bytes);
}

/** A signed (unless `seed: null`) v2 package with a small graph. Bytes differ with any option. */
export function makePackage(o: TestPackageOptions = {}): Uint8Array {
  const bytes = writeTestPackage(o);
  if (o.visibility) DECLARED.add(bytes);
  return bytes;
}

function writeTestPackage(o: TestPackageOptions): Uint8Array {
  const nodes = (o.nodes ?? [{ content: 'Token refresh races: serialise refreshes behind one mutex.', type: 'gotcha' }]).map((n, i) => ({
    id: n.id ?? `N${i + 1}`,
    type: n.type ?? 'fact',
    content: n.content,
    activation: n.activation ?? 1,
  }));
  return writePackage(
    {
      manifest: {
        name: o.name ?? '@acme/kb',
        version: o.version ?? '1.0.0',
        description: o.description ?? 'auth knowledge',
        created_at: '2026-01-02T03:04:05Z',
        tags: o.tags ?? ['auth'],
        ...(o.visibility ? { visibility: o.visibility } : {}),
        ...(o.dependencies ? { dependencies: o.dependencies.map((d) => ({ ...d })) } : {}),
      },
      content: { context_graph: { format: 'ctxpkg-graph-v2', nodes, edges: [] } },
    },
    o.seed === null ? {} : { seed: o.seed ?? TEST_SEED },
  );
}

export interface TestRegistry {
  app: RegistryApp;
  store: AnyStore;
  backend: BackendName;
  /** A temporary directory (the SQLite data directory; empty for PostgreSQL). */
  dir: string;
  /** The PostgreSQL URL of the store (its own schema), for the postgres backend. */
  url?: string;
  logs: LogEntry[];
  tokens: { acmePublish: string; acmeRead: string; otherPublish: string };
  /** `app.request` with a path and optional bearer token. */
  req(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  /**
   * PUT package bytes. A package that declares no visibility is published `public` (header
   * `X-Ctxpkg-Visibility: public`), as most tests read anonymously; pass the header (or
   * `{ 'x-ctxpkg-visibility': '' }` for none) to test the registry's own default, which is private.
   */
  put(path: string, bytes: Uint8Array | null, token?: string, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

/**
 * A registry with namespaces `acme` and `other`, tokens for both, over an empty store of
 * `backend` (a temp directory for SQLite, a fresh schema for PostgreSQL).
 */
export async function newTestRegistry(opts: Partial<AppOptions> = {}, backend: BackendName = 'sqlite'): Promise<TestRegistry> {
  const { store, dir, url, cleanup } = await openTestStore(backend);
  await createNamespace({ store }, 'acme');
  await createNamespace({ store }, 'other');
  const tokens = {
    acmePublish: (await createToken({ store }, { namespace: 'acme', scope: 'publish' })).token,
    acmeRead: (await createToken({ store }, { namespace: 'acme', scope: 'read' })).token,
    otherPublish: (await createToken({ store }, { namespace: 'other', scope: 'publish' })).token,
  };
  const logs: LogEntry[] = [];
  const app = createApp({ store, log: (e) => logs.push(e), ...opts });
  const req = (path: string, init: RequestInit & { token?: string } = {}) => {
    const { token, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    return Promise.resolve(app.request(`http://registry.test${path}`, { ...rest, headers }));
  };
  return {
    app, store, backend, dir, url, logs, tokens, req,
    put: async (path, bytes, token, headers = {}) => {
      const visibility = 'x-ctxpkg-visibility' in headers ? {} : await publicUnlessDeclared(bytes);
      return req(path, { method: 'PUT', body: bytes, token, headers: { 'content-type': 'application/octet-stream', ...visibility, ...headers } });
    },
    close: cleanup,
  };
}

/** Lowercase hex SHA-256. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(bytes).digest('hex');
}

const SNAPSHOT_TABLES: Array<[string, string]> = [
  ['namespaces', 'name'],
  ['signer_keys', 'namespace, public_key'],
  ['packages', 'id'],
  ['versions', 'package_id, version'],
  ['version_blobs', 'package_id, version, blob_sha256'],
  ['tlog_entries', 'idx'],
  ['tlog_checkpoints', 'size'],
];

/** Everything observable about storage: rows of the metadata tables and the stored blobs. */
export async function storageSnapshot(store: AnyStore): Promise<string> {
  let rows: string[];
  if (store instanceof SqliteStore) {
    rows = SNAPSHOT_TABLES.map(([t, order]) => JSON.stringify(store.db.prepare(`SELECT * FROM ${t} ORDER BY ${order}`).all()));
  } else if (store instanceof PgStore) {
    rows = [];
    for (const [t, order] of SNAPSHOT_TABLES) rows.push(JSON.stringify((await store.pool.query(`SELECT * FROM ${t} ORDER BY ${order}`)).rows));
  } else {
    throw new Error('unknown store');
  }
  const blobs = (await store.listBlobs()).map((b) => b.sha256);
  return JSON.stringify({ rows, blobs });
}

/** Run one SQL statement on either backend (`?` placeholders; PostgreSQL gets `$n`). For tests that tamper with rows. */
export async function rawSql(store: AnyStore, sql: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> {
  if (store instanceof SqliteStore) {
    const st = store.db.prepare(sql);
    return st.reader ? (st.all(...params) as Array<Record<string, unknown>>) : (st.run(...params), []);
  }
  let i = 0;
  return (await (store as PgStore).pool.query(sql.replace(/\?/g, () => `$${++i}`), params)).rows as Array<Record<string, unknown>>;
}
