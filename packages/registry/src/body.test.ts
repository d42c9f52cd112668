import { describe, expect, it } from 'vitest';
import { declaredLength, readBodyCapped } from './body.js';

const CAP = 1000;

/** A body that produces `total` bytes in 64 KiB-or-smaller chunks on demand and records how much was pulled. */
function pullStream(total: number, chunk = 100): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(ctrl) {
      if (sent >= total) return ctrl.close();
      const n = Math.min(chunk, total - sent);
      sent += n;
      ctrl.enqueue(new Uint8Array(n).fill(0x20));
    },
  });
  return { stream, pulled: () => sent };
}

function req(body: RequestInit['body'], headers: Record<string, string> = {}): Request {
  return new Request('http://x/upload', { method: 'PUT', body, headers, duplex: 'half' } as RequestInit);
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return (e as { code: string }).code;
  }
}

describe('declaredLength', () => {
  it('accepts a plain decimal under the cap', () => {
    expect(declaredLength('10', CAP)).toBe(10);
    expect(declaredLength(null, CAP)).toBeNull();
  });

  it.each(['abc', '-1', '1e3', '10, 10', '0x10', '', ' ', '1.5', '99999999999999999999'])('refuses %j as malformed (400)', (h) => {
    expect(() => declaredLength(h, CAP)).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });

  it('refuses a declared length above the cap before reading (413)', () => {
    expect(() => declaredLength(String(CAP + 1), CAP)).toThrow(expect.objectContaining({ code: 'E_TOO_LARGE' }));
  });
});

describe('readBodyCapped (HB-19)', () => {
  it('returns the exact bytes of a body within the cap', async () => {
    const body = new TextEncoder().encode('x'.repeat(CAP));
    const out = await readBodyCapped(req(body, { 'content-length': String(CAP) }), CAP);
    expect(out.byteLength).toBe(CAP);
  });

  it('stops a chunked body without Content-Length right after the cap', async () => {
    const { stream, pulled } = pullStream(50_000);
    expect(await codeOf(readBodyCapped(req(stream), CAP))).toBe('E_TOO_LARGE');
    expect(pulled()).toBeLessThanOrEqual(CAP + 64 * 1024);
  });

  it('is not bypassed by a malformed Content-Length (400 before reading)', async () => {
    const { stream, pulled } = pullStream(50_000);
    const r = req(stream);
    r.headers.set('content-length', 'abc');
    expect(await codeOf(readBodyCapped(r, CAP))).toBe('E_USAGE');
    expect(pulled()).toBeLessThanOrEqual(64 * 1024);
  });

  it('refuses a body longer than its declared Content-Length (413)', async () => {
    const { stream, pulled } = pullStream(50_000);
    const r = req(stream);
    r.headers.set('content-length', '500');
    expect(await codeOf(readBodyCapped(r, CAP))).toBe('E_TOO_LARGE');
    expect(pulled()).toBeLessThanOrEqual(CAP + 64 * 1024);
  });

  it('refuses a body shorter than declared, and an empty body', async () => {
    const { stream } = pullStream(10);
    const r = req(stream);
    r.headers.set('content-length', '500');
    expect(await codeOf(readBodyCapped(r, CAP))).toBe('E_STRUCTURE');
    expect(await codeOf(readBodyCapped(req(null), CAP))).toBe('E_STRUCTURE');
    expect(await codeOf(readBodyCapped(req(new Uint8Array(0)), CAP))).toBe('E_STRUCTURE');
  });
});
