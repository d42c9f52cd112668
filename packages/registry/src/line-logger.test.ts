import { describe, expect, it } from 'vitest';
import { bufferedLineLogger, logTimestamp } from './line-logger.js';

describe('bufferedLineLogger', () => {
  it('batches lines and flushes on demand, on size and on its timer', async () => {
    const writes: string[] = [];
    const { log, flush } = bufferedLineLogger((c) => writes.push(c), { flushMs: 20, maxChars: 100 });
    log({ msg: 'a' });
    log({ msg: 'b' });
    expect(writes).toEqual([]);
    flush();
    expect(writes).toEqual(['{"msg":"a"}\n{"msg":"b"}\n']);
    log({ msg: 'x'.repeat(120) });
    expect(writes).toHaveLength(2);
    log({ msg: 'late' });
    await new Promise((r) => setTimeout(r, 60));
    expect(writes[2]).toBe('{"msg":"late"}\n');
    flush();
    expect(writes).toHaveLength(3);
  });
});

describe('logTimestamp', () => {
  it('formats exactly like toISOString for every millisecond asked about, in any order', () => {
    const times = [Date.UTC(2026, 0, 2, 3, 4, 5, 120), Date.UTC(2026, 0, 2, 3, 4, 5, 120), Date.UTC(2026, 0, 2, 3, 4, 5, 121), 0, Date.UTC(2026, 0, 2, 3, 4, 5, 120)];
    for (const ms of times) expect(logTimestamp(ms)).toBe(new Date(ms).toISOString());
    const now = Date.now();
    expect(Date.parse(logTimestamp())).toBeGreaterThanOrEqual(now);
  });
});
