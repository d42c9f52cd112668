import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireProjectLock } from './lock.js';
import { checkDerivedDirs, DERIVED_DIRS } from './project-dirs.js';

const temp = () => mkdtempSync(join(tmpdir(), 'ctxpkg-dirs-'));

describe('checkDerivedDirs', () => {
  it('accepts a project without .ctxpkg and one with real directories', () => {
    const root = temp();
    expect(() => checkDerivedDirs(root)).not.toThrow();
    for (const d of DERIVED_DIRS) mkdirSync(join(root, d), { recursive: true });
    expect(() => checkDerivedDirs(root)).not.toThrow();
  });
  it.each(DERIVED_DIRS.map((d) => [d]))('refuses %s as a symbolic link (E_UNSAFE_PATH), and the project lock is not taken', async (d) => {
    const root = temp();
    const outside = temp();
    mkdirSync(join(root, d, '..'), { recursive: true });
    symlinkSync(outside, join(root, d));
    expect(() => checkDerivedDirs(root)).toThrow(expect.objectContaining({ code: 'E_UNSAFE_PATH' }));
    await expect(acquireProjectLock(root, 100)).rejects.toMatchObject({ code: 'E_UNSAFE_PATH' });
  });
  it('refuses a regular file where a derived directory belongs', () => {
    const root = temp();
    writeFileSync(join(root, '.ctxpkg'), 'not a dir');
    expect(() => checkDerivedDirs(root)).toThrow(expect.objectContaining({ code: 'E_UNSAFE_PATH' }));
  });
});
