/**
 * The built `ctxpkg` binary for tests that need a real process (exit codes, signals, pipes):
 * `ensureBuilt` rebuilds dist/ only when a source file is newer, `runBinary` spawns it
 * asynchronously (never `spawnSync` while a registry is hosted in the test process).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './shared.js';

export const BIN = join(REPO_ROOT, 'packages', 'cli', 'bin', 'ctxpkg.js');
const DIST = join(REPO_ROOT, 'packages', 'cli', 'dist', 'bin.js');

/** Build dist/ when it is missing or older than a tracked source file (a clean clone has it from `npm ci`). */
export function ensureBuilt(): void {
  const srcNewest = spawnSync('git', ['-C', REPO_ROOT, 'ls-files', 'packages/*/src/*.ts', 'packages/*/src/**/*.ts'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((f) => f && !f.endsWith('.test.ts') && existsSync(join(REPO_ROOT, f)))
    .reduce((m, f) => Math.max(m, statSync(join(REPO_ROOT, f)).mtimeMs), 0);
  if (existsSync(DIST) && statSync(DIST).mtimeMs >= srcNewest) return;
  const r = spawnSync('npm', ['run', 'build'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm run build failed:\n${r.stdout}\n${r.stderr}`);
}

export interface BinaryRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Run the binary in `cwd` with a minimal environment (`home` as HOME and CTXPKG_HOME). `close`
 * names a stream whose reading end is closed right after the spawn, before the process can write
 * to it (a reader that went away: `ctxpkg … | head -1`); its text is then ''.
 */
export function runBinary(args: string[], opts: { cwd: string; home: string; env?: Record<string, string>; close?: 'stdout' | 'stderr' | 'both' }): Promise<BinaryRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: opts.home, CTXPKG_HOME: opts.home, NO_COLOR: '1', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    if (opts.close === 'stdout' || opts.close === 'both') child.stdout.destroy();
    else child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    if (opts.close === 'stderr' || opts.close === 'both') child.stderr.destroy();
    else child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
