/**
 * A reader that goes away early (`ctxpkg ls --nodes | head -1`, `ctxpkg help install | head -1`)
 * must not crash ctxpkg with a Node stack trace (new-user trial finding 16): the binary stops
 * writing to the closed pipe and exits with the command's own code, printing nothing about it.
 * Real processes and real pipes whose reading end is closed before the binary writes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runBinary } from './support/binary.js';
import { tempDir } from './support/cli.js';

let project: string;
let home: string;

beforeAll(async () => {
  ensureBuilt();
  project = tempDir('ctxpkg-epipe-');
  home = tempDir('ctxpkg-epipe-home-');
  writeFileSync(join(project, 'AGENTS.md'), `# Rules\n\n${Array.from({ length: 400 }, (_, i) => `- Rule number ${i}: never skip step ${i} of the release.`).join('\n')}\n`);
  for (const args of [['init'], ['create', '--name', '@acme/rules', '--from', 'AGENTS.md'], ['install', './acme-rules-1.0.0.ctxpkg']]) {
    const r = await runBinary(args, { cwd: project, home });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  }
}, 120_000);

describe('a closed stdout or stderr pipe', () => {
  it('`ls --nodes` (a long command result) exits 0 quietly when stdout is closed', async () => {
    const full = await runBinary(['ls', '--nodes'], { cwd: project, home });
    expect(full.code).toBe(0);
    expect(full.stdout.split("\n").length).toBeGreaterThan(400);
    const r = await runBinary(['ls', '--nodes'], { cwd: project, home, close: 'stdout' });
    expect(r.stderr).not.toMatch(/EPIPE|node:internal|Error:/);
    expect(r.stderr).toBe('');
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
  }, 60_000);

  it('`help install` (commander output) exits 0 quietly when stdout is closed', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await runBinary(['help', 'install'], { cwd: project, home, close: 'stdout' });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
  }, 60_000);

  it('an error printed to a closed stderr keeps its exit code (2 for a usage error, not a crash)', async () => {
    const r = await runBinary(['no-such-command'], { cwd: project, home, close: 'both' });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
  }, 60_000);
});
