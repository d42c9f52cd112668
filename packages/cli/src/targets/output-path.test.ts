import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outputPathProblem } from './output-path.js';

const temp = () => mkdtempSync(join(tmpdir(), 'ctxpkg-out-'));

describe('outputPathProblem', () => {
  it('allows absent files, regular files and directories that stay inside the project', () => {
    const root = temp();
    expect(outputPathProblem(root, 'AGENTS.md')).toBeUndefined();
    writeFileSync(join(root, 'AGENTS.md'), '# x\n');
    expect(outputPathProblem(root, 'AGENTS.md')).toBeUndefined();
    mkdirSync(join(root, 'shared-rules'));
    mkdirSync(join(root, '.cursor'));
    symlinkSync(join(root, 'shared-rules'), join(root, '.cursor', 'rules'));
    expect(outputPathProblem(root, '.cursor/rules/ctxpkg-a__b.mdc')).toBeUndefined();
  });
  it('refuses a symlinked file (inside or outside), a directory resolving outside, a dangling link and a non-file', () => {
    const root = temp();
    const outside = temp();
    writeFileSync(join(outside, 'secret'), 'x');
    symlinkSync(join(outside, 'secret'), join(root, 'AGENTS.md'));
    expect(outputPathProblem(root, 'AGENTS.md')).toMatch(/symbolic link/);
    writeFileSync(join(root, 'real.md'), 'x');
    symlinkSync('real.md', join(root, 'CLAUDE.md'));
    expect(outputPathProblem(root, 'CLAUDE.md')).toMatch(/symbolic link/);
    mkdirSync(join(root, '.cursor'));
    symlinkSync(outside, join(root, '.cursor', 'rules'));
    expect(outputPathProblem(root, '.cursor/rules/ctxpkg-a__b.mdc')).toMatch(/outside the project/);
    symlinkSync(join(outside, 'gone'), join(root, '.github'));
    expect(outputPathProblem(root, '.github/instructions/x.md')).toMatch(/dangling/);
    mkdirSync(join(root, 'dir.md'));
    expect(outputPathProblem(root, 'dir.md')).toMatch(/not a regular file/);
  });
});
