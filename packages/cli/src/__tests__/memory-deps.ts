/**
 * Test-only CliDeps: a fresh temporary directory as cwd and home, captured stdout/stderr, empty
 * stdin, a fetch that throws (no network in unit tests) and a fixed clock.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { CliDeps } from '../deps.js';

export interface MemoryDeps {
  deps: CliDeps;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
}

/** Deps rooted at a new directory `<tmpdir>/<prefix>XXXXXX` (CTXPKG_HOME is its `.home`). */
export function memoryDeps(prefix: string): MemoryDeps {
  const cwd = mkdtempSync(join(tmpdir(), prefix));
  let stdout = '';
  let stderr = '';
  const stdin = new PassThrough();
  stdin.end();
  const deps: CliDeps = {
    fetch: (() => {
      throw new Error('no network here');
    }) as unknown as typeof fetch,
    env: { CTXPKG_HOME: join(cwd, '.home') },
    cwd,
    homeDir: cwd,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin,
    clock: () => new Date('2026-01-02T03:04:05Z'),
  };
  return { deps, stdout: () => stdout, stderr: () => stderr };
}
