import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireProjectLock, withProjectLock } from './lock.js';

describe('project lock', () => {
  it('serializes critical sections', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ctxpkg-lock-'));
    const log: string[] = [];
    const job = (name: string) =>
      withProjectLock(root, async () => {
        log.push(`${name}+`);
        await new Promise((r) => setTimeout(r, 30));
        log.push(`${name}-`);
      });
    await Promise.all([job('a'), job('b')]);
    expect(log).toHaveLength(4);
    expect(log[0][0]).toBe(log[1][0]);
    expect(log[2][0]).toBe(log[3][0]);
    expect(existsSync(join(root, '.ctxpkg', 'lock'))).toBe(false);
  });
  it('breaks a lock left by a dead process', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ctxpkg-lock-'));
    mkdirSync(join(root, '.ctxpkg'));
    writeFileSync(join(root, '.ctxpkg', 'lock'), JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname() }));
    const l = await acquireProjectLock(root, 1000);
    l.release();
  });
  it('breaks an empty lock file left by a crash right after creating it, once it is old', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ctxpkg-lock-'));
    mkdirSync(join(root, '.ctxpkg'));
    const path = join(root, '.ctxpkg', 'lock');
    writeFileSync(path, '');
    await expect(acquireProjectLock(root, 50)).rejects.toMatchObject({ code: 'E_LOCKED' });
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    (await acquireProjectLock(root, 1000)).release();
  });
  it('times out with E_LOCKED while a live process holds it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ctxpkg-lock-'));
    const held = await acquireProjectLock(root);
    await expect(acquireProjectLock(root, 100)).rejects.toMatchObject({ code: 'E_LOCKED' });
    held.release();
  });
});
