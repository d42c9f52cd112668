/**
 * The README's main job end to end: `npm run demo` (`ctxpkg quickstart`) in this repository,
 * read as an agent reads what it prints — the AGENTS.md block and one native path-scoped rule file.
 *
 * Found by reading the demo's output: every delivered item carried "(ctxpkg: STALE …)" or
 * "(ctxpkg: ABSENT …)", because freshness read the block sync itself had written into the
 * consumer's AGENTS.md as the package's source file (the consumer holds the publisher's paths,
 * not its files). ctxpkg's own output is never source (targets/context.ts `workspaceReader`).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/shared.js';
import { tempDir } from './support/cli.js';

function quickstart(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const home = tempDir('ctxpkg-qs-home-');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', join('packages', 'cli', 'src', 'bin.ts'), 'quickstart'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: home, CTXPKG_HOME: join(home, '.ctxpkg'), NO_COLOR: '1', TMPDIR: tempDir('ctxpkg-qs-tmp-') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm run demo (ctxpkg quickstart) as an agent reads it', () => {
  it('prints the AGENTS.md block and a path-scoped rule file: the team\'s instructions, no freshness noise about the consumer\'s own files', async () => {
    const r = await quickstart();
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    const block = out.slice(out.indexOf('<!-- ctxpkg:begin'), out.indexOf('<!-- ctxpkg:end'));
    expect(block).toContain('## Instructions from @demo/');
    expect(block).toContain('Run all tests: `npm test`');
    expect(block).not.toContain('UNTRUSTED CONTEXT');
    // The consumer project does not hold the publisher's files; nothing is judged against them.
    expect(out).not.toMatch(/\(ctxpkg: (STALE|ABSENT)/);
    const rule = out.slice(out.lastIndexOf('=== a native path-scoped rule file'));
    expect(rule).toMatch(/\n---\npaths: \[.+\]\n---\n<!-- ctxpkg:begin /);
    expect(rule).toContain('# Rules for ');
  }, 120_000);
});
