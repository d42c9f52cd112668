import { describe, expect, it } from 'vitest';
import { KeyedLock } from './keyed-lock.js';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('KeyedLock', () => {
  it('runs holders of one key one at a time, in arrival order, and other keys in parallel', async () => {
    const lock = new KeyedLock();
    const events: string[] = [];
    const job = (key: string, name: string) =>
      lock.run(key, async () => {
        events.push(`start ${name}`);
        await tick();
        events.push(`end ${name}`);
        return name;
      });
    const results = await Promise.all([job('a', 'a1'), job('a', 'a2'), job('b', 'b1'), job('a', 'a3')]);
    expect(results).toEqual(['a1', 'a2', 'b1', 'a3']);
    const a = events.filter((e) => e.endsWith('a1') || e.endsWith('a2') || e.endsWith('a3'));
    expect(a).toEqual(['start a1', 'end a1', 'start a2', 'end a2', 'start a3', 'end a3']);
    expect(events.indexOf('start b1')).toBeLessThan(events.indexOf('end a1'));
    expect(lock.size).toBe(0);
  });

  it('releases the key when the holder throws', async () => {
    const lock = new KeyedLock();
    await expect(lock.run('k', async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(await lock.run('k', async () => 'next')).toBe('next');
    expect(lock.size).toBe(0);
  });
});
