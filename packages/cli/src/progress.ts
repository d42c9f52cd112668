/**
 * Progress output: a one-line bar on stderr, only when stderr is a TTY (never in pipes, CI logs or
 * `--json` runs). Uses no colour, so `NO_COLOR` needs no special case here.
 */
import type { OutputStream } from './deps.js';

export interface Progress {
  /** Report `done` of `total` units (bytes or packages); `total` 0 means unknown. */
  update(done: number, total: number): void;
  /** Clear the line. */
  done(): void;
}

const NOOP: Progress = { update() {}, done() {} };

function human(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * A progress bar labelled `label` on `stream` when it is a TTY and `enabled`; otherwise a no-op.
 * `unit` chooses byte formatting or plain counts. Redraws at most every 50 ms.
 */
export function createProgress(
  stream: OutputStream,
  label: string,
  opts: { enabled?: boolean; unit?: 'bytes' | 'count' } = {},
): Progress {
  if (!stream.isTTY || opts.enabled === false) return NOOP;
  const width = Math.max(10, Math.min(30, (stream.columns ?? 80) - label.length - 30));
  let last = 0;
  let drawn = false;
  const fmt = opts.unit === 'count' ? (n: number) => String(n) : human;
  return {
    update(done, total) {
      const now = Date.now();
      if (now - last < 50 && done < total) return;
      last = now;
      const frac = total > 0 ? Math.min(1, done / total) : 0;
      const fill = Math.round(frac * width);
      const bar = total > 0 ? `[${'#'.repeat(fill)}${'-'.repeat(width - fill)}] ` : '';
      const amount = total > 0 ? `${fmt(done)}/${fmt(total)}` : fmt(done);
      stream.write(`\r${label} ${bar}${amount}\x1b[K`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\r\x1b[K');
    },
  };
}
