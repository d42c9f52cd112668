/**
 * The registry HTTP client (FORMAT-FACTS §9 protocol, our registry's extensions from spec/registry.md):
 *   GET  {base}/v1/packages/{ns}/{name}/index.json
 *   GET  {base}/v1/packages/{ns}/{name}/{version}/download
 *   PUT  {base}/v1/packages/{ns}/{name}/{version}        (publish, expects 201)
 *   DELETE {base}/v1/packages/{ns}/{name}/{version}      (yank)
 *   POST {base}/v1/packages/{ns}/{name}/{version}/unyank
 *   GET  {base}/v1/search?q=
 *
 * Security rules we add over the reference (§12.6): a token is attached only when the request
 * goes to the registry it belongs to (`tokenFor`), redirects are followed by hand and lose the
 * token when they leave that registry, downloads are capped before they are buffered, and every
 * non-2xx answer becomes a `CtxpkgError` with a clear message.
 */
import { concatBytes, CtxpkgError, parsePackageName } from '@ctxpkg/format';
import { errorBody, isObject, networkCause, responseError, tokenScopeOf } from './client-errors.js';
import { tokenFor, type RegistrySettings } from './config.js';

export { networkCause } from './client-errors.js';

/** Largest package we download (bytes): the 10 MiB file limit of the format (FORMAT-FACTS §1.1). */
export const MAX_DOWNLOAD_BYTES = 10 * 1024 * 1024;

export interface IndexDependency {
  name: string;
  version_req: string;
  optional?: boolean;
}

/** One `versions[]` entry of a package index. */
export interface IndexEntry {
  version: string;
  artifact_sha256: string;
  yanked: boolean;
  size_bytes?: number;
  signer_public_key?: string;
  published_at?: string;
  /** Our registry lists each version's manifest dependencies; absent on other registries. */
  dependencies?: IndexDependency[];
}

export interface PackageIndex {
  name: string;
  registry: string;
  latest?: string;
  visibility?: string;
  versions: IndexEntry[];
}

/** Split `@ns/name` for URL building (`parsePackageName` rules; throws `E_INVALID_NAME`). */
export function splitName(name: string): { ns: string; name: string } {
  const p = parsePackageName(name);
  return { ns: p.namespace, name: p.name };
}

export interface ClientOptions {
  fetch: typeof fetch;
  settings: RegistrySettings;
}

export interface TransferOptions {
  onProgress?: (done: number, total: number) => void;
  /**
   * `download`: where the expected hash came from, for the mismatch message (default
   * `'the registry index'`; the install pipeline passes `'ctxpkg.lock'` when installing the lock).
   */
  expectedFrom?: string;
}

/** A registry version document (`GET …/{version}`, spec/registry.md §4), the fields the CLI shows. */
export interface VersionDoc {
  version: string;
  artifact_sha256?: string;
  size_bytes?: number;
  signer_public_key?: string;
  yanked?: boolean;
  yanked_at?: string | null;
  published_at?: string;
  visibility?: string;
  trust_report?: {
    checked?: Array<{ check?: string; result?: string; detail?: string }>;
    not_checked?: Array<{ check?: string; reason?: string }>;
  };
}

/** A client bound to injected fetch and registry settings. */
export class RegistryClient {
  constructor(private readonly opts: ClientOptions) {}

  /** Low-level request: token only for `registry`, manual redirects (max 5), network errors mapped. */
  async request(registry: string, path: string, init: RequestInit = {}): Promise<Response> {
    const token = tokenFor(registry, this.opts.settings);
    let url = registry + path;
    for (let hop = 0; hop < 6; hop++) {
      const headers = new Headers(init.headers);
      const sameRegistry = url === registry || url.startsWith(registry + '/');
      if (token && sameRegistry) headers.set('authorization', `Bearer ${token}`);
      else headers.delete('authorization');
      let res: Response;
      try {
        res = await this.opts.fetch(url, { ...init, headers, redirect: 'manual' });
      } catch (err) {
        const cause = networkCause(err);
        throw new CtxpkgError('E_NETWORK', `registry ${registry} is unreachable: ${(err as Error).message}${cause ? ` (${cause})` : ''}`, {
          hint: cause === 'ECONNREFUSED' ? 'nothing listens at that address: is the registry running, and is the port right?' : cause === 'ENOTFOUND' ? 'the host name does not resolve: check the registry URL' : 'check the registry URL and your network',
          ...(cause ? { details: { cause } } : {}),
        });
      }
      if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
        if (init.method && init.method !== 'GET') {
          throw new CtxpkgError('E_REGISTRY', `registry ${registry} redirected a ${init.method} request; refusing to follow`);
        }
        url = new URL(res.headers.get('location') as string, url).toString();
        continue;
      }
      return res;
    }
    throw new CtxpkgError('E_REGISTRY', `registry ${registry} redirected too many times`);
  }

  /** Turn a non-2xx answer into a `CtxpkgError` (client-errors.ts). */
  private async fail(res: Response, registry: string, what: string, name?: string): Promise<never> {
    const token = tokenFor(registry, this.opts.settings);
    const write = /^(publish|yank|unyank) /.test(what);
    throw responseError(res.status, await errorBody(res), { registry, what, name, sentToken: Boolean(token), tokenScope: tokenScopeOf(token), write });
  }

  /** Fetch and validate a package index. Throws `E_NOT_FOUND` naming the registry, `E_REGISTRY`. */
  async index(registry: string, name: string): Promise<PackageIndex> {
    const p = splitName(name);
    const res = await this.request(registry, `/v1/packages/${p.ns}/${p.name}/index.json`);
    if (!res.ok) return this.fail(res, registry, `read ${name}`, name);
    let j: { versions?: unknown; latest?: unknown; visibility?: unknown };
    try {
      j = (await res.json()) as typeof j;
    } catch {
      throw new CtxpkgError('E_REGISTRY', `registry ${registry} returned a non-JSON index for ${name}`);
    }
    if (!Array.isArray(j.versions)) {
      throw new CtxpkgError('E_REGISTRY', `registry ${registry} returned an index without a versions array for ${name}`);
    }
    const versions: IndexEntry[] = [];
    for (const v of j.versions as Array<Record<string, unknown>>) {
      if (!v || typeof v.version !== 'string' || typeof v.artifact_sha256 !== 'string') continue;
      const e: IndexEntry = { version: v.version, artifact_sha256: v.artifact_sha256, yanked: v.yanked === true };
      if (typeof v.size_bytes === 'number') e.size_bytes = v.size_bytes;
      if (typeof v.signer_public_key === 'string') e.signer_public_key = v.signer_public_key;
      if (typeof v.published_at === 'string') e.published_at = v.published_at;
      if (Array.isArray(v.dependencies)) {
        e.dependencies = (v.dependencies as Array<Record<string, unknown>>)
          .filter((d) => d && typeof d.name === 'string' && typeof d.version_req === 'string')
          .map((d) => ({ name: d.name as string, version_req: d.version_req as string, optional: d.optional === true }));
      }
      versions.push(e);
    }
    return {
      name,
      registry,
      versions,
      latest: typeof j.latest === 'string' ? j.latest : undefined,
      visibility: typeof j.visibility === 'string' ? j.visibility : undefined,
    };
  }

  /**
   * Download a version's artifact, capped at `MAX_DOWNLOAD_BYTES` while streaming (`E_TOO_LARGE`).
   * When `expectedSha` is given, an `x-ctxpkg-sha256` header that disagrees is `E_ARTIFACT_CHECKSUM`
   * (ADVERSARIAL HB-27b; details `{ package, expected, expected_from, header }`, the message naming
   * `t.expectedFrom` as the source of the expected value); the caller still hashes the bytes.
   */
  async download(registry: string, name: string, version: string, expectedSha?: string, t: TransferOptions = {}): Promise<Uint8Array> {
    const p = splitName(name);
    const res = await this.request(registry, `/v1/packages/${p.ns}/${p.name}/${encodeURIComponent(version)}/download`);
    if (!res.ok) return this.fail(res, registry, `download ${name}@${version}`, `${name}@${version}`);
    const header = res.headers.get('x-ctxpkg-sha256');
    if (expectedSha && header && header !== expectedSha) {
      const from = t.expectedFrom ?? 'the registry index';
      await res.body?.cancel().catch(() => undefined);
      throw new CtxpkgError('E_ARTIFACT_CHECKSUM', `${name}@${version}: the registry's x-ctxpkg-sha256 response header says ${header}, but ${from} records ${expectedSha}; refusing the download`, {
        details: { package: `${name}@${version}`, expected: expectedSha, expected_from: from, found: header, header },
        hint: 'the registry (or something between you and it) is serving other bytes than the ones recorded; nothing was installed. Retry, and report it to the registry operator if it persists',
      });
    }
    const declared = Number(res.headers.get('content-length') ?? '0');
    if (declared > MAX_DOWNLOAD_BYTES) {
      throw new CtxpkgError('E_TOO_LARGE', `${name}@${version} is ${declared} bytes; the limit is ${MAX_DOWNLOAD_BYTES}`);
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    if (res.body) {
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        if (total > MAX_DOWNLOAD_BYTES) {
          await reader.cancel();
          throw new CtxpkgError('E_TOO_LARGE', `${name}@${version} exceeds ${MAX_DOWNLOAD_BYTES} bytes; download stopped`);
        }
        chunks.push(value);
        t.onProgress?.(total, declared);
      }
    }
    return concatBytes(chunks, total);
  }

  /** Publish bytes; returns the registry's JSON answer (201). Maps 401/403/404/409/413 clearly. */
  async publish(registry: string, name: string, version: string, bytes: Uint8Array, t: TransferOptions = {}): Promise<Record<string, unknown>> {
    const p = splitName(name);
    const headers: Record<string, string> = { 'content-type': 'application/octet-stream' };
    let body: RequestInit['body'] = bytes;
    const init: RequestInit & { duplex?: 'half' } = { method: 'PUT', headers };
    if (t.onProgress) {
      const chunk = 64 * 1024;
      let off = 0;
      body = new ReadableStream<Uint8Array>({
        pull(ctrl) {
          if (off >= bytes.length) {
            ctrl.close();
            return;
          }
          const end = Math.min(bytes.length, off + chunk);
          ctrl.enqueue(bytes.subarray(off, end));
          off = end;
          t.onProgress?.(off, bytes.length);
        },
      });
      init.duplex = 'half';
    }
    init.body = body;
    const res = await this.request(registry, `/v1/packages/${p.ns}/${p.name}/${encodeURIComponent(version)}`, init);
    if (res.status !== 201) return this.fail(res, registry, `publish ${name}@${version}`, name);
    try {
      return (await res.json()) as Record<string, unknown>;
    } catch {
      return {};
    }
  }

  /** Yank (`yanked = true`) or un-yank a version. */
  async setYanked(registry: string, name: string, version: string, yanked: boolean): Promise<void> {
    const p = splitName(name);
    const base = `/v1/packages/${p.ns}/${p.name}/${encodeURIComponent(version)}`;
    const res = yanked
      ? await this.request(registry, base, { method: 'DELETE' })
      : await this.request(registry, `${base}/unyank`, { method: 'POST' });
    if (!res.ok) return this.fail(res, registry, `${yanked ? 'yank' : 'unyank'} ${name}@${version}`, `${name}@${version}`);
  }

  /**
   * One version's registry document with its trust report (`GET …/{version}`), or undefined when
   * the registry has no such route (other registries answer 404/405 to it). Throws like `index`.
   */
  async version(registry: string, name: string, version: string): Promise<VersionDoc | undefined> {
    const p = splitName(name);
    const res = await this.request(registry, `/v1/packages/${p.ns}/${p.name}/${encodeURIComponent(version)}`);
    if (res.status === 404 || res.status === 405) return undefined;
    if (!res.ok) return this.fail(res, registry, `read ${name}@${version}`, `${name}@${version}`);
    const j = (await res.json().catch(() => undefined)) as unknown;
    if (!isObject(j) || typeof j.version !== 'string') return undefined;
    return j as unknown as VersionDoc;
  }

  /**
   * Check that `registry` is a ctxpkg registry that accepts the token this client would send,
   * with one cheap authenticated request (`GET /v1/index.json?limit=1`, spec/registry.md). Returns
   * `{ ok: true }` when the answer is the registry catalog, or `{ ok: false, answer }` describing
   * what answered instead (`HTTP 404`, `HTTP 200 (text/html), not the registry catalog`, …): the
   * URL is then not a registry's API base. Throws `E_AUTH`/`E_FORBIDDEN` for a refused token,
   * `E_NETWORK` when unreachable.
   */
  async checkToken(registry: string): Promise<{ ok: true } | { ok: false; answer: string }> {
    const res = await this.request(registry, '/v1/index.json?limit=1');
    if (res.status === 401 || res.status === 403) return this.fail(res, registry, 'accept the token');
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    if (!res.ok) {
      await res.body?.cancel();
      return { ok: false, answer: `HTTP ${res.status}${type ? ` (${type})` : ''}` };
    }
    const body = (await res.json().catch(() => undefined)) as unknown;
    if (isObject(body) && body.schema === 'ctxpkg-registry-catalog-v1') return { ok: true };
    return { ok: false, answer: `HTTP ${res.status}${type ? ` (${type})` : ''}, not the registry catalog` };
  }

  /** Search a registry; returns its result objects. */
  async search(registry: string, query: string): Promise<Array<Record<string, unknown>>> {
    const res = await this.request(registry, `/v1/search?q=${encodeURIComponent(query)}`);
    if (!res.ok) return this.fail(res, registry, 'search');
    const j = (await res.json().catch(() => ({}))) as { results?: unknown; packages?: unknown };
    const list = Array.isArray(j.results) ? j.results : Array.isArray(j.packages) ? j.packages : [];
    return list.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null);
  }
}
