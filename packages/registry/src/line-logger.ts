/**
 * A JSON-lines logger that batches writes: lines are buffered and written every `flushMs`
 * milliseconds or as soon as `maxChars` characters are pending, so a busy server does not pay
 * one write (often synchronous, for pipes and files) per request. `flush()` writes what is
 * pending; call it before exiting. Lines buffered when a process is killed are lost (at most
 * `flushMs` worth).
 */
import type { LogEntry, Logger } from './options.js';

/**
 * A `Logger` that writes one JSON line per entry to `write`, batched: pending lines go out in one
 * call every `flushMs` milliseconds (default 50) or once `maxChars` characters (UTF-16 code units)
 * are pending. Returns the logger with `flush()`. Throws nothing itself; `write` errors propagate.
 */
export function bufferedLineLogger(
  write: (chunk: string) => unknown,
  opts: { flushMs?: number; maxChars?: number } = {},
): { log: Logger; flush(): void } {
  const flushMs = opts.flushMs ?? 50;
  const maxChars = opts.maxChars ?? 64 * 1024;
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (pending === '') return;
    const out = pending;
    pending = '';
    write(out);
  };
  const log = (entry: LogEntry) => {
    pending += JSON.stringify(entry) + '\n';
    if (pending.length >= maxChars) flush();
    else if (!timer) {
      timer = setTimeout(flush, flushMs);
      timer.unref();
    }
  };
  return { log, flush };
}

let stampMs = Number.NaN;
let stampText = '';

/**
 * `new Date(ms).toISOString()` (UTC, milliseconds: `2026-01-02T03:04:05.120Z`), remembered for the
 * last millisecond asked about: a busy server logs many requests per millisecond, and formatting
 * the date is a large part of writing a log line.
 */
export function logTimestamp(ms: number = Date.now()): string {
  if (ms !== stampMs) {
    stampText = new Date(ms).toISOString();
    stampMs = ms;
  }
  return stampText;
}
