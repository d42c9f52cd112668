/**
 * A load client for large responses that discards bodies (issue 16 item 5): keep-alive HTTP/1.1
 * GETs over raw `node:net` sockets, one request in flight per connection; each response's
 * status line and headers are parsed, its body (Content-Length or chunked) is only counted, never
 * copied or decoded. autocannon appends every body chunk to a JS string, which caps even the bare
 * floor on 1 MiB bodies; this client's cost per byte is a length check per socket chunk.
 */
import { connect, type Socket } from 'node:net';

export interface DiscardResult {
  /** Completed requests per second over the run. */
  reqPerSec: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
  /** Requests answered with a status other than 2xx, plus socket errors. */
  errors: number;
  total: number;
  bytes: number;
}

/**
 * GET `url` over `connections` keep-alive connections for `seconds`; bodies are discarded.
 * Throws on a malformed response (the bench servers send well-formed ones).
 */
export async function loadDiscard(url: string, connections: number, seconds: number): Promise<DiscardResult> {
  const u = new URL(url);
  const request = Buffer.from(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nConnection: keep-alive\r\n\r\n`, 'latin1');
  const latencies: number[] = [];
  let errors = 0;
  let bytes = 0;
  const end = performance.now() + seconds * 1000;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const sock: Socket = connect(Number(u.port), u.hostname);
      sock.setNoDelay(true);
      let head: Buffer = Buffer.alloc(0);
      let inBody = false;
      let remaining = 0; // body bytes left (Content-Length) or in the current chunk
      let chunked = false;
      let chunkHead = ''; // partial chunk-size line
      let chunkTrail = 0; // CRLF bytes to skip after a chunk's data
      let started = 0;
      const send = (): void => {
        if (performance.now() >= end) {
          sock.end();
          return;
        }
        started = performance.now();
        head = Buffer.alloc(0);
        inBody = false;
        sock.write(request);
      };
      const done = (): void => {
        latencies.push(performance.now() - started);
        send();
      };
      /** Consume chunked framing from `b` at `i`; returns true when the response is complete. */
      const chunkedFrom = (b: Buffer, i: number): boolean => {
        while (i < b.length) {
          if (remaining > 0) {
            const n = Math.min(remaining, b.length - i);
            remaining -= n;
            bytes += n;
            i += n;
            continue;
          }
          if (chunkTrail > 0) {
            const n = Math.min(chunkTrail, b.length - i);
            chunkTrail -= n;
            i += n;
            continue;
          }
          const nl = b.indexOf(0x0a, i);
          if (nl < 0) {
            chunkHead += b.toString('latin1', i);
            return false;
          }
          const line = (chunkHead + b.toString('latin1', i, nl)).trim();
          chunkHead = '';
          i = nl + 1;
          const size = parseInt(line, 16);
          if (size === 0) return true; // (no trailers from the bench servers) final CRLF follows
          remaining = size;
          chunkTrail = 2;
        }
        return false;
      };
      sock.on('connect', send);
      sock.on('data', (chunk: Buffer) => {
        let b: Buffer = chunk;
        let i = 0;
        if (!inBody) {
          head = head.length ? Buffer.concat([head, b]) : b;
          // The CRLF that closes the previous response's last chunk may arrive on its own.
          while (head.length >= 2 && head[0] === 0x0d && head[1] === 0x0a) head = head.subarray(2);
          const at = head.indexOf('\r\n\r\n');
          if (at < 0) return;
          const text = head.toString('latin1', 0, at);
          const status = Number(text.slice(9, 12));
          if (status < 200 || status > 299) errors++;
          const cl = /\r\ncontent-length:\s*(\d+)/i.exec(text);
          chunked = !cl && /\r\ntransfer-encoding:\s*chunked/i.test(text);
          remaining = cl ? Number(cl[1]) : 0;
          inBody = true;
          b = head;
          i = at + 4;
        }
        if (chunked) {
          if (chunkedFrom(b, i)) {
            // The zero-size chunk's line is read; its final CRLF arrives with or after it.
            chunked = false;
            remaining = 0;
            done();
          }
          return;
        }
        const n = b.length - i;
        bytes += Math.min(n, remaining);
        remaining -= n;
        if (remaining <= 0) done();
      });
      sock.on('error', () => {
        errors++;
        resolve();
      });
      sock.on('close', () => resolve());
    });
  const t0 = performance.now();
  await Promise.all(Array.from({ length: connections }, one));
  const elapsed = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  return { reqPerSec: latencies.length / elapsed, p50: pct(50), p99: pct(99), errors, total: latencies.length, bytes };
}
