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
 * goes to the registry it belongs to (`tokenFor`); a request about one package carries the token
 * of that package's scope on the registry, else the registry-wide one (config.ts `savedTokenEntry`), redirects are followed by hand and lose the
 * token when they leave that registry, and every non-2xx answer becomes a `CtxpkgError` with a
 * clear message. Every request runs under the headers/idle/total timeouts of http-limits.ts
 * (`CTXPKG_HTTP_TIMEOUT`, `CTXPKG_HTTP_TOTAL_TIMEOUT`) and every body is read through its capped
 * reader, which counts decoded bytes while streaming: an index stops at `MAX_INDEX_BYTES`, an
 * artifact at `MAX_DOWNLOAD_BYTES`, any other answer at `MAX_ANSWER_BYTES`, an error body at
 * `MAX_ERROR_BODY_BYTES` (issue 11 item 6).
 */
import { CtxpkgError } from '@ctxpkg/format/errors';
import { parsePackageName } from '@ctxpkg/format/names';
import { errorBody, isObject, isTlsTrustCode, networkCause, responseError, tokenScopeOf } from './client-errors.js';
import { scopeOfName, tokenFor, unsentEnvToken, type RegistrySettings } from './config.js';
import { bindDeadline, Deadline, discardBody, readBody, readText, timeoutsFromEnv, type Timeouts } from './http-limits.js';

export { networkCause } from './client-errors.js';

/** Largest package we download (bytes, decoded): the 10 MiB file limit of the format (FORMAT-FACTS §1.1). */
export const MAX_DOWNLOAD_BYTES = 10 * 1024 * 1024;
/** Largest package index we read (bytes, decoded): ~25,000 versions of our registry's index. */
export const MAX_INDEX_BYTES = 8 * 1024 * 1024;
/** Largest other JSON answer (version document, search, catalog page, publish answer), decoded. */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

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
  /** The version's place in the registry's transparency log, unchecked (tlog/verify.ts checks it). */
  log?: unknown;
}

export interface PackageIndex {
  name: string;
  registry: string;
  latest?: string;
  visibility?: string;
  versions: IndexEntry[];
  /** The index's transparency-log member (checkpoint, keys), unchecked; absent on registries without a log. */
  log?: unknown;
}

/** Split `@ns/name` for URL building (`parsePackageName` rules; throws `E_INVALID_NAME`). */
export function splitName(name: string): { ns: string; name: string } {
  const p = parsePackageName(name);
  return { ns: p.namespace, name: p.name };
}

export interface ClientOptions {
  fetch: typeof fetch;
  settings: RegistrySettings;
  /** Request timeouts; default: from `settings.env` (`timeoutsFromEnv`, `E_USAGE` for bad values). */
  timeouts?: Timeouts;
}

export interface TransferOptions {
  onProgress?: (done: number, total: number) => void;
  /**
   * `download`: where the expected hash came from, for the mismatch message (default
   * `'the registry index'`; the install pipeline passes `'ctxpkg.lock'` when installing the lock).
   */
  expectedFrom?: string;
  /** `download`: called with the registry's `x-ctxpkg-yanked` answer (`true`/`false`) when it sends one. */
  onYanked?: (yanked: boolean) => void;
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
  private readonly timeouts: Timeouts;

  constructor(private readonly opts: ClientOptions) {
    this.timeouts = opts.timeouts ?? timeoutsFromEnv(opts.settings.env ?? {});
  }

  /**
   * Low-level request: token only for `registry`, manual redirects (max 5), network errors mapped,
   * under one deadline (http-limits.ts) whose idle and total timeouts also bound reading the body:
   * read it with `readBody`/`readText` (`E_NETWORK` on a timeout, the request aborted). `scope`
   * (`@acme`): the request is about a package (or namespace) of that scope, and carries the token
   * saved for it (`tokenFor`); without it, the registry-wide token.
   */
  async request(registry: string, path: string, init: RequestInit = {}, scope?: string): Promise<Response> {
    const token = tokenFor(registry, this.opts.settings, scope);
    const deadline = new Deadline(registry, this.timeouts);
    let url = registry + path;
    for (let hop = 0; hop < 6; hop++) {
      const headers = new Headers(init.headers);
      const sameRegistry = url === registry || url.startsWith(registry + '/');
      if (token && sameRegistry) headers.set('authorization', `Bearer ${token}`);
      else headers.delete('authorization');
      let res: Response;
      try {
        res = await deadline.race(this.opts.fetch(url, { ...init, headers, redirect: 'manual', signal: deadline.controller.signal }), this.timeouts.headersMs, 'headers', `${init.method ?? 'GET'} ${path}`);
      } catch (err) {
        if (err instanceof CtxpkgError) throw err;
        const cause = networkCause(err);
        const what = isTlsTrustCode(cause) ? 'answered with a TLS certificate this machine does not accept' : 'is unreachable';
        throw new CtxpkgError('E_NETWORK', `registry ${registry} ${what}: ${(err as Error).message}${cause ? ` (${cause})` : ''}`, {
          hint:
            cause === 'ECONNREFUSED'
              ? 'nothing listens at that address: is the registry running, and is the port right?'
              : cause === 'ENOTFOUND'
                ? 'the host name does not resolve: check the registry URL'
                : isTlsTrustCode(cause)
                  ? cause === 'ERR_TLS_CERT_ALTNAME_INVALID' || cause === 'CERT_HAS_EXPIRED' || cause === 'CERT_NOT_YET_VALID'
                    ? 'the registry\'s TLS certificate is not valid for this URL now: use the host name the certificate names, or ask the operator to renew it'
                    : 'this machine does not trust the registry\'s TLS certificate (self-signed or from a private CA): give Node the CA certificate with NODE_EXTRA_CA_CERTS=/path/to/ca.pem — never turn verification off'
                  : 'check the registry URL and your network',
          ...(cause ? { details: { cause } } : {}),
        });
      }
      bindDeadline(res, deadline);
      if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
        await res.body?.cancel().catch(() => undefined);
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

  /**
   * Turn a non-2xx answer into a `CtxpkgError` (client-errors.ts). `write`: the request needs a
   * publish token (publish, yank, unyank), which decides the advice for a refused token.
   */
  private async fail(res: Response, registry: string, what: string, opts: { name?: string; write?: boolean } = {}): Promise<never> {
    const token = tokenFor(registry, this.opts.settings, opts.name === undefined ? undefined : scopeOfName(opts.name));
    const unsent = token ? undefined : unsentEnvToken(registry, this.opts.settings);
    throw responseError(res.status, await errorBody(res), { registry, what, name: opts.name, sentToken: Boolean(token), tokenScope: tokenScopeOf(token), write: opts.write === true, ...(unsent ? { unsentEnvToken: unsent } : {}) });
  }

  /** The JSON of a 2xx answer read under `cap` (`E_TOO_LARGE`), or undefined when it is not JSON. */
  private async json(res: Response, cap: number, what: string): Promise<unknown> {
    const text = await readText(res, cap, what);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  }

  /** Fetch and validate a package index. Throws `E_NOT_FOUND` naming the registry, `E_REGISTRY`. */
  async index(registry: string, name: string): Promise<PackageIndex> {
    const p = splitName(name);
    const res = await this.request(registry, `/v1/packages/${p.ns}/${p.name}/index.json`, {}, `@${p.ns}`);
    if (!res.ok) return this.fail(res, registry, `read ${name}`, { name });
    const j = (await this.json(res, MAX_INDEX_BYTES, `the index of ${name}`)) as { versions?: unknown; latest?: unknown; visibility?: unknown } | undefined;
    if (!isObject(j)) {
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
      if (v.log !== undefined) e.log = v.log;
      versions.push(e);
    }
    return {
      name,
      registry,
      versions,
      latest: typeof j.latest === 'string' ? j.latest : undefined,
      visibility: typeof j.visibility === 'string' ? j.visibility : undefined,
      ...((j as { log?: unknown }).log !== undefined ? { log: (j as { log?: unknown }).log } : {}),
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
    const res = await this.request(registry, `/v1/packages/${p.ns}/${p.name}/${encodeURIComponent(version)}/download`, {}, `@${p.ns}`);
    if (!res.ok) return this.fail(res, registry, `download ${name}@${version}`, { name: `${name}@${version}` });
    const yankedHeader = res.headers.get('x-ctxpkg-yanked');
    if (yankedHeader === 'true' || yankedHeader === 'false') t.onYanked?.(yankedHeader === 'true');
    const header = res.headers.get('x-ctxpkg-sha256');
    if (expectedSha && header && header !== expectedSha) {
      const from = t.expectedFrom ?? 'the registry index';
      await discardBody(res);
      throw new CtxpkgError('E_ARTIFACT_CHECKSUM', `${name}@${version}: the registry's x-ctxpkg-sha256 response header says ${header}, but ${from} records ${expectedSha}; refusing the download`, {
        details: { package: `${name}@${version}`, expected: expectedSha, expected_from: from, found: header, header },
        hint: 'the registry (or something between you and it) is serving other bytes than the ones recorded; nothing was installed. Retry, and report it to the registry operator if it persists',
      });
    }
    const declared = Number(res.headers.get('content-length') ?? '0');
    if (declared > MAX_DOWNLOAD_BYTES) {
      await discardBody(res);
      throw new CtxpkgError('E_TOO_LARGE', `${name}@${version} is ${declared} bytes; the limit is ${MAX_DOWNLOAD_BYTES}`);
    }
    return readBody(res, MAX_DOWNLOAD_BYTES, `${name}@${version}`, (total) => t.onProgress?.(total, declared));
  }

  /**
   * Refuse a write (publish, yank, un-yank) before any byte is sent when the token for `registry`
   * is a read token (`ctxr_`): it can never write (the reference client refuses it the same way,
   * FORMAT-FACTS §9). Throws `E_FORBIDDEN` (exit 3) naming the fix.
   */
  private refuseReadToken(registry: string, what: string, name: string): void {
    if (tokenScopeOf(tokenFor(registry, this.opts.settings, scopeOfName(name))) !== 'read') return;
    const ns = /^@([a-z0-9-]+)\//.exec(name)?.[1] ?? '<ns>';
    throw new CtxpkgError('E_FORBIDDEN', `cannot ${what}: the token for ${registry} is a read token (ctxr_), which can install but never publish, yank or un-yank; nothing was sent`, {
      hint: `ask an owner of ${ns} for a publish token (\`ctxpkg registry token create --namespace ${ns} --scope publish --registry ${registry}\`) and save it with \`ctxpkg login --registry ${registry} --scope @${ns}\` (or CTXPKG_TOKEN)`,
    });
  }

  /**
   * Publish bytes; returns the registry's JSON answer (201). `visibility` is sent as
   * `X-Ctxpkg-Visibility` (`--public`/`--private`); without it the registry keeps an existing
   * package's visibility and makes a new one private. Maps 401/403/404/409/413 clearly.
   */
  async publish(registry: string, name: string, version: string, bytes: Uint8Array, t: TransferOptions & { visibility?: 'public' | 'private' } = {}): Promise<Record<string, unknown>> {
    this.refuseReadToken(registry, `publish ${name}@${version}`, name);
    const p = splitName(name);
    const headers: Record<string, string> = { 'content-type': 'application/octet-stream' };
    if (t.visibility) headers['x-ctxpkg-visibility'] = t.visibility;
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
    const res = await this.request(registry, `/v1/packages/${p.ns}/${p.name}/${encodeURIComponent(version)}`, init, `@${p.ns}`);
    if (res.status !== 201) return this.fail(res, registry, `publish ${name}@${version}`, { name, write: true });
    const j = await this.json(res, MAX_ANSWER_BYTES, `the answer to publishing ${name}@${version}`);
    return isObject(j) ? j : {};
  }

  /** Yank (`yanked = true`) or un-yank a version. */
  async setYanked(registry: string, name: string, version: string, yanked: boolean): Promise<void> {
    this.refuseReadToken(registry, `${yanked ? 'yank' : 'unyank'} ${name}@${version}`, name);
    const p = splitName(name);
    const base = `/v1/packages/${p.ns}/${p.name}/${encodeURIComponent(version)}`;
    const res = yanked
      ? await this.request(registry, base, { method: 'DELETE' }, `@${p.ns}`)
      : await this.request(registry, `${base}/unyank`, { method: 'POST' }, `@${p.ns}`);
    if (!res.ok) return this.fail(res, registry, `${yanked ? 'yank' : 'unyank'} ${name}@${version}`, { name: `${name}@${version}`, write: true });
    await discardBody(res);
  }

  /**
   * One version's registry document with its trust report (`GET …/{version}`), or undefined when
   * the registry has no such route (other registries answer 404/405 to it). Throws like `index`.
   */
  async version(registry: string, name: string, version: string): Promise<VersionDoc | undefined> {
    const p = splitName(name);
    const res = await this.request(registry, `/v1/packages/${p.ns}/${p.name}/${encodeURIComponent(version)}`, {}, `@${p.ns}`);
    if (res.status === 404 || res.status === 405) {
      await discardBody(res);
      return undefined;
    }
    if (!res.ok) return this.fail(res, registry, `read ${name}@${version}`, { name: `${name}@${version}` });
    const j = await this.json(res, MAX_ANSWER_BYTES, `the document of ${name}@${version}`);
    if (!isObject(j) || typeof j.version !== 'string') return undefined;
    return j as unknown as VersionDoc;
  }

  /**
   * The namespace and scope of the token this client sends to `registry` (`GET /v1/whoami`,
   * spec/registry.md §9), or undefined when the registry has no such route (an older registry
   * answers 404/405) or answers something else. Throws `E_AUTH` for a refused or missing token,
   * `E_NETWORK` when unreachable.
   */
  async whoami(registry: string): Promise<{ namespace: string; scope: string } | undefined> {
    const res = await this.request(registry, '/v1/whoami');
    if (res.status === 401 || res.status === 403) return this.fail(res, registry, 'name the token');
    if (!res.ok) {
      await discardBody(res);
      return undefined;
    }
    const j = await this.json(res, MAX_ANSWER_BYTES, 'the token description');
    if (!isObject(j) || typeof j.namespace !== 'string' || typeof j.scope !== 'string') return undefined;
    return { namespace: j.namespace, scope: j.scope };
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
      await discardBody(res);
      return { ok: false, answer: `HTTP ${res.status}${type ? ` (${type})` : ''}` };
    }
    const body = await this.json(res, MAX_ANSWER_BYTES, 'the registry catalog');
    if (isObject(body) && body.schema === 'ctxpkg-registry-catalog-v1') return { ok: true };
    return { ok: false, answer: `HTTP ${res.status}${type ? ` (${type})` : ''}, not the registry catalog` };
  }

  /**
   * A catalog page (`GET /v1/index.json?after=&limit=`) as JSON, or undefined on any non-2xx
   * answer. `scope`: the page is read for that scope's packages and sends its token (which lists
   * its private ones). Throws like `request`.
   */
  async catalogPage(registry: string, after: string, limit: number, scope?: string): Promise<unknown> {
    const res = await this.request(registry, `/v1/index.json?after=${encodeURIComponent(after)}&limit=${limit}`, {}, scope);
    if (!res.ok) {
      await discardBody(res);
      return undefined;
    }
    return this.json(res, MAX_ANSWER_BYTES, 'a registry catalog page');
  }

  /**
   * Search a registry; returns its result objects. `scope` (`@acme`): send the token of that
   * scope (`tokenFor`), so the answer also holds the scope's private packages; without it, the
   * token of requests about no package.
   */
  async search(registry: string, query: string, scope?: string): Promise<Array<Record<string, unknown>>> {
    const res = await this.request(registry, `/v1/search?q=${encodeURIComponent(query)}`, {}, scope);
    if (!res.ok) return this.fail(res, registry, 'search');
    const j = ((await this.json(res, MAX_ANSWER_BYTES, 'search results')) ?? {}) as { results?: unknown; packages?: unknown };
    const list = Array.isArray(j.results) ? j.results : Array.isArray(j.packages) ? j.packages : [];
    return list.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null);
  }
}
