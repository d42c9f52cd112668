/**
 * Resource limits of every registry request (issue 11 item 6): the client never trusts a
 * registry's use of time or memory.
 *
 * Timeouts (`Timeouts`, milliseconds), per request:
 * - `headersMs`: from sending the request until the response headers arrive (connect, TLS and
 *   the server's think time together; `fetch` exposes no separate connect phase);
 * - `idleMs`: the longest silence between two body chunks;
 * - `totalMs`: the whole exchange, headers and body (a one-byte trickle ends here).
 * Configured by `CTXPKG_HTTP_TIMEOUT` (seconds: headers and idle, default 30) and
 * `CTXPKG_HTTP_TOTAL_TIMEOUT` (seconds, default 300); a value that is not a positive finite
 * number is `E_USAGE` naming the variable. Expired: `E_NETWORK` naming the registry, the phase
 * and the variable to raise. The request is aborted (its `AbortSignal`), so nothing stays open.
 *
 * Sizes: a body is read only through `readBody`, which counts the *decoded* bytes while
 * streaming (`fetch` decodes gzip, deflate and br itself) and stops at the caller's cap
 * (`E_TOO_LARGE` naming what, the registry and the content encoding), so a compression bomb never
 * expands in memory past the cap.
 */
import { concatBytes } from '@ctxpkg/format/bytes';
import { CtxpkgError } from '@ctxpkg/format/errors';

export interface Timeouts {
  headersMs: number;
  idleMs: number;
  totalMs: number;
}

/** 30 s to headers and between chunks, 300 s per request. */
export const DEFAULT_TIMEOUTS: Timeouts = { headersMs: 30_000, idleMs: 30_000, totalMs: 300_000 };

function seconds(env: Record<string, string | undefined>, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined) return undefined;
  const v = raw.trim() === '' ? NaN : Number(raw);
  if (!Number.isFinite(v) || v <= 0) {
    throw new CtxpkgError('E_USAGE', `${name} must be a positive number of seconds, found ${JSON.stringify(raw)}`, { hint: `e.g. ${name}=60` });
  }
  return Math.round(v * 1000);
}

/** Timeouts from `CTXPKG_HTTP_TIMEOUT` / `CTXPKG_HTTP_TOTAL_TIMEOUT` (module docstring); `E_USAGE` for bad values. */
export function timeoutsFromEnv(env: Record<string, string | undefined>): Timeouts {
  const t = seconds(env, 'CTXPKG_HTTP_TIMEOUT');
  const total = seconds(env, 'CTXPKG_HTTP_TOTAL_TIMEOUT');
  return { headersMs: t ?? DEFAULT_TIMEOUTS.headersMs, idleMs: t ?? DEFAULT_TIMEOUTS.idleMs, totalMs: total ?? DEFAULT_TIMEOUTS.totalMs };
}

const s = (ms: number): string => `${Number((ms / 1000).toFixed(3))} s`;

/** The clock of one request: created before `fetch`, consulted by every later read. */
export class Deadline {
  readonly started = Date.now();
  readonly controller = new AbortController();
  constructor(
    readonly registry: string,
    readonly timeouts: Timeouts,
  ) {}

  private left(): number {
    return this.timeouts.totalMs - (Date.now() - this.started);
  }

  /** `p`, or `E_NETWORK` when `phaseMs` or the total runs out first (the request is aborted). */
  async race<T>(p: Promise<T>, phaseMs: number, phase: 'headers' | 'idle', what: string): Promise<T> {
    const total = this.left();
    const ms = Math.max(0, Math.min(phaseMs, total));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const byTotal = total <= phaseMs;
        reject(
          byTotal
            ? new CtxpkgError('E_NETWORK', `registry ${this.registry} did not finish ${what} within ${s(this.timeouts.totalMs)}`, {
                hint: 'raise CTXPKG_HTTP_TOTAL_TIMEOUT (seconds) for a slow registry, or check it',
                details: { registry: this.registry, timeout: 'total', ms: this.timeouts.totalMs },
              })
            : phase === 'headers'
              ? new CtxpkgError('E_NETWORK', `registry ${this.registry} did not answer within ${s(phaseMs)} (${what})`, {
                  hint: 'raise CTXPKG_HTTP_TIMEOUT (seconds) for a slow registry; check the registry URL and your network',
                  details: { registry: this.registry, timeout: 'headers', ms: phaseMs },
                })
              : new CtxpkgError('E_NETWORK', `registry ${this.registry} sent nothing for ${s(phaseMs)} while sending ${what}`, {
                  hint: 'raise CTXPKG_HTTP_TIMEOUT (seconds) for a slow registry, or retry',
                  details: { registry: this.registry, timeout: 'idle', ms: phaseMs },
                }),
        );
        // After the rejection: aborting makes `p` reject too, and the race must report the timeout.
        this.controller.abort();
      }, ms);
    });
    try {
      return await Promise.race([p, expired]);
    } finally {
      clearTimeout(timer);
    }
  }
}

const deadlines = new WeakMap<Response, Deadline>();

/** Bind a response to the deadline of its request (client.ts `request`). */
export function bindDeadline(res: Response, d: Deadline): void {
  deadlines.set(res, d);
}

/**
 * The decoded body of `res`, at most `cap` bytes (`E_TOO_LARGE` beyond: the read stops and the
 * request is aborted), under the idle and total timeouts of its request. `what` names the body in
 * errors (`the index of @acme/kb`). `onChunk(total)` reports progress.
 */
export async function readBody(res: Response, cap: number, what: string, onChunk?: (total: number) => void): Promise<Uint8Array> {
  const d = deadlines.get(res);
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const next = d ? await d.race(reader.read(), d.timeouts.idleMs, 'idle', what) : await reader.read();
      if (next.done) break;
      total += next.value.byteLength;
      if (total > cap) {
        const encoding = res.headers.get('content-encoding');
        throw new CtxpkgError('E_TOO_LARGE', `${what}${d ? ` from registry ${d.registry}` : ''} is more than ${cap} bytes${encoding ? ` once decoded (content-encoding ${encoding})` : ''}; refusing it`, {
          hint: 'a registry answer this large is a broken or hostile registry; nothing was installed',
          details: { limit: cap, ...(encoding ? { content_encoding: encoding } : {}) },
        });
      }
      chunks.push(next.value);
      onChunk?.(total);
    }
  } catch (err) {
    d?.controller.abort();
    await reader.cancel().catch(() => undefined);
    throw err;
  }
  return concatBytes(chunks, total);
}

/** `readBody` as UTF-8 text (invalid sequences replaced). */
export async function readText(res: Response, cap: number, what: string): Promise<string> {
  return new TextDecoder().decode(await readBody(res, cap, what));
}

/** Cancel an unread body (a redirect, an answer nobody reads) so the connection is released. */
export async function discardBody(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => undefined);
  deadlines.get(res)?.controller.abort();
}
