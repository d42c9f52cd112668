/**
 * The transparency log's read API (spec/transparency.md §4; c2sp.org/tlog-tiles):
 *   GET /v1/log                          → `{ schema, origin, key, witnesses, size }`
 *   GET /v1/log/checkpoint               → the latest checkpoint (re-dated when older than 5 minutes)
 *   GET /v1/log/tile/<L>/<N>[.p/<W>]     → hash tile (immutable)
 *   GET /v1/log/tile/entries/<N>[.p/<W>] → entry bundle (immutable)
 *   GET /v1/log/openings/<ns>[?from=N]   → the namespace's commitment openings (token of <ns>)
 * No private name is in any anonymous answer: private packages' entries are commitments (§9).
 */
import type { Hono } from 'hono';
import {
  CtxpkgError,
  TILE_WIDTH,
  concatBytes,
  encodeEntryBundle,
  logVerifierKey,
  parseTilePath,
  signCheckpoint,
  tileWidthAt,
  unverifiedCosignatureTime,
  hexToBytes,
} from '@ctxpkg/format';
import { principalOf, type Ctx, type Env, type RegistryDeps } from '../context.js';
import { jsonResponse } from '../http.js';
import { requireNamespaceReader } from '../tlog/access.js';

/** Re-date the served checkpoint when its timestamp is older than this (seconds). */
export const REDATE_SECONDS = 300;
const IMMUTABLE = 'public, max-age=31536000, immutable';

function notFound(what: string): CtxpkgError {
  return new CtxpkgError('E_NOT_FOUND', what, { details: { public: true } });
}

function binary(bytes: Uint8Array): Response {
  return new Response(bytes, {
    status: 200,
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(bytes.byteLength), 'cache-control': IMMUTABLE },
  });
}

/** The latest checkpoint as served: re-dated if stale, with the stored witness cosignatures. */
export async function servedCheckpoint(deps: RegistryDeps): Promise<string> {
  const log = deps.store.log;
  let cp = await log.checkpoint();
  if (!cp) throw new CtxpkgError('E_INTERNAL', 'the transparency log has no checkpoint');
  const { origin, seed } = await log.signer();
  const now = Math.floor(deps.clock().getTime() / 1000);
  let note = cp.note;
  const t = unverifiedCosignatureTime(note, origin);
  if (t === undefined || now - t > REDATE_SECONDS) {
    note = signCheckpoint({ origin, size: cp.size, rootHash: cp.root, extensions: [] }, seed, now);
    await log.redate(cp.size, note);
  }
  let lines = await log.cosignatures(cp.size);
  if (deps.witnesses.enabled && lines.length < deps.witnesses.vkeys.length) {
    await deps.witnesses.sync();
    cp = (await log.checkpoint(cp.size)) ?? cp;
    lines = await log.cosignatures(cp.size);
  }
  return note + lines.map((l) => l + '\n').join('');
}

async function tileRoute(c: Ctx, deps: RegistryDeps, rest: string): Promise<Response> {
  c.env.route = 'log-tile';
  const t = parseTilePath(rest);
  if (!t) throw notFound(`no such log resource ${rest}`);
  const { size } = await deps.store.log.info();
  if (t.kind === 'entries') {
    const available = Math.min(TILE_WIDTH, size - t.index * TILE_WIDTH);
    if (t.width > available) throw notFound(`entry bundle ${rest} is beyond the log (size ${size})`);
    const entries = await deps.store.log.entries(t.index * TILE_WIDTH, t.width);
    return binary(encodeEntryBundle(entries.map((e) => e.entry)));
  }
  if (t.width > tileWidthAt(t.level, t.index, size)) throw notFound(`tile ${rest} is beyond the log (size ${size})`);
  const hashes = await deps.store.log.hashRange(t.level * 8, t.index * TILE_WIDTH, t.width);
  if (hashes.length !== t.width) throw new Error(`the log is missing hashes of tile ${rest}`);
  return binary(concatBytes(hashes));
}

async function openingsRoute(c: Ctx, deps: RegistryDeps, ns: string): Promise<Response> {
  c.env.route = 'log-openings';
  requireNamespaceReader(await principalOf(c, deps), ns);
  const fromText = c.req.query('from') ?? '0';
  if (!/^(0|[1-9][0-9]{0,15})$/.test(fromText)) throw new CtxpkgError('E_USAGE', 'from must be a log index');
  const list = await deps.store.log.commitments(ns, Number(fromText), 1000);
  return jsonResponse(
    200,
    {
      schema: 'ctxpkg-registry-log-openings-v1',
      namespace: `@${ns}`,
      openings: list.map((e) => ({ index: e.index, entry: e.opening!.entry, nonce: e.opening!.nonce })),
      next: list.length === 1000 ? list[list.length - 1]!.index + 1 : null,
    },
    'private, no-store',
  );
}

export function registerLogRoutes(api: Hono<Env>, deps: RegistryDeps): void {
  api.get('/v1/log/*', async (c) => {
    const path = c.req.path;
    const rest = path.slice(path.indexOf('/v1/log') + '/v1/log'.length).replace(/^\//, '');
    if (rest === '') return infoRoute(c, deps);
    if (rest === 'checkpoint') {
      c.env.route = 'log-checkpoint';
      return new Response(await servedCheckpoint(deps), {
        status: 200,
        headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
      });
    }
    if (rest.startsWith('tile/')) return tileRoute(c, deps, rest);
    const m = /^openings\/([a-z0-9-]{1,32})$/.exec(rest);
    if (m) return openingsRoute(c, deps, m[1]!);
    c.env.route = 'log';
    throw notFound(`no such log resource ${rest}`);
  });
}

async function infoRoute(c: Ctx, deps: RegistryDeps): Promise<Response> {
  c.env.route = 'log';
  const info = await deps.store.log.info();
  return jsonResponse(
    200,
    {
      schema: 'ctxpkg-registry-log-v1',
      origin: info.origin,
      key: logVerifierKey(info.origin, hexToBytes(info.public_key)),
      witnesses: deps.witnesses.vkeys,
      size: info.size,
    },
    'no-store',
  );
}
