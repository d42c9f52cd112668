/**
 * Every leaf command's `--help` ends with an `Examples:` section (issue 5 item 6: "every command
 * has --help with examples"). The test walks the whole commander tree built by `createProgram`,
 * so a command added later without examples fails here.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { memoryDeps } from './__tests__/memory-deps.js';
import { createProgram, runCli } from './program.js';

/** Paths (`['registry', 'token', 'list']`) of every command without subcommands, sorted. */
function leafPaths(cmd: Command, prefix: string[] = []): string[][] {
  const out: string[][] = [];
  for (const sub of cmd.commands) {
    if (sub.name() === 'help') continue;
    const path = [...prefix, sub.name()];
    if (sub.commands.length === 0) out.push(path);
    else out.push(...leafPaths(sub, path));
  }
  return out.sort((a, b) => (a.join(' ') < b.join(' ') ? -1 : 1));
}

const leaves = leafPaths(await createProgram(memoryDeps('ctxpkg-help-').deps));

describe('--help of every command has examples', () => {

  it('the walk finds the whole tree (registry admin leaves included)', () => {
    const names = leaves.map((p) => p.join(' '));
    for (const n of ['install', 'verify', 'registry serve', 'registry namespace list', 'registry token revoke', 'registry token list', 'registry key add', 'registry key list', 'registry key revoke', 'registry visibility', 'registry events', 'registry gc']) {
      expect(names).toContain(n);
    }
  });

  it.each(leaves.map((p) => [p.join(' '), p] as const))('ctxpkg %s --help', async (_name, path) => {
    const { deps, stdout } = memoryDeps('ctxpkg-help-');
    const code = await runCli([...path, '--help'], deps);
    expect(code).toBe(0);
    expect(stdout()).toMatch(/\nExamples:\n {2}\$ [^\n]*\bctxpkg /);
  });
});
