/**
 * The transparency log's read API over the registry client (spec/transparency.md §4): log info,
 * the latest checkpoint, tiles (each fetched once per run), entry bundles and a namespace's
 * openings. Every answer is size-capped; nothing here is trusted — verify.ts checks it.
 */
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { RegistryClient } from '../client.js';
import { errorBody, responseError, tokenScopeOf } from '../client-errors.js';
import { tokenFor, type RegistrySettings } from '../config.js';
import { discardBody, readBody, readText } from '../http-limits.js';

const MAX_NOTE_BYTES = 64 * 1024;
const MAX_TILE_BYTES = 256 * 32;
const MAX_BUNDLE_BYTES = 256 * (2 + 65535);

/** `GET /v1/log`: what the registry says its log is. */
export interface LogInfo {
  origin: string;
  key: string;
  witnesses: string[];
  size: number;
}

export class LogFetcher {
  private readonly tiles = new Map<string, Promise<Uint8Array>>();
  /** Requests made (for the install report). */
  requests = 0;

  constructor(
    private readonly client: RegistryClient,
    private readonly settings: RegistrySettings,
  ) {}

  /** GET `path`; `scope` (`@acme`): a request about that namespace, sent with its token. */
  private async get(registry: string, path: string, scope?: string): Promise<Response> {
    this.requests++;
    return this.client.request(registry, path, {}, scope);
  }

  private async fail(registry: string, res: Response, what: string, scope?: string): Promise<never> {
    const token = tokenFor(registry, this.settings, scope);
    throw responseError(res.status, await errorBody(res), { registry, what, sentToken: Boolean(token), tokenScope: tokenScopeOf(token), write: false });
  }

  /** The log's description, or null when the registry serves no log (404). Throws `E_REGISTRY` for garbage. */
  async info(registry: string): Promise<LogInfo | null> {
    const res = await this.get(registry, '/v1/log');
    if (res.status === 404 || res.status === 405) {
      await discardBody(res);
      return null;
    }
    if (!res.ok) return this.fail(registry, res, 'read its transparency log');
    let j: Partial<LogInfo>;
    try {
      j = JSON.parse(await readText(res, MAX_NOTE_BYTES, 'the log description')) as Partial<LogInfo>;
    } catch {
      throw new CtxpkgError('E_REGISTRY', `registry ${registry} answered GET /v1/log with something that is not JSON`);
    }
    if (typeof j.origin !== 'string' || typeof j.key !== 'string' || typeof j.size !== 'number') {
      throw new CtxpkgError('E_REGISTRY', `registry ${registry} answered GET /v1/log without an origin, key and size`);
    }
    return { origin: j.origin, key: j.key, size: j.size, witnesses: Array.isArray(j.witnesses) ? j.witnesses.filter((w): w is string => typeof w === 'string') : [] };
  }

  /** The latest checkpoint note. */
  async checkpoint(registry: string): Promise<string> {
    const res = await this.get(registry, '/v1/log/checkpoint');
    if (!res.ok) return this.fail(registry, res, 'read its log checkpoint');
    return readText(res, MAX_NOTE_BYTES, 'the log checkpoint');
  }

  /** A tile or entry bundle at `path` (`tile/…`), fetched once per run and path. */
  tile(registry: string, path: string): Promise<Uint8Array> {
    const key = `${registry} ${path}`;
    let p = this.tiles.get(key);
    if (!p) {
      p = (async () => {
        const res = await this.get(registry, `/v1/log/${path}`);
        if (!res.ok) return this.fail(registry, res, `read log resource ${path}`);
        return readBody(res, path.startsWith('tile/entries/') ? MAX_BUNDLE_BYTES : MAX_TILE_BYTES, `log resource ${path}`);
      })();
      p.catch(() => this.tiles.delete(key));
      this.tiles.set(key, p);
    }
    return p;
  }

  /**
   * The openings of a namespace's commitments from index `from` (needs a token of the namespace:
   * sends the one saved for `@namespace`, else the registry-wide one).
   */
  async openings(registry: string, namespace: string, from: number): Promise<Array<{ index: number; entry: string; nonce: string }>> {
    const out: Array<{ index: number; entry: string; nonce: string }> = [];
    const scope = `@${namespace.replace(/^@/, '')}`;
    let next: number | null = from;
    while (next !== null) {
      const res = await this.get(registry, `/v1/log/openings/${scope.slice(1)}?from=${next}`, scope);
      if (!res.ok) return this.fail(registry, res, `read the log openings of ${namespace}`, scope);
      const j = JSON.parse(await readText(res, 8 * 1024 * 1024, 'log openings')) as { openings?: Array<{ index: number; entry: string; nonce: string }>; next?: number | null };
      for (const o of j.openings ?? []) if (typeof o.index === 'number' && typeof o.entry === 'string' && typeof o.nonce === 'string') out.push(o);
      next = typeof j.next === 'number' && j.next > next ? j.next : null;
    }
    return out;
  }
}
