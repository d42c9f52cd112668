/**
 * Reading a request body under a hard byte cap (spec/registry.md "Publish gate"; ADVERSARIAL HB-19).
 *
 * The cap is enforced twice, and neither depends on the other:
 * 1. the `Content-Length` header, when present, must be a plain decimal number (`abc`, `-1`,
 *    `1e3`, `10, 10` are refused with 400) and at most the cap (else 413) — before any byte is read;
 * 2. the bytes actually streamed are counted; the read stops as soon as the count passes the cap
 *    (413) or passes the declared length (413: the body is larger than announced).
 * At most `cap` bytes are ever held: a chunk that would overflow is dropped, not appended.
 */
import { concatBytes, CtxpkgError } from '@ctxpkg/format';

const DECIMAL = /^[0-9]{1,16}$/;

function tooLarge(cap: number, what: string): CtxpkgError {
  return new CtxpkgError('E_TOO_LARGE', `${what}; this registry accepts packages of at most ${cap} bytes`, {
    details: { max_bytes: cap },
  });
}

/**
 * Parse a `Content-Length` header. Returns null when absent; throws `E_USAGE` (400) when malformed
 * and `E_TOO_LARGE` (413) when above `cap` (bytes).
 */
export function declaredLength(header: string | null | undefined, cap: number): number | null {
  if (header === null || header === undefined) return null;
  const t = header.trim();
  if (!DECIMAL.test(t)) {
    throw new CtxpkgError('E_USAGE', 'malformed Content-Length header (expected a decimal byte count)');
  }
  const n = Number(t);
  if (n > cap) throw tooLarge(cap, `the body declares ${n} bytes`);
  return n;
}

/**
 * Read `req`'s body into one buffer of at most `cap` bytes. Throws `E_USAGE` (malformed length),
 * `E_TOO_LARGE` (over cap, or longer than declared) or `E_STRUCTURE` (empty body or shorter than
 * declared). Cancels the stream when it stops early.
 */
export async function readBodyCapped(req: Request, cap: number): Promise<Uint8Array> {
  const declared = declaredLength(req.headers.get('content-length'), cap);
  if (req.body === null) throw new CtxpkgError('E_STRUCTURE', 'the request has no body; send the package bytes');
  const limit = declared ?? cap;
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.byteLength === 0) continue;
      if (total + value.byteLength > limit) {
        await reader.cancel().catch(() => undefined);
        throw declared !== null && declared < cap
          ? tooLarge(cap, `the body is longer than its Content-Length of ${declared} bytes`)
          : tooLarge(cap, 'the body is larger than the limit');
      }
      chunks.push(value);
      total += value.byteLength;
    }
  } finally {
    reader.releaseLock();
  }
  if (total === 0) throw new CtxpkgError('E_STRUCTURE', 'the request body is empty; send the package bytes');
  if (declared !== null && total !== declared) {
    throw new CtxpkgError('E_STRUCTURE', `the body has ${total} bytes but Content-Length says ${declared}`);
  }
  return concatBytes(chunks, total);
}
